"""A table's state as a fold of its logged records, and the stable points a stream shows."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from msgspec.structs import replace

from domain.chain import canonical, link
from domain.codec import to_event, to_record
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
    """Fold logged records onto `state` (an empty table if None), with the last one's head
    where the store read its hash."""
    s = State() if state is None else state
    last = None
    for r in records:
        s = evolve(s, to_event(r.type, r.data))
        last = r
    return s if last is None else headed(s, last)


def headed(s: State, r: Record) -> State:
    """`s`, just folded to logged record `r`, with `r`'s head, if the store read its hash."""
    hash_: str = getattr(r, "hash", "")
    return replace(s, head=(s.seq, hash_)) if hash_ else s


def heads_after(state: State, events: Sequence[Event]) -> list[str] | None:
    """Each of `events`' hash in the chain, hex, worked out from `state`'s head as the log
    links them (domain/chain.py); None if `state` has no head for its seq."""
    seq, hash_ = state.head
    if seq != state.seq or not hash_:
        return None
    h, out = bytes.fromhex(hash_), []
    for n, event in enumerate(events, start=seq + 1):
        kind, data = to_record(event)
        h = link(h, canonical(state.code, n, kind, data))
        out.append(h.hex())
    return out


def stable_states(records: Iterable[Record], state: State) -> Iterator[State]:
    """Each state after `records` that a player could see: one with no fact still due.

    Every command's events end at such a state (decide appends all consequences), so these
    are exactly the states a table passes through between commands; a stream that shows
    them all misses nothing, and resuming from any `seq` shows the same sequence.
    """
    return stable_after((to_event(r.type, r.data) for r in records), state)


def stable_after(
    events: Iterable[Event], state: State, hashes: Sequence[str] = ()
) -> Iterator[State]:
    """`stable_states` for events already decoded: those a process has just appended, with
    each one's hash in the chain if given."""
    s = state
    for n, event in enumerate(events):
        s = evolve(s, event)
        if consequence(s) is None:
            yield replace(s, head=(s.seq, hashes[n])) if hashes else s
