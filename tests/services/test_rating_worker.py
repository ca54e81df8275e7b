"""Rating games as a Dramatiq worker, on real PostgreSQL and each real broker: woken after a
game is won, it rates each game once however many wake-ups arrive and in whatever order, and
the sweeper wakes it when a wake-up was lost."""

from __future__ import annotations

import asyncio
import random
import time

import msgspec
import pytest
from broker_kit import Dealt
from rated_kit import SEED, append_game, finished_game, rated_in_order
from sqlalchemy import text

from domain import commands as cmd
from domain import deciding, fallback
from domain import events as ev
from infra.activity import Activity
from infra.broker import RATE_GAMES
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
        wakes = Dealt(RATE_GAMES)
        worker.broker.add_middleware(wakes)
        for _ in range(5):
            worker.wake_ratings()
        await wakes.all_dealt_with()  # the duplicates would have landed by now
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


async def rated_result(database_url: str, store, code: str):
    engine = create_engine(database_url, pool_size=1)
    try:
        ratings = Ratings(engine, store)
        await ratings.catch_up()
        return await ratings.game(code)
    finally:
        await engine.dispose()


async def test_a_stand_up_past_the_grace_is_rated_as_a_leave_by_the_logs_own_times(
    database_url, store
):
    """Seen: a player stood up at the start, let an expert bot play their seat against easy
    bots and sat back down when ahead, rated as a winner. The worker reads when each event was
    logged: back ten minutes later, they left the game."""
    sit = cmd.TakeSeat(player="ada", name="Ada", seat=0, registered=True)
    events = finished_game("SANDBAG", 3, [("ada", True), None, ("bo", True), None], "easy")
    start = next(n for n, e in enumerate(events) if type(e).__name__ == "GameStarted")
    back = start + 40
    assert type(events[back]).__name__ != "GameWon"
    left = [*events[: start + 1], ev.SeatLeft(seat=0, player="ada")]
    sandbag = [*left, *events[start + 1 : back], ev.SeatTaken(**msgspec.structs.asdict(sit))]
    sandbag += events[back:]
    await append_game(store, "SANDBAG", sandbag)
    engine = create_engine(database_url, pool_size=1)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "UPDATE events SET at = at + interval '10 minutes' "
                    "WHERE stream = 'SANDBAG' AND seq > :seq"
                ),
                {"seq": len(left) + back - start - 1},
            )
    finally:
        await engine.dispose()
    result = await rated_result(database_url, store, "SANDBAG")
    assert result.seats[0].status == "left" and not result.seats[0].won
    assert result.seats[2].status == "rated"


async def test_a_game_held_past_the_stall_limit_ends_and_charges_the_staller(database_url, store):
    """Seen: with turn_limit off, a player who kept the stream open froze the game forever,
    never rated. The sweeper ends it as abandoned once it has stood still past the limit, on
    the person whose turn it was; the worker charges them alone."""
    engine = create_engine(database_url, pool_size=2)
    try:
        tables = Tables(store)
        off = {"turn_limit": "off"}
        opened = cmd.OpenTable(
            code="STALL", host="ada", name="Ada", seed=SEED, registered=True, settings=off
        )
        await tables.execute("STALL", opened)
        await tables.execute("STALL", cmd.TakeSeat(player="bo", name="Bo", seat=1, registered=True))
        state = await tables.execute("STALL", cmd.StartGame(player="ada"))
        while not any(not state.seats[d.seat].is_bot for d in deciding(state)):
            state = await tables.execute("STALL", fallback(state, deciding(state)[0].seat))
        staller = next(d.seat for d in deciding(state) if not state.seats[d.seat].is_bot)
        activity = Activity(engine, store)
        sweeper = Sweeper(activity, tables, lambda *turn: None, 0.0)
        await sweeper.sweep()
        assert (await tables.load("STALL")).status == "playing"  # not past the limit yet
        while await activity.follower.behind():  # held back by another database's writes
            await activity.catch_up()
        async with engine.begin() as conn:  # the table has stood still for ten minutes
            await conn.execute(text("UPDATE activity SET at = now() - interval '10 minutes'"))
        await sweeper.sweep()
        over = await tables.load("STALL")
    finally:
        await engine.dispose()
    assert over.status == "over" and over.winner == 1 - staller % 2
    result = await rated_result(database_url, store, "STALL")
    statuses = {n: s.status for n, s in enumerate(result.seats) if s.player is not None}
    assert statuses == {staller: "stalled", 1 - staller: "abandoned"}
    assert not result.seats[staller].won
    assert result.seats[staller].after.mu < result.seats[staller].before.mu
