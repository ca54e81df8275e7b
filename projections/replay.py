"""A table's state as a fold of its logged records, and the stable points a stream shows."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from domain.codec import to_event
from domain.decider import consequence
from domain.events import Event
from domain.evolve import evolve
from domain.state import State


class Record(Protocol):
    """A logged event as any store returns it."""

    @property
    def type(self) -> str: ...

    @property
    def data(self) -> dict[str, object]: ...


def fold_records(records: Iterable[Record], state: State | None = None) -> State:
    """Fold logged records onto `state` (an empty table if None)."""
    s = State() if state is None else state
    for r in records:
        s = evolve(s, to_event(r.type, r.data))
    return s


def stable_states(records: Iterable[Record], state: State) -> Iterator[State]:
    """Each state after `records` that a player could see: one with no fact still due.

    Every command's events end at such a state (decide appends all consequences), so these
    are exactly the states a table passes through between commands; a stream that shows
    them all misses nothing, and resuming from any `seq` shows the same sequence.
    """
    return stable_after((to_event(r.type, r.data) for r in records), state)


def stable_after(events: Iterable[Event], state: State) -> Iterator[State]:
    """`stable_states` for events already decoded: those a process has just appended."""
    s = state
    for event in events:
        s = evolve(s, event)
        if consequence(s) is None:
            yield s
