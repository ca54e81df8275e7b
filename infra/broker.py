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
import contextvars
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit
from uuid import uuid4

import dramatiq
import msgspec
import pika
import pika.exceptions
import redis
from dramatiq.brokers.rabbitmq import DEAD_MESSAGE_TTL, RabbitmqBroker
from dramatiq.brokers.redis import RedisBroker, _RedisConsumer
from dramatiq.common import current_millis, xq_name
from dramatiq.errors import ConnectionClosed

from infra import keyvalue, tracing

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
# RabbitMQ's queue types for the queues Dramatiq declares (EUCHRE_RABBITMQ_QUEUE_TYPE).
QUEUE_TYPES = ("classic", "quorum")


def make_broker(
    url: str, namespace: str = "euchre", queue_type: str = "classic"
) -> dramatiq.Broker:
    """The broker at `url`; on RabbitMQ, its queues of `queue_type` (the Redis broker has one
    kind)."""
    broker: dramatiq.Broker
    if url.startswith(AMQP):
        kind = QuorumRabbitmqBroker if queue_type == "quorum" else RabbitmqBroker
        # Publisher confirms: a send that returns is on the broker, not in a socket buffer.
        broker = kind(url=url, confirm_delivery=True)
    else:
        broker = RungRedisBroker(client=keyvalue.client(url), namespace=namespace)
    if tracing.on():
        broker.add_middleware(tracing.DramatiqTracing())
    return broker


# For each message sent, the context it is sent in (infra/tracing.py `captured`), if not
# the sending thread's own: turns gathered from many commits go in one send.
Contexts = Sequence[contextvars.Context | None] | None


class QuorumRabbitmqBroker(RabbitmqBroker):
    """Dramatiq's RabbitMQ broker declaring quorum queues: replicated over a cluster's nodes,
    so queued bot turns outlive a node's loss. Dramatiq has no switch for the type, but it
    declares every queue it uses (the queue, its delay queue and its dead-letter queue) through
    these two methods; each gets `x-queue-type`. Quorum queues are always durable and never
    exclusive or auto-deleted, as Dramatiq declares its own; they don't take `x-max-priority`,
    which is set only with a `max_priority` this service never gives."""

    def _build_queue_arguments(self, queue_name: str) -> dict[str, object]:
        return {**super()._build_queue_arguments(queue_name), "x-queue-type": "quorum"}

    def _declare_xq_queue(self, queue_name: str) -> object:
        # Dramatiq's own arguments for the dead letters (a TTL that drops them after a week).
        return self.channel.queue_declare(
            queue=xq_name(queue_name),
            durable=True,
            arguments={"x-message-ttl": DEAD_MESSAGE_TTL, "x-queue-type": "quorum"},
        )


# After a look that finds the queue empty, Dramatiq's own wait (up to this long) before the
# consumer listens for the bell: a run of messages sent meanwhile comes in one fetch, where a
# fetch at every ring took them one by one.
BUSY_MS = 20


