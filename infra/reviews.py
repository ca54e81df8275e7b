"""The reviews read model's storage: each scored hand's review, card by card
(domain/bots/review.py).

A follower reads the hands scored from the log (an index of their own), then only the public
record of those tables' hands: the bids, the cards played, the tricks taken and claimed, and of
each deal its dealer and up card; and the table's house rules. The domain reads nothing else
of a deal or an opening (domain/bots/review.py `played_hands`): never a hand dealt, a kitty, a
buried card or the seed, and a test scrambles those and finds every review unchanged. Rows and
checkpoint commit together, so however often the worker is woken, and whichever worker is, each
hand is reviewed once.

Unlike the other read models, a rebuild keeps the rows it finds and reviews only the hands
that have none. A review is a function of its hand's public record alone, which the log never
changes, and reviewing costs tens of milliseconds a hand where folding an event costs microseconds:
10,000 games reviewed afresh add about four minutes to a rebuild that takes under one for
everything else (docs/scaling.md). A change to how hands are reviewed empties the
table in a migration, and the next rebuild (or the live follower) reviews them all again.
"""

from __future__ import annotations

from typing import Any

import msgspec
from sqlalchemy import BigInteger, Column, Index, Integer, MetaData, Table, Text, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from domain.bots.review import HandReview, played_hands, review
from domain.codec import to_event
from domain.events import (
    BidPassed,
    CardPlayed,
    HandDealt,
    HandScored,
    SettingsChanged,
    TableOpened,
    TricksClaimed,
    TrickTaken,
    TrumpCalled,
    TrumpOrdered,
)
from domain.house_rules import HouseRules
from infra import background
from infra.eventstore import Notifications, RecordedEvent
from infra.follower import Follower

HAND_SCORED = HandScored.__struct_config__.tag
# The hands a worker's message reviews at most: some seconds' work (tens of milliseconds a
# hand, most of it the bids'), well inside its time.
PORTION = 200
# What a review reads of a table's log: the deal's dealer and up card, the bids, the cards
# played, and where tricks and hands end; and, from the table's opening, its house rules.
PLAYED_BY = frozenset(
    e.__struct_config__.tag
    for e in (
        HandDealt,
        BidPassed,
        TrumpOrdered,
        TrumpCalled,
        CardPlayed,
        TrickTaken,
        TricksClaimed,
        HandScored,
    )
)
RULES_BY = frozenset(e.__struct_config__.tag for e in (TableOpened, SettingsChanged))
# A third of a normal process's weight: on a saturated box the hands wait for the play, and
# still get reviewed.
SOLVING_NICENESS = 5

metadata = MetaData()
hand_reviews = Table(
    "hand_reviews",
    metadata,
    Column("code", Text, primary_key=True),
    Column("hand_no", Integer, primary_key=True),
    Column("position", BigInteger, nullable=False),
    Column("review", JSONB, nullable=False),
    Index("hand_reviews_position", "position", unique=True),
)


