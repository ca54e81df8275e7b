"""The ratings follower on real PostgreSQL: it rates each game won once, in log order, whoever
runs it and however often; reads nothing but the games won; and a rebuild from the log gets
the same numbers to the last bit."""

from __future__ import annotations

import asyncio
import random

import pytest
from rated_kit import append_game, finished_game, rated_in_order
from sqlalchemy import select, text

from infra.activity import Activity
from infra.db import create_engine
from infra.follower import rebuild
from infra.lobby import Lobby
from infra.ratings import Ratings, game_ratings, player_stats, rating_history, ratings
from projections.ratings import NEW

pytestmark = pytest.mark.anyio
PLAYERS = ["ada", "bo", "cy", "dee", "eve"]


def some_people(rng: random.Random) -> list:
    """One to four of the registered players (a guest now and then), bots in the rest."""
    seats: list = [None] * 4
    count = rng.randint(1, 4)
    for n, who in zip(rng.sample(range(4), count), rng.sample(PLAYERS, count), strict=True):
        seats[n] = (who, True) if rng.random() < 0.85 else (f"guest-{who}", False)
    return seats


def games(count: int, seed: int = 1) -> list[list]:
    rng = random.Random(seed)
    out = []
    for n in range(count):
        people = some_people(rng)
        seated = [i for i, p in enumerate(people) if p is not None]
        leaver = rng.choice(seated) if rng.random() < 0.2 else None
        level = rng.choice(["easy", "medium", "hard"])
        out.append(finished_game(f"G{n}", seed * 1000 + n, people, level, leaver))
    return out


async def snapshot(engine) -> dict:
    async with engine.connect() as conn:
        return {
            t.name: sorted(map(tuple, await conn.execute(select(t))))
            for t in (ratings, rating_history, player_stats, game_ratings)
        }


async def test_games_are_rated_in_log_order(engine, store):
    played = games(12)
    model = Ratings(engine, store)
    for n, events in enumerate(played):
        await append_game(store, f"G{n}", events)
    assert await model.behind()
    await model.catch_up()
    assert not await model.behind()
    expected = rated_in_order(played)
    for player, rating in expected.items():
        standing = await model.standing(player)
        assert standing.rating == rating  # exactly: the same floats in the same order
    assert await model.standing("nobody") is None
    assert await model.standing("guest-ada") is None


async def test_every_game_won_gets_a_result_and_only_rated_ones_move_anyone(engine, store):
    guests_only = finished_game("GUESTS", 3, [("gus", False), None, None, None])
    rated = finished_game("RATED", 4, [("ada", True), None, ("bo", True), None])
    unfinished = finished_game("HALF", 5, [("cy", True), None, None, None])[:40]
    for code, events in (("GUESTS", guests_only), ("RATED", rated), ("HALF", unfinished)):
        await append_game(store, code, events)
    model = Ratings(engine, store)
    await model.catch_up()
    assert (await model.game("GUESTS")).rated is False
    result = await model.game("RATED")
    assert result.rated and [s.status for s in result.seats] == ["rated", "bot", "rated", "bot"]
    assert await model.game("HALF") is None  # abandoned: never won, never rated
    assert await model.standing("cy") is None
    ada = await model.standing("ada")
    assert ada.games == 1 and ada.stats.totals.games == 1
    assert ada.rating != NEW and len(ada.recent) == len(ada.history) == 1


async def test_followers_in_several_processes_rate_each_game_once(database_url, store):
    """Three copies of the follower, each with its own engine as a worker process would
    have, catching up at once over and over while games keep arriving."""
    played = games(24, seed=2)
    engines = [create_engine(database_url, pool_size=2) for _ in range(3)]
    models = [Ratings(e, store) for e in engines]
    try:

        async def keep_catching_up(model: Ratings, stop: asyncio.Event) -> None:
            while not stop.is_set():
                await model.catch_up(patience=0.0)
                await asyncio.sleep(0)

        stop = asyncio.Event()
        racing = [asyncio.create_task(keep_catching_up(m, stop)) for m in models]
        for n, events in enumerate(played):
            await append_game(store, f"G{n}", events)
            await asyncio.sleep(0.01)
        stop.set()
        await asyncio.gather(*racing)
        await models[0].catch_up()
        expected = rated_in_order(played)
        for player, rating in expected.items():
            assert (await models[1].standing(player)).rating == rating
        async with engines[0].connect() as conn:
            doubled = await conn.scalar(
                text(
                    "SELECT count(*) FROM (SELECT code FROM rating_history "
                    "GROUP BY code, player_id HAVING count(*) > 1) d"
                )
            )
            results = await conn.scalar(text("SELECT count(*) FROM game_ratings"))
        assert doubled == 0 and results == len(played)
    finally:
        for e in engines:
            await e.dispose()


async def test_a_rebuild_from_the_log_gets_identical_numbers(engine, store):
    played = games(15, seed=3)
    for n, events in enumerate(played):
        await append_game(store, f"G{n}", events)
    model = Ratings(engine, store)
    await model.catch_up()
    before = await snapshot(engine)
    assert before["ratings"] and before["rating_history"]
    followers = [Lobby(engine, store).follower, Activity(engine, store).follower, model.follower]
    await rebuild(followers)
    assert await snapshot(engine) == before


async def test_the_live_follower_reads_only_the_games_won(engine, store):
    """It follows an index of the games won: a log of moves alone costs it no rows."""
    await append_game(store, "HALF", finished_game("HALF", 6, [("ada", True)] + [None] * 3)[:60])
    model = Ratings(engine, store)
    assert not await model.behind()
    assert await model.catch_up(patience=0.0) == 0
