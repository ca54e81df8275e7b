"""An event store in memory, with the PostgreSQL store's contract (tests/infra/test_eventstore.py
runs the same tests against both), so use cases can be tested fast and without a server."""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

import msgspec

from domain.chain import GENESIS, canonical, link
from infra.eventstore import (
    START,
    AppendResult,
    ConcurrencyConflict,
    Cursor,
    NewEvent,
    RecordedEvent,
)


class MemoryEventStore:
    """One process's log. Every method runs to completion without awaiting, so on one event
    loop each append is atomic, a transaction of its own (`xid`), and commits in order."""

    def __init__(self) -> None:
        self._streams: dict[str, list[RecordedEvent]] = {}
        self._all: list[RecordedEvent] = []
        self._commands: dict[str, tuple[str, AppendResult]] = {}
        self._appends: list[int] = []  # the first position of each append

    async def append(
        self,
        stream: str,
        expected_seq: int,
        new: list[NewEvent],
        command_id: str | None = None,
    ) -> AppendResult:
        """As EventStore.append: all of `new` after `expected_seq` or nothing, a known command
        id returning its first result. Data goes through JSON, as it would to the database."""
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
                    xid=len(self._appends) + 1,
                    hash=h.hex(),
                )
            )
        log.extend(recorded)
        self._appends.append(len(self._all))
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

    async def read_all(
        self, after: Cursor = START, limit: int = 500, data_of: frozenset[str] | None = None
    ) -> list[RecordedEvent]:
        """Positions and transaction ids both rise with each commit here, so the events after
        `after` are the log's tail from there."""
        start = bisect.bisect_right(self._all, after, key=lambda r: r.cursor)
        tail = [_copy(r) for r in self._all[start : start + limit]]
        if data_of is None:
            return tail
        return [r if r.type in data_of else msgspec.structs.replace(r, data={}) for r in tail]

    async def read_streams(
        self, streams: Sequence[str], types: frozenset[str], after: Mapping[str, int] | None = None
    ) -> dict[str, list[RecordedEvent]]:
        starts = {} if after is None else after
        return {
            s: [_copy(r) for r in self._streams.get(s, [])[starts.get(s, 0) :] if r.type in types]
            for s in streams
        }


def _copy(r: RecordedEvent) -> RecordedEvent:
    """A reader that changes what it was given must not change the log."""
    return msgspec.structs.replace(r, data=msgspec.json.decode(msgspec.json.encode(r.data)))
