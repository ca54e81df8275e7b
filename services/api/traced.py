"""Which requests are traced (docs/operations.md "Tracing"), decided at the door, before any
instrumentation runs: a request left out of the sample goes straight to the app inside the
one trace left out (infra/tracing.py `unsampled`), so nothing under it starts a trace, and
only a kept one passes through OpenTelemetry's ASGI instrumentation for its server span.

A plain ASGI wrapper rather than litestar's OpenTelemetry middleware and a hook to name the
span: those ran for every request, kept or not, and cost about 15 µs a request with no trace
kept at all (bench/load.py --observed --together).
"""

from __future__ import annotations

import re

from litestar.types import ASGIApp, Message, Receive, Scope, Send
from opentelemetry import trace
from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware

from infra import logs, tracing

# Not traced: an event stream's request lasts as long as a page stays open, and health checks
# come every few seconds from every probe.
UNTRACED = re.compile(r"^/api/tables/[^/]+/events$|^/api/health")


def traced(app: ASGIApp) -> ASGIApp:
    """`app` with a sample of its HTTP requests traced, each as one server span named by its
    route (by its path, every table would name spans of its own), whose trace id the access
    line carries too (services/api/access.py, around this)."""
    instrumented = OpenTelemetryMiddleware(
        _named(app),
        # None for each read and write of the body: a move would make three.
        exclude_spans=["receive", "send"],
        default_span_details=lambda scope: (str(scope.get("method", "HTTP")), {}),
        server_request_hook=_pointed_to,
    )

    async def door(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or UNTRACED.match(scope["path"]):
            await app(scope, receive, send)
        elif tracing.sampled_request():
            await instrumented(scope, receive, send)
        else:
            with tracing.unsampled():
                await app(scope, receive, send)

    return door


def _pointed_to(span: trace.Span, scope: object) -> None:
    """The access line names the trace of a request kept (not of one a caller's own
    `traceparent` marked as left out: no span of that trace is ever sent)."""
    if span.is_recording():
        logs.bind(trace_id=format(span.get_span_context().trace_id, "032x"))


def _named(app: ASGIApp) -> ASGIApp:
    """The span renamed for the route, found by the router by the time the answer starts
    (the instrumentation ends the span with the answer's last part); an unknown path keeps
    the method alone."""

    async def naming(scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                route = scope.get("path_template")
                if route is not None:
                    span = trace.get_current_span()
                    span.update_name(f"{scope['method']} {route}")
                    span.set_attribute("http.route", route)
            await send(message)

        await app(scope, receive, sending)

    return naming