class Reviews:
    def __init__(self, engine: AsyncEngine, store: Notifications) -> None:
        self._engine = engine
        self._store = store
        self.follower = Follower(
            "reviews",
            engine,
            store,
            self._apply,
            self._keep,
            batch=500,
            data_of=frozenset({HAND_SCORED}),
            of_type=HAND_SCORED,
        )
        self.catch_up = self.follower.catch_up
        self.behind = self.follower.behind
        self._solving = background.Pool(1, SOLVING_NICENESS)  # started at the first hand to review

    def close(self) -> None:
        """Stop the solving process, if one was started. A process that multiprocessing
        started must do so before it ends: its own exit closes the queues the pool would stop
        its process through, and waits for it for ever."""
        self._solving.shutdown()

    async def review_some(self) -> int:
        """A worker's wake-up: unless this process is reviewing already, up to PORTION more
        hands; how many were read. A database whose long history has no reviews yet (the
        first start after migration 0011) takes many wake-ups, and the sweeper's, every few
        seconds while hands wait, carry on; none of them holds a worker's thread for long, or
        waits for another."""
        if self.follower.busy:
            return 0
        return await self.catch_up(most=PORTION)

    async def of(self, code: str, hands: int) -> list[HandReview]:
        """Table `code`'s reviews of its first `hands` scored hands, those done so far."""
        query = (
            select(hand_reviews.c.review)
            .where(hand_reviews.c.code == code, hand_reviews.c.hand_no <= hands)
            .order_by(hand_reviews.c.hand_no)
        )
        async with self._engine.connect() as conn:
            return [msgspec.convert(r, HandReview) for r in await conn.scalars(query)]

    async def _apply(self, conn: AsyncConnection, records: list[RecordedEvent]) -> None:
        scored = {(r.stream, r.seq): r.position for r in records if r.type == HAND_SCORED}
        if scored:
            have = hand_reviews.c.position.in_(list(scored.values()))
            done = set(await conn.scalars(select(hand_reviews.c.position).where(have)))
            scored = {k: p for k, p in scored.items() if p not in done}
        if not scored:
            return
        by_table: dict[str, dict[int, int]] = {}
        for (code, seq), position in sorted(scored.items()):
            by_table.setdefault(code, {})[seq] = position
        codes = list(by_table)
        # Each table's log is read from the end of the hand before its first to review: a
        # game's later hands cost no more to review than its first.
        ends = await self._store.seqs_of(codes, HAND_SCORED)
        before = {c: ends[c].index(next(iter(by_table[c]))) for c in codes}
        after = {c: ends[c][n - 1] for c, n in before.items() if n > 0}
        logs = await self._store.read_streams(codes, PLAYED_BY, after)
        rules = {
            code: _rules(opening)
            for code, opening in (await self._store.read_streams(codes, RULES_BY)).items()
        }

        # Solving takes milliseconds a hand: in a process of its own. On a thread, its slices
        # of the GIL held up the worker's event loop and Dramatiq's threads: with bots at
        # 1,000 tables, their moves came late by 56-70% of their think time at p95, against
        # 18% with no reviews at all (docs/scaling.md).
        rows = await self._solving.run(_reviewed_all, logs, rules, by_table, ends, before)
        await conn.execute(hand_reviews.insert(), rows)

    @staticmethod
    async def _keep(conn: AsyncConnection) -> None:
        """A rebuild's clearing: none (see above). The follower starts again from the log's
        beginning and reviews what has no row."""


def _rules(opening: list[RecordedEvent]) -> HouseRules:
    """A table's house rules as its opening and changes set them; nothing else of them."""
    rules = HouseRules()
    for r in opening:
        e = to_event(r.type, r.data)
        if isinstance(e, (TableOpened, SettingsChanged)):
            rules = e.settings
    return rules


def _reviewed_all(
    logs: dict[str, list[RecordedEvent]],
    rules: dict[str, HouseRules],
    by_table: dict[str, dict[int, int]],
    ends: dict[str, list[int]],
    before: dict[str, int],
) -> list[dict[str, Any]]:
    return [
        row
        for code, log in logs.items()
        for row in _reviewed(
            code, log, rules[code], by_table[code], ends[code][before[code] :], before[code]
        )
    ]


def _reviewed(
    code: str,
    log: list[RecordedEvent],
    rules: HouseRules,
    scored: dict[int, int],
    ends: list[int],
    before: int,
) -> list[dict[str, Any]]:
    """The rows of table `code`'s hands that `scored` holds (their HandScored's seq, in order,
    with its position), reviewed from the table's cards played since the end of hand `before`;
    `ends`, the seqs where the hands from the next one on end."""
    last = next(reversed(scored))
    events = (to_event(e.type, e.data) for e in log if e.seq <= last)
    hands = played_hands(events, before + 1, rules)
    return [
        {
            "code": code,
            "hand_no": hand.hand_no,
            "position": scored[seq],
            "review": msgspec.to_builtins(review(hand)),
        }
        for seq, hand in zip(ends, hands, strict=False)
        if seq in scored
    ]
