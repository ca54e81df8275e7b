"""A migrated database of a benchmark's own, so it never writes into a real event log, and
logs copied into it."""

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from uuid import uuid4

import msgspec
import psycopg
from sqlalchemy import make_url

from domain.chain import GENESIS, canonical, link
from domain.codec import to_record
from domain.events import Event
from infra.db import migrate

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"


@contextmanager
def scratch_database() -> Iterator[str]:
    """The URL of a new, migrated database on the server at EUCHRE_DATABASE_URL (else
    EUCHRE_TEST_DATABASE_URL, else the local test server), dropped on the way out."""
    server = os.environ.get("EUCHRE_DATABASE_URL") or os.environ.get(
        "EUCHRE_TEST_DATABASE_URL", DEFAULT_URL
    )
    name = f"bench_{uuid4().hex}"
    url = make_url(server).set(database=name).render_as_string(hide_password=False)
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        migrate(url)
        yield url
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def copy_logs(url: str, logs: Iterable[tuple[str, list[Event]]]) -> int:
    """Append each (code, events) log as its own stream with COPY, in one transaction (much
    faster than appends, and not what a benchmark times), each event's hash chained as an
    append chains it; how many events."""
    events = 0
    with (
        psycopg.connect(url) as conn,
        conn.cursor().copy("COPY events (stream, seq, type, data, hash) FROM STDIN") as copy,
    ):
        for code, log in logs:
            h = GENESIS
            for seq, event in enumerate(log, start=1):
                kind, data = to_record(event)
                h = link(h, canonical(code, seq, kind, data))
                copy.write_row((code, seq, kind, msgspec.json.encode(data).decode(), h))
            events += len(log)
    return events
