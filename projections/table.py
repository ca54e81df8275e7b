"""A table's state and views as folds of its log, including the stable points a stream shows.

The log stores each event's type and its fields as JSON; decoding goes through the domain's
event union, so a log that doesn't decode is an error, never a silent skip.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from domain.decide import consequence
from domain.events import AnyEvent, Event
from domain.evolve import evolve
from domain.state import State


def to_event(type_: str, data: dict[str, Any]) -> Event:
    """The domain event for a logged (type, data) pair."""
    return msgspec.convert({**data, "type": type_}, AnyEvent)


def to_record(event: Event) -> tuple[str, dict[str, Any]]:
    """(type, data) for the log: the event's fields without the tag."""
    data = msgspec.to_builtins(event)
    return data.pop("type"), data


def fold_records(records: Iterable[Any], state: State | None = None) -> State:
    """Fold logged records (anything with `.type` and `.data`) onto `state`."""
    s = State() if state is None else state
    for r in records:
        s = evolve(s, to_event(r.type, r.data))
    return s


def stable_states(records: Iterable[Any], state: State) -> Iterator[State]:
    """Each state after `records` that a player could see: one with no fact still due.

    Every command's events end at such a state (decide appends all consequences), so these
    are exactly the states a table passes through between commands; a stream that shows
    them all misses nothing, and resuming from any `seq` shows the same sequence.
    """
    s = state
    for r in records:
        s = evolve(s, to_event(r.type, r.data))
        if consequence(s) is None:
            yield s
