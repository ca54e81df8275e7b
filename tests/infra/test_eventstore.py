"""The event store's contract, against a real PostgreSQL; the recorder's part (BOTH) against the
in-memory store as well, which use-case tests stand on."""

import asyncio
import contextlib
import itertools
import random
import time
from datetime import datetime

import psycopg
import pytest
from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncEngine

from domain.chain import GENESIS, canonical, link
from infra.db import driver_url
from infra.eventstore import (
    START,
    AppendResult,
    ConcurrencyConflict,
    Cursor,
    EventStore,
    NewEvent,
    checkpoint,
    save_checkpoint,
)
from infra.eventstore.reading import LAST_SQL, LAST_TYPE_SQL, READ_STREAMS_SQL, SEQS_OF_SQL
from infra.follower import Follower, rebuild

pytestmark = pytest.mark.anyio
# What any event store must do, so the in-memory one stands in for PostgreSQL in use-case tests.
BOTH = pytest.mark.parametrize("store", ["postgres", "memory"], indirect=True)


def noted(n: int) -> NewEvent:
    return NewEvent("Noted", {"n": n})


async def append_retrying(store: EventStore, stream: str, new: list[NewEvent]) -> None:
    """What every writer does: re-read the stream's seq and try again until it lands.

    Backing off, at random and longer after each loss, keeps the losers of one race from all
    crowding into the next.
    """
    for tries in itertools.count():
        try:
            await store.append(stream, await store.last_seq(stream), new)
            return
        except ConcurrencyConflict:
            await asyncio.sleep(random.uniform(0, 0.01 * 2 ** min(tries, 4)))


@BOTH
async def test_appended_events_get_the_next_seqs_and_read_back_in_order(store: EventStore):
    result = await store.append("T1", 0, [noted(1), noted(2)], command_id="c1")
    await store.append("T1", 2, [noted(3)])

    assert (result.first_seq, result.last_seq, result.duplicate) == (1, 2, False)
    recorded = await store.read("T1")
    assert [(e.seq, e.type, e.data, e.command_id) for e in recorded] == [
        (1, "Noted", {"n": 1}, "c1"),
        (2, "Noted", {"n": 2}, None),
        (3, "Noted", {"n": 3}, None),
    ]
    assert [e.position for e in recorded[:2]] == list(result.positions)
    assert all(isinstance(e.at, datetime) and e.at.tzinfo for e in recorded)
    assert [e.seq for e in await store.read("T1", after_seq=2)] == [3]
    assert await store.last_seq("T1") == 3
    assert await store.last_seq("T2") == 0


@BOTH
async def test_a_taken_seq_is_a_typed_conflict_and_writes_nothing(store: EventStore):
    await store.append("T1", 0, [noted(1)])

    with pytest.raises(ConcurrencyConflict) as conflict:
        await store.append("T1", 0, [noted(2), noted(3)])

    assert (conflict.value.stream, conflict.value.expected_seq, conflict.value.actual_seq) == (
        "T1",
        0,
        1,
    )
    assert [e.data for e in await store.read("T1")] == [{"n": 1}]


@BOTH
async def test_an_expected_seq_ahead_of_the_stream_is_a_conflict_not_a_gap(store: EventStore):
    with pytest.raises(ConcurrencyConflict) as conflict:
        await store.append("T1", 5, [noted(1)])

    assert conflict.value.actual_seq == 0
    assert await store.read("T1") == []


async def test_an_append_with_a_bad_event_writes_none_of_its_events(store: EventStore):
    # PostgreSQL refuses \u0000 in jsonb, so the last row fails inside the database.
    with pytest.raises(psycopg.Error):
        await store.append("T1", 0, [noted(1), noted(2), NewEvent("Noted", {"n": "\u0000"})])
    with pytest.raises(TypeError):
        await store.append("T1", 0, [noted(1), NewEvent("Noted", {"n": object()})])

    assert await store.read("T1") == []
    assert (await store.append("T1", 0, [noted(1)])).last_seq == 1


