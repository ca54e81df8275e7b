"""The players' seeds revealed at the start (docs/euchre.md "The players' seeds"): who is asked,
the check of each seed against the commitment given with the seat, and the start once every
seat asked has answered.

A seed given openly when its player sits down can be read by whoever sits after them, and one
who also knew the server's seed could pick theirs to choose the deals. A commitment (the
SHA-256 of the seed) tells nobody anything, so the seeds are only shown once every player is
seated and the server's own is long committed; a player who doesn't reveal theirs is left out
of the mix, and the log says so.
"""

from __future__ import annotations

import hashlib
from typing import Any

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.errors import Conflict, IllegalMove
from domain.lifecycle import started
from domain.phases import Decision, Evolve, PhaseRules, no_options
from domain.shuffle import seed_bytes
from domain.state import State, seats_with


def _asked(s: State, seat: int) -> str:
    """The commitment `seat` is asked to reveal; refused if it isn't asked."""
    commitment = s.seats[seat].commitment
    if seat not in s.asked or commitment is None:
        raise Conflict("you have no seed to reveal: the game starts without asking you")
    return commitment


def reveal(s: State, c: cmd.Reveal) -> ev.Event:
    commitment = _asked(s, c.seat)
    try:
        raw = seed_bytes(c.seed)
    except ValueError as e:
        raise IllegalMove("your seed must be 64 lowercase hex digits", field="seed") from e
    if hashlib.sha256(raw).hexdigest() != commitment:
        raise IllegalMove(
            "that seed doesn't hash to the commitment you gave when you sat down", field="seed"
        )
    return ev.SeedRevealed(seat=c.seat, seed=c.seed)


def withhold(s: State, c: cmd.Withhold) -> ev.Event:
    _asked(s, c.seat)
    return ev.SeedWithheld(seat=c.seat)


def _legal(s: State, seat: int) -> list[cmd.Command]:
    """Withholding only: the seed that matches is its player's secret, which the rules can't
    list (the view offers `reveal` all the same: `_offered`)."""
    return [cmd.Withhold(seat=seat)] if seat in s.asked else []


def _offered(s: State, seat: int) -> dict[str, Any]:
    commitment = s.seats[seat].commitment
    return {"reveal": {"commitment": commitment}} if seat in s.asked else {}


def _unanswered(s: State) -> list[Decision]:
    """Every seat asked and yet to answer is deciding at once."""
    return [Decision(seat=n, kind="reveal", key=f"reveal.{n}") for n in s.asked]


def _fallback(s: State, seat: int) -> cmd.Command:
    return cmd.Withhold(seat=seat)


def _all_answered(s: State) -> ev.Event | None:
    return None if s.asked else started(s)


def _called(s: State, e: ev.StartCalled) -> State:
    return replace(
        s,
        seq=s.seq + 1,
        status="playing",
        phase="reveal",
        asked=tuple(e.asked),
        asked_at=s.seq + 1,
        turn=None,
    )


def _revealed(s: State, e: ev.SeedRevealed) -> State:
    seat = replace(s.seats[e.seat], contribution=e.seed)
    asked = tuple(n for n in s.asked if n != e.seat)
    return replace(s, seq=s.seq + 1, seats=seats_with(s, e.seat, seat), asked=asked)


def _withheld(s: State, e: ev.SeedWithheld) -> State:
    return replace(s, seq=s.seq + 1, asked=tuple(n for n in s.asked if n != e.seat))


RULES = PhaseRules(
    kind="reveal",
    moves={cmd.Reveal: reveal, cmd.Withhold: withhold},
    legal=_legal,
    options={cmd.Withhold: no_options},
    offered=_offered,
    fallback=_fallback,
    follows=(_all_answered,),
    everyone=_unanswered,
    busy="the game is starting: reveal the seed you committed to, or withhold it",
)
EVOLVE: Evolve = {
    ev.StartCalled: _called,
    ev.SeedRevealed: _revealed,
    ev.SeedWithheld: _withheld,
}
