"""The first answer to each `Idempotency-Key`, per player, for a day: what a retry gets back.

Kept in PostgreSQL beside the log, so a retry that lands on another API process still finds
it. The request's fingerprint is stored too, so the same key on a different request is told
apart from a retry rather than answered with someone else's response.
"""

from __future__ import annotations

from datetime import timedelta

import msgspec
from sqlalchemy import (
    Column,
    DateTime,
    Integer,
    LargeBinary,
    MetaData,
    Table,
    Text,
    delete,
    func,
    select,
)
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

KEPT_FOR = timedelta(hours=24)

metadata = MetaData()
replies = Table(
    "idempotent_replies",
    metadata,
    Column("player_id", Text, primary_key=True),
    Column("key", Text, primary_key=True),
    Column("fingerprint", Text, nullable=False),
    Column("status", Integer, nullable=False),
    Column("media_type", Text, nullable=False),
    Column("body", LargeBinary, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False, server_default=func.now()),
)


class Reply(msgspec.Struct, frozen=True):
    fingerprint: str
    status: int
    media_type: str
    body: bytes


class Replies:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def first(self, player_id: str, key: str) -> Reply | None:
        """The reply kept for this key, unless it is older than a day."""
        query = select(replies).where(
            replies.c.player_id == player_id,
            replies.c.key == key,
            replies.c.at > func.now() - KEPT_FOR,
        )
        async with self._engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else Reply(row.fingerprint, row.status, row.media_type, row.body)

    async def keep(self, player_id: str, key: str, reply: Reply) -> Reply:
        """Keep `reply` unless one was kept first (a concurrent retry); the one that is kept."""
        async with self._engine.begin() as conn:
            # Expired replies go as new ones come (by the index on `at`, so only the few that
            # expired since), and a key may be reused after a day.
            await conn.execute(delete(replies).where(replies.c.at <= func.now() - KEPT_FOR))
            await conn.execute(
                insert(replies)
                .values(player_id=player_id, key=key, **msgspec.structs.asdict(reply))
                .on_conflict_do_nothing()
            )
        kept = await self.first(player_id, key)
        return kept if kept is not None else reply
