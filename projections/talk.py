"""Table talk as watchers receive it: each chat line and reaction with its seq and time, in log
order among the stable states a stream shows."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Protocol

import msgspec

from domain import events as ev
from domain.codec import to_event
from domain.decider import consequence
from domain.events import Emoji
from domain.evolve import evolve
from domain.state import State
from domain.talk import SAID
from projections.replay import headed


class ChatLine(msgspec.Struct, frozen=True):
    seq: int
    player: str
    name: str
    seat: int | None
    text: str
    at: str  # ISO time the log recorded it


class ReactionLine(msgspec.Struct, frozen=True):
    seq: int
    player: str
    name: str
    seat: int | None
    emoji: Emoji
    at: str


Said = ChatLine | ReactionLine


class Logged(Protocol):
    """A logged event with its place and time, as the store reads it."""

    @property
    def seq(self) -> int: ...

    @property
    def type(self) -> str: ...

    @property
    def data(self) -> dict[str, object]: ...

    @property
    def at(self) -> datetime: ...


def said(seq: int, at: datetime, e: ev.ChatSaid | ev.ReactionShown) -> Said:
    if isinstance(e, ev.ChatSaid):
        return ChatLine(seq, e.player, e.name, e.seat, e.text, at.isoformat())
    return ReactionLine(seq, e.player, e.name, e.seat, e.emoji, at.isoformat())


def shown(records: Iterable[Logged], state: State) -> Iterator[tuple[State, Said | None]]:
    """What a stream shows of `records` folded onto `state`: each stable state (with None),
    and each chat line or reaction (with the state after it, which no view need show)."""
    s = state
    for r in records:
        e = to_event(r.type, r.data)
        s = evolve(s, e)
        if isinstance(e, SAID):
            yield headed(s, r), said(r.seq, r.at, e)
        elif consequence(s) is None:
            yield headed(s, r), None
