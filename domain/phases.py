"""What each phase of a hand hands the one dispatch on the phase (domain/decider.py).

A rule module (farmer, bidding, discard, defend, tricks, dealing) fills in one `PhaseRules`
per phase it owns: the checks of its moves, the moves open to a seat (from which the view's
`can` is derived), the fallback, and the facts that follow on their own. Changing a rule then
touches its own module, never the dispatch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from domain import commands as cmd
from domain import events as ev
from domain.state import State

DecisionKind = Literal["reveal", "farmer", "bid", "discard", "defend", "play", "ready"]


class Decision(msgspec.Struct, frozen=True):
    """`key` names this one decision: it survives other tables' and seats' noise and changes as
    soon as the decision is made, so a bot's think time and a stale turn can be keyed to it."""

    seat: int
    kind: DecisionKind
    key: str


# Checks a move by a seat known to be deciding now and returns the move's own event.
MoveCheck = Callable[[State, Any], ev.Event]
# A command type's entry in the view's `can`, from the legal commands of that type.
Options = Callable[[State, list[Any]], dict[str, Any]]
Follows = Callable[[State], ev.Event | None]
# How each of a module's events changes the table (domain/evolve.py puts them in one table).
Evolve = Mapping[type[ev.Event], Callable[[State, Any], State]]


def _nothing(s: State, seat: int) -> list[cmd.Command]:
    return []


def _no_fallback(s: State, seat: int) -> cmd.Command:
    raise ValueError(f"seat {seat} has nothing to decide in phase {s.phase}")


def no_options(s: State, commands: list[Any]) -> dict[str, Any]:
    return {}


@dataclass(frozen=True, slots=True)
class PhaseRules:
    kind: DecisionKind | None = None
    asking: str = ""  # completes "it's Ada's turn ..."
    what_now: str = ""  # completes "it's your turn to ..."
    moves: Mapping[type[cmd.Command], MoveCheck] = field(default_factory=dict)
    legal: Callable[[State, int], list[cmd.Command]] = _nothing
    # In the order the view's `can` lists them.
    options: Mapping[type[cmd.Command], Options] = field(default_factory=dict)
    # Moves the view offers beyond what `legal` lists, each with its options: a seed revealed
    # is its player's secret, and a claim is offered on every lead, certain or not.
    offered: Callable[[State, int], dict[str, Any]] | None = None
    fallback: Callable[[State, int], cmd.Command] = _no_fallback
    follows: tuple[Follows, ...] = ()  # tried in order; the first fact due is the next event
    # Between hands (and at the start, for the seeds) every seat asked decides at once, and
    # moves aren't checked against the turn; otherwise the one seat whose turn it is decides.
    everyone: Callable[[State], list[Decision]] | None = None
    busy: str = ""  # why another kind of move is refused while everyone decides
