"""Tracing (infra/tracing.py). Dramatiq's middleware on a real broker, Redis and RabbitMQ: a
message sent in a span is taken in a span of the same trace, whose parent is the send's, which
is current while the actor runs and gone from the worker's thread once it is done; an actor's
exception is recorded on its span; turns sent together each go in their own move's trace. And
the sampler: traces start only where work comes in, and never stop half-way."""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Iterator

import dramatiq
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from infra import tracing
from infra.broker import RungRedisBroker, make_broker, send_bot_turns

QUEUE = "bots"  # send_bot_turns's queue


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use(provider)
    try:
        yield exporter
    finally:
        tracing.use(None)


@pytest.fixture(params=["redis", "rabbitmq"])
def broker(request: pytest.FixtureRequest, spans: InMemorySpanExporter) -> Iterator:
    """A broker made while tracing is on, so with the middleware."""
    url = request.getfixturevalue(f"{request.param}_url")
    namespace = f"test-{uuid.uuid4().hex}"
    broker = make_broker(url, namespace=namespace)
    assert any(isinstance(m, tracing.DramatiqTracing) for m in broker.middleware)
    yield broker
    if isinstance(broker, RungRedisBroker):
        broker.client.delete(*broker.client.keys(f"{namespace}:*") or ["-"])
    broker.close()


