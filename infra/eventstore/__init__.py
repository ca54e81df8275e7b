"""The event log, split by job as the stores' readers and writers need it: `records` (what the
log holds, and the protocols every store implements in full), `appending` (batched appends
under optimistic concurrency), `ringing` (the doorbell's sending half), `reading` (a stream,
and the whole log in followers' order), `tracking` (followers' checkpoints), `store` (them
together over one pool) and `memory` (the same contract in one process)."""

from infra.eventstore.memory import MemoryEventStore
from infra.eventstore.records import (
    START,
    AppendResult,
    ConcurrencyConflict,
    Cursor,
    Log,
    NewEvent,
    Notifications,
    RecordedEvent,
    Recorder,
)
from infra.eventstore.store import EventStore
from infra.eventstore.tracking import checkpoint, forget_checkpoint, save_checkpoint

__all__ = [
    "START",
    "AppendResult",
    "ConcurrencyConflict",
    "Cursor",
    "EventStore",
    "Log",
    "MemoryEventStore",
    "NewEvent",
    "Notifications",
    "RecordedEvent",
    "Recorder",
    "checkpoint",
    "forget_checkpoint",
    "save_checkpoint",
]
