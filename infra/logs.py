"""How every process logs (docs/operations.md "Logs"): one line per event, JSON where nobody
reads it live (a file, a pipe, a log collector) and plain text on a terminal, at a level an
operator sets, with the request, table and seat an event concerns as fields of its own.

The standard library's loggers (ours, uvicorn's, Dramatiq's, SQLAlchemy's) all go through one
structlog formatter, so a line from any of them has the same shape and carries what the code
handling the request bound (`structlog.contextvars`): a request's id, its table.
"""

from __future__ import annotations

import logging
import sys
from typing import Literal

import structlog
from opentelemetry import trace

from infra.outages import Outages, Probe

Format = Literal["auto", "json", "text"]
LEVELS = ("debug", "info", "warning", "error")

# Bound for the request under way, and on every line logged while it is handled.
bind = structlog.contextvars.bind_contextvars
forget = structlog.contextvars.clear_contextvars
bound = structlog.contextvars.get_contextvars


def configure(
    level: str,
    form: Format = "auto",
    process: str | None = None,
    probes: dict[str, Probe] | None = None,
) -> None:
    """Every logger of this process at `level` and above, in `form` (auto: JSON unless stderr
    is a terminal); `process` names the process on each line (api-1, worker...). A lost
    connection to a server is one line, and one more when `probes` find it back
    (infra/outages.py)."""
    json = form == "json" or (form == "auto" and not sys.stderr.isatty())
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    if process is not None:
        shared.append(_stamp("process", process))
    shared.append(_trace_ids)
    renderer = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    handler = logging.StreamHandler()
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*shared, structlog.stdlib.ExtraAdder()],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                renderer,
            ],
        )
    )
    handler.addFilter(Outages(probes or {}))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    # Each migration narrated is noise to anyone joining a running service.
    logging.getLogger("alembic").setLevel(max(logging.WARNING, root.level))
    # pika says six lines about each connection it fails to make, and the caller then says it
    # again with the cause (folded by Outages): pika's own add nothing.
    logging.getLogger("pika").setLevel(logging.CRITICAL)


def _stamp(key: str, value: str) -> structlog.types.Processor:
    def stamp(_, __, event: dict) -> dict:
        event.setdefault(key, value)
        return event

    return stamp


def _trace_ids(_, __, event: dict) -> dict:
    """The trace and span a line was logged in, if tracing (infra/tracing.py) kept it, so a
    line and its trace find each other; a trace left out of the sample has none to find."""
    context = trace.get_current_span().get_span_context()
    if context.is_valid and context.trace_flags.sampled:
        event.setdefault("trace_id", format(context.trace_id, "032x"))
        event.setdefault("span_id", format(context.span_id, "016x"))
    return event
