"""The message broker: Dramatiq on Redis or RabbitMQ, and sending a bot's turn without
importing its actor.

The API only ever sends; workers declare the actor that receives. Both sides agree on the
actor and queue names here. Redis is the default (the embedded Valkey, or any Redis); Dramatiq's
Redis broker can't use Redis Cluster, so where the queue itself must survive a server's loss,
RabbitMQ (quorum queues on a cluster) is the highly available choice. On Redis, `namespace`
keeps separate deployments (or tests) on one server apart; on RabbitMQ the URL's vhost does.
"""

from __future__ import annotations

import asyncio
import time
from urllib.parse import urlsplit

import dramatiq
from dramatiq.brokers.rabbitmq import RabbitmqBroker
from dramatiq.brokers.redis import RedisBroker

BOT_TURN = "bot_turn"
BOT_QUEUE = "bots"
# A wake-up for the ratings follower (infra/ratings.py): it carries nothing, since the
# follower reads where it got to from its checkpoint, so any number of them rate each game once.
RATE_GAMES = "rate_games"
RATINGS_QUEUE = "ratings"
# Likewise for the reviews follower (infra/reviews.py), woken once a hand is scored; a queue of
# its own, so reviewing hands never holds up a game's rating or a bot's turn.
REVIEW_HANDS = "review_hands"
REVIEWS_QUEUE = "reviews"
AMQP = ("amqp://", "amqps://")


def make_broker(url: str, namespace: str = "euchre") -> dramatiq.Broker:
    if url.startswith(AMQP):
        # Publisher confirms: a send that returns is on the broker, not in a socket buffer.
        return RabbitmqBroker(url=url, confirm_delivery=True)
    return RedisBroker(url=url, namespace=namespace)


# What a client sends first to speak AMQP 0-9-1; a RabbitMQ that is up answers with its
# Connection.Start method frame (frame type 1).
AMQP_HEADER = b"AMQP\x00\x00\x09\x01"


async def amqp_answers(url: str, timeout: float = 2.0) -> None:
    """Raise unless a RabbitMQ at `url` answers the protocol header: a check for health that
    needs no blocking client and leaves no connection behind (TLS for amqps:// URLs)."""
    parts = urlsplit(url)
    tls = parts.scheme == "amqps"
    port = parts.port or (5671 if tls else 5672)
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection(parts.hostname, port, ssl=tls or None)
        try:
            writer.write(AMQP_HEADER)
            await writer.drain()
            frame = await reader.readexactly(1)
        finally:
            writer.close()
    if frame != b"\x01":
        raise ConnectionError(f"{parts.hostname}:{port} does not speak AMQP 0-9-1")


def send_bot_turn(broker: dramatiq.Broker, code: str, key: str, delay_seconds: float) -> None:
    """A bot's turn, due `delay_seconds` from now (by this machine's clock, as Dramatiq's own
    delays are). It goes on the ready queue at once and carries when it is due; the worker that
    takes it waits out the rest. Dramatiq's delay would send it through a second queue, with
    three more round trips to the broker and a poll's wait: half of a worker's time at 150
    tables went on that machinery (docs/scaling.md)."""
    due = time.time() + delay_seconds
    message = dramatiq.Message(
        queue_name=BOT_QUEUE, actor_name=BOT_TURN, args=(code, key, due), kwargs={}, options={}
    )
    broker.enqueue(message)


def send_wake_up(broker: dramatiq.Broker, actor: str, queue: str) -> None:
    """Wake a read model's follower: a message that carries nothing."""
    message = dramatiq.Message(queue_name=queue, actor_name=actor, args=(), kwargs={}, options={})
    broker.enqueue(message)


def send_rate_games(broker: dramatiq.Broker) -> None:
    send_wake_up(broker, RATE_GAMES, RATINGS_QUEUE)


def send_review_hands(broker: dramatiq.Broker) -> None:
    send_wake_up(broker, REVIEW_HANDS, REVIEWS_QUEUE)
