"""The log in memory, records.Log in full: tests/infra/test_eventstore.py's contract runs
against it and PostgreSQL's alike, so use cases, followers' reads and read models' folds can
be tested fast and without a server."""

from __future__ import annotations

import bisect
import zlib
from collections.abc import AsyncIterator, Mapping, Sequence
from datetime import UTC, datetime

import msgspec

from domain.chain import GENESIS, canonical, link
from infra.eventstore.records import (
    START,
    AppendResult,
    ConcurrencyConflict,
    Cursor,
    NewEvent,
    RecordedEvent,
    indexed,
)


class MemoryEventStore:
    """One process's log. Every method runs to completion without awaiting, so on one event
    loop each append is atomic, a transaction of its own (`xid`), and commits in order: every
    event is past the followers' horizon as soon as it is appended."""

    def __init__(self) -> None:
        self._streams: dict[str, list[RecordedEvent]] = {}
        self._all: list[RecordedEvent] = []
        self._commands: dict[str, tuple[str, AppendResult]] = {}
        self._appends = 0

    async def append(
        self,
        stream: str,
        expected_seq: int,
        new: list[NewEvent],
        command_id: str | None = None,
    ) -> AppendResult:
        """Data goes through JSON, as it would to the database."""
        if not new:
            raise ValueError("append needs at least one event")
        if command_id is not None and command_id in self._commands:
            first_stream, first = self._commands[command_id]
            if first_stream != stream:
                raise ValueError(f"command id {command_id!r} was used on stream {first_stream!r}")
            return msgspec.structs.replace(first, duplicate=True, hashes=())
        data = msgspec.json.decode(msgspec.json.encode([e.data for e in new]))
        log = self._streams.setdefault(stream, [])
        if len(log) != expected_seq:
            raise ConcurrencyConflict(stream, expected_seq, len(log))
        at = datetime.now(UTC)
        h = bytes.fromhex(log[-1].hash) if log else GENESIS
        self._appends += 1
        recorded = []
        for n, (e, d) in enumerate(zip(new, data, strict=True), start=1):
            h = link(h, canonical(stream, expected_seq + n, e.type, d))
            recorded.append(
                RecordedEvent(
                    stream=stream,
                    seq=expected_seq + n,
                    position=len(self._all) + n,
                    type=e.type,
                    data=d,
                    command_id=command_id if n == 1 else None,
                    at=at,
                    xid=self._appends,
                    hash=h.hex(),
                )
            )
        log.extend(recorded)
        self._all.extend(recorded)
        result = AppendResult(
            recorded[0].seq,
            recorded[-1].seq,
            tuple(r.position for r in recorded),
            hashes=tuple(r.hash for r in recorded),
        )
        if command_id is not None:
            self._commands[command_id] = (stream, result)
        return result

    async def read(self, stream: str, after_seq: int = 0) -> list[RecordedEvent]:
        return [_copy(r) for r in self._streams.get(stream, [])[after_seq:]]

    async def last_seq(self, stream: str) -> int:
        return len(self._streams.get(stream, []))

    async def quiet_for(self, stream: str, ignoring: frozenset[str]) -> float | None:
        for r in reversed(self._streams.get(stream, [])):
            if r.type not in ignoring:
                return max(0.0, (datetime.now(UTC) - r.at).total_seconds())
        return None

    async def size(self) -> tuple[int, int]:
        return len(self._all), len(self._streams)

    async def read_all(
        self,
        after: Cursor = START,
        limit: int = 500,
        data_of: frozenset[str] | None = None,
        of_type: str | None = None,
    ) -> list[RecordedEvent]:
        """Positions and transaction ids both rise with each commit here, so the events after
        `after` are the log's tail from there."""
        start = bisect.bisect_right(self._all, after, key=lambda r: r.cursor)
        if of_type is None:
            tail = self._all[start : start + limit]
        else:
            tail = [r for r in self._all[start:] if r.type == indexed(of_type)][:limit]
        # As PostgreSQL's store reads them: without their hashes, and without the data of
        # types the reader left out.
        return [
            _copy(r, hash="")
            if data_of is None or r.type in data_of or of_type is not None
            else msgspec.structs.replace(r, data={}, hash="")
            for r in tail
        ]

    async def last(self, of_type: str | None = None) -> Cursor:
        if of_type is not None:
            indexed(of_type)
        kept = (r for r in reversed(self._all) if of_type is None or r.type == of_type)
        return next((r.cursor for r in kept), START)

    async def every_stream(
        self, share: tuple[int, int] = (0, 1), batch: int = 5000
    ) -> AsyncIterator[list[RecordedEvent]]:
        k, n = share
        for stream in sorted(self._streams):
            if zlib.crc32(stream.encode()) % n == k:
                yield [_copy(r) for r in self._streams[stream]]

    async def read_streams(
        self, streams: Sequence[str], types: frozenset[str], after: Mapping[str, int] | None = None
    ) -> dict[str, list[RecordedEvent]]:
        starts = {} if after is None else after
        return {
            s: [_copy(r) for r in self._streams.get(s, [])[starts.get(s, 0) :] if r.type in types]
            for s in streams
        }

    async def seqs_of(self, streams: Sequence[str], of_type: str) -> dict[str, list[int]]:
        return {s: [r.seq for r in self._streams.get(s, []) if r.type == of_type] for s in streams}


def _copy(r: RecordedEvent, **changes: str) -> RecordedEvent:
    """A reader that changes what it was given must not change the log."""
    data = msgspec.json.decode(msgspec.json.encode(r.data))
    return msgspec.structs.replace(r, data=data, **changes)
