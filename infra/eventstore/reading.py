"""Reading the log in PostgreSQL: a table's own stream for use cases, and the whole log in an
order no later commit can break for followers (records.Notifications)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from psycopg_pool import AsyncConnectionPool

from infra.eventstore.records import INDEXED_TYPES, START, Cursor, RecordedEvent, indexed

COLUMNS = (
    "stream, seq, position, type, data, command_id, at, xid::text::bigint, encode(hash, 'hex')"
)
READ_SQL = f"SELECT {COLUMNS} FROM events WHERE stream = %s AND seq > %s ORDER BY seq"
SIZE_SQL = "SELECT count(*), count(DISTINCT stream) FROM events"
LAST_SEQ_SQL = "SELECT coalesce(max(seq), 0) FROM events WHERE stream = %s"
# The database's clock, not the process's: a table's pace is timed against its own commits.
QUIET_FOR_SQL = (
    "SELECT extract(epoch from now() - at)::float8 FROM events "
    "WHERE stream = %s AND NOT type = ANY(%s) ORDER BY seq DESC LIMIT 1"
)


def _read_all_sql(data: str, of_type: str | None = None) -> str:
    # Only transactions older than every one still running: nothing can commit behind these
    # later. Ordered by the table's columns, so the index gives the order: `xid` alone would
    # name the selected number, and PostgreSQL would sort the whole rest of the log for every
    # batch. The horizon is a sub-select, worked out once, so no estimate of it can steer the
    # plan either. A type is written into the statement, not passed, so the planner sees which
    # partial index the condition matches.
    only = "" if of_type is None else f"AND type = '{of_type}' "
    return (
        f"SELECT stream, seq, position, type, {data}, command_id, at, xid::text::bigint "
        "FROM events WHERE (xid, position) > (%s::text::xid8, %s) "
        f"{only}AND xid < (SELECT pg_snapshot_xmin(pg_current_snapshot())) "
        "ORDER BY events.xid, events.position LIMIT %s"
    )


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


class Reader:
    """Every read is one statement in autocommit mode on the pool's connections (each prepared
    once per connection)."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    async def read(self, stream: str, after_seq: int = 0) -> list[RecordedEvent]:
        return await self._records(READ_SQL, (stream, after_seq))

    async def size(self) -> tuple[int, int]:
        events, streams = await self._row(SIZE_SQL, ())
        return events, streams

    async def last_seq(self, stream: str) -> int:
        (seq,) = await self._row(LAST_SEQ_SQL, (stream,))
        return seq

    async def quiet_for(self, stream: str, ignoring: frozenset[str]) -> float | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(QUIET_FOR_SQL, (stream, sorted(ignoring)))).fetchone()
        return None if row is None else max(0.0, row[0])

    async def read_all(
        self,
        after: Cursor = START,
        limit: int = 500,
        data_of: frozenset[str] | None = None,
        of_type: str | None = None,
    ) -> list[RecordedEvent]:
        if of_type is not None:
            sql = READ_TYPE_SQL[indexed(of_type)]
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
        """`read_all` reaches the cursor given once every transaction older than its own has
        ended."""
        sql = LAST_SQL if of_type is None else LAST_TYPE_SQL[indexed(of_type)]
        async with self._pool.connection() as conn:
            row = await (await conn.execute(sql)).fetchone()
        return START if row is None else Cursor(*row)

    async def every_stream(
        self, share: tuple[int, int] = (0, 1), batch: int = 5000
    ) -> AsyncIterator[list[RecordedEvent]]:
        """Read in one pass (a cursor on the server, `batch` rows a fetch), so n readers in
        parallel, each with its own share, read each stream once."""
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
        """One statement for many streams."""
        found: dict[str, list[RecordedEvent]] = {s: [] for s in streams}
        starts = [0 if after is None else after.get(s, 0) for s in streams]
        params = (list(streams), starts, sorted(types))
        for r in await self._records(READ_STREAMS_SQL, params):
            found[r.stream].append(r)
        return found

    async def seqs_of(self, streams: Sequence[str], of_type: str) -> dict[str, list[int]]:
        """A reader's way to start at the last of them it needs instead of at a stream's
        start."""
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
