"""The Redis broker's bell, against a real Redis: an idle consumer takes a message the moment it
is sent, without fetching again and again while its queue is empty."""

import threading
import time
import uuid
from collections.abc import Iterator

import dramatiq
import pytest

from infra.broker import RungRedisBroker, make_broker

QUEUE = "q"
IDLE_MS = 10_000  # a consumer's worker timeout far beyond anything the tests wait for


@pytest.fixture
def broker(redis_url: str) -> Iterator[RungRedisBroker]:
    broker = make_broker(redis_url, namespace=f"test-{uuid.uuid4().hex}")
    assert isinstance(broker, RungRedisBroker)
    broker.declare_queue(QUEUE)
    yield broker
    broker.client.delete(*broker.client.keys(f"{broker.namespace}:*") or ["-"])
    broker.close()


def sent(broker: dramatiq.Broker, n: int) -> dramatiq.Message:
    message = dramatiq.Message(queue_name=QUEUE, actor_name="a", args=(n,), kwargs={}, options={})
    return broker.enqueue(message)


class Taking(threading.Thread):
    """Iterates a consumer as a Dramatiq worker does, noting when each message came, how
    often the consumer fetched from Redis and how often it found nothing."""

    def __init__(self, broker: RungRedisBroker, prefetch: int) -> None:
        super().__init__(daemon=True)
        self.fetches = self.found_none = 0
        fetch = broker.do_fetch

        def counted(*args):
            self.fetches += 1
            found = fetch(*args)
            self.found_none += not found
            return found

        broker.do_fetch = counted  # type: ignore[method-assign]
        self.consumer = broker.consume(QUEUE, prefetch=prefetch, timeout=IDLE_MS)
        self.taken: list[tuple[float, dramatiq.MessageProxy]] = []
        self.running = True

    def run(self) -> None:
        while self.running:
            message = next(self.consumer)
            if message is not None:
                self.taken.append((time.monotonic(), message))

    def stop(self, broker: RungRedisBroker) -> None:
        self.running = False
        sent(broker, -1)  # rings, so the wait ends
        self.join(timeout=5)
        self.consumer.close()


def test_an_idle_consumer_waits_without_fetching_and_takes_a_message_at_once(broker):
    taking = Taking(broker, prefetch=2)
    taking.start()
    time.sleep(0.5)
    looked = taking.fetches
    time.sleep(1.0)
    fetched_idle = taking.fetches - looked

    at = time.monotonic()
    sent(broker, 1)
    while not taking.taken and time.monotonic() < at + 5:
        time.sleep(0.005)
    taking.stop(broker)

    assert looked <= 2
    assert fetched_idle == 0  # Dramatiq's own consumer looks again at every worker timeout
    assert [m.args for _, m in taking.taken[:1]] == [(1,)]
    assert taking.taken[0][0] - at < 0.5


def test_messages_sent_in_a_stream_are_fetched_a_few_at_a_time_not_one_a_ring(broker):
    taking = Taking(broker, prefetch=100)
    taking.start()
    time.sleep(0.5)
    looked, none = taking.fetches, taking.found_none
    at = time.monotonic()
    for n in range(60):  # a message every millisecond or so, as a busy table service sends
        sent(broker, n)
        time.sleep(0.001)
    while len(taking.taken) < 60:
        time.sleep(0.005)
    fetched, found_none = taking.fetches - looked, taking.found_none - none
    took = time.monotonic() - at
    taking.stop(broker)

    assert [m.args for _, m in taking.taken[:60]] == [(n,) for n in range(60)]
    # Dramatiq's own wait of at least 5 ms follows a fetch that finds nothing, before the bell
    # is heard: however slowly a loaded machine sends, such fetches come at least 5 ms apart,
    # and each fetch that finds some takes what came meanwhile. A consumer that fetched at
    # every ring would fetch twice a message, one finding it and one finding none: 120
    # fetches, 60 of them empty, in ~90 ms.
    assert found_none <= took / 0.005 + 1
    assert fetched < 60


def test_a_consumer_holding_all_it_may_takes_the_next_message_once_one_is_done(broker):
    taking = Taking(broker, prefetch=1)
    taking.start()
    sent(broker, 1)
    sent(broker, 2)  # rings while the consumer holds the first: no ring is left for later
    while not taking.taken:
        time.sleep(0.005)
    time.sleep(0.3)
    assert [m.args for _, m in taking.taken] == [(1,)]

    at = time.monotonic()
    taking.consumer.ack(taking.taken[0][1])
    while len(taking.taken) < 2 and time.monotonic() < at + 5:
        time.sleep(0.005)
    taking.stop(broker)

    assert [m.args for _, m in taking.taken[:2]] == [(1,), (2,)]
    assert taking.taken[1][0] - at < 0.5


def test_messages_sent_together_go_in_one_round_trip_and_are_taken_and_acked_as_any(broker):
    """enqueue_all gives each message what Dramatiq's enqueue would (its own id in Redis,
    the enqueue middleware) in one pipeline with one ring, and an idle consumer takes them
    all in order; acked, nothing of them is left on the server."""
    taking = Taking(broker, prefetch=100)
    taking.start()
    time.sleep(0.3)
    calls = {"commands": 0, "pipelines": 0}
    command, pipeline = broker.client.execute_command, broker.client.pipeline

    here = threading.get_ident()  # the consumer's thread fetches on the same client

    def one_command(*args, **kwargs):
        calls["commands"] += threading.get_ident() == here
        return command(*args, **kwargs)

    def one_pipeline(*args, **kwargs):
        calls["pipelines"] += 1
        return pipeline(*args, **kwargs)

    broker.client.execute_command = one_command  # type: ignore[method-assign]
    broker.client.pipeline = one_pipeline  # type: ignore[method-assign]
    messages = [
        dramatiq.Message(queue_name=QUEUE, actor_name="a", args=(n,), kwargs={}, options={})
        for n in range(50)
    ]
    broker.enqueue_all(messages)
    assert calls == {"commands": 0, "pipelines": 1}
    broker.client.execute_command, broker.client.pipeline = command, pipeline  # type: ignore[method-assign]

    at = time.monotonic()
    while len(taking.taken) < 50 and time.monotonic() < at + 5:
        time.sleep(0.005)
    assert [m.args for _, m in taking.taken] == [(n,) for n in range(50)]
    assert len({m.options["redis_message_id"] for _, m in taking.taken}) == 50
    for _, message in taking.taken:
        taking.consumer.ack(message)
    taking.stop(broker)
    assert broker.client.hlen(f"{broker.namespace}:{QUEUE}.msgs") == 1  # the stop's own