class RungRedisBroker(RedisBroker):
    """Dramatiq's Redis broker with a bell: every message sent is announced on its queue's
    channel, and a consumer that finds its queue empty waits for that announcement.

    Redis has no push, so Dramatiq's consumer fetches again (a Lua script) every worker
    timeout while its queue is empty; at the 20 ms a bot's turn needed to be taken on time,
    an idle worker process spent 5% of a core on it and the Redis 1% (docs/scaling.md). Here
    the worker timeout is only how long an idle consumer goes without a fetch: it still
    fetches that often, for what comes back without being sent (a dead worker's messages,
    which Dramatiq's upkeep puts back) and for its worker's heartbeat.
    """

    @property
    def consumer_class(self) -> type[_RedisConsumer]:
        return _RungConsumer

    def bell(self, queue_name: str) -> str:
        return f"{self.namespace}:{queue_name}.bell"

    def enqueue(self, message: dramatiq.Message, *, delay: int | None = None) -> dramatiq.Message:
        sent = super().enqueue(message, delay=delay)
        self.client.publish(self.bell(sent.queue_name), b"")
        return sent

    def enqueue_all(self, messages: Sequence[dramatiq.Message], contexts: Contexts = None) -> None:
        """Enqueue each message as `enqueue` does (no delay), all in one round trip, with
        one ring for each queue.

        A thread that sends while its process's event loop is busy waits up to the switch
        interval (5 ms) for the GIL after every reply: sent one by one, a message and its ring
        cost ~10 ms each, and the API's one sending thread fell behind its 300 bot turns a
        second, seconds behind at 1,000 tables (docs/scaling.md). Each message goes through
        Dramatiq's own enqueue script with the arguments its `enqueue` gives it, each in its
        own context, if `contexts` gives one."""
        script = self.scripts["dispatch"]
        with self.client.pipeline(transaction=False) as pipe:
            sent = []
            for message, context in zip(messages, contexts or [None] * len(messages), strict=True):
                message = message.copy(options={"redis_message_id": str(uuid4())})
                tracing.within(context, self.emit_before, "enqueue", message, None)
                args = [
                    "enqueue",
                    current_millis(),
                    message.queue_name,
                    self.broker_id,
                    self.heartbeat_timeout,
                    self.dead_message_ttl,
                    self._should_do_maintenance("enqueue"),
                    self._max_unpack_size(),
                    message.options["redis_message_id"],
                    message.encode(),
                ]
                script(keys=[self.namespace], args=args, client=pipe)
                sent.append(message)
            for queue in {m.queue_name for m in sent}:
                pipe.publish(self.bell(queue), b"")
            try:
                pipe.execute()
            except redis.ConnectionError as error:
                raise ConnectionClosed(error) from None
        for message in sent:
            self.emit_after("enqueue", message, None)


class _RungConsumer(_RedisConsumer):
    def __init__(self, broker: RungRedisBroker, queue_name: str, prefetch: int, timeout: int):
        super().__init__(broker, queue_name, prefetch, BUSY_MS)
        self._wait = timeout / 1000
        self._bell = broker.client.pubsub()
        try:
            self._bell.subscribe(broker.bell(queue_name))
            # Listening before the first fetch: a message sent after it finds nothing rings.
            self._bell.get_message(timeout=10)
        except redis.ConnectionError as error:
            raise ConnectionClosed(error) from None

    def __next__(self) -> Any:
        # Holding all it may, it doesn't fetch: whatever is sent waits for a worker thread to
        # finish, not for a ring (which may have come already). Judged before, since a thread
        # may finish meanwhile.
        full = not self.message_cache and self.outstanding_message_count >= self.prefetch
        message = super().__next__()  # if none, after Dramatiq's own short wait
        if message is not None:
            return message
        # Rings are read even while the consumer is full, so they never pile up on the server.
        try:
            rung = self._bell.get_message(timeout=0.0 if full else self._wait)
            while rung is not None:  # the next fetch takes whatever all the rings announced
                rung = self._bell.get_message()
        except redis.ConnectionError as error:
            raise ConnectionClosed(error) from None
        return None

    def close(self) -> None:
        self._bell.close()


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


# (table code, decision key, delay in seconds); no delay: a turn sent again after it failed,
# played on the message's thread with Dramatiq's retries (services/bots/runtime.py).
Turn = tuple[str, str, float | None]