@BOTH
async def test_an_event_that_is_not_json_writes_none_of_the_append(store: EventStore):
    with pytest.raises(TypeError):
        await store.append("T1", 0, [noted(1), NewEvent("Noted", {"n": object()})])

    assert await store.read("T1") == []
    assert (await store.append("T1", 0, [noted(1)])).last_seq == 1


@BOTH
async def test_what_a_reader_changes_is_not_changed_in_the_log(store: EventStore):
    await store.append("T1", 0, [noted(1)])
    (first,) = await store.read("T1")
    first.data["n"] = 99

    assert [e.data for e in await store.read("T1")] == [{"n": 1}]


@BOTH
async def test_concurrent_writers_retrying_on_conflict_leave_a_stream_without_gaps(
    store: EventStore,
):
    async def writer(name: int) -> None:
        for n in range(100):
            await append_retrying(store, "T1", [NewEvent("Noted", {"writer": name, "n": n})])

    await asyncio.gather(*(writer(name) for name in range(10)))

    recorded = await store.read("T1")
    assert [e.seq for e in recorded] == list(range(1, 1001))
    for name in range(10):
        assert [e.data["n"] for e in recorded if e.data["writer"] == name] == list(range(100))


@BOTH
async def test_a_follower_sees_every_event_once_in_commit_order(store: EventStore):
    streams = ["T1", "T2", "T3", "T4"]
    writing = True
    seen = []

    async def writer(stream: str) -> None:
        for n in range(40):
            await append_retrying(store, stream, [noted(n)] * (1 + n % 3))

    async def follower() -> None:
        after = START
        while True:
            finished = not writing
            batch = await store.read_all(after, limit=25)
            seen.extend(batch)
            if batch:
                after = batch[-1].cursor
            elif finished:
                return
            else:
                await asyncio.sleep(0.001)

    following = asyncio.create_task(follower())
    await asyncio.gather(*(writer(stream) for stream in streams * 2))
    writing = False
    await following

    cursors = [e.cursor for e in seen]
    assert cursors == sorted(set(cursors))
    assert cursors == [e.cursor for e in await store.read_all(START, limit=10_000)]
    for stream in streams:
        assert [e.seq for e in seen if e.stream == stream] == list(
            range(1, await store.last_seq(stream) + 1)
        )


async def test_a_follower_waits_for_an_append_still_committing(
    store: EventStore, engine: AsyncEngine
):
    """The case a position alone gets wrong: an append takes position N, a later one takes
    N+1 and commits first. A follower must not pass N+1 while N may still arrive."""
    async with engine.connect() as slow:
        await slow.execute(
            text(
                "SELECT * FROM euchre_append_batch(ARRAY['SLOW'], ARRAY[0], ARRAY[1], "
                "ARRAY[NULL::text], ARRAY['Noted'], '[{}]', ARRAY[:canonical])"
            ),
            {"canonical": canonical("SLOW", 1, "Noted", {})},
        )
        await store.append("FAST", 0, [noted(1)])  # commits while SLOW's append is open
        assert await store.read_all(START) == []
        await slow.commit()
    seen = await store.read_all(START)
    assert [e.stream for e in seen] == ["SLOW", "FAST"]


async def test_appends_made_together_share_a_commit_and_each_keeps_its_own_outcome(
    store: EventStore,
):
    await store.append("TAKEN", 0, [noted(1)])
    await store.append("AGAIN", 0, [noted(1)], command_id="c1")

    *fresh, conflict, retried = await asyncio.gather(
        *(store.append(f"T{n}", 0, [noted(n), noted(n)]) for n in range(22)),
        store.append("TAKEN", 0, [noted(2)]),
        store.append("AGAIN", 0, [noted(1)], command_id="c1"),
        return_exceptions=True,
    )

    assert [(r.first_seq, r.last_seq, r.duplicate) for r in fresh] == [(1, 2, False)] * 22
    assert isinstance(conflict, ConcurrencyConflict) and conflict.actual_seq == 1
    assert isinstance(retried, AppendResult) and (retried.last_seq, retried.duplicate) == (1, True)
    assert [e.data for e in await store.read("TAKEN")] == [{"n": 1}]
    # Twenty-two appends, made while at most one statement was on its way: they went in one
    # or two transactions, not twenty-two.
    transactions = {e.cursor.xid for n in range(22) for e in await store.read(f"T{n}")}
    assert len(transactions) <= 2


