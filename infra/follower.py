"""A read model's follower: folds the global log into its own rows, checkpoint in the same
transaction, so a crash never applies an event twice or skips one.

Any number of processes may run the same follower: a transaction-level advisory lock lets one
at a time move the checkpoint. Read models say only how a batch of events changes their rows
and how to clear them; catching up and rebuilding from the log are the same for all.
"""

from __future__ import annotations

import asyncio
import functools
import time
import zlib
from collections.abc import Awaitable, Callable, Sequence

import msgspec
from sqlalchemy import JSON, Table, TextClause, delete, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from infra import metrics
from infra.eventstore import (
    START,
    Notifications,
    RecordedEvent,
    checkpoint,
    forget_checkpoint,
    save_checkpoint,
)


async def put_rows(
    conn: AsyncConnection, table: Table, rows: dict[str, dict | None], key: str = "code"
) -> None:
    """Set a read model's row for each key (a table's code, by default) to its values, or
    delete it where None: one statement for the deletions and one for the rest, however many
    rows a batch of the log touched. Every row set must name the same columns."""
    gone = [k for k, values in rows.items() if values is None]
    kept = {k: values for k, values in rows.items() if values is not None}
    if gone:
        await conn.execute(delete(table).where(table.c[key].in_(gone)))
    if not kept:
        return
    names = (key, *next(iter(kept.values())))
    statement, json = _upsert(table, names)
    columns: list[list] = [list(kept)]
    for n, name in enumerate(names[1:], 1):
        values = [row[name] for row in kept.values()]
        columns.append([_json(v) for v in values] if n in json else values)
    await conn.execute(statement, {f"c{n}": column for n, column in enumerate(columns)})


@functools.cache
def _upsert(table: Table, names: tuple[str, ...]) -> tuple[TextClause, frozenset[int]]:
    """The upsert of `names` into `table` from one array a column, and which of them are
    JSON (sent as text, cast row by row).

    Written once: SQLAlchemy compiled a many-VALUES statement afresh for every batch (its
    cache keys on the number of rows), 77 ms for 1,000 rows, and the activity's follower
    touches every table in play at each sweep, every 2 s on the bots' event loop
    (docs/scaling.md). Arrays also keep a batch's parameters to one a column."""
    dialect = postgresql.dialect()
    quote = dialect.identifier_preparer.quote
    json: set[int] = set()
    arrays, picks = [], []
    for n, name in enumerate(names):
        kind = table.c[name].type
        if isinstance(kind, JSON):
            json.add(n)
            arrays.append(f"CAST(:c{n} AS TEXT[])")
            picks.append(f"CAST(u.c{n} AS {kind.compile(dialect=dialect)})")
        else:
            arrays.append(f"CAST(:c{n} AS {kind.compile(dialect=dialect)}[])")
            picks.append(f"u.c{n}")
    listed = ", ".join(quote(name) for name in names)
    aliases = ", ".join(f"c{n}" for n in range(len(names)))
    updates = ", ".join(f"{quote(name)} = excluded.{quote(name)}" for name in names[1:])
    sql = (
        f"INSERT INTO {quote(table.name)} ({listed}) SELECT {', '.join(picks)} "
        f"FROM unnest({', '.join(arrays)}) AS u({aliases}) "
        f"ON CONFLICT ({quote(names[0])}) DO UPDATE SET {updates}"
    )
    return text(sql), frozenset(json)


def _json(value: object) -> str:
    return msgspec.json.encode(value).decode()


HELD_BACK_WAIT = 1.0
REBUILD_BATCH = 20_000

Apply = Callable[[AsyncConnection, list[RecordedEvent]], Awaitable[None]]
Clear = Callable[[AsyncConnection], Awaitable[None]]


