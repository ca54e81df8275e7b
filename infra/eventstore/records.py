"""What the log holds and what its stores promise: the records, a place in the global log, and
the two protocols every store implements in full (PostgreSQL's and the one in memory), so a
use case, a follower or a test stands on the protocol, never on one store."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

import msgspec


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


class ConcurrencyConflict(Exception):
    """The stream moved on since the caller read it: decide again on what is there now."""

    def __init__(self, stream: str, expected_seq: int, actual_seq: int) -> None:
        super().__init__(f"stream {stream!r} is at seq {actual_seq}, not {expected_seq}")
        self.stream = stream
        self.expected_seq = expected_seq
        self.actual_seq = actual_seq


# The types a follower may read alone. PostgreSQL keeps a partial index in the log's order for
# each (migrations 0009 and 0011), so following one reads its events and nothing else; every
# store refuses the others alike, so a follower that works on one works on both.
INDEXED_TYPES = frozenset({"GameWon", "HandScored"})


def indexed(of_type: str) -> str:
    if of_type not in INDEXED_TYPES:
        raise ValueError(f"{of_type!r} has no index of its own in the log; see INDEXED_TYPES")
    return of_type


class Recorder(Protocol):
    """A table's own log: what use cases need to load a table and append its next events."""

    async def append(
        self, stream: str, expected_seq: int, new: list[NewEvent], command_id: str | None = None
    ) -> AppendResult:
        """All of `new` after `expected_seq`, or nothing (ConcurrencyConflict); a command id
        already used returns its first append's result, marked a duplicate."""
        ...

    async def read(self, stream: str, after_seq: int = 0) -> list[RecordedEvent]: ...

    async def last_seq(self, stream: str) -> int: ...

    async def quiet_for(self, stream: str, ignoring: frozenset[str]) -> float | None:
        """Seconds since the stream's last event of a type not in `ignoring`, by the store's
        own clock; None for a stream with none."""
        ...


class Notifications(Protocol):
    """The whole log in an order no later commit can break: what followers read."""

    async def read_all(
        self,
        after: Cursor = ...,
        limit: int = 500,
        data_of: frozenset[str] | None = None,
        of_type: str | None = None,
    ) -> list[RecordedEvent]:
        """Every stream's events after `after`, each stream's own in seq order and none behind
        a cursor already passed. With `data_of`, only those types carry their data (the others
        come with `{}`); with `of_type` (one of INDEXED_TYPES), only that type comes."""
        ...

    async def last(self, of_type: str | None = None) -> Cursor:
        """The last committed event's cursor (of `of_type` if given), START for none."""
        ...

    async def read_streams(
        self, streams: Sequence[str], types: frozenset[str], after: Mapping[str, int] | None = None
    ) -> dict[str, list[RecordedEvent]]:
        """Each of `streams`' events of `types` past its seq in `after`, in seq order."""
        ...

    async def seqs_of(self, streams: Sequence[str], of_type: str) -> dict[str, list[int]]:
        """Where in each of `streams` its events of `of_type` are, without the events."""
        ...


class Log(Recorder, Notifications, Protocol):
    """A store whole: both sides, as every process opens one."""

    async def size(self) -> tuple[int, int]:
        """How many events the log holds, and in how many streams."""
        ...

    def every_stream(
        self, share: tuple[int, int] = (0, 1), batch: int = 5000
    ) -> AsyncIterator[list[RecordedEvent]]:
        """Each stream's events in seq order, one stream a step; with `share` (k, n), only the
        streams whose name hashes to k modulo n."""
        ...