async def test_an_append_the_database_refuses_fails_alone_among_those_sent_with_it(
    store: EventStore,
):
    before, refused, not_json, after = await asyncio.gather(
        store.append("A", 0, [noted(1)]),
        store.append("BAD", 0, [NewEvent("Noted", {"n": "\u0000"})]),
        store.append("ODD", 0, [NewEvent("Noted", {"n": object()})]),
        store.append("B", 0, [noted(1)]),
        return_exceptions=True,
    )

    assert isinstance(refused, psycopg.Error)
    assert isinstance(not_json, TypeError)
    assert isinstance(before, AppendResult) and isinstance(after, AppendResult)
    assert (before.last_seq, after.last_seq) == (1, 1)
    assert await store.read("BAD") == []


async def test_names_with_quotes_braces_commas_and_backslashes_are_stored_as_given(
    store: EventStore,
):
    """The batch sends its names as array literals: no name may end its element early, make
    another, or read as NULL."""
    odd = ['a"b', "c\\d", '\\"', "{e,f}", "g,h", "NULL", " i ", "é ♠", ""]
    results = await asyncio.gather(
        *(
            store.append(f"S{name}", 0, [NewEvent(f"T{name}", {"n": n})], command_id=f"C{name}")
            for n, name in enumerate(odd)
        )
    )

    assert [r.last_seq for r in results] == [1] * len(odd)
    for n, name in enumerate(odd):
        (event,) = await store.read(f"S{name}")
        assert (event.stream, event.type, event.command_id, event.data) == (
            f"S{name}",
            f"T{name}",
            f"C{name}",
            {"n": n},
        )
        # The chain's bytes went as a literal too: the stored hash is the one they make.
        assert event.hash == link(GENESIS, canonical(f"S{name}", 1, f"T{name}", {"n": n})).hex()


async def test_a_name_with_a_nul_fails_its_own_append_alone(store: EventStore):
    before, *refused, after = await asyncio.gather(
        store.append("A", 0, [noted(1)]),
        store.append("N\x00", 0, [noted(1)]),
        store.append("B", 0, [NewEvent("No\x00ted", {"n": 1})]),
        store.append("C", 0, [noted(1)], command_id="c\x00"),
        store.append("D", 0, [noted(1)]),
        return_exceptions=True,
    )

    assert all(isinstance(error, psycopg.DataError) for error in refused)
    assert isinstance(before, AppendResult) and isinstance(after, AppendResult)
    assert [await store.read(s) for s in ("B", "C")] == [[], []]
    # Refused before it was sent: the others kept their batch, not sent again one by one.
    assert (await store.read("A"))[0].xid == (await store.read("D"))[0].xid


async def test_an_append_behind_a_younger_transactions_event_writes_nothing_and_says_retry(
    store: EventStore, engine: AsyncEngine
):
    """A row written after a younger transaction's row of the same table would come before
    it in the followers' order (xid, position): the batch leaves it for a new transaction."""
    async with engine.connect() as older:
        await older.execute(text("SELECT pg_current_xact_id()"))
        await store.append("R", 0, [noted(1)])  # a younger transaction, committed
        rows = (
            await older.execute(
                text(
                    "SELECT outcome, seq FROM euchre_append_batch(ARRAY['R'], ARRAY[1], "
                    "ARRAY[1], ARRAY[NULL::text], ARRAY['Noted'], '[{}]', ARRAY[:canonical])"
                ),
                {"canonical": canonical("R", 2, "Noted", {})},
            )
        ).all()
        await older.commit()

    assert [tuple(row) for row in rows] == [("r", 1)]
    assert [e.seq for e in await store.read("R")] == [1]
    assert (await store.append("R", 1, [noted(2)])).last_seq == 2


