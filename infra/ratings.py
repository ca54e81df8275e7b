"""The ratings read models' storage: each registered player's rating, its history and their
counts, and each finished game's result seat by seat (docs/ratings.md).

A follower reads the games won from the log (an index of their own, so the moves are never
read), folds each game's few rating events (`projections.ratings.RATED_BY`) and rates the
games in log order: a player's second game of a batch starts from their first one's result.
Rows and checkpoint commit together, so however often the worker is woken, and whichever
worker is, each game is rated once.
"""

from __future__ import annotations

from datetime import datetime

import msgspec
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    Integer,
    MetaData,
    Table,
    Text,
    delete,
    select,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from domain.codec import to_event
from domain.events import GameWon
from infra.eventstore import Notifications, RecordedEvent
from infra.follower import Follower, put_rows
from infra.players import players
from projections.ratings import (
    CHARGED,
    RATED_BY,
    Rating,
    SeatResult,
    Stats,
    Z,
    counted,
    game_of,
    rate,
    versus,
)

GAME_WON = GameWon.__struct_config__.tag
LEADERBOARD_GAMES = 5  # rated games before a player is listed
RECENT = 20
HISTORY = 100

metadata = MetaData()
ratings = Table(
    "ratings",
    metadata,
    Column("player_id", Text, primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
)
rating_history = Table(
    "rating_history",
    metadata,
    Column("player_id", Text, primary_key=True),
    Column("position", BigInteger, primary_key=True),
    Column("code", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("won", Boolean, nullable=False),
    Column("left", Boolean, nullable=False),
    Column("before_mu", Float, nullable=False),
    Column("before_sigma", Float, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
)
player_stats = Table(
    "player_stats",
    metadata,
    Column("player_id", Text, primary_key=True),
    Column("stats", JSONB, nullable=False),
)
game_ratings = Table(
    "game_ratings",
    metadata,
    Column("code", Text, primary_key=True),
    Column("position", BigInteger, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("seats", JSONB, nullable=False),
)


class Played(msgspec.Struct, frozen=True):
    """One rated game in a player's history."""

    code: str
    at: datetime
    won: bool
    left: bool
    before: Rating
    after: Rating


class Standing(msgspec.Struct, frozen=True):
    """A registered player's rating and what made it; `recent` newest first, `history`
    oldest first."""

    rating: Rating
    games: int
    stats: Stats
    recent: list[Played]
    history: list[Played]


class Ranked(msgspec.Struct, frozen=True):
    id: str
    name: str
    rating: Rating
    games: int


class GameResult(msgspec.Struct, frozen=True):
    rated: bool
    seats: list[SeatResult]


def _display():
    return ratings.c.mu - Z * ratings.c.sigma


class Ratings:
    def __init__(self, engine: AsyncEngine, store: Notifications) -> None:
        self._engine = engine
        self._store = store
        self.follower = Follower(
            "ratings",
            engine,
            store,
            self._apply,
            self._clear,
            batch=2000,
            data_of=frozenset({GAME_WON}),
            of_type=GAME_WON,
        )
        self.catch_up = self.follower.catch_up
        self.behind = self.follower.behind

    async def standing(self, player_id: str) -> Standing | None:
        """The player's rating, counts and rated games; None before their first."""
        async with self._engine.connect() as conn:
            row = (
                await conn.execute(select(ratings).where(ratings.c.player_id == player_id))
            ).first()
            if row is None:
                return None
            stats = await conn.scalar(
                select(player_stats.c.stats).where(player_stats.c.player_id == player_id)
            )
            theirs = rating_history.c.player_id == player_id
            newest = select(rating_history).where(theirs).order_by(rating_history.c.position.desc())
            last = [_played(r) for r in await conn.execute(newest.limit(HISTORY))]
        return Standing(
            rating=Rating(row.mu, row.sigma),
            games=row.games,
            stats=msgspec.convert(stats or {}, Stats),
            recent=last[:RECENT],
            history=last[::-1],
        )

    async def leaderboard(self, limit: int, offset: int) -> list[Ranked]:
        """Registered players with enough rated games, best displayed rating first."""
        query = (
            select(players.c.id, players.c.name, ratings.c.mu, ratings.c.sigma, ratings.c.games)
            .join(players, players.c.id == ratings.c.player_id)
            .where(ratings.c.games >= LEADERBOARD_GAMES)
            .order_by(_display().desc(), ratings.c.player_id)
            .limit(limit)
            .offset(offset)
        )
        async with self._engine.connect() as conn:
            rows = await conn.execute(query)
            return [Ranked(r.id, r.name, Rating(r.mu, r.sigma), r.games) for r in rows]

    async def game(self, code: str) -> GameResult | None:
        """A finished game's result seat by seat, once the follower has got to it."""
        async with self._engine.connect() as conn:
            row = (
                await conn.execute(
                    select(game_ratings.c.rated, game_ratings.c.seats).where(
                        game_ratings.c.code == code
                    )
                )
            ).first()
        if row is None:
            return None
        return GameResult(rated=row.rated, seats=msgspec.convert(row.seats, list[SeatResult]))

    async def _apply(self, conn: AsyncConnection, records: list[RecordedEvent]) -> None:
        won = [r for r in records if r.type == GAME_WON]
        if not won:
            return
        logs = await self._store.read_streams([r.stream for r in won], RATED_BY)
        games = []
        for r in won:
            log = [e for e in logs[r.stream] if e.seq <= r.seq]
            game = game_of((to_event(e.type, e.data) for e in log), (e.at.timestamp() for e in log))
            if game is not None:
                games.append((r, game))
        people = sorted(
            {s.player for _, g in games for s in g.seats if s.player is not None and s.registered}
        )
        known, played, stats = await self._of(conn, people)
        history, results = [], []
        for r, game in games:
            seats = rate(game, known)
            results.append(
                {
                    "code": r.stream,
                    "position": r.position,
                    "at": r.at,
                    "rated": seats is not None,
                    "seats": msgspec.to_builtins(seats or []),
                }
            )
            for seat in seats or []:
                if seat.after is None or seat.player is None:
                    continue
                known[seat.player] = seat.after
                played[seat.player] = played.get(seat.player, 0) + 1
                stats[seat.player] = counted(
                    stats.get(seat.player, Stats()), seat, versus(game, seat.seat)
                )
                history.append(
                    {
                        "player_id": seat.player,
                        "position": r.position,
                        "code": r.stream,
                        "at": r.at,
                        "won": seat.won,
                        "left": seat.status in CHARGED,
                        "before_mu": seat.before.mu,
                        "before_sigma": seat.before.sigma,
                        "mu": seat.after.mu,
                        "sigma": seat.after.sigma,
                    }
                )
        await _insert(conn, game_ratings, results)
        await _insert(conn, rating_history, history)
        rows = {p: {"mu": known[p].mu, "sigma": known[p].sigma, "games": played[p]} for p in played}
        await put_rows(conn, ratings, rows, key="player_id")
        counts = {p: {"stats": msgspec.to_builtins(s)} for p, s in stats.items()}
        await put_rows(conn, player_stats, counts, key="player_id")

    @staticmethod
    async def _of(
        conn: AsyncConnection, people: list[str]
    ) -> tuple[dict[str, Rating], dict[str, int], dict[str, Stats]]:
        """The current ratings, rated games and stats of `people` (those rated before)."""
        if not people:
            return {}, {}, {}
        found = await conn.execute(select(ratings).where(ratings.c.player_id.in_(people)))
        known, played = {}, {}
        for r in found:
            known[r.player_id] = Rating(r.mu, r.sigma)
            played[r.player_id] = r.games
        rows = await conn.execute(select(player_stats).where(player_stats.c.player_id.in_(people)))
        stats = {r.player_id: msgspec.convert(r.stats, Stats) for r in rows}
        return known, played, stats

    @staticmethod
    async def _clear(conn: AsyncConnection) -> None:
        for table in (game_ratings, rating_history, ratings, player_stats):
            await conn.execute(delete(table))


def _played(r) -> Played:
    return Played(
        code=r.code,
        at=r.at,
        won=r.won,
        left=r.left,
        before=Rating(r.before_mu, r.before_sigma),
        after=Rating(r.mu, r.sigma),
    )


async def _insert(conn: AsyncConnection, table: Table, rows: list[dict]) -> None:
    if rows:
        await conn.execute(table.insert(), rows)
