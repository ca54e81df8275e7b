"""Tracing (docs/operations.md "Tracing"): a person's move, the bot turns it leaves and the
bots' moves, followed as one OpenTelemetry trace from the HTTP request through the event
store and the broker into a worker, and sent over OTLP/HTTP to a collector.

Off unless `start` is called (EUCHRE_OTLP_ENDPOINT set): `span` is then a shared do-nothing
context manager, no tracer provider exists and no instrumentation wraps anything, so the move
path pays one check per span it would have made.

Dramatiq has no maintained instrumentation, so `DramatiqTracing` carries the context in each
message (W3C trace context, in the message's options) and makes the producer and consumer
spans.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import random
import threading
from collections.abc import Callable, Iterator
from typing import Any

import dramatiq
from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

# The message option the W3C headers travel in (traceparent, tracestate).
OPTION = "trace_context"
NAME = "euchre"
_OFF = contextlib.nullcontext()
_tracer: trace.Tracer | None = None
_sample = 1.0  # the fraction of requests traced, decided at the door (`sampled_request`)


def on() -> bool:
    return _tracer is not None


def _left_out(context: otel_context.Context | None = None) -> bool:
    """Whether the work under way (or `context`) belongs to a trace left out of the sample:
    every span below it would be dropped (the sampler follows the parent), so none need be
    made."""
    found = trace.get_current_span(context).get_span_context()
    return found.is_valid and not found.trace_flags.sampled


def span(name: str, **attributes: str | int) -> contextlib.AbstractContextManager[Any]:
    """A span around the block, current within it, when tracing is on and the work is not
    left out of the sample; else nothing. Each attribute is named `euchre.<name>`."""
    if _tracer is None or _left_out():
        return _OFF
    named = {f"euchre.{key}": value for key, value in attributes.items()}
    return _tracer.start_as_current_span(name, attributes=named)


def start(endpoint: str, service: str, sample: float, statements: bool = False) -> None:
    """Trace this process as `service` (api, worker), sending spans in batches to the OTLP/HTTP
    receiver at `endpoint` (the collector's base URL, as OTEL_EXPORTER_OTLP_ENDPOINT names it).

    A trace starts only where work comes in (a request, a message sent or taken), a `sample`
    of them; a span whose parent is sampled always is, so a trace is never cut in two between
    processes. Queries with nothing around them (a follower's poll, the sweeper's look) start
    none: each would be a trace of its own, and they run every few seconds in every process.

    `statements` makes each SQL statement and Redis command a span (psycopg's and redis-py's
    instrumentation). Off by default: those wrap every statement, traced or not, and
    gathered each one's attributes before the sampler dropped it; at a sample of 5 % tracing
    with them added 28 % to the CPU a move costs, without them 8 % (bench/load.py --observed,
    docs/operations.md "What tracing costs").
    """
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    global _sample
    _sample = sample
    provider = TracerProvider(
        resource=Resource.create({"service.name": f"euchre-{service}", "process.pid": os.getpid()}),
        sampler=sampler(sample),
    )
    exporter = OTLPSpanExporter(endpoint=endpoint.rstrip("/") + "/v1/traces")
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    use(provider)
    if statements:
        PsycopgInstrumentor().instrument(tracer_provider=provider)
        RedisInstrumentor().instrument(tracer_provider=provider)


def use(provider: trace.TracerProvider | None) -> None:
    """Make spans with `provider` from now on (`start`'s, or a test's own); None: none."""
    global _tracer
    _tracer = None if provider is None else provider.get_tracer(NAME)


def stop() -> None:
    """Send the spans still waiting: a process on its way out (the SDK's own hook at exit
    runs too late for a process that ends with os._exit, as a forked child does)."""
    shutdown = getattr(trace.get_tracer_provider(), "shutdown", None)
    if _tracer is not None and shutdown is not None:
        shutdown()


def sampled_request() -> bool:
    """Whether to trace the request come in: decided at the door, before the HTTP
    instrumentation gathers a single attribute, since for a request left out that gathering
    was most of what tracing cost (bench/load.py --observed). The request's server span is
    then always kept (`sampler`)."""
    return _sample >= 1.0 or random.random() < _sample


# The one trace every request left out belongs to: valid, so that what runs under it follows
# its decision rather than starting a trace of its own, and never sampled, so no span of it is
# ever made or sent, and no log line names it (infra/logs.py). Made once: a request left out
# costs an attach and a detach.
_LEFT_OUT = trace.set_span_in_context(
    trace.NonRecordingSpan(
        trace.SpanContext(
            trace_id=1,
            span_id=1,
            is_remote=False,
            trace_flags=trace.TraceFlags(trace.TraceFlags.DEFAULT),
        )
    )
)


@contextlib.contextmanager
def unsampled() -> Iterator[None]:
    """The block as part of a trace left out: every span below it is dropped (its sampler
    follows the parent), so nothing under an untraced request starts a trace of its own."""
    token = otel_context.attach(_LEFT_OUT)
    try:
        yield
    finally:
        otel_context.detach(token)


def sampler(sample: float) -> Any:
    """`start`'s sampler: a span with a parent follows its parent's decision; one without is
    kept only where work comes in: a request's server span always (`sampled_request` decided
    at the door), a message sent or taken outside any trace `sample` of the time."""
    from opentelemetry.sdk.trace.sampling import (
        Decision,
        ParentBased,
        Sampler,
        SamplingResult,
        TraceIdRatioBased,
    )

    messages = {SpanKind.CONSUMER, SpanKind.PRODUCER}

    class EntryPoints(Sampler):
        """Roots only at SERVER spans (sampled at the door), and at PRODUCER and CONSUMER
        spans, a `sample` of them."""

        def __init__(self) -> None:
            self._ratio = TraceIdRatioBased(sample)

        def should_sample(self, parent_context, trace_id, name, kind=None, *args, **kwargs):
            if kind is SpanKind.SERVER:
                return SamplingResult(Decision.RECORD_AND_SAMPLE, kwargs.get("attributes"))
            if kind not in messages:
                return SamplingResult(Decision.DROP)
            return self._ratio.should_sample(parent_context, trace_id, name, kind, *args, **kwargs)

        def get_description(self) -> str:
            return f"EntryPoints({sample})"

    return ParentBased(root=EntryPoints())


def captured() -> contextvars.Context | None:
    """The context to send a message in later, on another thread; None when tracing is off."""
    return contextvars.copy_context() if _tracer is not None else None


def within(context: contextvars.Context | None, work: Callable[..., Any], *args: Any) -> None:
    """`work(*args)` in `context` (from `captured`), or in the caller's if None."""
    if context is None:
        work(*args)
    else:
        context.run(work, *args)


