"""The message broker: Dramatiq on Redis or RabbitMQ, and sending a bot's turn without
importing its actor.

The API only ever sends; workers declare the actor that receives. Both sides agree on the
actor and queue names here. Redis is the default (the embedded Valkey, or any Redis); Dramatiq's
Redis broker can't use Redis Cluster, so where the queue itself must survive a server's loss,
RabbitMQ (quorum queues on a cluster) is the highly available choice. On Redis, `namespace`
keeps separate deployments (or tests) on one server apart; on RabbitMQ the URL's vhost does.
"""

from __future__ import annotations

import dramatiq
from dramatiq.brokers.rabbitmq import RabbitmqBroker
from dramatiq.brokers.redis import RedisBroker

BOT_TURN = "bot_turn"
BOT_QUEUE = "bots"
AMQP = ("amqp://", "amqps://")


def make_broker(url: str, namespace: str = "euchre") -> dramatiq.Broker:
    if url.startswith(AMQP):
        # Publisher confirms: a send that returns is on the broker, not in a socket buffer.
        return RabbitmqBroker(url=url, confirm_delivery=True)
    return RedisBroker(url=url, namespace=namespace)


def send_bot_turn(broker: dramatiq.Broker, code: str, key: str, delay_seconds: float) -> None:
    message = dramatiq.Message(
        queue_name=BOT_QUEUE, actor_name=BOT_TURN, args=(code, key), kwargs={}, options={}
    )
    broker.enqueue(message, delay=int(delay_seconds * 1000) or None)
