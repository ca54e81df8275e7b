"""Appends under optimistic concurrency, gathered into batches: one statement in autocommit
mode for every append a process has waiting, to as many tables. The server checks, inserts,
chains the hashes and commits each as the statement ends (the function `euchre_append_batch`
is in migration 0014), and each comes back with its own outcome."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import msgspec
import psycopg
from psycopg_pool import AsyncConnectionPool

from domain.chain import canonical
from infra import metrics, tracing
from infra.eventstore.literals import byteas, numbers, texts
from infra.eventstore.records import AppendResult, ConcurrencyConflict, NewEvent
from infra.eventstore.ringing import Ringer

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


class Appender:
    """One process's appends; each that commits rings the doorbell through `ringer` before its
    caller hears of it, so no watcher can be told of a move later than its mover."""

    def __init__(self, pool: AsyncConnectionPool, ringer: Ringer) -> None:
        self._pool = pool
        self._ringer = ringer
        self._waiting: list[_Waiting] = []
        self._senders: set[asyncio.Task[None]] = set()

    async def drain(self) -> None:
        """Finish the appends still waiting."""
        await asyncio.gather(*self._senders)

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
            texts([w.stream for w in batch]),
            numbers([w.expected_seq for w in batch]),
            numbers([len(w.new) for w in batch]),
            texts([w.command_id for w in batch]),
            texts([event.type for w in batch for event in w.new]),
            (b"[%b]" % b",".join(data for w in batch for data in w.data)).decode(),
            byteas([c for w in batch for c in w.canonical]),
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
                    self._ringer.ring(waiting.stream, seq, rows_of[-1][0], carried)
                result = AppendResult(seq, rows_of[-1][0], positions, outcome == "d", hashes)
                waiting.succeed(result)
