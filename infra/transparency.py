"""The public log of finished games (docs/audit.md "The public log") in PostgreSQL: a follower
adds each game's final head as the next leaf as the log's GameWon events are read, and each
process holds the tree in memory, reading only the leaves added since it last looked.

The leaves' order is the order the follower reads games won in, which a rebuild reads again
the same way, so the tree it makes is the same tree.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import BigInteger, Column, Integer, LargeBinary, MetaData, Table, Text, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from domain.merkle import Tree, leaf_hash
from infra.eventstore import Notifications, RecordedEvent
from infra.follower import Follower
from projections.transparency import game_leaf

GAME_WON = "GameWon"

metadata = MetaData()
public_log = Table(
    "public_log",
    metadata,
    Column("idx", BigInteger, primary_key=True, autoincrement=False),
    Column("code", Text, nullable=False, unique=True),
    Column("seq", Integer, nullable=False),
    Column("hash", Text, nullable=False),
    Column("leaf", LargeBinary, nullable=False),
)
# The follower reads events without their hashes: each game won's is looked up by its place.
HASHES_SQL = text(
    "SELECT w.n, e.stream, e.seq, encode(e.hash, 'hex') FROM "
    "unnest(CAST(:streams AS text[]), CAST(:seqs AS int[])) WITH ORDINALITY AS w(stream, seq, n) "
    "JOIN events e ON e.stream = w.stream AND e.seq = w.seq ORDER BY w.n"
)
NEXT_SQL = text("SELECT coalesce(max(idx) + 1, 0) FROM public_log")
LEAVES_SQL = text("SELECT leaf FROM public_log WHERE idx >= :size ORDER BY idx")
GAME_SQL = text("SELECT idx, seq, hash FROM public_log WHERE code = :code")


class PublicLog:
    def __init__(self, engine: AsyncEngine, store: Notifications) -> None:
        self._engine = engine
        self.follower = Follower(
            "public-log",
            engine,
            store,
            self._apply,
            self._clear,
            batch=2000,
            data_of=frozenset(),
            of_type=GAME_WON,
        )
        self.catch_up = self.follower.catch_up
        self.behind = self.follower.behind
        self._tree = Tree()
        self._reading = asyncio.Lock()

    async def tree(self) -> Tree:
        """The tree of every game in the public log now: this process's, grown by the leaves
        added since it last read."""
        async with self._reading:
            async with self._engine.connect() as conn:
                rows = await conn.execute(LEAVES_SQL, {"size": self._tree.size})
                for (leaf,) in rows:
                    self._tree.append(bytes(leaf))
            return self._tree

    async def game(self, code: str) -> tuple[int, int, str] | None:
        """Table `code`'s leaf: its index, and its final head's seq and hash; None until the
        follower has added the game (a moment after it is won)."""
        async with self._engine.connect() as conn:
            row = (await conn.execute(GAME_SQL, {"code": code})).first()
        return None if row is None else (row.idx, row.seq, row.hash)

    async def _apply(self, conn: AsyncConnection, records: list[RecordedEvent]) -> None:
        won = [r for r in records if r.type == GAME_WON]
        if not won:
            return
        params = {"streams": [r.stream for r in won], "seqs": [r.seq for r in won]}
        found = (await conn.execute(HASHES_SQL, params)).all()
        first = (await conn.execute(NEXT_SQL)).scalar_one()
        rows = [
            {
                "idx": first + k,
                "code": stream,
                "seq": seq,
                "hash": hash_,
                "leaf": leaf_hash(game_leaf(stream, seq, hash_)),
            }
            for k, (_, stream, seq, hash_) in enumerate(found)
        ]
        await conn.execute(public_log.insert(), rows)

    @staticmethod
    async def _clear(conn: AsyncConnection) -> None:
        await conn.execute(public_log.delete())
