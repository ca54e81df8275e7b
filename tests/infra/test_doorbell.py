"""The doorbell wakes a stream's watchers once an append to it commits, over one connection."""

import asyncio
import time
from contextlib import AsyncExitStack

import msgspec
import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from domain.chain import canonical
from infra.db import conninfo
from infra.doorbell import Doorbell, Wake
from infra.eventstore import EventStore, NewEvent, ringing
from infra.eventstore.appending import APPEND_SQL
from infra.eventstore.ringing import CARRIED

pytestmark = pytest.mark.anyio

NOTED = NewEvent("Noted", {"n": 1})
LISTENING = text(
    "SELECT count(*) FROM pg_stat_activity"
    " WHERE datname = current_database() AND query LIKE 'LISTEN euchre_events%'"
)


async def test_the_doorbell_rings_after_the_append_commits_and_not_before(
    engine: AsyncEngine, store: EventStore, database_url: str
):
    async with Doorbell(engine) as doorbell, doorbell.watch("T1") as wake:
        # The store's own append statement, held open in a transaction of ours: nothing may
        # ring while its events can't be read yet.
        async with await psycopg.AsyncConnection.connect(conninfo(database_url)) as conn:
            canonical_bytes = [canonical("T1", 1, "Noted", {"n": 1})]
            params = (["T1"], [0], [1], [None], ["Noted"], '[{"n": 1}]', canonical_bytes)
            await conn.execute(APPEND_SQL, params)
            assert not await wake.wait(0.3)
            await conn.rollback()

        appending = asyncio.create_task(store.append("T1", 0, [NOTED]))
        assert await wake.wait(5)
        # Woken, a watcher reads at once, and the events it was woken for are there.
        assert [e.seq for e in await store.read("T1")] == [1]
        await appending


async def test_the_doorbell_rings_watchers_of_that_stream_and_of_every_stream(
    engine: AsyncEngine, store: EventStore
):
    async with (
        Doorbell(engine) as doorbell,
        doorbell.watch("T1") as t1,
        doorbell.watch("T2") as t2,
        doorbell.watch(None) as everything,
    ):
        await store.append("T1", 0, [NOTED])

        assert await t1.wait(5)
        assert await everything.wait(5)
        assert not await t2.wait(0.2)


async def test_a_ring_carries_what_was_appended_if_it_fits_and_only_to_that_streams_watchers(
    engine: AsyncEngine, store: EventStore
):
    async with (
        Doorbell(engine) as doorbell,
        doorbell.watch("T1") as t1,
        doorbell.watch(None) as everything,
    ):
        appended = await store.append("T1", 0, [NOTED, NewEvent("Said", {"text": 'a\nb "c" é'})])
        assert await t1.wait(5)
        assert t1.announced == 2
        ((first, runs),) = t1.carried
        assert first == 1
        # Each event with its hash in the chain, as the log has it: a watcher signs its head.
        logged = [r.hash for r in await store.read("T1")]
        assert list(appended.hashes) == logged
        assert msgspec.json.decode(runs) == [
            ["Noted", {"n": 1}, logged[0]],
            ["Said", {"text": 'a\nb "c" é'}, logged[1]],
        ]
        assert await everything.wait(5)
        assert everything.announced == 2 and everything.carried == []

        # Too long to carry: rung, with nothing carried, so the watcher reads.
        await store.append("T1", 2, [NewEvent("Noted", {"text": "x" * CARRIED})])
        assert await t1.wait(5)
        assert t1.announced == 3 and t1.carried == []


async def test_a_ring_after_a_quiet_moment_goes_at_once_and_the_next_carries_all_made_since(
    engine: AsyncEngine, store: EventStore, monkeypatch: pytest.MonkeyPatch
):
    """Under load a process rings once a RING_GAP, not once an append batch: each ring is a
    statement of its own."""
    monkeypatch.setattr(ringing, "RING_GAP", 1.0)
    async with Doorbell(engine) as doorbell, doorbell.watch("T1") as t1:
        started = time.monotonic()
        await store.append("T1", 0, [NOTED])
        assert await t1.wait(5)
        assert t1.announced == 1 and time.monotonic() - started < 0.5

        for seq in (1, 2, 3):
            await store.append("T1", seq, [NewEvent("Noted", {"n": seq + 1})])
        assert not await t1.wait(0.2)  # the gap isn't over
        assert await t1.wait(5)
        assert t1.announced == 4
        ((first, runs),) = t1.carried  # one ring for the three appends
        assert first == 2
        assert [data["n"] for _, data, _ in msgspec.json.decode(runs)] == [2, 3, 4]


async def test_many_watchers_share_one_listening_connection(engine: AsyncEngine, store: EventStore):
    async with Doorbell(engine) as doorbell, AsyncExitStack() as stack:
        wakes = [await stack.enter_async_context(doorbell.watch("T1")) for _ in range(100)]
        async with engine.connect() as conn:
            assert await conn.scalar(LISTENING) == 1

        await store.append("T1", 0, [NOTED])

        assert all([await wake.wait(5) for wake in wakes])


async def test_the_doorbell_hands_on_notices_of_other_channels_and_rings_for_none(
    engine: AsyncEngine,
):
    heard: list[str | None] = []
    async with (
        Doorbell(engine, notices={"test_notes": heard.append}) as doorbell,
        doorbell.watch(None) as wake,
    ):
        async with engine.begin() as conn:
            await conn.execute(text("SELECT pg_notify('test_notes', 'hello')"))
        for _ in range(100):
            if heard:
                break
            await asyncio.sleep(0.05)
        assert heard == ["hello"]
        assert not await wake.wait(0.2)


async def test_the_doorbell_reconnects_when_its_connection_drops(
    engine: AsyncEngine, store: EventStore
):
    heard: list[str | None] = []
    async with (
        Doorbell(engine, retry_delay=0.05, notices={"test_notes": heard.append}) as doorbell,
        doorbell.watch("T1") as wake,
    ):
        async with engine.connect() as conn:
            killed = await conn.scalar(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND query LIKE 'LISTEN euchre_events%'"
                )
            )
        assert killed == 1
        assert await wake.wait(5), "everyone reads again after a reconnect"
        assert heard == [None], "a notice may have been missed while it was down"

        await store.append("T1", 0, [NOTED])

        assert await wake.wait(5)


async def test_a_wait_ended_by_its_clock_is_not_a_ring_and_loses_none():
    wake = Wake()
    wake.expire()
    assert await wake.wait() is False
    wake.ring(4)
    wake.expire()
    assert await wake.wait() is True and wake.announced == 4
    wake.expire()
    wake.ring(6)
    assert await wake.wait() is True and wake.announced == 6
    waiting = asyncio.ensure_future(wake.wait())
    await asyncio.sleep(0.01)
    assert not waiting.done()  # nothing left over from the rings before
    wake.expire()
    assert await waiting is False
