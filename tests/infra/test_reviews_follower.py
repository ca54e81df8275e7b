"""The reviews follower on real PostgreSQL: each scored hand reviewed once, as the rules review
it, however many followers race; no hand before it is scored; nothing read but the cards
played, so a log whose secrets are scrambled gets the same reviews; and a rebuild keeps the
rows and reviews the hands that have none, from the log."""

from __future__ import annotations

import asyncio
import os
import random

import pytest
from log_kit import unplayed_scrambled
from rated_kit import append_game, finished_game
from sqlalchemy import delete, select

from domain import events as ev
from domain.bots.review import played_hands, review
from domain.codec import to_record
from infra.db import create_engine
from infra.eventstore import NewEvent
from infra.follower import rebuild
from infra.reviews import PLAYED_BY, SOLVING_NICENESS, Reviews, hand_reviews

pytestmark = pytest.mark.anyio
PEOPLE = [("ada", True), None, ("bo", False), None]


def games(count: int, seed: int = 1) -> list[list[ev.Event]]:
    return [finished_game(f"R{n}", seed * 100 + n, PEOPLE, "hard") for n in range(count)]


async def test_each_scored_hand_is_reviewed_once_as_the_rules_review_it(
    engine, store, database_url
):
    played = games(4)
    engines = [create_engine(database_url, pool_size=2) for _ in range(2)]
    try:
        models = [Reviews(e, store) for e in engines]
        for n, events in enumerate(played):
            await append_game(store, f"R{n}", events)
            await asyncio.gather(*(m.catch_up() for m in models))
        await asyncio.gather(*(m.catch_up() for m in models))
    finally:
        for e in engines:
            await e.dispose()
    model = Reviews(engine, store)
    assert not await model.behind()
    for n, events in enumerate(played):
        expected = [review(h) for h in played_hands(events)]
        assert len(expected) >= 3
        assert await model.of(f"R{n}", 99) == expected
        assert await model.of(f"R{n}", 2) == expected[:2]
    async with engine.connect() as conn:
        rows = (await conn.execute(select(hand_reviews.c.code, hand_reviews.c.hand_no))).all()
    assert len(rows) == len(set(rows)) == sum(len(list(played_hands(g))) for g in played)


async def test_hands_are_solved_beside_this_process_at_a_lower_priority(engine, store):
    """Not on a thread here, where each slice of the GIL the solver held was one a worker's
    bot turns waited for; and the process is stopped with the model."""
    model = Reviews(engine, store)
    await append_game(store, "R0", games(1)[0])
    await model.catch_up()
    solving = model._solving
    solver = await solving.run(os.getpid)
    assert solver != os.getpid()
    niceness = await solving.run(os.getpriority, os.PRIO_PROCESS, 0)
    assert niceness == min(os.getpriority(os.PRIO_PROCESS, 0) + SOLVING_NICENESS, 19)
    model.close()
    with pytest.raises(ProcessLookupError):  # stopped with the model
        os.kill(solver, 0)


async def test_a_hand_has_no_review_until_it_is_scored(engine, store):
    events = games(1, seed=2)[0]
    scored = [n for n, e in enumerate(events) if isinstance(e, ev.HandScored)]
    model = Reviews(engine, store)
    # The log stops one card short of the second hand's end: its tricks are all but played.
    await append_game(store, "HALF", events[: scored[1] - 2])
    await model.catch_up()
    assert [r.hand_no for r in await model.of("HALF", 99)] == [1]
    await store.append(
        "HALF", scored[1] - 2, [NewEvent(*to_record(e)) for e in events[scored[1] - 2 :]]
    )
    assert await model.behind()
    await model.catch_up()
    assert len(await model.of("HALF", 99)) == len(scored)


async def test_a_hand_reviewed_as_it_ends_reads_its_own_cards_not_the_games(
    engine, store, monkeypatch
):
    """As the live worker does, woken after each hand: every review reads one hand of the
    log, however late in the game, and numbers it from the hands before."""
    events = games(1, seed=7)[0]
    ends = [n + 1 for n, e in enumerate(events) if isinstance(e, ev.HandScored)]
    assert len(ends) >= 4
    read: list[int] = []
    rules: list[int] = []
    read_streams = store.read_streams

    async def counted(codes, types, *args, **kwargs):
        logs = await read_streams(codes, types, *args, **kwargs)
        (read if types == PLAYED_BY else rules).append(sum(map(len, logs.values())))
        return logs

    monkeypatch.setattr(store, "read_streams", counted)
    model = Reviews(engine, store)
    for start, end in zip([0, *ends], ends, strict=False):
        await store.append("LIVE", start, [NewEvent(*to_record(e)) for e in events[start:end]])
        await model.catch_up()
    assert await model.of("LIVE", 99) == [review(h) for h in played_hands(events)]
    # A hand's deal, bids (eight at most), cards played, tricks and score: 35 events at most;
    # and of the rest of the log only the table's opening, for its house rules.
    assert len(read) == len(ends) and max(read) <= 35
    assert rules == [1] * len(ends)


async def test_a_long_history_is_reviewed_a_portion_at_a_time(engine, store):
    """As a worker's wake-up does it (`most`), so no message holds a worker for long: the
    first start after the migration finds every hand of the history waiting."""
    played = games(2, seed=6)
    for n, events in enumerate(played):
        await append_game(store, f"R{n}", events)
    model = Reviews(engine, store)
    assert await model.catch_up(batch=2, most=4) == 4
    assert await model.behind()
    while await model.behind():
        await model.catch_up(batch=2, most=4)
    hands = sum(len(list(played_hands(g))) for g in played)
    assert len(await _rows(engine)) == hands


async def test_scrambling_the_deals_secrets_in_the_log_changes_no_review(engine, store):
    rng = random.Random(4)
    model = Reviews(engine, store)
    for n, events in enumerate(games(3, seed=3)):
        await append_game(store, f"TRUE{n}", events)
        await append_game(store, f"FAKE{n}", unplayed_scrambled(events, rng))
    await model.catch_up()
    for n in range(3):
        assert await model.of(f"FAKE{n}", 99) == await model.of(f"TRUE{n}", 99) != []


async def test_a_rebuild_keeps_the_reviews_and_reviews_the_hands_without_one(engine, store):
    for n, events in enumerate(games(3, seed=5)):
        await append_game(store, f"R{n}", events)
    model = Reviews(engine, store)
    await model.catch_up()
    before = await _rows(engine)
    assert before
    await rebuild([model.follower])
    assert await _rows(engine) == before
    # Emptied (as a migration does when reviewing changes), or a few rows lost: all back.
    async with engine.begin() as conn:
        await conn.execute(delete(hand_reviews).where(hand_reviews.c.hand_no % 2 == 1))
    await rebuild([model.follower])
    assert await _rows(engine) == before
    async with engine.begin() as conn:
        await conn.execute(delete(hand_reviews))
    await rebuild([model.follower])
    assert await _rows(engine) == before
    assert not await model.behind()


async def _rows(engine) -> list[tuple]:
    async with engine.connect() as conn:
        return sorted(map(tuple, await conn.execute(select(hand_reviews))))
