"""The event log: appending under optimistic concurrency, reading, and followers' checkpoints."""

from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Identity,
    Integer,
    MetaData,
    Table,
    Text,
    func,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.dialects.postgresql import insert as upsert
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

CHANNEL = "euchre_events"
# Any constant will do, as long as nothing else in the database takes the same advisory lock.
APPEND_LOCK = 0x6575_6368_6170_7064  # "euchappd"

metadata = MetaData()
events = Table(
    "events",
    metadata,
    Column("stream", Text, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("position", BigInteger, Identity(always=True), nullable=False, unique=True),
    Column("type", Text, nullable=False),
    Column("data", JSONB, nullable=False),
    Column("command_id", Text, unique=True),
    Column("at", DateTime(timezone=True), nullable=False, server_default=func.now()),
)
checkpoints = Table(
    "checkpoints",
    metadata,
    Column("name", Text, primary_key=True),
    Column("position", BigInteger, nullable=False),
)


class NewEvent(msgspec.Struct, frozen=True):
    type: str
    data: dict[str, Any]


class RecordedEvent(msgspec.Struct, frozen=True):
    stream: str
    seq: int
    position: int
    type: str
    data: dict[str, Any]
    command_id: str | None
    at: datetime


class AppendResult(msgspec.Struct, frozen=True):
    first_seq: int
    last_seq: int
    positions: tuple[int, ...]
    duplicate: bool = False


class ConcurrencyConflict(Exception):
    """The stream moved on since the caller read it: decide again on what is there now."""

    def __init__(self, stream: str, expected_seq: int, actual_seq: int) -> None:
        super().__init__(f"stream {stream!r} is at seq {actual_seq}, not {expected_seq}")
        self.stream = stream
        self.expected_seq = expected_seq
        self.actual_seq = actual_seq


# One statement in autocommit mode: the server takes the lock, checks, inserts and notifies, and
# commits as the statement ends (the function is in migration 0001).
APPEND_SQL = text(
    "SELECT seq, position, duplicate FROM euchre_append("
    ":stream, :expected, :types, CAST(:data AS jsonb), :command_id, :lock)"
)


class EventStore:
    """Holds nothing but the engine, so one per process serves every request and worker."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        # Each read is one statement, so it needs no BEGIN and ROLLBACK round trips.
        self._reader = engine.execution_options(isolation_level="AUTOCOMMIT")

    async def append(
        self,
        stream: str,
        expected_seq: int,
        new: list[NewEvent],
        command_id: str | None = None,
    ) -> AppendResult:
        """Append all of `new` after `expected_seq`, or nothing.

        A command id already used returns that first append's result instead, so a retried
        command applies once. Every append holds one advisory lock from its checks to its commit:
        the checks are then exact, and positions commit in increasing order, so a follower
        reading by position never passes over one that commits later (docs/event-store.md).
        """
        if not new:
            raise ValueError("append needs at least one event")
        params = {
            "stream": stream,
            "expected": expected_seq,
            "types": [event.type for event in new],
            "data": msgspec.json.encode([event.data for event in new]).decode(),
            "command_id": command_id,
            "lock": APPEND_LOCK,
        }
        try:
            async with self._reader.connect() as conn:
                rows = (await conn.execute(APPEND_SQL, params)).all()
        except DBAPIError as error:
            if getattr(error.orig, "sqlstate", None) == "EU409":
                actual = int(error.orig.diag.message_primary)
                raise ConcurrencyConflict(stream, expected_seq, actual) from None
            raise
        return AppendResult(
            rows[0].seq, rows[-1].seq, tuple(r.position for r in rows), rows[0].duplicate
        )

    async def read(self, stream: str, after_seq: int = 0) -> list[RecordedEvent]:
        query = (
            select(events)
            .where(events.c.stream == stream, events.c.seq > after_seq)
            .order_by(events.c.seq)
        )
        async with self._reader.connect() as conn:
            return [RecordedEvent(**row._mapping) for row in await conn.execute(query)]

    async def last_seq(self, stream: str) -> int:
        async with self._reader.connect() as conn:
            return await _last_seq(conn, stream)

    async def read_all(self, after_position: int, limit: int = 500) -> list[RecordedEvent]:
        """Every stream's events in commit order, for followers; positions may have gaps."""
        query = (
            select(events)
            .where(events.c.position > after_position)
            .order_by(events.c.position)
            .limit(limit)
        )
        async with self._reader.connect() as conn:
            return [RecordedEvent(**row._mapping) for row in await conn.execute(query)]


async def checkpoint(conn: AsyncConnection, name: str) -> int:
    """Where follower `name` got to (0 before it starts), locked till the caller's transaction ends.

    Read it in the transaction that writes the read model's rows and saves the new checkpoint:
    rows and checkpoint then commit together, and a second copy of the follower waits here and
    continues from where the first left off instead of applying the same events again.
    """
    await conn.execute(upsert(checkpoints).values(name=name, position=0).on_conflict_do_nothing())
    query = select(checkpoints.c.position).where(checkpoints.c.name == name).with_for_update()
    return await conn.scalar(query)


async def save_checkpoint(conn: AsyncConnection, name: str, position: int) -> None:
    """Record follower `name`'s progress inside the caller's transaction, atomic with its rows."""
    statement = upsert(checkpoints).values(name=name, position=position)
    await conn.execute(
        statement.on_conflict_do_update(
            index_elements=[checkpoints.c.name], set_={"position": statement.excluded.position}
        )
    )


async def _last_seq(conn: AsyncConnection, stream: str) -> int:
    query = select(func.coalesce(func.max(events.c.seq), 0)).where(events.c.stream == stream)
    return await conn.scalar(query)
