"""The activity read model the sweeper reads: where each unfinished table's game last moved.
Talk is not activity."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import event, func, select

from domain import commands as cmd
from infra.activity import Activity, activity
from infra.eventstore import EventStore
from infra.follower import put_rows
from services.use_cases import Tables

pytestmark = pytest.mark.anyio
SEED = "5e" * 32


async def row(engine, code: str) -> tuple[int, object] | None:
    async with engine.connect() as conn:
        found = (await conn.execute(select(activity).where(activity.c.code == code))).first()
    return None if found is None else (found.seq, found.at)


async def test_talk_leaves_a_tables_activity_where_the_game_left_it(engine, store: EventStore):
    tables = Tables(store)
    follower = Activity(engine, store)
    await tables.execute("TALK", cmd.OpenTable(code="TALK", host="h", name="H", seed=SEED))
    state = await tables.execute("TALK", cmd.StartGame(player="h"))
    await follower.catch_up()
    moved = await row(engine, "TALK")
    assert moved is not None and moved[0] == state.seq

    await tables.execute("TALK", cmd.Say(player="h", name="H", text="your lead"))
    await tables.execute("TALK", cmd.React(player="k", name="K", emoji="👍"))
    await tables.execute("TALK", cmd.Mute(player="h", target="k", name="K"))
    await follower.catch_up()
    assert await row(engine, "TALK") == moved


async def test_a_hosts_lock_and_unlock_move_the_seq_but_not_the_clock(engine, store: EventStore):
    """The turn and stall limits time a person's decision: a host who holds the game must not
    restart that clock by locking and unlocking the table every few minutes."""
    tables = Tables(store)
    follower = Activity(engine, store)
    await tables.execute("HOLD", cmd.OpenTable(code="HOLD", host="h", name="H", seed=SEED))
    await tables.execute("HOLD", cmd.StartGame(player="h"))
    await follower.catch_up()
    moved = await row(engine, "HOLD")
    assert moved is not None

    await tables.execute("HOLD", cmd.LockTable(player="h"))
    await follower.catch_up()
    state = await tables.execute("HOLD", cmd.UnlockTable(player="h"))
    await follower.catch_up()
    assert await row(engine, "HOLD") == (state.seq, moved[1])


async def test_rows_are_set_in_one_statement_and_deleted_in_another(engine):
    """A sweep's catch-up touches every table in play: a statement per row was hundreds a
    second with bots at 1,000 tables, and one of many VALUES was compiled afresh each time."""
    statements: list[str] = []
    event.listen(engine.sync_engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    now = datetime.now(UTC)
    many = {f"T{n}": {"seq": n, "at": now} for n in range(2001)}
    async with engine.begin() as conn:
        await put_rows(conn, activity, many)
    assert len(statements) == 1
    again = {**{f"T{n}": {"seq": -n, "at": now} for n in range(5)}, "T5": None, "T6": None}
    async with engine.begin() as conn:
        await put_rows(conn, activity, again)
    assert len(statements) == 3
    async with engine.connect() as conn:
        assert await conn.scalar(select(func.count()).select_from(activity)) == 1999
        negative = select(func.sum(activity.c.seq)).where(activity.c.seq < 0)
        assert await conn.scalar(negative) == -10
    assert await row(engine, "T7") == (7, now)
