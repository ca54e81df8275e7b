"""The log's hash chain on real PostgreSQL (and the in-memory store): every append links each
event to the one before it, as domain/chain.py says anyone can recompute, and the migration
that brought the chain gave existing logs theirs."""

from __future__ import annotations

import msgspec
import psycopg
import pytest
from psycopg.types.json import Jsonb
from test_eventstore import BOTH, noted

from domain.chain import GENESIS, canonical, head, link
from infra.db import migrate
from infra.eventstore import EventStore

pytestmark = pytest.mark.anyio


def chained(records) -> list[str]:
    """Each record's hash as the chain's definition gives it from the records' own data."""
    out, h = [], GENESIS
    for r in records:
        h = link(h, canonical(r.stream, r.seq, r.type, r.data))
        out.append(h.hex())
    return out


@BOTH
async def test_every_append_links_each_event_to_the_one_before(store: EventStore):
    await store.append("T1", 0, [noted(1), noted(2)])
    await store.append("T2", 0, [noted(9)])
    await store.append("T1", 2, [noted(3)], command_id="c")
    await store.append("T1", 2, [noted(3)], command_id="c")  # a retry adds nothing
    for stream in ("T1", "T2"):
        records = await store.read(stream)
        assert [r.hash for r in records] == chained(records)
    records = await store.read("T1")
    ends = [(r.stream, r.seq, r.type, r.data) for r in records]
    assert records[-1].hash == head(ends).hex()


@BOTH
async def test_an_edit_breaks_every_link_after_it(store: EventStore):
    await store.append("T1", 0, [noted(1), noted(2), noted(3)])
    records = await store.read("T1")
    edited = [r if r.seq != 2 else msgspec.structs.replace(r, data={"n": 99}) for r in records]
    assert chained(edited)[0] == records[0].hash
    assert all(a != b.hash for a, b in zip(chained(edited)[1:], records[1:], strict=True))


async def test_the_migration_chains_the_logs_already_there(empty_database_url: str):
    migrate(empty_database_url, "0009")
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        for stream, count in (("OLD1", 3), ("OLD2", 2)):
            conn.execute(
                "SELECT * FROM euchre_append(%s, 0, %s, %s::jsonb, NULL)",
                (stream, ["Noted"] * count, Jsonb([{"n": n} for n in range(count)])),
            )
    migrate(empty_database_url)
    store = await EventStore.open(empty_database_url, size=2)
    try:
        for stream in ("OLD1", "OLD2"):
            records = await store.read(stream)
            assert [r.hash for r in records] == chained(records)
        await store.append("OLD1", 3, [noted(3)])  # the chain goes on from the filled hashes
        records = await store.read("OLD1")
        assert [r.hash for r in records] == chained(records)
    finally:
        await store.close()