@BOTH
async def test_a_retried_command_applies_once_and_returns_the_first_result(store: EventStore):
    first = await store.append("T1", 0, [noted(1), noted(2)], command_id="c1")
    await store.append("T1", 2, [noted(3)])

    retried = await store.append("T1", 0, [noted(1), noted(2)], command_id="c1")

    assert retried.duplicate
    assert (retried.first_seq, retried.last_seq, retried.positions) == (
        first.first_seq,
        first.last_seq,
        first.positions,
    )
    assert [e.seq for e in await store.read("T1")] == [1, 2, 3]


@BOTH
async def test_racing_retries_of_one_command_apply_it_once(store: EventStore):
    results = await asyncio.gather(
        *(store.append("T1", 0, [noted(1), noted(2)], command_id="c1") for _ in range(8))
    )

    assert sorted(r.duplicate for r in results) == [False] + [True] * 7
    assert len({(r.first_seq, r.last_seq, r.positions) for r in results}) == 1
    assert [e.seq for e in await store.read("T1")] == [1, 2]


async def test_a_checkpoint_moves_only_with_the_callers_transaction(engine: AsyncEngine):
    async with engine.connect() as conn:
        assert await checkpoint(conn, "lobby") == START
        await save_checkpoint(conn, "lobby", Cursor(3, 7))
        await conn.rollback()
        assert await checkpoint(conn, "lobby") == START

        await save_checkpoint(conn, "lobby", Cursor(3, 7))
        await save_checkpoint(conn, "lobby", Cursor(4, 9))
        await conn.commit()
    async with engine.connect() as conn:
        assert await checkpoint(conn, "lobby") == Cursor(4, 9)


def test_a_unix_socket_url_keeps_its_socket_directory():
    url = driver_url("postgresql://euchre@/euchre?host=/run/postgresql")

    assert url.drivername == "postgresql+psycopg"
    assert (url.database, url.query["host"]) == ("euchre", "/run/postgresql")


async def test_a_follower_waits_a_moment_for_events_held_back_by_an_older_transaction(
    store: EventStore, engine: AsyncEngine
):
    folded: list = []

    async def apply(conn, records) -> None:
        folded.extend(records)

    async def clear(conn) -> None:
        folded.clear()

    follower = Follower("test", engine, store, apply, clear)
    async with engine.connect() as older:
        await older.execute(text("SELECT pg_current_xact_id()"))  # a transaction with an id
        await store.append("T1", 0, [noted(1)])  # committed, but behind that transaction
        assert await follower.catch_up(patience=0) == 0
        waiting = asyncio.create_task(follower.catch_up(patience=10))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        await older.commit()
        assert await waiting == 1
    assert [e.data for e in folded] == [{"n": 1}]


async def test_a_follower_waits_for_no_event_appended_after_it_was_asked(
    store: EventStore, engine: AsyncEngine
):
    """Under load some event is always held back by an append under way: a follower waits for
    those committed before it was asked, then returns, not at the end of its patience."""
    follower = Follower("test", engine, store, _ignore, _ignore)
    appending = asyncio.Event()

    async def busy() -> None:
        # Each append is held back by a transaction older than it, and the next such
        # transaction begins before that one ends: the flat-out log's steady state.
        async with engine.connect() as older, engine.connect() as next_older:
            await older.execute(text("SELECT pg_current_xact_id()"))
            for n in itertools.count():
                await store.append(f"B{n}", 0, [noted(n)])
                appending.set()
                await asyncio.sleep(0.02)
                await next_older.execute(text("SELECT pg_current_xact_id()"))
                await older.commit()
                older, next_older = next_older, older

    load = asyncio.create_task(busy())
    try:
        await appending.wait()
        started = time.monotonic()
        assert await follower.catch_up(patience=5) > 0
        assert time.monotonic() - started < 2
    finally:
        load.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await load


async def _ignore(*_) -> None:
    pass


