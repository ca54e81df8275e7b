"""`decide(state, command) -> events`, and every question about what happens next, by one
dispatch on the phase (each phase's rules are in its own module; domain/phases.py). Whose turn
it is and the refusals out of turn are here (docs/euchre.md "Whose turn").

A command is checked against the state and either refused (an exception carrying a sentence
for the player; nothing changes) or turned into its events, followed by every fact that
follows from them: a full trick is taken, a fifth trick scores the hand, ten points win.
"""

from __future__ import annotations

from functools import cache
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
    rematch,
    reveal,
    room,
    stall,
    talk,
)
from domain import commands as cmd
from domain import events as ev
from domain.errors import Conflict, IllegalMove, NotYourTurn
from domain.evolve import HANDLERS
from domain.house_rules import HouseRules
from domain.lifecycle import TABLE_COMMANDS
from domain.phases import Decision, PhaseRules
from domain.state import DealState, Phase, State

PHASES: dict[Phase, PhaseRules] = {
    "reveal": reveal.RULES,
    "farmer": farmer.RULES,
    "bid1": bidding.ROUND_ONE,
    "bid2": bidding.ROUND_TWO,
    "discard": discard.RULES,
    "defend": defend.RULES,
    "play": claim.RULES,  # tricks.RULES, and a claim open on every lead
    "scored": dealing.SCORED,
    "deal": dealing.DEALING,
}
# Commands about the table and its people rather than a hand: each rule module's own.
_TABLE_COMMANDS = {
    **TABLE_COMMANDS,
    **away.COMMANDS,
    **room.COMMANDS,
    **rematch.COMMANDS,
    **stall.COMMANDS,
    **closing.COMMANDS,
    **talk.COMMANDS,
    **hint.COMMANDS,
}
_NONE = PhaseRules()
_TAGS = {kind: tag for tag, kind in cmd.MOVE_TYPES.items()}
# Moves that only make sense between hands: anywhere else "the hand isn't over yet".
_BETWEEN_HANDS = frozenset(dealing.SCORED.moves)


def decide(state: State, command: cmd.Command) -> list[ev.Event]:
    """The events `command` makes, consequences included; raises Refused if it can't be made."""
    return decide_and_fold(state, command)[0]


def decide_and_fold(state: State, command: cmd.Command) -> tuple[list[ev.Event], State]:
    """`decide`, and the state after its events: working out the consequences folds them
    anyway, so callers that need the new state needn't fold them a second time."""
    closing.refuse_if_closed(state)
    table = _TABLE_COMMANDS.get(type(command))
    if table is not None:
        if not state.seq and not isinstance(command, cmd.OpenTable):
            raise Conflict("there is no such table")
        first = table(state, command)
    elif isinstance(command, cmd.MakeMove):
        back = away.back_to_move(state, command)
        first = [*back, _move(_fold(state, back), command.move)]
    else:
        first = [_move(state, command)]
    handlers = HANDLERS
    s = _fold(state, first)
    out = list(first)
    while (due := consequence(s)) is not None:
        out.append(due)
        s = handlers[type(due)](s, due)
    return out, s


def _fold(s: State, events: list[ev.Event]) -> State:
    for e in events:
        s = HANDLERS[type(e)](s, e)
    return s


def _move(s: State, c: Any) -> ev.Event:
    seat: int = c.seat
    if not 0 <= seat <= 3:
        raise IllegalMove("seat must be 0, 1, 2 or 3", field="seat")
    if s.status != "playing":
        raise Conflict("the game is over" if s.status == "over" else "the game hasn't started")
    rules = PHASES.get(s.phase, _NONE)
    check = rules.moves.get(type(c))
    if rules.everyone is not None:
        if check is None:
            raise NotYourTurn(rules.busy)
        return check(s, c)
    if type(c) in _BETWEEN_HANDS:
        raise Conflict("the hand isn't over yet")
    if s.turn != seat:
        assert s.turn is not None
        name = s.seats[s.turn].name
        if name is None:  # a bot's: said apart, so a translation can say "seat" too
            raise NotYourTurn(f"it's seat {s.turn}'s turn {rules.asking}")
        raise NotYourTurn(f"it's {name}'s turn {rules.asking}")
    if check is None:
        raise IllegalMove(f"it's your turn to {rules.what_now}")
    return check(s, c)


def consequence(s: State) -> ev.Event | None:
    """The fact that follows on its own from `s`, if any."""
    if (won := stall.forfeit(s)) is not None:
        return won
    for follows in PHASES.get(s.phase, _NONE).follows:
        e = follows(s)
        if e is not None:
            return e
    return None


def legal(s: State, seat: int) -> list[cmd.Command]:
    """Every distinct command `seat` may send now, each one `decide` accepts."""
    if s.status != "playing":
        return []
    rules = PHASES.get(s.phase, _NONE)
    if rules.everyone is None and s.turn != seat:
        return []
    return rules.legal(s, seat)


def can(s: State, seat: int | None) -> dict[str, dict[str, Any]]:
    """The view's `can`: each move type open to `seat` now, with its options, derived from
    `legal` so the two can't disagree."""
    if seat is None:
        return {}
    moves = legal(s, seat)
    if not moves:
        return {}
    by_kind: dict[type[cmd.Command], list[cmd.Command]] = {}
    for m in moves:
        by_kind.setdefault(type(m), []).append(m)
    rules = PHASES[s.phase]
    offered = {} if rules.offered is None else rules.offered(s, seat)
    return offered | {
        _TAGS[kind]: options(s, by_kind[kind])
        for kind, options in rules.options.items()
        if kind in by_kind
    }


@cache
def offers(rules: HouseRules, round: int, seat: int, dealer: int, up: int) -> dict[str, Any]:
    """`seat`'s `can` in bidding `round` at a table playing `rules`, dealt by `dealer` with the
    card `up` turned: what its view shows then, worked out by `can` itself on those facts, for a
    bot reasoning about what another seat was offered (bots/inference.py). Shared between
    callers: not to be changed."""
    s = State(
        status="playing",
        phase="bid1" if round == 1 else "bid2",
        settings=rules,
        turn=seat,
        deal=DealState(dealer=dealer, up=up),
    )
    return can(s, seat)


def deciding(s: State) -> list[Decision]:
    """Whose decisions the table waits for, and of what kind."""
    if s.status != "playing":
        return []
    rules = PHASES.get(s.phase, _NONE)
    if rules.everyone is not None:
        return rules.everyone(s)
    if rules.kind is None or s.turn is None:
        return []
    return [Decision(seat=s.turn, kind=rules.kind, key=f"{s.deal_no}.{s.deal.moves}.{s.turn}")]


def fallback(s: State, seat: int) -> cmd.Command:
    """Always legal when `seat` is deciding: pass (or call the first suit open to a stuck
    dealer), keep a farmer's hand, don't defend alone, say ready, discard or play the first
    card allowed (docs/euchre.md "Fallback")."""
    return PHASES.get(s.phase, _NONE).fallback(s, seat)
