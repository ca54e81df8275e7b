"""The activity read model the sweeper reads: where each unfinished table's game last moved.
Talk is not activity."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from domain import commands as cmd
from infra.activity import Activity, activity
from infra.eventstore import EventStore
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
