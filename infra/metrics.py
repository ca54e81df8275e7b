"""The service's Prometheus series (docs/operations.md "Metrics"): every one defined here, so
the dashboards and alert rules under infra/monitoring can be checked against this list.

Several processes serve one port (`euchre serve --processes N`, `euchre api`) and a scrape
reaches whichever takes the connection, so every process of one command writes its values to
files in one directory (prometheus_client's multiprocess mode) and any of them answers a
scrape with the sum of all: the worker under `euchre serve` included. That mode is chosen by
an environment variable read when prometheus_client is first imported, so a command sets it
(infra/metrics_dir.py) before anything imports this module; a process without it (a test's
app) keeps its values in memory, and answers with its own.

Labels are the kind of a move, a refusal's class, a bot's level, a follower's or a queue's
name: a handful of values each. Never a table, a player or a seat: each would be a series of
its own, for ever, in every Prometheus that scrapes us.

On the move path each measurement is one counter increment or one histogram observation
(a lock and a write to a mapped file): the children of labelled series are looked up once.
A measurement made once per watcher rather than once per move is gathered in the process and
written once a second (`Gathered`), so a crowd watching a table doesn't pay a write each.
"""

from __future__ import annotations

import asyncio
import bisect
import functools
import ipaddress
import os
import socket
import threading
from collections.abc import Iterable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric

from infra.metrics_dir import SHARED

# The text format Prometheus 2 and 3 both read (the API's framework adds the charset itself).
MEDIA_TYPE = "text/plain; version=0.0.4"

# Seconds. A move's way to a watcher is milliseconds when all is well and seconds when it is
# not; a follower's or a queue's lag can be minutes.
FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
SLOW = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0)

# Where this process's values go: its own registry, the default one being prometheus_client's
# (which adds the process's own series where not in multiprocess mode).
_registry = CollectorRegistry()

moves_accepted = Counter(
    "euchre_moves_accepted_total",
    "Commands appended to a table's log, by kind (the command's type: play, order, say...).",
    ["kind"],
    registry=_registry,
)
moves_refused = Counter(
    "euchre_moves_refused_total",
    "Commands refused, by kind and by the refusal's class (illegal_move, not_your_turn, "
    "not_allowed, conflict, stale, no_such_table).",
    ["kind", "reason"],
    registry=_registry,
)
move_to_view = Histogram(
    "euchre_move_view_latency_seconds",
    "From a move's commit to its view sent on each event stream watching the table, by how "
    "the stream's process learnt of it: its own commit, another's doorbell ring, or a read.",
    ["via"],
    buckets=FAST,
    registry=_registry,
)
append_latency = Histogram(
    "euchre_event_append_latency_seconds",
    "From an append's call to its outcome (batched with the process's others, committed).",
    buckets=FAST,
    registry=_registry,
)
follower_apply_lag = Histogram(
    "euchre_follower_apply_lag_seconds",
    "From an event's append to its read model's follower applying it (the oldest of each "
    "batch), by follower: ratings is the rating lag, reviews the review lag.",
    ["follower"],
    buckets=SLOW,
    registry=_registry,
)


class Gathered:
    """A histogram's child observed on the event loop many times a move (once per watcher),
    its observations counted here and written to the child once a second, the first to come
    after a write setting the next. prometheus_client can only observe one value at a time,
    each a write of the sum and of a bucket; a second's observations are written as one
    increment of the sum and one of each bucket they fell in, which is what those writes would
    have added up to (tests/infra/test_gathered.py holds the child's internals to that).
    Observations not yet written when the process ends are lost: a second's worth at most."""

    EVERY = 1.0  # seconds

    def __init__(self, child: Histogram) -> None:
        self._child = child
        # Its buckets' bounds less +Inf: a value above them all is +Inf's, the last.
        self._bounds = list(child._upper_bounds[:-1])  # type: ignore[attr-defined]
        self._counts = [0] * (len(self._bounds) + 1)
        self._sum = 0.0
        # The loop a write is set on, if one is. A write set on a loop since closed (a test's
        # server stopped) never comes: the next observation on another sets its own.
        self._due: asyncio.AbstractEventLoop | None = None

    def observe(self, amount: float) -> None:
        self._counts[bisect.bisect_left(self._bounds, amount)] += 1
        self._sum += amount
        loop = asyncio.get_running_loop()
        if self._due is not loop:
            self._due = loop
            loop.call_later(self.EVERY, self.write)

    def write(self) -> None:
        counts, total = self._counts, self._sum
        self._counts, self._sum, self._due = [0] * len(counts), 0.0, None
        buckets = self._child._buckets  # type: ignore[attr-defined]
        for bucket, count in zip(buckets, counts, strict=True):
            if count:
                bucket.inc(count)
        self._child._sum.inc(total)  # type: ignore[attr-defined]


streams_open = Gauge(
    "euchre_sse_streams_open",
    "Event streams open now, over every process.",
    multiprocess_mode="livesum",
    registry=_registry,
)
streams_opened = Counter(
    "euchre_sse_streams_opened_total",
    "Event streams opened: fresh, or resumed with Last-Event-ID.",
    ["start"],
    registry=_registry,
)
bot_decision = Histogram(
    "euchre_bot_decision_seconds",
    "How long a bot took to choose its move (its search, for the searching levels), by level.",
    ["level"],
    buckets=FAST,
    registry=_registry,
)
bot_lateness = Histogram(
    "euchre_bot_lateness_seconds",
    "How long after it was due a bot's move was in the log, by level.",
    ["level"],
    buckets=FAST,
    registry=_registry,
)
chain_failures = Counter(
    "euchre_chain_verification_failures_total",
    "Hash-chain checks that failed: a live feed's linked hash against the log's (feed), or a "
    "finished game's log checked through the API (verify).",
    ["where"],
    registry=_registry,
)

