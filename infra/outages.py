"""One line per outage (docs/operations.md "Logs"): a database, Redis or broker out of reach is
said once, with its cause, and once more when it answers again, never as a traceback per retry.

A wrong broker port made 1,105 lines and 96 tracebacks in a minute (pika's six lines for each
attempt of each of Dramatiq's consumers, Dramatiq's own for each restart), and an unreachable
database a 120-line traceback. Every process's log handler holds an `Outages` filter: a line
whose exception (raised, or given as an argument) is a lost connection to one of the three is
rewritten as `<dependency> unreachable: <cause>`, with `dependency` and `cause` as fields, and
the lines after it about the same dependency are dropped, while a thread probes the dependency
(a real connection, credentials and all, so a wrong password doesn't pass for recovered) every
`PROBE_SECONDS`; it says `<dependency> reachable again` once one succeeds, and, while none
does, reminds every `REMIND_SECONDS` with how many failures it left out.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import NamedTuple
from urllib.parse import parse_qs, urlsplit

import dramatiq.errors
import pika
import pika.exceptions
import psycopg
import psycopg_pool
import redis

from infra import keyvalue

PROBE_SECONDS = 2.0
REMIND_SECONDS = 60.0

log = logging.getLogger("euchre.outages")


class Probe(NamedTuple):
    """How to tell a server answers, and where it is (no credentials) for the log line."""

    where: str
    check: Callable[[], None]


def where(url: str) -> str:
    """host:port, or the socket's path, from a URL; never its user or password. For
    Sentinels, the service and whom to ask."""
    asked = keyvalue.sentinels(url)
    if asked is not None:
        return f"{asked.service} via Sentinel " + ",".join(f"{h}:{p}" for h, p in asked.hosts)
    parts = urlsplit(url)
    hosts = parts.netloc.rpartition("@")[2]
    if "," in hosts:  # libpq's multi-host URL: whichever of them is primary
        return hosts
    if parts.hostname:
        return f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname
    host = parse_qs(parts.query).get("host")
    return host[0] if host else parts.path


def _wrapped(error: BaseException) -> list[BaseException]:
    """What `error` says it wraps, nearest first: its cause, SQLAlchemy's `orig`, pika's
    `exception`, an exception among its arguments (pika and Dramatiq wrap that way), a
    group's members (a task group's, at an app's shutdown)."""
    found = [error.__cause__, getattr(error, "orig", None), getattr(error, "exception", None)]
    found += [arg for arg in getattr(error, "args", ()) if isinstance(arg, BaseException)]
    found += getattr(error, "exceptions", ())
    return [link for link in found if isinstance(link, BaseException)]


def _chain(error: BaseException) -> list[BaseException]:
    """`error` and everything it wraps or was raised while handling, outermost first."""
    seen: list[BaseException] = []
    todo = [error]
    while todo and len(seen) < 20:
        current = todo.pop(0)
        if all(current is not s for s in seen):
            seen.append(current)
            todo.extend(_wrapped(current))
            if current.__context__ is not None:
                todo.append(current.__context__)
    return seen


def _decide(error: BaseException) -> tuple[str, BaseException] | None:
    """Which server `error` lost, and the error that says so: the outermost one decides (a
    Redis error inside Dramatiq's is the broker's, whichever server the broker is)."""
    for link in _chain(error):
        if isinstance(
            link, dramatiq.errors.BrokerConnectionError | pika.exceptions.AMQPConnectionError
        ):
            return "broker", link
        if isinstance(link, psycopg.OperationalError | psycopg.InterfaceError):
            if _lost(link.sqlstate):
                return "database", link
            return None  # a statement cancelled, say: the server answered
        if isinstance(link, psycopg_pool.PoolTimeout):
            return "database", link
        if isinstance(link, redis.ConnectionError | redis.TimeoutError):
            return "redis", link
    return None


def dependency_of(error: BaseException) -> str | None:
    decided = _decide(error)
    return None if decided is None else decided[0]


def _lost(sqlstate: str | None) -> bool:
    """A connection never made (no SQLSTATE), lost (class 08), or refused or cut by a server
    starting or stopping (57P01-57P03)."""
    return sqlstate is None or sqlstate.startswith("08") or sqlstate in ("57P01", "57P02", "57P03")