def send_bot_turns(
    broker: dramatiq.Broker, turns: Sequence[Turn], contexts: Contexts = None
) -> None:
    """Bots' turns, each due its delay from now (by this machine's clock, as Dramatiq's own
    delays are). Each goes on the ready queue at once and carries when it is due; the worker
    that takes it waits out the rest. Dramatiq's delay would send it through a second queue,
    with three more round trips to the broker and a poll's wait: half of a worker's time at
    150 tables went on that machinery (docs/scaling.md). On Redis they go in one round trip.
    `contexts`: each turn's, for its trace (the commit that left it pending)."""
    now = time.time()
    messages = [
        dramatiq.Message(
            queue_name=BOT_QUEUE,
            actor_name=BOT_TURN,
            args=(code, key) if delay is None else (code, key, now + delay),
            kwargs={},
            options={},
        )
        for code, key, delay in turns
    ]
    if isinstance(broker, RungRedisBroker):
        broker.enqueue_all(messages, contexts)
    else:
        for message, context in zip(messages, contexts or [None] * len(messages), strict=True):
            tracing.within(context, broker.enqueue, message)


def send_wake_up(broker: dramatiq.Broker, actor: str, queue: str) -> None:
    """Wake a read model's follower: a message that carries nothing."""
    message = dramatiq.Message(queue_name=queue, actor_name=actor, args=(), kwargs={}, options={})
    broker.enqueue(message)


def send_rate_games(broker: dramatiq.Broker) -> None:
    send_wake_up(broker, RATE_GAMES, RATINGS_QUEUE)


def send_review_hands(broker: dramatiq.Broker) -> None:
    send_wake_up(broker, REVIEW_HANDS, REVIEWS_QUEUE)


QUEUES = (BOT_QUEUE, RATINGS_QUEUE, REVIEWS_QUEUE)


class QueueDepth(msgspec.Struct, frozen=True):
    """A queue's messages, as an operator sees them (`euchre status`). `ready`: waiting for a
    worker; `delayed`: due later; `unacked`: taken by a worker and not yet done (Redis only);
    `dead`: failed for good; `consumers`: workers taking from it (RabbitMQ only). None: the
    broker doesn't say, or the queue isn't there yet."""

    queue: str
    ready: int | None
    delayed: int | None
    unacked: int | None
    dead: int | None
    consumers: int | None


def queue_depths(url: str, namespace: str = "euchre") -> list[QueueDepth]:
    """Each of the service's queues on the broker at `url`, counted without changing it."""
    if url.startswith(AMQP):
        return _depths_on_rabbitmq(url)
    return _depths_on_redis(url, namespace)


def _depths_on_redis(url: str, namespace: str) -> list[QueueDepth]:
    """Dramatiq's Redis broker keeps a queue's ids in a list, every message not yet acked in
    a hash beside it, the delayed ones under `.DQ` and the dead in a sorted set under `.XQ`."""
    client = keyvalue.client(url)
    try:
        depths = []
        for queue in QUEUES:
            name = f"{namespace}:{queue}"
            with client.pipeline(transaction=False) as pipe:
                pipe.llen(name)
                pipe.hlen(f"{name}.msgs")
                pipe.hlen(f"{name}.DQ.msgs")
                pipe.zcard(f"{name}.XQ")
                ready, held, delayed, dead = pipe.execute()
            depths.append(QueueDepth(queue, ready, delayed, max(0, held - ready), dead, None))
        return depths
    finally:
        client.close()


def _depths_on_rabbitmq(url: str) -> list[QueueDepth]:
    connection = pika.BlockingConnection(pika.URLParameters(url))
    try:

        def declared(name: str) -> tuple[int, int] | None:
            """A passive declare counts a queue without making it; one not there yet is
            None (and closes the channel, so each gets its own)."""
            channel = connection.channel()
            try:
                found = channel.queue_declare(queue=name, passive=True).method
            except pika.exceptions.ChannelClosedByBroker:
                return None
            channel.close()
            return found.message_count, found.consumer_count

        depths = []
        for queue in QUEUES:
            main, delayed, dead = (declared(f"{queue}{tail}") for tail in ("", ".DQ", ".XQ"))
            depths.append(
                QueueDepth(
                    queue,
                    None if main is None else main[0],
                    None if delayed is None else delayed[0],
                    None,
                    None if dead is None else dead[0],
                    None if main is None else main[1],
                )
            )
        return depths
    finally:
        connection.close()
