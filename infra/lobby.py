"""The lobby read model's storage and its follower: rows and checkpoint commit together.

Any number of processes may run the follower; a transaction-level advisory lock lets one at a
time move the checkpoint, so rows are never applied twice or out of order.
"""

from __future__ import annotations

import asyncio

import msgspec
from sqlalchemy import BigInteger, Column, MetaData, Table, Text, delete, select, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.dialects.postgresql import insert as upsert
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.eventstore import EventStore, checkpoint, checkpoints, save_checkpoint
from projections.lobby import CHANGES_LOBBY, LobbyRow, next_row

NAME = "lobby"
LOCK = 0x6C6F_6262_7900  # "lobby"
BATCH = 1000

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
        self._store = store
        self._lock = asyncio.Lock()

    async def catch_up(self) -> int:
        """Apply every event past the checkpoint; how many were read."""
        total = 0
        async with self._lock:
            while True:
                async with self._engine.begin() as conn:
                    await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK})
                    after = await checkpoint(conn, NAME)
                    records = await self._store.read_all(after, BATCH)
                    if not records:
                        return total
                    rows: dict[str, LobbyRow | None] = {}
                    for r in records:
                        if r.type not in CHANGES_LOBBY:
                            continue  # a game's moves: the bulk of the log, none of the lobby
                        if r.stream not in rows:
                            rows[r.stream] = await self._row(conn, r.stream)
                        rows[r.stream] = next_row(rows[r.stream], r)
                    for code, row in rows.items():
                        await self._write(conn, code, row)
                    await save_checkpoint(conn, NAME, records[-1].position)
                total += len(records)

    async def rows(self) -> list[LobbyRow]:
        """Waiting tables, newest first."""
        query = select(lobby.c.row).order_by(lobby.c.position.desc())
        async with self._engine.connect() as conn:
            return [msgspec.convert(row, LobbyRow) for row in await conn.scalars(query)]

    async def rebuild(self) -> int:
        """Drop every row and the checkpoint, then fold the whole log again."""
        async with self._engine.begin() as conn:
            await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK})
            await conn.execute(delete(lobby))
            await conn.execute(delete(checkpoints).where(checkpoints.c.name == NAME))
        return await self.catch_up()

    @staticmethod
    async def _row(conn, code: str) -> LobbyRow | None:
        found = await conn.scalar(select(lobby.c.row).where(lobby.c.code == code))
        return None if found is None else msgspec.convert(found, LobbyRow)

    @staticmethod
    async def _write(conn, code: str, row: LobbyRow | None) -> None:
        if row is None:
            await conn.execute(delete(lobby).where(lobby.c.code == code))
            return
        data = msgspec.to_builtins(row)
        statement = upsert(lobby).values(code=code, position=row.position, row=data)
        await conn.execute(
            statement.on_conflict_do_update(
                index_elements=[lobby.c.code],
                set_={"row": statement.excluded.row, "position": statement.excluded.position},
            )
        )