async def test_a_follower_folds_a_short_batch_in_one_transaction(
    store: EventStore, engine: AsyncEngine
):
    """A worker's follower is woken for every hand scored: a batch shorter than it asked for
    is all the horizon let through, so no empty transaction follows to make sure."""
    folded: list = []

    async def apply(conn, records) -> None:
        folded.extend(records)

    async def clear(conn) -> None:
        folded.clear()

    commits: list = []
    event.listen(engine.sync_engine, "commit", commits.append)
    follower = Follower("test", engine, store, apply, clear, batch=2)
    await store.append("T1", 0, [noted(1), noted(2), noted(3)])
    assert await follower.catch_up() == 3
    assert len(commits) == 2  # a full batch, then the short one

    commits.clear()
    await store.append("T1", 3, [noted(4)])
    assert await follower.catch_up() == 1
    assert await follower.catch_up() == 0
    assert len(commits) == 2  # one each
    assert [e.data["n"] for e in folded] == [1, 2, 3, 4]


async def test_a_second_copy_of_a_follower_waits_and_continues_where_the_first_stopped(
    store: EventStore, engine: AsyncEngine
):
    """Two processes running the same read model: the second waits while the first folds, then
    starts from the first's checkpoint instead of applying the same events again."""
    working, release = asyncio.Event(), asyncio.Event()
    folded: list = []

    async def first_apply(conn, records) -> None:
        working.set()
        await release.wait()
        folded.extend(records)

    async def second_apply(conn, records) -> None:
        folded.extend(records)

    async def clear(conn) -> None:
        folded.clear()

    await store.append("T1", 0, [noted(1), noted(2)])
    first = asyncio.create_task(Follower("stats", engine, store, first_apply, clear).catch_up())
    await working.wait()
    second = asyncio.create_task(
        Follower("stats", engine, store, second_apply, clear).catch_up(patience=0)
    )
    await asyncio.sleep(0.2)
    assert not second.done()

    release.set()
    assert await first == 2
    assert await second == 0
    await store.append("T1", 2, [noted(3)])
    assert await Follower("stats", engine, store, second_apply, clear).catch_up() == 1
    assert [e.data["n"] for e in folded] == [1, 2, 3]


async def test_a_follower_at_work_holds_no_other_follower_back(
    store: EventStore, engine: AsyncEngine
):
    """Its transaction takes an id only once it writes: reviewing a portion of hands takes
    seconds, and what commits meanwhile must not wait behind it for every other follower."""
    working, release = asyncio.Event(), asyncio.Event()

    async def slow(conn, records) -> None:
        working.set()
        await release.wait()

    seen: list = []

    async def quick(conn, records) -> None:
        seen.extend(records)

    async def clear(conn) -> None:
        pass

    await store.append("T1", 0, [noted(1)])
    slowly = asyncio.create_task(Follower("slow", engine, store, slow, clear).catch_up())
    await working.wait()
    await store.append("T2", 0, [noted(2)])
    assert await Follower("quick", engine, store, quick, clear).catch_up(patience=0) == 2
    release.set()
    assert await slowly == 1  # T2 came after it was asked: its next call reads it
    assert [e.stream for e in seen] == ["T1", "T2"]


@BOTH
async def test_a_reader_may_leave_out_the_data_of_types_it_does_not_read(store: EventStore):
    await store.append("T1", 0, [noted(1), NewEvent("Kept", {"k": 1}), noted(2)])
    # Readable once no older transaction anywhere on the server is still running.
    while len(await store.read_all(START)) < 3:
        await asyncio.sleep(0.01)

    some = await store.read_all(START, data_of=frozenset({"Kept"}))

    assert [(e.type, e.data) for e in some] == [("Noted", {}), ("Kept", {"k": 1}), ("Noted", {})]
    assert [e.cursor for e in some] == [e.cursor for e in await store.read_all(START)]


