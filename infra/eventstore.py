"""The event log: appending under optimistic concurrency, reading, and followers' checkpoints."""

from datetime import datetime
from typing import Any, Protocol

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
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

CHANNEL = "euchre_events"

metadata = MetaData()
events = Table(
    "events",
    metadata,
    Column("stream", Text, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("position", BigInteger, Identity(always=True), nullable=False),
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


class Cursor(msgspec.Struct, frozen=True, order=True):
    """A place in the global log: the appending transaction's id, then the position within it.

    Transactions commit out of order, so positions alone can't tell a follower that nothing
    will appear behind it later; transaction ids below the oldest one still running can
    (docs/event-store.md).
    """

    xid: int = 0
    position: int = 0


START = Cursor()


class RecordedEvent(msgspec.Struct, frozen=True):
    stream: str
    seq: int
    position: int
    type: str
    data: dict[str, Any]
    command_id: str | None
    at: datetime
    xid: int = 0

    @property
    def cursor(self) -> Cursor:
        return Cursor(self.xid, self.position)


class AppendResult(msgspec.Struct, frozen=True):
    first_seq: int
    last_seq: int
    positions: tuple[int, ...]
    duplicate: bool = False


class Recorder(Protocol):
    """What use cases need of an event store: EventStore here, or infra/memory_store.py's."""

    async def append(
        self, stream: str, expected_seq: int, new: list[NewEvent], command_id: str | None = None
    ) -> AppendResult: ...

    async def read(self, stream: str, after_seq: int = 0) -> list[RecordedEvent]: ...

    async def last_seq(self, stream: str) -> int: ...

    async def read_all(self, after: Cursor = ..., limit: int = 500) -> list[RecordedEvent]: ...


class ConcurrencyConflict(Exception):
    """The stream moved on since the caller read it: decide again on what is there now."""

    def __init__(self, stream: str, expected_seq: int, actual_seq: int) -> None:
        super().__init__(f"stream {stream!r} is at seq {actual_seq}, not {expected_seq}")
        self.stream = stream
        self.expected_seq = expected_seq
        self.actual_seq = actual_seq


# One statement in autocommit mode: the server checks, inserts and commits as the statement
# ends (the function is in migration 0004). The doorbell rings in a second statement, after
# the commit: a NOTIFY inside the append would make every append in the database wait for the
# one before it to flush (PostgreSQL holds a database-wide lock across a notifying commit).
APPEND_SQL = text(
    "SELECT seq, position, duplicate FROM euchre_append("
    ":stream, :expected, :types, CAST(:data AS jsonb), :command_id)"
)
RING_SQL = text(f"SELECT pg_notify('{CHANNEL}', :payload)")
COLUMNS = "stream, seq, position, type, data, command_id, at, CAST(CAST(xid AS text) AS bigint) xid"
# Only transactions older than every one still running: nothing can commit behind these later.
READ_ALL_SQL = text(
    f"SELECT {COLUMNS} FROM events "
    "WHERE (xid, position) > (CAST(CAST(:xid AS text) AS xid8), :position) "
    "AND xid < pg_snapshot_xmin(pg_current_snapshot()) "
    "ORDER BY xid, position LIMIT :limit"
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
        command applies once. Appends to different streams never wait for each other; two to
        one stream meet at its primary key, and the later finds its seq taken.
        """
        if not new:
            raise ValueError("append needs at least one event")
        params = {
            "stream": stream,
            "expected": expected_seq,
            "types": [event.type for event in new],
            "data": msgspec.json.encode([event.data for event in new]).decode(),
            "command_id": command_id,
        }
        try:
            async with self._reader.connect() as conn:
                rows = (await conn.execute(APPEND_SQL, params)).all()
                if not rows[0].duplicate:
                    await conn.execute(RING_SQL, {"payload": f"{stream}:{rows[-1].seq}"})
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

    async def read_all(self, after: Cursor = START, limit: int = 500) -> list[RecordedEvent]:
        """Every stream's events after `after`, in an order no later commit can break: each
        stream's own in seq order, and none behind a cursor a follower has passed."""
        params = {"xid": after.xid, "position": after.position, "limit": limit}
        async with self._reader.connect() as conn:
            rows = await conn.execute(READ_ALL_SQL, params)
            return [RecordedEvent(**row._mapping) for row in rows]

    async def held_back(self, after: Cursor) -> bool:
        """Whether events past `after` have committed but `read_all` can't pass them yet,
        because a transaction older than theirs is still running somewhere on the server."""
        params = {"xid": after.xid, "position": after.position}
        async with self._reader.connect() as conn:
            return bool(await conn.scalar(HELD_BACK_SQL, params))


HELD_BACK_SQL = text(
    "SELECT EXISTS (SELECT 1 FROM events "
    "WHERE (xid, position) > (CAST(CAST(:xid AS text) AS xid8), :position))"
)


async def checkpoint(conn: AsyncConnection, name: str) -> Cursor:
    """Where follower `name` got to (START before it starts), locked till the caller's
    transaction ends.

    Read it in the transaction that writes the read model's rows and saves the new checkpoint:
    rows and checkpoint then commit together, and a second copy of the follower waits here and
    continues from where the first left off instead of applying the same events again.
    """
    await conn.execute(
        text("INSERT INTO checkpoints (name, position) VALUES (:name, 0) ON CONFLICT DO NOTHING"),
        {"name": name},
    )
    query = text(
        "SELECT CAST(CAST(xid AS text) AS bigint) xid, position FROM checkpoints "
        "WHERE name = :name FOR UPDATE"
    )
    row = (await conn.execute(query, {"name": name})).one()
    return Cursor(row.xid, row.position)


async def save_checkpoint(conn: AsyncConnection, name: str, at: Cursor) -> None:
    """Record follower `name`'s progress inside the caller's transaction, atomic with its rows."""
    await conn.execute(
        text(
            "INSERT INTO checkpoints (name, xid, position) "
            "VALUES (:name, CAST(CAST(:xid AS text) AS xid8), :position) "
            "ON CONFLICT (name) DO UPDATE SET xid = excluded.xid, position = excluded.position"
        ),
        {"name": name, "xid": at.xid, "position": at.position},
    )


async def _last_seq(conn: AsyncConnection, stream: str) -> int:
    query = select(func.coalesce(func.max(events.c.seq), 0)).where(events.c.stream == stream)
    return await conn.scalar(query)
