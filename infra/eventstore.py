"""The event log: appending under optimistic concurrency, reading, and followers' checkpoints."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import msgspec
import psycopg
from psycopg.types.json import set_json_loads
from psycopg_pool import AsyncConnectionPool
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
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncConnection

from domain.chain import canonical
from infra import metrics, tracing
from infra.db import conninfo, server_options

CHANNEL = "euchre_events"
log = logging.getLogger(__name__)

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
    hash: str = ""  # hex; read with a stream's events only (domain/chain.py)

    @property
    def cursor(self) -> Cursor:
        return Cursor(self.xid, self.position)


class AppendResult(msgspec.Struct, frozen=True):
    """`hashes`: each appended event's hash in the chain, hex (none for a duplicate, whose
    caller reads the log again)."""

    first_seq: int
    last_seq: int
    positions: tuple[int, ...]
    duplicate: bool = False
    hashes: tuple[str, ...] = ()


class Recorder(Protocol):
    """What use cases need of an event store: EventStore here, or infra/memory_store.py's."""

    async def append(
        self, stream: str, expected_seq: int, new: list[NewEvent], command_id: str | None = None
    ) -> AppendResult: ...

    async def read(self, stream: str, after_seq: int = 0) -> list[RecordedEvent]: ...

    async def last_seq(self, stream: str) -> int: ...

    async def read_all(
        self, after: Cursor = ..., limit: int = 500, data_of: frozenset[str] | None = None
    ) -> list[RecordedEvent]: ...

    async def read_streams(
        self, streams: Sequence[str], types: frozenset[str], after: Mapping[str, int] | None = None
    ) -> dict[str, list[RecordedEvent]]: ...


class ConcurrencyConflict(Exception):
    """The stream moved on since the caller read it: decide again on what is there now."""

    def __init__(self, stream: str, expected_seq: int, actual_seq: int) -> None:
        super().__init__(f"stream {stream!r} is at seq {actual_seq}, not {expected_seq}")
        self.stream = stream
        self.expected_seq = expected_seq
        self.actual_seq = actual_seq


# One statement in autocommit mode for every append a process has waiting, to as many
# tables: the server checks, inserts and commits each as the statement ends (the function is
# in migration 0012), and each comes back with its own outcome. The doorbell rings in a
# statement of its own after the commit: a NOTIFY inside the append would make every append in
# the database wait for the one before it to flush (PostgreSQL holds a database-wide lock
# across a notifying commit).
APPEND_SQL = (
    "SELECT item, seq, position, outcome, encode(hash, 'hex') "
    "FROM euchre_append_batch(%s::text[], %s::int[], %s::int[], %s::text[], %s::text[], "
    "%s::jsonb, %s::bytea[])"
)
# A batch's size in appends: enough to share one commit among a busy process's tables, few
# enough that one statement stays short (it holds the followers' horizon while it runs).
BATCH = 64
# Batches on their way at once, each on a connection of its own.
APPENDERS = 1
# Bytes of events a ring carries at most, so that a watcher in another process can show them
# without reading the log: a notification's payload must stay under 8000 bytes, and a hand's
# deal, the largest of one command's events, is a few hundred. Each event goes with its hash
# in the chain, so the watcher can sign the head it shows. The payload is seen by every
# session listening on the database, which only the service's own processes do; they may read
# the log anyway.
CARRIED = 4000
# One notifying transaction for every append a process made while the last one was on its way.
# A ring is worth nothing after a crash, so its commit doesn't wait for the disk.
RING_SQL = (
    f"SELECT pg_notify('{CHANNEL}', p), set_config('synchronous_commit', 'off', true) "
    "FROM unnest(%s::text[]) p"
)
# Seconds between two rings from one process: a ring after a quiet moment goes at once, and
# under load the next waits this long, carrying every append that committed meanwhile. A ring
# costs a statement as an append batch does; without the wait, a busy process sent one after
# every batch (docs/event-store.md "The doorbell").
RING_GAP = 0.002
COLUMNS = (
    "stream, seq, position, type, data, command_id, at, xid::text::bigint, encode(hash, 'hex')"
)
READ_SQL = f"SELECT {COLUMNS} FROM events WHERE stream = %s AND seq > %s ORDER BY seq"
SIZE_SQL = "SELECT count(*), count(DISTINCT stream) FROM events"
LAST_SEQ_SQL = "SELECT coalesce(max(seq), 0) FROM events WHERE stream = %s"