class DramatiqTracing(dramatiq.Middleware):
    """A producer span for each message sent, its context carried in the message; a consumer
    span, its child, current on the worker thread while the actor runs.

    The producer span marks the send and ends there: a send that fails raises out of the
    broker without an `after_enqueue`, and a span waiting for one would be kept for good.
    The consumer's context is attached on the worker thread (contextvars are per thread) and
    detached with its token once the message is done, so the next message on that thread
    starts clean. Work the actor hands to an event loop (asyncio copies the context into the
    callback or task) stays in the trace.
    """

    def __init__(self) -> None:
        self._taken = threading.local()

    def before_enqueue(self, broker, message, delay) -> None:
        tracer = _tracer
        if tracer is None:
            return
        if _left_out():  # the message goes on left out, and its taking with it
            carrier: dict[str, str] = {}
            propagate.inject(carrier)
            message.options[OPTION] = carrier
            return
        parent = None
        if not trace.get_current_span().get_span_context().is_valid and OPTION in message.options:
            # Sent again with no trace of its own (Dramatiq's retries, after the consumer
            # span has ended): it stays in the trace of its first send.
            parent = propagate.extract(message.options[OPTION])
        produced = tracer.start_span(
            f"send {message.queue_name}",
            context=parent,
            kind=SpanKind.PRODUCER,
            attributes=_attributes(message),
        )
        carrier = {}
        propagate.inject(carrier, context=trace.set_span_in_context(produced))
        message.options[OPTION] = carrier
        produced.end()

    def before_process_message(self, broker, message) -> None:
        tracer = _tracer
        if tracer is None:
            return
        parent = propagate.extract(message.options.get(OPTION, {}))
        if _left_out(parent):  # left out where it was sent
            self._taken.span = (None, otel_context.attach(parent))
            return
        taken = tracer.start_span(
            f"process {message.queue_name}",
            context=parent,
            kind=SpanKind.CONSUMER,
            attributes=_attributes(message),
        )
        token = otel_context.attach(trace.set_span_in_context(taken, parent))
        self._taken.span = (taken, token)

    def after_process_message(self, broker, message, *, result=None, exception=None) -> None:
        taken = getattr(self._taken, "span", None)
        if taken is None:
            return
        self._taken.span = None
        span_, token = taken
        otel_context.detach(token)
        if span_ is None:
            return
        if exception is not None:
            span_.record_exception(exception)
            span_.set_status(Status(StatusCode.ERROR, type(exception).__name__))
        span_.end()

    def after_skip_message(self, broker, message) -> None:
        self.after_process_message(broker, message)


def _attributes(message: dramatiq.Message) -> dict[str, str]:
    return {
        "messaging.system": "dramatiq",
        "messaging.destination.name": message.queue_name,
        "messaging.message.id": message.message_id,
        "dramatiq.actor": message.actor_name,
    }
