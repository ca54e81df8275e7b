"""The activity read model: each unfinished table and when its log last grew.

The bots' sweeper reads it to find tables that may be waiting on a bot whose turn message was
lost. It is kept by a follower like the lobby's (rows and checkpoint in one transaction), so
it survives restarts and a flushed Redis, and can be rebuilt from the log.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from sqlalchemy import Column, DateTime, Integer, MetaData, Table, Text, delete, select, text
from sqlalchemy.dialects.postgresql import insert as upsert
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.eventstore import EventStore, checkpoint, checkpoints, save_checkpoint

NAME = "activity"
LOCK = 0x6163_7469_7600  # "activ"
BATCH = 2000

metadata = MetaData()
activity = Table(
    "activity",
    metadata,
    Column("code", Text, primary_key=True),
    Column("seq", Integer, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)


class Activity:
    def __init__(self, engine: AsyncEngine, store: EventStore) -> None:
        self._engine = engine
        self._store = store
        self._lock = asyncio.Lock()

    async def catch_up(self) -> int:
        total = 0
        async with self._lock:
            while True:
                async with self._engine.begin() as conn:
                    await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK})
                    records = await self._store.read_all(await checkpoint(conn, NAME), BATCH)
                    if not records:
                        return total
                    last: dict[str, tuple[int, datetime] | None] = {}
                    for r in records:
                        last[r.stream] = None if r.type == "GameWon" else (r.seq, r.at)
                    for code, seen in last.items():
                        if seen is None:
                            await conn.execute(delete(activity).where(activity.c.code == code))
                            continue
                        statement = upsert(activity).values(code=code, seq=seen[0], at=seen[1])
                        await conn.execute(
                            statement.on_conflict_do_update(
                                index_elements=[activity.c.code],
                                set_={"seq": statement.excluded.seq, "at": statement.excluded.at},
                            )
                        )
                    await save_checkpoint(conn, NAME, records[-1].position)
                total += len(records)

    async def quiet_since(self, seconds: float) -> list[tuple[str, float]]:
        """Unfinished tables whose log hasn't grown for `seconds`, with how long it's been."""
        query = select(
            activity.c.code, text("extract(epoch from now() - activity.at) AS idle")
        ).where(activity.c.at < text("now() - make_interval(secs => :s)"))
        async with self._engine.connect() as conn:
            rows = await conn.execute(query, {"s": seconds})
            return [(row.code, float(row.idle)) for row in rows]

    async def rebuild(self) -> int:
        async with self._engine.begin() as conn:
            await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK})
            await conn.execute(delete(activity))
            await conn.execute(delete(checkpoints).where(checkpoints.c.name == NAME))
        return await self.catch_up()