@BOTH
async def test_streams_read_together_each_start_where_the_reader_says(store: EventStore):
    for stream in ("T1", "T2", "T3"):
        await store.append(stream, 0, [noted(1), NewEvent("Kept", {"k": 1}), noted(2), noted(3)])

    logs = await store.read_streams(["T1", "T2", "T3"], frozenset({"Noted"}), {"T1": 2, "T3": 0})

    assert {s: [e.seq for e in log] for s, log in logs.items()} == {
        "T1": [3, 4],
        "T2": [1, 3, 4],
        "T3": [1, 3, 4],
    }


@BOTH
async def test_where_a_type_is_in_each_stream_is_read_without_the_events(store: EventStore):
    for stream in ("T1", "T2"):
        await store.append(stream, 0, [noted(1), NewEvent("Kept", {"k": 1}), noted(2)])

    assert await store.seqs_of(["T1", "T2", "T9"], "Kept") == {"T1": [2], "T2": [2], "T9": []}


def won(n: int) -> NewEvent:
    return NewEvent("GameWon", {"n": n})


async def settled(store: EventStore, events: int) -> list:
    """The whole log once a follower may read all of it (PostgreSQL's horizon is the server's:
    any transaction still running anywhere holds it back a moment)."""
    while len(found := await store.read_all(START)) < events:
        await asyncio.sleep(0.01)
    return found


@BOTH
async def test_a_follower_of_one_indexed_type_reads_it_alone_and_knows_where_its_last_is(
    store: EventStore,
):
    assert await store.last() == START and await store.last("GameWon") == START
    await store.append("T1", 0, [noted(1), won(1)])
    await store.append("T2", 0, [won(2), noted(2)])
    log = await settled(store, 4)

    games = await store.read_all(START, of_type="GameWon")

    assert [(e.stream, e.data) for e in games] == [("T1", {"n": 1}), ("T2", {"n": 2})]
    assert [e.cursor for e in games] == [e.cursor for e in log if e.type == "GameWon"]
    assert await store.read_all(games[0].cursor, of_type="GameWon") == games[1:]
    assert await store.read_all(games[0].cursor, limit=1, of_type="GameWon") == games[1:]
    assert await store.last() == log[-1].cursor
    assert await store.last("GameWon") == games[-1].cursor


@BOTH
async def test_every_store_refuses_alike_a_type_the_log_keeps_no_index_of(store: EventStore):
    await store.append("T1", 0, [noted(1)])
    with pytest.raises(ValueError, match="no index"):
        await store.read_all(START, of_type="Noted")
    with pytest.raises(ValueError, match="no index"):
        await store.last("Noted")


@BOTH
async def test_the_log_counts_itself_and_shares_read_every_stream_once(store: EventStore):
    for n in range(12):
        await store.append(f"T{n}", 0, [noted(n)] * (n % 3 + 1))

    assert await store.size() == (sum(n % 3 + 1 for n in range(12)), 12)
    shares = [[log async for log in store.every_stream((k, 3), batch=2)] for k in range(3)]
    streams = [log[0].stream for share in shares for log in share]
    assert sorted(streams) == sorted(f"T{n}" for n in range(12))
    for share in shares:
        for log in share:
            assert log == await store.read(log[0].stream)


@BOTH
async def test_a_tables_quiet_time_counts_from_its_last_event_of_a_type_not_ignored(
    store: EventStore,
):
    await store.append("T1", 0, [noted(1)])
    await asyncio.sleep(0.3)
    await store.append("T1", 1, [NewEvent("Kept", {})])

    since_noted = await store.quiet_for("T1", frozenset({"Kept"}))
    since_kept = await store.quiet_for("T1", frozenset())

    assert since_noted is not None and since_kept is not None
    assert since_noted >= 0.3 > since_kept >= 0
    assert await store.quiet_for("T1", frozenset({"Kept", "Noted"})) is None
    assert await store.quiet_for("T9", frozenset()) is None


