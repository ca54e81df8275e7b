"""A read model's follower: folds the global log into its own rows, checkpoint in the same
transaction, so a crash never applies an event twice or skips one.

Any number of processes may run the same follower: a transaction-level advisory lock lets one
at a time move the checkpoint. Read models say only how a batch of events changes their rows
and how to clear them; catching up and rebuilding from the log are the same for all.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import Awaitable, Callable

from sqlalchemy import Table, delete, text
from sqlalchemy.dialects.postgresql import insert as upsert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from infra.eventstore import EventStore, RecordedEvent, checkpoint, checkpoints, save_checkpoint


async def put_row(conn: AsyncConnection, table: Table, code: str, values: dict | None) -> None:
    """Set a read model's row for table `code` to `values`, or delete it when None."""
    if values is None:
        await conn.execute(delete(table).where(table.c.code == code))
        return
    statement = upsert(table).values(code=code, **values)
    await conn.execute(
        statement.on_conflict_do_update(
            index_elements=[table.c.code],
            set_={name: statement.excluded[name] for name in values},
        )
    )


HELD_BACK_WAIT = 1.0
REBUILD_BATCH = 20_000

Apply = Callable[[AsyncConnection, list[RecordedEvent]], Awaitable[None]]
Clear = Callable[[AsyncConnection], Awaitable[None]]


class Follower:
    def __init__(
        self,
        name: str,
        engine: AsyncEngine,
        store: EventStore,
        apply: Apply,
        clear: Clear,
        batch: int = 1000,
    ) -> None:
        self.name = name
        self._engine = engine
        self._store = store
        self._apply = apply
        self._clear = clear
        self._batch = batch
        self._lock = asyncio.Lock()
        self._key = zlib.crc32(f"follower/{name}".encode())

    async def catch_up(
        self,
        patience: float = HELD_BACK_WAIT,
        batch: int | None = None,
        progress: Callable[[int], object] | None = None,
    ) -> int:
        """Apply every event past the checkpoint; how many were read.

        Events already committed can be held back behind an older transaction still running
        (docs/event-store.md); for up to `patience` seconds this waits for them too, so a read
        model caught up right after a write shows it.
        """
        total = 0
        deadline = time.monotonic() + patience
        async with self._lock:
            while True:
                async with self._engine.begin() as conn:
                    await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": self._key})
                    after = await checkpoint(conn, self.name)
                    records = await self._store.read_all(after, batch or self._batch)
                    if records:
                        await self._apply(conn, records)
                        await save_checkpoint(conn, self.name, records[-1].cursor)
                if records:
                    total += len(records)
                    if progress is not None:
                        progress(len(records))
                    continue
                # Outside the transaction above: it would hold the horizon back itself.
                if time.monotonic() >= deadline or not await self._store.held_back(after):
                    return total
                await asyncio.sleep(0.005)

    async def rebuild(self, progress: Callable[[int], object] | None = None) -> int:
        """Drop the rows and the checkpoint, then fold the whole log again, in batches larger
        than a live follower's (one transaction each), telling `progress` of each batch."""
        async with self._engine.begin() as conn:
            await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": self._key})
            await self._clear(conn)
            await conn.execute(delete(checkpoints).where(checkpoints.c.name == self.name))
        return await self.catch_up(batch=REBUILD_BATCH, progress=progress)
