"""The lobby read model's storage: waiting tables as rows, kept by a follower of the log."""

from __future__ import annotations

import msgspec
from sqlalchemy import BigInteger, Column, MetaData, Table, Text, delete, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from domain.codec import to_event
from infra.eventstore import EventStore, RecordedEvent
from infra.follower import Follower, put_row
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
    def __init__(self, engine: AsyncEngine, store: EventStore) -> None:
        self._engine = engine
        self._follower = Follower("lobby", engine, store, self._apply, self._clear)
        self.catch_up = self._follower.catch_up
        self.rebuild = self._follower.rebuild

    async def rows(self) -> list[LobbyRow]:
        """Waiting tables, newest first."""
        query = select(lobby.c.row).order_by(lobby.c.position.desc())
        async with self._engine.connect() as conn:
            return [msgspec.convert(row, LobbyRow) for row in await conn.scalars(query)]

    @staticmethod
    async def _apply(conn: AsyncConnection, records: list[RecordedEvent]) -> None:
        rows: dict[str, LobbyRow | None] = {}
        for r in records:
            if r.type not in CHANGES_LOBBY:
                continue  # a game's moves: the bulk of the log, none of the lobby
            if r.stream not in rows:
                found = await conn.scalar(select(lobby.c.row).where(lobby.c.code == r.stream))
                rows[r.stream] = None if found is None else msgspec.convert(found, LobbyRow)
            rows[r.stream] = next_row(rows[r.stream], to_event(r.type, r.data), r.at, r.position)
        for code, row in rows.items():
            values = (
                None if row is None else {"position": row.position, "row": msgspec.to_builtins(row)}
            )
            await put_row(conn, lobby, code, values)

    @staticmethod
    async def _clear(conn: AsyncConnection) -> None:
        await conn.execute(delete(lobby))
