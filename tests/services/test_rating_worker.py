"""Rating games as a Dramatiq worker, on real PostgreSQL and each real broker: woken after a
game is won, it rates each game once however many wake-ups arrive and in whatever order, and
the sweeper wakes it when a wake-up was lost."""

from __future__ import annotations

import asyncio
import random
import time

import pytest
from rated_kit import SEED, append_game, finished_game, rated_in_order
from sqlalchemy import text

from domain import commands as cmd
from domain import deciding, fallback
from infra.activity import Activity
from infra.db import create_engine
from infra.ratings import Ratings
from services.bots.runtime import BotRuntime
from services.bots.sweeper import Sweeper
from services.use_cases import Tables

pytestmark = pytest.mark.anyio
PEOPLE = [("ada", True), None, ("bo", True), None]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def rated_games(database_url: str) -> int:
    engine = create_engine(database_url, pool_size=1)
    try:
        async with engine.connect() as conn:
            return await conn.scalar(text("SELECT count(*) FROM game_ratings"))
    finally:
        await engine.dispose()


async def until_rated(database_url: str, count: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while (done := await rated_games(database_url)) < count:
        assert time.monotonic() < deadline, f"{done} of {count} games rated"
        await asyncio.sleep(0.05)


async def test_duplicated_and_reordered_wake_ups_rate_each_game_once(
    database_url, broker_url, namespace, store
):
    rng = random.Random(5)
    played = [
        finished_game(f"W{n}", n, PEOPLE, "hard", leaver=rng.choice([None, None, 0, 2]))
        for n in range(10)
    ]
    with BotRuntime(database_url, broker_url, 0.0, namespace=namespace, sweep=False) as worker:
        worker.wake_ratings()  # before any game: nothing to do
        for n, events in enumerate(played):
            # Some games' wake-ups come early, some twice, some never: the next one covers.
            for _ in range(rng.choice([0, 1, 3])):
                worker.wake_ratings()
            await append_game(store, f"W{n}", events)
            if rng.random() < 0.5:
                worker.wake_ratings()
        worker.wake_ratings()
        await until_rated(database_url, len(played))
        for _ in range(5):
            worker.wake_ratings()
        await asyncio.sleep(0.5)  # time for the duplicates to land, if they were going to
    assert await rated_games(database_url) == len(played)
    engine = create_engine(database_url, pool_size=1)
    try:
        model = Ratings(engine, store)
        for player, rating in rated_in_order(played).items():
            assert (await model.standing(player)).rating == rating
    finally:
        await engine.dispose()


async def test_a_game_won_through_the_use_cases_wakes_the_worker(
    database_url, broker_url, namespace, store
):
    """Two registered people play their own seats (the rules' fallback), the worker's bots the
    others; nobody wakes the ratings by hand: the commit of the game won does."""
    with BotRuntime(database_url, broker_url, 0.0, namespace=namespace, sweep=False) as worker:
        tables = Tables(store, worker.scheduler)
        opened = cmd.OpenTable(code="HOOK", host="ada", name="Ada", seed=SEED, registered=True)
        await tables.execute("HOOK", opened)
        sit = cmd.TakeSeat(player="bo", name="Bo", seat=2, registered=True)
        await tables.execute("HOOK", sit)
        state = await tables.execute("HOOK", cmd.StartGame(player="ada"))
        deadline = time.monotonic() + 120
        while state.status == "playing":
            assert time.monotonic() < deadline, f"stalled at seq {state.seq}"
            mine = [d for d in deciding(state) if not state.seats[d.seat].is_bot]
            if mine:
                state = await tables.execute("HOOK", fallback(state, mine[0].seat))
            else:
                await asyncio.sleep(0.02)
                state = await tables.load("HOOK")
        await until_rated(database_url, 1)
    engine = create_engine(database_url, pool_size=1)
    try:
        result = await Ratings(engine, store).game("HOOK")
    finally:
        await engine.dispose()
    assert [s.status for s in result.seats] == ["rated", "bot", "rated", "bot"]
    assert result.seats[0].won == (state.winner == 0)


async def test_the_sweeper_wakes_the_ratings_while_a_game_won_is_unrated(database_url, store):
    engine = create_engine(database_url, pool_size=2)
    woken = []
    try:
        ratings = Ratings(engine, store)
        sweeper = Sweeper(
            Activity(engine, store),
            Tables(store),
            lambda *turn: None,
            0.0,
            wakes=[(ratings.behind, lambda: woken.append(True))],
        )
        await sweeper.sweep()
        assert woken == []
        await append_game(store, "LOST", finished_game("LOST", 2, PEOPLE))
        await sweeper.sweep()
        assert woken == [True]
        await ratings.catch_up()
        await sweeper.sweep()
        assert woken == [True]
    finally:
        await engine.dispose()
