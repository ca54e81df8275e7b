"""Reviewing hands as a Dramatiq worker, on real PostgreSQL and each real broker: the commit of
a hand scored wakes it, through the same scheduler that sends bot turns; and the sweeper wakes
it while a hand scored waits unreviewed."""

from __future__ import annotations

import asyncio
import time

import pytest
from rated_kit import SEED, append_game, finished_game

from domain import commands as cmd
from domain import deciding, fallback
from infra.activity import Activity
from infra.db import create_engine
from infra.reviews import Reviews
from services.bots.runtime import BotRuntime
from services.bots.sweeper import Sweeper
from services.use_cases import Tables

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_hand_scored_through_the_use_cases_wakes_the_reviews(
    database_url, broker_url, namespace, store
):
    """Ada plays her own seat (the rules' fallback), the worker's bots the others; nobody
    wakes the reviews by hand."""
    engine = create_engine(database_url, pool_size=1)
    reviews = Reviews(engine, store)
    try:
        with BotRuntime(database_url, broker_url, 0.0, namespace=namespace, sweep=False) as w:
            tables = Tables(store, w.scheduler)
            opened = cmd.OpenTable(code="LOOK", host="ada", name="Ada", seed=SEED)
            await tables.execute("LOOK", opened)
            state = await tables.execute("LOOK", cmd.StartGame(player="ada"))
            deadline = time.monotonic() + 60
            while not state.history:
                assert time.monotonic() < deadline, f"stalled at seq {state.seq}"
                if any(d.seat == 0 for d in deciding(state)):
                    state = await tables.execute("LOOK", fallback(state, 0))
                else:
                    await asyncio.sleep(0.02)
                    state = await tables.load("LOOK")
            while not await reviews.of("LOOK", 1):
                assert time.monotonic() < deadline, "the hand scored was never reviewed"
                await asyncio.sleep(0.05)
    finally:
        await engine.dispose()
    (done,) = await reviews.of("LOOK", 1)
    assert done.hand_no == 1 and len(done.cards) in (15, 20)


async def test_the_sweeper_wakes_the_reviews_while_a_hand_scored_is_unreviewed(database_url, store):
    engine = create_engine(database_url, pool_size=2)
    woken = []
    try:
        reviews = Reviews(engine, store)
        wakes = [(reviews.behind, lambda: woken.append(True))]
        sweeper = Sweeper(Activity(engine, store), Tables(store), lambda *t: None, 0.0, wakes=wakes)
        await sweeper.sweep()
        assert woken == []
        await append_game(
            store, "LOST", finished_game("LOST", 2, [("ada", True), None, None, None])
        )
        await sweeper.sweep()
        assert woken == [True]
        await reviews.catch_up()
        await sweeper.sweep()
        assert woken == [True]
    finally:
        await engine.dispose()
