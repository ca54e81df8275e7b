"""`evolve(state, event) -> state`: how each fact changes a table. No checks: events are facts.

Each event's handler lives in the rule module it belongs to, beside the checks that make it;
this only puts them in one table. Every handler returns a new State with `seq` moved on by
one, so a fold of the log's events gives the live state and its `seq` equals the log's last.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain import (
    away,
    bidding,
    claim,
    closing,
    dealing,
    defend,
    discard,
    farmer,
    hint,
    lifecycle,
    rematch,
    reveal,
    room,
    scoring,
    stall,
    talk,
    tricks,
)
from domain import events as ev
from domain.state import State

HANDLERS: dict[type[ev.Event], Callable[[State, Any], State]] = {
    **lifecycle.EVOLVE,
    **away.EVOLVE,
    **room.EVOLVE,
    **rematch.EVOLVE,
    **reveal.EVOLVE,
    **dealing.EVOLVE,
    **farmer.EVOLVE,
    **bidding.EVOLVE,
    **discard.EVOLVE,
    **defend.EVOLVE,
    **tricks.EVOLVE,
    **claim.EVOLVE,
    **scoring.EVOLVE,
    **stall.EVOLVE,
    **closing.EVOLVE,
    **talk.EVOLVE,
    **hint.EVOLVE,
}


def evolve(state: State, event: ev.Event) -> State:
    return HANDLERS[type(event)](state, event)


def fold(events: Iterable[ev.Event], state: State | None = None) -> State:
    """The state after `events`, from an empty table (or from `state`)."""
    s = State() if state is None else state
    handlers = HANDLERS
    for e in events:
        s = handlers[type(e)](s, e)
    return s
