"""Table use cases shared by the API and the bot workers: load, decide, append, tell.

A command is appended with the `seq` it was decided on; if someone else appended first, it is
decided again on the new state. A caller may pin the `seq` its move was decided on: the move is
stale only if the game has moved since, so talk appended in between, or between hands someone
else saying they are ready, never makes it so (domain/talk.py `current_since`).
Each process keeps the tables it has seen in memory: a command is decided on that memory with
no read at all (the append's seq check finds out if it was out of date), and loading a table
reads only the events after it, one small query.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence

from msgspec.structs import replace

from domain.away import own_seat
from domain.codec import to_record
from domain.commands import Command, MakeMove, OpenTable
from domain.decider import decide_and_fold
from domain.errors import Conflict, Refused
from domain.events import Event
from domain.state import State
from domain.talk import current_since
from infra import metrics, tracing
from infra.eventstore import ConcurrencyConflict, NewEvent, Recorder
from projections.replay import fold_records

CACHE_SIZE = 2048
ATTEMPTS = 8

# After a commit: the table after it, the events committed, and when (time.monotonic()) they
# were handed to the log. A move is made then: what waits on it (a bot's think time) counts
# from that moment, not from when the commit came back to this process, which under load
# trails it by the batch ahead of it on the way to the log and by the event loop's backlog.
OnCommit = Callable[[State, list[Event], float], Awaitable[None]]


class AfterCommit:
    """What runs after each commit, one step after another in the order they were added,
    under the table's lock: the table a process's composition root writes out in one place
    (services/api/app.py: show it to this process's streams, then the bots'; a worker: the
    bots' alone), docs/architecture.md "After a commit"."""

    def __init__(self) -> None:
        self._steps: list[OnCommit] = []

    def then(self, step: OnCommit) -> AfterCommit:
        self._steps.append(step)
        return self

    async def __call__(self, after: State, events: list[Event], made: float) -> None:
        for step in self._steps:
            await step(after, events, made)


class Stale(Conflict):
    """The move was decided on a view that is no longer current."""


class NoSuchTable(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(f"there is no table {code}")
        self.code = code


class Tables:
    def __init__(
        self,
        store: Recorder,
        on_commit: OnCommit | None = None,
    ) -> None:
        """`on_commit` runs after each command's events commit, under the table's lock."""
        self.store = store
        self._on_commit = on_commit
        self._cache: OrderedDict[str, State] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}

    async def load(self, code: str) -> State:
        """The table as the log has it now; raises NoSuchTable for a code never opened."""
        state = await self._current(code)
        if not state.seq:
            raise NoSuchTable(code)
        return state

    def known(self, code: str) -> State | None:
        """The table as this process last saw it, with no read: it may be behind the log."""
        return self._cache.get(code)

    async def seat_of(self, code: str, player: str) -> int:
        """The seat `player` sits in, as this process last saw the table or, if that doesn't
        seat them, as the log has it now; refused in the rules' words if they sit at none.
        A seat seen here that has since changed hands is refused when the move is decided."""
        state = self.known(code)
        if state is None or state.seat_of(player) is None:
            state = await self.load(code)
        return own_seat(state, player)

    async def _current(self, code: str) -> State:
        cached = self._cache.get(code)
        records = await self.store.read(code, after_seq=cached.seq if cached else 0)
        state = fold_records(records, cached)
        self._remember(code, state)
        return state

    async def headed(self, state: State) -> State:
        """`state` with its head, the hash of the logged event at its seq, read from the log
        (the event at that seq, not the last one: others may have been appended since)."""
        records = await self.store.read(state.code, after_seq=state.seq - 1)
        if not records or records[0].seq != state.seq:
            return state
        return replace(state, head=(state.seq, records[0].hash))

    def remember(self, state: State) -> None:
        """A state of a table read elsewhere in the process (a stream's feed), newer or not."""
        self._remember(state.code, state)

    def _remember(self, code: str, state: State) -> None:
        if not state.seq:
            return
        known = self._cache.get(code)
        if known is None or known.seq < state.seq:
            self._cache[code] = state
        self._cache.move_to_end(code)
        while len(self._cache) > CACHE_SIZE:
            gone, _ = self._cache.popitem(last=False)
            lock = self._locks.get(gone)
            # A lock nobody holds guards nothing; if someone takes a new one for the table
            # later, the store's seq check still keeps their appends apart.
            if lock is not None and not lock.locked():
                del self._locks[gone]

    async def execute(
        self,
        code: str,
        command: Command | Sequence[Command],
        expected_seq: int | None = None,
        command_id: str | None = None,
    ) -> State:
        """Decide `command` on the table and append its events; the state after them.

        `command` may be several, decided one after another and appended together (a table
        opened with its bots). Refusals from the rules propagate unchanged; nothing is
        appended.
        """
        first = command if isinstance(command, Command) else command[0]
        # A person's move is counted as the move it carries (play, order), as a bot's is.
        kind = metrics.kind_of(type(first.move if isinstance(first, MakeMove) else first))
        with tracing.span(f"execute {type(first).__name__}", table=code):
            try:
                after = await self._execute(code, command, expected_seq, command_id)
            except (Refused, NoSuchTable) as refusal:
                metrics.moves_refused.labels(kind, metrics.reason_of(type(refusal))).inc()
                raise
        metrics.accepted(kind).inc()
        return after

    async def _execute(
        self,
        code: str,
        command: Command | Sequence[Command],
        expected_seq: int | None,
        command_id: str | None,
    ) -> State:
        lock = self._locks.setdefault(code, asyncio.Lock())
        async with lock:
            # Decided first on what this process last saw of the table, without a read: the
            # append's seq check finds out if another process moved it on since, and anything
            # refused is decided again on a fresh read before the refusal stands.
            state = self._cache.get(code)
            fresh = state is None
            if state is None:
                state = await self._current(code)
            for _ in range(ATTEMPTS):
                try:
                    events, after = self._decide(code, state, command, expected_seq)
                except (Refused, NoSuchTable):
                    if fresh:
                        raise
                    state, fresh = await self._current(code), True
                    continue
                new = [NewEvent(*to_record(e)) for e in events]
                made = time.monotonic()
                try:
                    result = await self.store.append(code, state.seq, new, command_id=command_id)
                except ConcurrencyConflict:
                    # Deciding again checks a pinned seq against what was appended meanwhile.
                    state, fresh = await self._current(code), True
                    continue
                if result.duplicate:
                    return await self._current(code)
                after = replace(after, head=(after.seq, result.hashes[-1]))
                self._remember(code, after)
                if self._on_commit is not None:
                    await self._on_commit(after, events, made)
                return after
        raise Conflict("the table is too busy right now; try again")

    @staticmethod
    def _decide(
        code: str,
        state: State,
        command: Command | Sequence[Command],
        expected_seq: int | None,
    ) -> tuple[list[Event], State]:
        first = command[0] if isinstance(command, Sequence) else command
        if not state.seq and not isinstance(first, OpenTable):
            raise NoSuchTable(code)
        if expected_seq is not None and not current_since(state) <= expected_seq <= state.seq:
            raise Stale(
                f"the table has moved on (it is at {state.seq}, you saw {expected_seq}); "
                "look again and choose"
            )
        events: list[Event] = []
        for one in [command] if isinstance(command, Command) else command:
            made, state = decide_and_fold(state, one)
            events += made
        return events, state
