"""What waits in the broker's queues, read from the broker itself: how many messages each queue
holds, and on Redis how old its oldest is.

Each process knows only what it sent or took; the queue's depth, and the age of what sits in
it, say whether the workers keep up, over every machine. Read when asked (a scrape), never
kept.
"""

from __future__ import annotations

import asyncio
import time

import msgspec
import pika
import pika.exceptions
import redis.asyncio as aioredis

from infra import keyvalue
from infra.broker import AMQP, BOT_QUEUE, RATINGS_QUEUE, REVIEWS_QUEUE

QUEUES = (BOT_QUEUE, RATINGS_QUEUE, REVIEWS_QUEUE)
TIMEOUT = 2.0


class _Sent(msgspec.Struct):
    message_timestamp: int  # milliseconds since the epoch, when Dramatiq made the message


_sent = msgspec.json.Decoder(_Sent).decode


async def depths(url: str, namespace: str = "euchre") -> dict[str, tuple[int, float | None]]:
    """For each queue, the messages waiting and the age in seconds of the oldest (None where
    the broker can't say: RabbitMQ tells counts only, without its management plugin)."""
    if url.startswith(AMQP):
        counts = await asyncio.wait_for(asyncio.to_thread(_amqp_counts, url), TIMEOUT * 2)
        return {queue: (count, None) for queue, count in counts.items()}
    client = keyvalue.connect(url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
    try:
        return {queue: await _redis_queue(client, f"{namespace}:{queue}") for queue in QUEUES}
    finally:
        await client.aclose()


async def _redis_queue(client: aioredis.Redis, key: str) -> tuple[int, float | None]:
    """Dramatiq's Redis broker keeps a queue as a list of message ids, pushed on the right and
    taken from the left, and the messages in a hash beside it (`.msgs`)."""
    async with client.pipeline(transaction=False) as pipe:
        pipe.llen(key)
        pipe.lindex(key, 0)
        count, oldest = await pipe.execute()
    if oldest is None:
        return count, None
    message = await client.hget(f"{key}.msgs", oldest)
    if message is None:  # taken meanwhile
        return count, None
    try:
        made = _sent(message).message_timestamp / 1000
    except msgspec.DecodeError:
        return count, None
    return count, max(0.0, time.time() - made)


def _amqp_counts(url: str) -> dict[str, int]:
    """A passive declare per queue: the broker's count of its ready messages. A queue no
    worker has declared yet holds nothing."""
    parameters = pika.URLParameters(url)
    parameters.socket_timeout = TIMEOUT
    parameters.blocked_connection_timeout = TIMEOUT
    connection = pika.BlockingConnection(parameters)
    try:
        counts = {}
        channel = connection.channel()
        for queue in QUEUES:
            try:
                declared = channel.queue_declare(queue, passive=True)
                counts[queue] = declared.method.message_count
            except pika.exceptions.ChannelClosedByBroker:
                counts[queue] = 0  # not there: the broker closed the channel saying so
                channel = connection.channel()
        return counts
    finally:
        connection.close()
