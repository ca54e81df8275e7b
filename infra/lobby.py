"""The lobby read model's storage: waiting tables as rows, kept by a follower of the log."""

from __future__ import annotations

import msgspec
from sqlalchemy import BigInteger, Column, MetaData, Table, Text, delete, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from domain.codec import to_event
from infra.eventstore import Notifications, RecordedEvent
from infra.follower import Follower, put_rows
from projections.lobby import CHANGES_LOBBY, LobbyRow, next_row

metadata = MetaData()
lobby = Table(
    "lobby",
    metadata,
    Column("code", Text, primary_key=True),
    Column("position", BigInteger, nullable=False),
    Column("row", JSONB, nullable=False),
)


class Lobby:
    def __init__(self, engine: AsyncEngine, store: Notifications) -> None:
        self._engine = engine
        self.follower = Follower(
            "lobby", engine, store, self._apply, self._clear, data_of=CHANGES_LOBBY
        )
        self.catch_up = self.follower.catch_up

    async def rows(self, limit: int, before: int | None = None) -> list[LobbyRow]:
        """Up to `limit` waiting tables that aren't locked, newest first, opened before
        position `before` if given (the last row of the page before)."""
        query = (
            select(lobby.c.row)
            .where(lobby.c.row["locked"].as_boolean().is_not(True))
            .order_by(lobby.c.position.desc())
            .limit(limit)
        )
        if before is not None:
            query = query.where(lobby.c.position < before)
        async with self._engine.connect() as conn:
            return [msgspec.convert(row, LobbyRow) for row in await conn.scalars(query)]

    @staticmethod
    async def _apply(conn: AsyncConnection, records: list[RecordedEvent]) -> None:
        # A game's moves are the bulk of the log and none of the lobby: skipped undecoded.
        changes = [r for r in records if r.type in CHANGES_LOBBY]
        if not changes:
            return
        codes = {r.stream for r in changes}
        found = await conn.execute(select(lobby.c.code, lobby.c.row).where(lobby.c.code.in_(codes)))
        rows: dict[str, LobbyRow | None] = dict.fromkeys(codes)
        rows.update((code, msgspec.convert(row, LobbyRow)) for code, row in found)
        for r in changes:
            rows[r.stream] = next_row(rows[r.stream], to_event(r.type, r.data), r.at, r.position)
        await put_rows(
            conn,
            lobby,
            {
                code: None
                if row is None
                else {"position": row.position, "row": msgspec.to_builtins(row)}
                for code, row in rows.items()
            },
        )

    @staticmethod
    async def _clear(conn: AsyncConnection) -> None:
        await conn.execute(delete(lobby))