def _read_all_sql(data: str, of_type: str | None = None) -> str:
    # Only transactions older than every one still running: nothing can commit behind these
    # later. Ordered by the table's columns, so the index gives the order: `xid` alone would
    # name the selected number, and PostgreSQL would sort the whole rest of the log for every
    # batch. The horizon is a sub-select, worked out once, so no estimate of it can steer the
    # plan either.
    return (
        f"SELECT stream, seq, position, type, {data}, command_id, at, xid::text::bigint "
        "FROM events WHERE (xid, position) > (%s::text::xid8, %s) "
        f"{_only(of_type)}AND xid < (SELECT pg_snapshot_xmin(pg_current_snapshot())) "
        "ORDER BY events.xid, events.position LIMIT %s"
    )


# The types a follower may read alone: each has a partial index in the log's order (migrations
# 0009 and 0011), so following one reads its events and nothing else. Written into the
# statements, not passed, so the planner sees which index the condition matches.
INDEXED_TYPES = frozenset({"GameWon", "HandScored"})


def _only(of_type: str | None) -> str:
    return "" if of_type is None else f"AND type = '{of_type}' "


READ_ALL_SQL = _read_all_sql("data")
# A follower names the types whose data it reads: the rest, most of the log, arrive without it
# and cost the server no bytes to send and the follower no decoding. They come as NULL, not as
# an empty document: the client's JSON loader is a Python call per value, which a rebuild paid
# for every event of the log (docs/scaling.md).
READ_ALL_SOME_DATA_SQL = _read_all_sql("CASE WHEN type = ANY(%s) THEN data END")
READ_TYPE_SQL = {t: _read_all_sql("data", t) for t in INDEXED_TYPES}


def _last_sql(of_type: str | None = None) -> str:
    # The log's last event (of the type) in a follower's order: one step down the index from
    # its end. Not `EXISTS (... WHERE (xid, position) > cursor)`: the planner guesses that a
    # third of the log matches, scans the table from its start for the first match, and finds
    # it at the end, so each check read the whole log (5.5 ms at 30,000 events).
    where = "" if of_type is None else f"WHERE type = '{of_type}' "
    return (
        f"SELECT xid::text::bigint, position FROM events {where}"
        "ORDER BY events.xid DESC, events.position DESC LIMIT 1"
    )


LAST_SQL = _last_sql()
LAST_TYPE_SQL = {t: _last_sql(t) for t in INDEXED_TYPES}
EVERY_STREAM_SQL = (
    f"SELECT {COLUMNS} FROM events WHERE mod(abs(hashtext(stream)::bigint), %s) = %s "
    "ORDER BY stream, seq"
)
# Each stream read on its own down the primary key. As a plain join the planner hashed the
# streams and scanned the whole log for them (3-7 ms at 30,000 events, and growing with it);
# the ORDER BY keeps the sub-select from being flattened into that join again.
READ_STREAMS_SQL = (
    "SELECT e.* FROM unnest(%s::text[], %s::bigint[]) AS f(name, after), LATERAL "
    f"(SELECT {COLUMNS} FROM events WHERE stream = f.name AND seq > f.after "
    "AND type = ANY(%s) ORDER BY seq) AS e ORDER BY e.stream, e.seq"
)
SEQS_OF_SQL = (
    "SELECT stream, seq FROM events WHERE stream = ANY(%s) AND type = %s ORDER BY stream, seq"
)


# The append's arrays go as array literals written here: psycopg's own dumping inspects every
# list it is given afresh, and was a quarter of the client's time an append (docs/event-store.md).
# Every element is quoted, so no text can end one early or make another; PostgreSQL's text
# has no NUL, which append() refuses before anything is sent.
def _texts(items: Sequence[str | None]) -> str:
    return "{" + ",".join("NULL" if item is None else _quoted(item) for item in items) + "}"


def _quoted(item: str) -> str:
    return '"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _numbers(items: Sequence[int]) -> str:
    return "{" + ",".join(map(str, items)) + "}"


def _bytes(items: Sequence[bytes]) -> str:
    return "{" + ",".join(f'"\\\\x{item.hex()}"' for item in items) + "}"


async def _configure(conn: psycopg.AsyncConnection) -> None:
    """Event data decodes as the domain encoded it (msgspec), on every pooled connection."""
    set_json_loads(msgspec.json.decode, conn)


