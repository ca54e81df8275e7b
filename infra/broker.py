"""The message broker: Dramatiq on Redis, and sending a bot's turn without importing its actor.

The API only ever sends; workers declare the actor that receives. Both sides agree on the
actor and queue names here. `namespace` keeps separate deployments (or tests) on one Redis
from seeing each other's queues.
"""

from __future__ import annotations

import dramatiq
from dramatiq.brokers.redis import RedisBroker

BOT_TURN = "bot_turn"
BOT_QUEUE = "bots"


def make_broker(redis_url: str, namespace: str = "euchre") -> RedisBroker:
    return RedisBroker(url=redis_url, namespace=namespace)


def send_bot_turn(broker: dramatiq.Broker, code: str, key: str, delay_seconds: float) -> None:
    message = dramatiq.Message(
        queue_name=BOT_QUEUE, actor_name=BOT_TURN, args=(code, key), kwargs={}, options={}
    )
    broker.enqueue(message, delay=int(delay_seconds * 1000) or None)
