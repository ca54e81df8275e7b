"""One line per outage (infra/outages.py), against real servers: failures to reach Redis at a
port where nothing listens are one line with the cause, the rest left out, and the probe's
first success one line more; an error from a server that answered is no outage."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Iterator

import psycopg
import pytest
import redis

from infra import outages


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def kept() -> Iterator[Kept]:
    """A handler of its own for this test's logger and the module's (whose probe says when a
    server is back), those two loggers as they were afterwards."""
    handler = Kept()
    loggers = [logging.getLogger(name) for name in ("test.outages", "euchre.outages")]
    for logger in loggers:
        logger.addHandler(handler)
        logger.propagate = False
        logger.setLevel(logging.INFO)
    yield handler
    for logger in loggers:
        logger.removeHandler(handler)
        logger.propagate = True
        logger.setLevel(logging.NOTSET)


def refused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_redis_out_of_reach_is_one_line_then_one_when_the_probe_reaches_it(
    kept: Kept, redis_url: str
) -> None:
    nowhere = f"redis://127.0.0.1:{refused_port()}/0"
    probes = outages.probes(None, redis_url, None)  # the probe finds the real one: "back"
    kept.addFilter(outages.Outages(probes))
    log = logging.getLogger("test.outages")
    client = redis.Redis.from_url(nowhere)
    for _ in range(5):
        try:
            client.ping()
        except redis.ConnectionError:
            log.exception("could not record who is present")
    deadline = time.monotonic() + 10 * outages.PROBE_SECONDS
    while len(kept.records) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    first, back = (record.getMessage() for record in kept.records)
    assert first.startswith("redis at 127.0.0.1:") and "Connection refused" in first
    assert kept.records[0].exc_info is None  # no traceback
    assert kept.records[0].dependency == "redis"  # type: ignore[attr-defined]
    assert back == "redis reachable again"


def test_a_statement_the_database_cancelled_is_no_outage(database_url: str) -> None:
    with psycopg.connect(database_url) as conn:
        conn.execute("SET statement_timeout = '10ms'")
        with pytest.raises(psycopg.errors.QueryCanceled) as cancelled:
            conn.execute("SELECT pg_sleep(1)")
    assert outages.dependency_of(cancelled.value) is None
    with pytest.raises(psycopg.OperationalError) as refused:
        psycopg.connect(f"postgresql://postgres@127.0.0.1:{refused_port()}/x", connect_timeout=3)
    assert outages.dependency_of(refused.value) == "database"


def test_the_cause_is_the_lost_servers_own_wherever_it_was_raised(database_url: str) -> None:
    with pytest.raises(psycopg.OperationalError) as refused:
        psycopg.connect(f"postgresql://postgres@127.0.0.1:{refused_port()}/x", connect_timeout=3)
    # An app's task group at shutdown holds it: still the database's outage.
    group = ExceptionGroup("unhandled errors in a TaskGroup", [refused.value])
    assert outages.dependency_of(group) == "database"
    # Redis lost while handling it: Redis's outage, with Redis's cause, not the database's.
    with pytest.raises(redis.ConnectionError) as lost:
        try:
            raise refused.value
        except psycopg.OperationalError:
            redis.Redis.from_url(f"redis://127.0.0.1:{refused_port()}/0").ping()
    assert outages.dependency_of(lost.value) == "redis"
    assert outages.cause_of(lost.value).startswith("ConnectionError: Error 111 connecting")