@dataclass(slots=True)
class _Waiting:
    """An append waiting for its batch, and the future its caller awaits."""

    stream: str
    expected_seq: int
    new: list[NewEvent]
    command_id: str | None
    data: list[bytes]
    canonical: list[bytes]
    outcome: asyncio.Future[AppendResult]

    def succeed(self, result: AppendResult) -> None:
        if not self.outcome.done():  # its caller may have stopped waiting
            self.outcome.set_result(result)

    def fail(self, error: BaseException) -> None:
        if not self.outcome.done():
            self.outcome.set_exception(error)


@dataclass(slots=True)
class _Ring:
    """A stream's ring on its way: the last seq appended, and the events from `first` on, if
    the appends since the last ring followed on from each other."""

    first: int
    last: int
    events: list[tuple[str, bytes, str]] | None

    def payload(self, stream: str) -> str:
        """`stream:last`, then, if they fit, a line with `first` and a line with the events
        as JSON, `[[type, data, hash], ...]` (JSON as msgspec writes it has no line break)."""
        head = f"{stream}:{self.last}"
        if self.events is None:
            return head
        encode = msgspec.json.encode
        body = b",".join(
            b'[%b,%b,"%b"]' % (encode(type_), data, hash_.encode())
            for type_, data, hash_ in self.events
        )
        if len(body) > CARRIED:
            return head
        return f"{head}\n{self.first}\n[{body.decode()}]"