def cause_of(error: BaseException) -> str:
    """The innermost error `error` wraps (not one it was raised while handling, which may be
    another server's), its type and message on one line."""
    root = error
    while links := _wrapped(root):
        root = links[0]
    text = " ".join(str(root).split())
    return f"{type(root).__name__}: {text}" if text else type(root).__name__


def _error_in(record: logging.LogRecord) -> BaseException | None:
    if record.exc_info and record.exc_info[1] is not None:
        return record.exc_info[1]
    args = record.args if isinstance(record.args, tuple) else ()
    return next((arg for arg in args if isinstance(arg, BaseException)), None)


class Outages(logging.Filter):
    """A log handler's filter folding each outage into one line (the module says how)."""

    def __init__(self, probes: Mapping[str, Probe]) -> None:
        super().__init__()
        self._probes = dict(probes)
        self._down: dict[str, int] = {}  # dependency: lines left out since last said
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("dramatiq.worker") and str(record.msg).startswith("Restarting"):
            return "broker" not in self._down  # a consumer's restart, every 3 s while down
        error = _error_in(record)
        decided = None if error is None else _decide(error)
        if decided is None:
            return True
        dependency, error = decided
        with self._lock:
            if dependency in self._down:
                self._down[dependency] += 1
                return False
            self._down[dependency] = 0
        cause = cause_of(error)
        probe = self._probes.get(dependency)
        at = f" at {probe.where}" if probe else ""
        record.msg, record.args = f"{dependency}{at} unreachable: {cause}", None
        record.exc_info = record.exc_text = record.stack_info = None
        record.levelno, record.levelname = logging.ERROR, "ERROR"
        record.dependency, record.cause = dependency, cause
        watching = threading.Thread(
            target=self._watch, args=(dependency, cause), name=f"outage-{dependency}", daemon=True
        )
        watching.start()
        return True

    def _watch(self, dependency: str, cause: str) -> None:
        """Probe until `dependency` answers; remind meanwhile. Without a probe (a server this
        process was never told of) the reminders alone say it lasts."""
        probe = self._probes.get(dependency)
        said = time.monotonic()
        while True:
            time.sleep(PROBE_SECONDS)
            if probe is not None:
                try:
                    probe.check()
                except Exception as error:
                    cause = cause_of(error)
                else:
                    with self._lock:
                        del self._down[dependency]
                    log.warning("%s reachable again", dependency, extra={"dependency": dependency})
                    return
            if time.monotonic() - said >= REMIND_SECONDS:
                said = time.monotonic()
                with self._lock:
                    left_out, self._down[dependency] = self._down[dependency], 0
                log.error(
                    "%s still unreachable: %s (%d lines about it left out)",
                    dependency,
                    cause,
                    left_out,
                    extra={"dependency": dependency, "cause": cause},
                )


def probes(
    database_url: str | None, redis_url: str | None, broker_url: str | None
) -> dict[str, Probe]:
    """A probe for each server named: a connection made and used, then closed."""
    found: dict[str, Probe] = {}
    if database_url is not None:
        found["database"] = Probe(where(database_url), lambda: _database(database_url))
    if redis_url is not None:
        found["redis"] = Probe(where(redis_url), lambda: _redis(redis_url))
    if broker_url is not None:
        amqp = broker_url.startswith(("amqp://", "amqps://"))
        check = (lambda: _amqp(broker_url)) if amqp else (lambda: _redis(broker_url))
        found["broker"] = Probe(where(broker_url), check)
    return found


def _database(url: str) -> None:
    with psycopg.connect(url, connect_timeout=3) as conn:
        conn.execute("SELECT 1")


def _redis(url: str) -> None:
    client = keyvalue.client(url, socket_connect_timeout=3, socket_timeout=3)
    try:
        client.ping()
    finally:
        client.close()


def _amqp(url: str) -> None:
    parameters = pika.URLParameters(url)
    parameters.connection_attempts = 1
    parameters.socket_timeout = 3
    pika.BlockingConnection(parameters).close()


def reach(dependency: str, probe: Probe) -> None:
    """Return once `dependency` answers `probe`, trying again every `PROBE_SECONDS`: a process
    started before its database waits for it (one line, through `Outages`) rather than dying
    with a traceback, to be restarted and die again."""
    while True:
        try:
            probe.check()
        except Exception as error:
            log.error("%s unreachable at start: %s", dependency, error)
            time.sleep(PROBE_SECONDS)
        else:
            return