class Follower:
    def __init__(
        self,
        name: str,
        engine: AsyncEngine,
        store: Notifications,
        apply: Apply,
        clear: Clear,
        batch: int = 1000,
        data_of: frozenset[str] | None = None,
        of_type: str | None = None,
    ) -> None:
        """`data_of`: the event types whose data `apply` reads (None: all); the others reach
        it with empty data, unread and undecoded. `of_type`: the one type `apply` looks at
        (one of the log's INDEXED_TYPES), read alone, so the rest of the log is never sent,
        live or in a rebuild."""
        self.name = name
        self._engine = engine
        self._store = store
        self._apply = apply
        self._clear = clear
        self._batch = batch
        self._data_of = data_of
        self._of_type = of_type
        self._lock = asyncio.Lock()
        self._key = zlib.crc32(f"follower/{name}".encode())
        self._applied_after = metrics.follower_apply_lag.labels(name)

    async def catch_up(
        self,
        patience: float = HELD_BACK_WAIT,
        batch: int | None = None,
        progress: Callable[[int], object] | None = None,
        most: int | None = None,
    ) -> int:
        """Apply every event past the checkpoint, or with `most`, whole batches until that many
        are read (a worker's message stays short, and the next wake-up carries on); how many
        were read.

        Events already committed can be held back behind an older transaction still running
        (docs/event-store.md); for up to `patience` seconds this waits for those committed
        before the call, so a read model caught up right after a write shows it. Not for
        later ones: under load some are always held back by appends under way, and waiting
        for them kept a follower polling for its whole patience at every call.
        """
        total = 0
        deadline = time.monotonic() + patience
        limit = batch or self._batch
        goal = await self._store.last(self._of_type) if patience > 0 else START
        async with self._lock:
            while True:
                async with self._engine.begin() as conn:
                    await self._lock_rows(conn)
                    # The advisory lock keeps every other copy out, so nothing here takes a
                    # transaction id before `apply` writes: an id would hold the horizon back
                    # for every follower while `apply` works (seconds, for a portion of hands
                    # to review), and make a wake-up that finds nothing new a commit written
                    # to disk.
                    after = await checkpoint(conn, self.name)
                    records = await self._store.read_all(after, limit, self._data_of, self._of_type)
                    if records:
                        self._applied_after.observe(time.time() - records[0].at.timestamp())
                        await self._apply(conn, records)
                        after = records[-1].cursor
                        await save_checkpoint(conn, self.name, after)
                if records:
                    total += len(records)
                    if progress is not None:
                        progress(len(records))
                    if most is not None and total >= most:
                        return total
                    if len(records) == limit:
                        continue
                # A short batch (or none) read everything the horizon let through: only held
                # back events can be left.
                if after >= goal or time.monotonic() >= deadline:
                    return total
                await asyncio.sleep(0.005)

    @property
    def busy(self) -> bool:
        """Whether this process is catching up at the moment."""
        return self._lock.locked()

    async def behind(self) -> bool:
        """Whether the log holds events this follower hasn't applied yet."""
        async with self._engine.connect() as conn:
            after = await checkpoint(conn, self.name)
        return await self._store.last(self._of_type) > after

    async def lag(self) -> float:
        """How old the oldest event this follower has yet to apply is, in seconds (0: none)."""
        async with self._engine.connect() as conn:
            after = await checkpoint(conn, self.name)
        first = await self._store.read_all(after, 1, frozenset(), self._of_type)
        return max(0.0, time.time() - first[0].at.timestamp()) if first else 0.0

    async def _lock_rows(self, conn: AsyncConnection) -> None:
        await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": self._key})

    async def _restart(self, conn: AsyncConnection) -> None:
        await self._lock_rows(conn)
        await self._clear(conn)
        await forget_checkpoint(conn, self.name)


async def rebuild(
    followers: Sequence[Follower], progress: Callable[[int], object] | None = None
) -> int:
    """Drop the followers' rows and checkpoints, then fold the log into them again; how many
    events were read.

    A follower of one indexed type reads that type alone, by its index; the others read the
    whole log once between them, in batches larger than a live follower's, each one
    transaction for every read model and checkpoint, the next batch read while this one is
    applied. Live followers in other processes wait on the locks and carry on from the new
    checkpoints.
    """
    engine = followers[0]._engine
    async with engine.begin() as conn:
        for follower in sorted(followers, key=lambda f: f._key):
            await follower._restart(conn)
    shared = [f for f in followers if f._of_type is None]
    total = await _fold_together(shared, progress) if shared else 0
    # Then whatever committed behind a transaction that was still running, as a live follower
    # would; for a follower of one type, all of it.
    for follower in followers:
        total += await follower.catch_up(batch=REBUILD_BATCH, progress=progress)
    return total


async def _fold_together(
    followers: Sequence[Follower], progress: Callable[[int], object] | None
) -> int:
    store = followers[0]._store
    data_of: frozenset[str] | None = frozenset()
    for f in followers:
        data_of = None if data_of is None or f._data_of is None else data_of | f._data_of
    total, after = 0, START
    reading = asyncio.ensure_future(store.read_all(after, REBUILD_BATCH, data_of))
    while records := await reading:
        after = records[-1].cursor
        reading = asyncio.ensure_future(store.read_all(after, REBUILD_BATCH, data_of))
        async with followers[0]._engine.begin() as conn:
            for follower in sorted(followers, key=lambda f: f._key):
                await follower._lock_rows(conn)
                await follower._apply(conn, records)
                await save_checkpoint(conn, follower.name, after)
        total += len(records)
        if progress is not None:
            progress(len(records))
    return total