class EventStore:
    """The log in PostgreSQL, over psycopg's own pool: one per process serves every request
    and worker.

    Appends and reads are single statements in autocommit mode, prepared once per connection;
    the profile of the API put SQLAlchemy's async layer at half the cost of a move, so the hot
    path doesn't go through it (read models and players still do).
    """

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool
        self._waiting: list[_Waiting] = []
        self._senders: set[asyncio.Task[None]] = set()
        self._rings: dict[str, _Ring] = {}
        self._ringing: asyncio.Task[None] | None = None

    @classmethod
    async def open(
        cls, url: str, size: int = 10, settings: dict[str, str] | None = None
    ) -> EventStore:
        """A store for the database at `url` holding up to `size` connections, each with the
        server `settings` given (e.g. {"synchronous_commit": "off"} where durability isn't
        under test)."""
        pool = AsyncConnectionPool(
            conninfo(url),
            min_size=min(2, size),
            max_size=size,
            kwargs={
                "autocommit": True,
                "prepare_threshold": 0,
                "options": server_options(settings or {}),
            },
            configure=_configure,
            open=False,
        )
        await pool.open(wait=True)
        return cls(pool)

    async def close(self) -> None:
        """Finish the appends and rings still waiting, then close every connection."""
        await asyncio.gather(*self._senders)
        if self._ringing is not None:
            await self._ringing
        await self._pool.close()

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

        The append goes with the process's others: while APPENDERS batches are on their way,
        the appends made meanwhile gather into the next, so under load many tables' appends
        share one statement and one commit, and an append made alone goes at once.
        """
        if not new:
            raise ValueError("append needs at least one event")
        # Refused here, so text PostgreSQL can't hold fails its own caller, not the batch
        # it would have gone in (each of whose appends would then go again alone).
        if any("\x00" in text for text in (stream, command_id or "", *(e.type for e in new))):
            raise psycopg.DataError("PostgreSQL text cannot contain NUL (0x00) characters")
        waiting = _Waiting(
            stream,
            expected_seq,
            new,
            command_id,
            # Encoded here, so data that isn't JSON fails its own caller and no batch.
            [msgspec.json.encode(event.data) for event in new],
            [
                canonical(stream, expected_seq + n, event.type, event.data)
                for n, event in enumerate(new, start=1)
            ],
            asyncio.get_running_loop().create_future(),
        )
        started = time.perf_counter()
        with tracing.span("append", table=stream, events=len(new)):
            self._waiting.append(waiting)
            if len(self._senders) < APPENDERS:
                self._senders.add(asyncio.create_task(self._send_batches()))
            try:
                return await waiting.outcome
            finally:
                metrics.append_latency.observe(time.perf_counter() - started)

    async def _send_batches(self) -> None:
        """Send batches until none is waiting. The sender leaves `_senders` in the same step
        as it finds nothing waiting (a done-callback would run a turn later, and an append made
        in between would wait for a sender that is gone); if it fails, so do the appends it
        leaves, rather than wait for a sender that may never come."""
        try:
            while self._waiting:
                await self._send(self._next_batch())
        except BaseException as error:
            left, self._waiting = self._waiting, []
            for waiting in left:
                waiting.fail(error)
            raise
        finally:
            self._senders.discard(asyncio.current_task())  # type: ignore[arg-type]

    def _next_batch(self) -> list[_Waiting]:
        """The longest-waiting appends, one per stream (a second to the same stream waits for
        the next batch), in stream order (migration 0012 says why)."""
        batch: dict[str, _Waiting] = {}
        rest: list[_Waiting] = []
        for waiting in self._waiting:
            if waiting.stream in batch or len(batch) == BATCH:
                rest.append(waiting)
            else:
                batch[waiting.stream] = waiting
        self._waiting = rest
        return [batch[stream] for stream in sorted(batch)]

    async def _send(self, batch: list[_Waiting]) -> None:
        params = (
            _texts([w.stream for w in batch]),
            _numbers([w.expected_seq for w in batch]),
            _numbers([len(w.new) for w in batch]),
            _texts([w.command_id for w in batch]),
            _texts([event.type for w in batch for event in w.new]),
            (b"[%b]" % b",".join(data for w in batch for data in w.data)).decode(),
            _bytes([c for w in batch for c in w.canonical]),
        )
        try:
            async with self._pool.connection() as conn:
                rows = await (await conn.execute(APPEND_SQL, params)).fetchall()
        except psycopg.Error as error:
            if len(batch) == 1 or isinstance(error, psycopg.OperationalError):
                # A server gone or a pool exhausted fails them all alike: no point in asking
                # again, one at a time, each waiting out its own timeout.
                for waiting in batch:
                    waiting.fail(error)
                return
            # An append's own fault (a string jsonb refuses, say) mustn't fail the others: the
            # statement undid them all, so each goes again alone.
            for waiting in batch:
                await self._send([waiting])
            return
        except BaseException as error:
            for waiting in batch:
                waiting.fail(error)
            raise
        found: dict[int, list[tuple[int, int, str, str]]] = {}
        for item, seq, position, outcome, hash_ in rows:
            found.setdefault(item - 1, []).append((seq, position, outcome, hash_))
        for n, waiting in enumerate(batch):
            rows_of = found[n]
            seq, _, outcome, _ = rows_of[0]
            if outcome == "r":
                self._waiting.insert(0, waiting)
            elif outcome == "c":
                waiting.fail(ConcurrencyConflict(waiting.stream, waiting.expected_seq, seq))
            else:
                positions = tuple(row[1] for row in rows_of)
                hashes = tuple(row[3] for row in rows_of) if outcome == "a" else ()
                if outcome == "a":
                    carried = [
                        (e.type, d, h)
                        for e, d, h in zip(waiting.new, waiting.data, hashes, strict=True)
                    ]
                    self._ring(waiting.stream, seq, rows_of[-1][0], carried)
                result = AppendResult(seq, rows_of[-1][0], positions, outcome == "d", hashes)
                waiting.succeed(result)

    def _ring(
        self, stream: str, first: int, last: int, events: list[tuple[str, bytes, str]]
    ) -> None:
        """Ring the doorbell for `stream` soon, with the others this process appended to by
        then: under load, one notifying commit carries many appends' rings. The ring carries
        the events appended since the last, if they follow on from each other."""
        ring = self._rings.get(stream)
        if ring is None:
            self._rings[stream] = _Ring(first, last, events)
        elif ring.events is not None and ring.last + 1 == first:
            ring.last = last
            ring.events += events
        else:
            ring.last = max(ring.last, last)
            ring.events = None
        if self._ringing is None:
            self._ringing = asyncio.create_task(self._send_rings())

    async def _send_rings(self) -> None:
        try:
            while self._rings:
                payloads = [ring.payload(stream) for stream, ring in self._rings.items()]
                self._rings = {}
                try:
                    async with self._pool.connection() as conn:
                        await conn.execute(RING_SQL, (_texts(payloads),))
                except psycopg.Error as error:
                    # Watchers poll too: a lost ring delays them, it doesn't lose a move.
                    log.warning("could not ring the doorbell: %s", error)
                await asyncio.sleep(RING_GAP)
        finally:
            self._ringing = None

    async def read(self, stream: str, after_seq: int = 0) -> list[RecordedEvent]:
        return await self._records(READ_SQL, (stream, after_seq))

    async def size(self) -> tuple[int, int]:
        """How many events the log holds, and in how many streams."""
        events, streams = await self._row(SIZE_SQL, ())
        return events, streams

    async def last_seq(self, stream: str) -> int:
        (seq,) = await self._row(LAST_SEQ_SQL, (stream,))
        return seq

    async def read_all(
        self,
        after: Cursor = START,
        limit: int = 500,
        data_of: frozenset[str] | None = None,
        of_type: str | None = None,
    ) -> list[RecordedEvent]:
        """Every stream's events after `after`, in an order no later commit can break: each
        stream's own in seq order, and none behind a cursor a follower has passed.

        With `data_of`, only events of those types carry their data; the others come with
        empty data. With `of_type` (one of INDEXED_TYPES), only events of that type come.
        """
        if of_type is not None:
            sql = READ_TYPE_SQL[_indexed(of_type)]
            return await self._records(sql, (str(after.xid), after.position, limit))
        if data_of is None:
            return await self._records(READ_ALL_SQL, (str(after.xid), after.position, limit))
        params = (sorted(data_of), str(after.xid), after.position, limit)
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(READ_ALL_SOME_DATA_SQL, params)).fetchall()
        return [
            RecordedEvent(stream, seq, position, kind, {} if data is None else data, cid, at, xid)
            for stream, seq, position, kind, data, cid, at, xid in rows
        ]

    async def last(self, of_type: str | None = None) -> Cursor:
        """Where the log's last committed event (of `of_type`, if given) is, in `read_all`'s
        order (START for none): `read_all` reaches it once every transaction older than its
        own has ended."""
        sql = LAST_SQL if of_type is None else LAST_TYPE_SQL[_indexed(of_type)]
        async with self._pool.connection() as conn:
            row = await (await conn.execute(sql)).fetchone()
        return START if row is None else Cursor(*row)

    async def every_stream(
        self, share: tuple[int, int] = (0, 1), batch: int = 5000
    ) -> AsyncIterator[list[RecordedEvent]]:
        """Each stream's events in seq order, one stream at a time, read in one pass (a
        cursor on the server, `batch` rows a fetch). `share` (k, n): only the streams whose
        name hashes to k modulo n, so n readers in parallel read each stream once."""
        k, n = share
        async with self._pool.connection() as conn, conn.transaction():
            cursor = conn.cursor("every_stream")
            cursor.itersize = batch
            await cursor.execute(EVERY_STREAM_SQL, (n, k))
            stream: list[RecordedEvent] = []
            async for row in cursor:
                record = RecordedEvent(*row)
                if stream and stream[-1].stream != record.stream:
                    yield stream
                    stream = []
                stream.append(record)
            if stream:
                yield stream

    async def read_streams(
        self, streams: Sequence[str], types: frozenset[str], after: Mapping[str, int] | None = None
    ) -> dict[str, list[RecordedEvent]]:
        """Each of `streams`' events of `types` past its seq in `after` (all of them where it
        has none), in seq order: one statement for many."""
        found: dict[str, list[RecordedEvent]] = {s: [] for s in streams}
        starts = [0 if after is None else after.get(s, 0) for s in streams]
        params = (list(streams), starts, sorted(types))
        for r in await self._records(READ_STREAMS_SQL, params):
            found[r.stream].append(r)
        return found

    async def seqs_of(self, streams: Sequence[str], of_type: str) -> dict[str, list[int]]:
        """Where in each of `streams` its events of `of_type` are, without their data: a
        reader's way to start at the last of them it needs instead of at a stream's start."""
        found: dict[str, list[int]] = {s: [] for s in streams}
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(SEQS_OF_SQL, (list(streams), of_type))).fetchall()
        for stream, seq in rows:
            found[stream].append(seq)
        return found

    async def _row(self, sql: str, params: tuple[Any, ...]) -> tuple[Any, ...]:
        """The one row of an aggregate query (count, max, exists always give one)."""
        async with self._pool.connection() as conn:
            row = await (await conn.execute(sql, params)).fetchone()
        assert row is not None
        return row

    async def _records(self, sql: str, params: tuple[Any, ...]) -> list[RecordedEvent]:
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(sql, params)).fetchall()
        return [RecordedEvent(*row) for row in rows]


def _indexed(of_type: str) -> str:
    if of_type not in INDEXED_TYPES:
        raise ValueError(f"{of_type!r} has no index of its own in the log; see INDEXED_TYPES")
    return of_type


async def checkpoint(conn: AsyncConnection, name: str) -> Cursor:
    """Where follower `name` got to (START before it starts).

    A plain read, which takes no transaction id: a follower reads it under its advisory lock,
    which already keeps every other copy of it waiting, in the transaction that then writes
    the read model's rows and the new checkpoint together.
    """
    query = text(
        "SELECT CAST(CAST(xid AS text) AS bigint) xid, position FROM checkpoints WHERE name = :name"
    )
    row = (await conn.execute(query, {"name": name})).first()
    return START if row is None else Cursor(row.xid, row.position)


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