class Probe(dramatiq.Middleware):
    """Placed before the tracing middleware: its before-hook runs before the consumer span is
    made current, and its after-hook once that is detached. Notes what is current then."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, bool]] = []

    def before_process_message(self, broker, message) -> None:
        self.seen.append(("before", trace.get_current_span().get_span_context().is_valid))

    def after_process_message(self, broker, message, *, result=None, exception=None) -> None:
        self.seen.append(("after", trace.get_current_span().get_span_context().is_valid))


def run(broker: dramatiq.Broker, actor, n: int) -> None:
    """Let a worker of one thread take messages until `actor` has been called `n` times."""
    worker = dramatiq.Worker(broker, worker_threads=1, worker_timeout=100)
    worker.start()
    try:
        deadline = time.monotonic() + 20
        while len(actor.calls) < n:
            assert time.monotonic() < deadline, f"{len(actor.calls)} of {n} messages were taken"
            time.sleep(0.02)
        time.sleep(0.2)  # the after-hooks of the last one
    finally:
        worker.stop()


class Recording:
    """An actor body noting the span current on its thread, failing for a negative turn."""

    def __init__(self) -> None:
        self.calls: list[trace.SpanContext] = []

    def __call__(self, code: str, key: str, due: float | None = None) -> None:
        self.calls.append(trace.get_current_span().get_span_context())
        if key.startswith("-"):
            raise ValueError("a turn that fails")


def test_a_message_is_taken_in_its_senders_trace_and_the_context_goes_after(broker, spans):
    probe = Probe()
    broker.add_middleware(probe, before=tracing.DramatiqTracing)
    actor_body = Recording()
    dramatiq.actor(
        actor_body, broker=broker, actor_name="bot_turn", queue_name=QUEUE, max_retries=0
    )
    with tracing.span("move") as move:
        send_bot_turns(broker, [("ABCD", "1.0.1", None)])
    run(broker, actor_body, 1)

    finished = spans.get_finished_spans()
    producer = next(s for s in finished if s.kind is SpanKind.PRODUCER)
    consumer = next(s for s in finished if s.kind is SpanKind.CONSUMER)
    assert producer.parent is not None
    assert producer.parent.span_id == move.get_span_context().span_id
    assert (
        consumer.context.trace_id == producer.context.trace_id == move.get_span_context().trace_id
    )
    assert consumer.parent is not None and consumer.parent.span_id == producer.context.span_id
    assert consumer.attributes["messaging.destination.name"] == QUEUE
    # Current while the actor ran, and neither before nor after on the worker's thread.
    assert actor_body.calls == [consumer.context]
    assert probe.seen == [("before", False), ("after", False)]
    assert consumer.status.status_code is not StatusCode.ERROR


def test_a_message_sent_in_a_trace_left_out_is_taken_left_out(broker, spans):
    """Under a request left out of the sample nothing is made: no span for the service's own
    steps, none for the send or the take; the actor runs in the left-out trace all the same,
    so nothing it does starts a trace of its own."""
    probe = Probe()
    broker.add_middleware(probe, before=tracing.DramatiqTracing)
    actor_body = Recording()
    dramatiq.actor(
        actor_body, broker=broker, actor_name="bot_turn", queue_name=QUEUE, max_retries=0
    )
    with tracing.unsampled():
        left_out = trace.get_current_span().get_span_context()
        with tracing.span("move") as move:
            assert move is None
            send_bot_turns(broker, [("ABCD", "1.0.1", None)])
    run(broker, actor_body, 1)

    assert spans.get_finished_spans() == ()
    (taken,) = actor_body.calls
    assert taken.trace_id == left_out.trace_id and not taken.trace_flags.sampled
    assert probe.seen == [("before", False), ("after", False)]


def test_an_actors_exception_is_recorded_on_its_span(broker, spans):
    actor_body = Recording()
    dramatiq.actor(
        actor_body, broker=broker, actor_name="bot_turn", queue_name=QUEUE, max_retries=0
    )
    with tracing.span("move"):
        send_bot_turns(broker, [("ABCD", "-1.0.1", None)])
    run(broker, actor_body, 1)

    consumer = next(s for s in spans.get_finished_spans() if s.kind is SpanKind.CONSUMER)
    assert consumer.status.status_code is StatusCode.ERROR
    (event,) = [e for e in consumer.events if e.name == "exception"]
    assert event.attributes["exception.type"] == "ValueError"
    assert event.attributes["exception.message"] == "a turn that fails"


def test_turns_sent_together_each_go_in_the_trace_of_their_own_move(broker, spans):
    """The API's sending thread sends the turns of many commits at once (services/bots/turns.py):
    each message's send is a child of the move that left its turn, not of the thread's."""
    actor_body = Recording()
    dramatiq.actor(
        actor_body, broker=broker, actor_name="bot_turn", queue_name=QUEUE, max_retries=0
    )
    contexts, moves = [], []
    for code in ("AAAA", "BBBB"):
        with tracing.span("move", table=code) as move:
            contexts.append(tracing.captured())
            moves.append(move.get_span_context())
    sending = threading.Thread(
        target=send_bot_turns,
        args=(broker, [("AAAA", "1.0.1", None), ("BBBB", "1.0.1", None)], contexts),
    )
    sending.start()
    sending.join()
    run(broker, actor_body, 2)

    finished = spans.get_finished_spans()
    producers = sorted(
        (s for s in finished if s.kind is SpanKind.PRODUCER), key=lambda s: s.start_time or 0
    )
    assert [p.parent.span_id for p in producers if p.parent] == [m.span_id for m in moves]
    consumers = [s for s in finished if s.kind is SpanKind.CONSUMER]
    assert sorted(c.context.trace_id for c in consumers) == sorted(m.trace_id for m in moves)
    assert sorted(actor_body.calls, key=lambda c: c.trace_id) == sorted(
        (c.context for c in consumers), key=lambda c: c.trace_id
    )


@pytest.mark.parametrize("sample", [1.0, 0.0])
def test_a_trace_starts_only_where_work_comes_in_and_is_kept_or_dropped_whole(sample, monkeypatch):
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=tracing.sampler(sample))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(tracing, "_sample", sample)
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("a follower's poll", kind=SpanKind.CLIENT):
        pass
    with tracer.start_as_current_span("a lone use case"):
        pass
    # A request is sampled at the door, before the HTTP instrumentation sees it.
    door = contextlib.nullcontext() if tracing.sampled_request() else tracing.unsampled()
    with (
        door,
        tracer.start_as_current_span("POST /moves", kind=SpanKind.SERVER),
        tracer.start_as_current_span("INSERT", kind=SpanKind.CLIENT),
    ):
        pass
    # A message sent outside any trace (the sweeper's) is sampled where it is sent.
    with (
        tracer.start_as_current_span("send bots", kind=SpanKind.PRODUCER),
        tracer.start_as_current_span("LPUSH", kind=SpanKind.CLIENT),
    ):
        pass
    kept = sorted(s.name for s in exporter.get_finished_spans())
    assert kept == (["INSERT", "LPUSH", "POST /moves", "send bots"] if sample else [])