# Read at scrape time by the API process answering it, for the whole service: they say what
# the broker, Redis and the database hold, not what one process did.
QUEUE_MESSAGES = (
    "euchre_queue_messages",
    "Messages waiting in each of the broker's queues.",
)
QUEUE_AGE = (
    "euchre_queue_oldest_message_age_seconds",
    "Age of the oldest message waiting in each queue (Redis brokers only).",
)
WORKERS_ALIVE = (
    "euchre_workers_alive",
    "Bot worker processes that beat within the heartbeat's TTL, over every machine.",
)
FOLLOWER_LAG = (
    "euchre_follower_lag_seconds",
    "Age of the oldest event each read model's follower has yet to apply (0: caught up).",
)
SOURCE_UP = (
    "euchre_metrics_source_up",
    "Whether the scrape could read each source (database, redis, broker): 0 leaves its "
    "series out of this scrape.",
)
SCRAPED = (QUEUE_MESSAGES, QUEUE_AGE, WORKERS_ALIVE, FOLLOWER_LAG, SOURCE_UP)


def names() -> dict[str, str]:
    """Every series name the service exports, with its type: what a dashboard may query."""
    found = {name: "gauge" for name, _ in SCRAPED}
    for family in _registry.collect():
        kind = family.type
        if kind == "counter":
            found[f"{family.name}_total"] = kind
        elif kind == "histogram":
            for suffix in ("_bucket", "_count", "_sum"):
                found[family.name + suffix] = kind
        else:
            found[family.name] = kind
    return found


@functools.cache
def kind_of(command_type: type) -> str:
    """A command's kind as its tag (`play`, `order`): a few dozen values at most."""
    config = getattr(command_type, "__struct_config__", None)
    tag = getattr(config, "tag", None)
    return tag if isinstance(tag, str) else command_type.__name__


@functools.cache
def accepted(kind: str) -> Counter:
    """The counter of `kind`'s moves accepted, found once: a move's only cost is the increment."""
    return moves_accepted.labels(kind)


@functools.cache
def reason_of(error_type: type) -> str:
    """A refusal's class in snake case: `NotYourTurn` is not_your_turn."""
    name = error_type.__name__
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def scraped(
    queues: dict[str, tuple[int, float | None]] | None,
    workers: int | None,
    lags: dict[str, float] | None,
    up: dict[str, bool],
) -> list[Metric]:
    """The service-wide series read for one scrape; None where its source couldn't be read."""
    families = []
    if queues is not None:
        depth = GaugeMetricFamily(*QUEUE_MESSAGES, labels=["queue"])
        age = GaugeMetricFamily(*QUEUE_AGE, labels=["queue"])
        for queue, (count, oldest) in sorted(queues.items()):
            depth.add_metric([queue], count)
            if oldest is not None:
                age.add_metric([queue], oldest)
        families += [depth, age]
    if workers is not None:
        families.append(GaugeMetricFamily(*WORKERS_ALIVE, value=workers))
    if lags is not None:
        lag = GaugeMetricFamily(*FOLLOWER_LAG, labels=["follower"])
        for follower, seconds in sorted(lags.items()):
            lag.add_metric([follower], seconds)
        families.append(lag)
    sources = GaugeMetricFamily(*SOURCE_UP, labels=["source"])
    for source, ok in sorted(up.items()):
        sources.add_metric([source], 1.0 if ok else 0.0)
    families.append(sources)
    return families


class _Fixed:
    """A collector of families already read (a scrape's service-wide series)."""

    def __init__(self, families: Sequence[Metric]) -> None:
        self._families = families

    def collect(self) -> Iterable[Metric]:
        return self._families


def render(extra: Sequence[Metric] = ()) -> bytes:
    """The text exposition: every process's values in multiprocess mode (else this one's),
    and `extra`."""
    registry = CollectorRegistry()
    directory = os.environ.get(SHARED)
    if directory:
        multiprocess.MultiProcessCollector(registry, path=directory)
    else:
        registry.register(_Own())
    if extra:
        registry.register(_Fixed(extra))
    return generate_latest(registry)


class _Own:
    def collect(self) -> Iterable[Metric]:
        return _registry.collect()


def allowed(address: str | None, networks: Sequence[str]) -> bool:
    """Whether a client at `address` may read the metrics."""
    if address is None:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in ipaddress.ip_network(network) for network in networks)


def serve(host: str, port: int, networks: Sequence[str]) -> ThreadingHTTPServer:
    """`GET /metrics` on `host:port` from a thread: the worker's own endpoint, for the clients
    in `networks` only, with what every process of the command wrote."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if not allowed(self.client_address[0], networks):
                self._answer(403, b"metrics are served to EUCHRE_METRICS_ALLOW only\n")
            elif self.path.split("?")[0] != "/metrics":
                self._answer(404, b"only /metrics here\n")
            else:
                self._answer(200, render(), f"{MEDIA_TYPE}; charset=utf-8")

        def _answer(self, status: int, body: bytes, kind: str = "text/plain") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            """A scrape every few seconds is no news."""

    class Server(ThreadingHTTPServer):
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        daemon_threads = True

    server = Server((host, port), Handler)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return server