async def test_the_followers_checks_and_a_reading_of_some_streams_never_scan_the_whole_log(
    store: EventStore, database_url: str
):
    """As a live log is planned: its statistics taken while it was small and held none of the
    types read (a new game's first events are seats taken), then outgrown. With them, the
    planner scanned the whole table for each of these, and that cost grew with the log."""

    async def fill(streams: range, kinds: tuple[str, ...]) -> None:
        for first in streams[::10]:
            await asyncio.gather(
                *(
                    store.append(
                        f"T{t}", 0, [NewEvent(kinds[i % len(kinds)], {}) for i in range(100)]
                    )
                    for t in range(first, first + 10)
                )
            )

    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await fill(range(0, 20), ("Noted",))
        await conn.execute("ANALYZE events")
        await fill(range(20, 220), ("Noted", "Kept", "Noted"))
        plans = {
            "the last": (LAST_SQL, ()),
            "the last of a type": (LAST_TYPE_SQL["GameWon"], ()),
            "some streams": (READ_STREAMS_SQL, (["T30", "T150"], [0, 50], ["Kept"])),
            "where in some streams": (SEQS_OF_SQL, (["T30", "T150"], "Kept")),
        }
        for name, (sql, params) in plans.items():
            rows = await (await conn.execute(f"EXPLAIN {sql}", params)).fetchall()
            plan = "\n".join(row[0] for row in rows)
            assert "Seq Scan on events" not in plan, f"{name}:\n{plan}"


async def test_a_rebuild_reads_the_log_once_for_every_follower_and_folds_what_they_would(
    store: EventStore, engine: AsyncEngine, monkeypatch
):
    folds: dict[str, list] = {"all": [], "kept": []}

    def follower(name: str, data_of: frozenset[str] | None) -> Follower:
        async def apply(conn, records) -> None:
            # What a follower may rely on: the data of the types it named, and every cursor.
            folds[name].extend(
                (e.cursor, e.data if data_of is None or e.type in data_of else None)
                for e in records
            )

        async def clear(conn) -> None:
            folds[name].clear()

        return Follower(name, engine, store, apply, clear, data_of=data_of)

    both = [follower("all", None), follower("kept", frozenset({"Kept"}))]
    for n in range(30):
        await store.append(f"T{n % 4}", 2 * (n // 4), [noted(n), NewEvent("Kept", {"k": n})])
    for f in both:
        await f.catch_up()
    live = {name: list(fold) for name, fold in folds.items()}
    reads: list[int] = []
    read_all = store.read_all

    async def counted(*args, **kwargs):
        found = await read_all(*args, **kwargs)
        reads.append(len(found))
        return found

    monkeypatch.setattr(store, "read_all", counted)

    assert await rebuild(both) == 60
    assert folds == live
    assert sum(reads) == 60  # once, not once a follower


async def test_a_rebuild_gives_a_follower_of_one_type_that_type_alone_and_the_rest_the_log_once(
    store: EventStore, engine: AsyncEngine, monkeypatch
):
    folds: dict[str, list] = {"all": [], "scored": []}

    def follower(name: str, of_type: str | None) -> Follower:
        async def apply(conn, records) -> None:
            folds[name].extend((e.type, e.data) for e in records)

        async def clear(conn) -> None:
            folds[name].clear()

        data_of = None if of_type is None else frozenset({of_type})
        return Follower(name, engine, store, apply, clear, data_of=data_of, of_type=of_type)

    both = [follower("all", None), follower("scored", "HandScored")]
    for n in range(12):
        await store.append(f"T{n % 3}", 2 * (n // 3), [noted(n), NewEvent("HandScored", {"h": n})])
    for f in both:
        await f.catch_up()
    live = {name: list(fold) for name, fold in folds.items()}
    reads: list[tuple[str | None, int]] = []
    read_all = store.read_all

    async def counted(after=START, limit=500, data_of=None, of_type=None):
        found = await read_all(after, limit, data_of, of_type)
        reads.append((of_type, len(found)))
        return found

    monkeypatch.setattr(store, "read_all", counted)

    assert await rebuild(both) == 24 + 12
    assert folds == live
    assert folds["scored"] == [("HandScored", {"h": n}) for n in range(12)]
    assert sum(n for kind, n in reads if kind is None) == 24  # the log once, for "all"
    assert sum(n for kind, n in reads if kind == "HandScored") == 12  # its type alone
