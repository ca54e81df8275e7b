"""`decide(state, command) -> events`: the rules' single entry point for changing a table.

A command is checked against the state and either refused (an exception carrying a sentence
for the player; nothing changes) or turned into its events, followed by every fact that
follows from them: a full trick is taken, a fifth trick scores the hand, ten points win.
"""

from __future__ import annotations

from domain import commands as cmd
from domain import events as ev
from domain.cards import CODES, SUITS
from domain.errors import Conflict, IllegalMove, NotAllowed, NotYourTurn
from domain.evolve import evolve
from domain.moves import MOVES
from domain.play import winner
from domain.scoring import TRICKS, game_over, score_hand
from domain.shuffle import dealt
from domain.state import State
from domain.table import TABLE_COMMANDS

_ASKING = {
    "farmer": "to decide on a farmer's hand",
    "bid1": "to bid",
    "bid2": "to bid",
    "discard": "to discard",
    "defend": "to decide on defending alone",
    "play": "to play",
}
_WHAT_NOW = {
    "farmer": "swap three cards or keep your farmer's hand",
    "bid1": "order it up or pass",
    "bid2": "call a suit or pass",
    "discard": "discard a card",
    "defend": "say whether you defend alone",
    "play": "play a card",
}


def decide(state: State, command: cmd.Command) -> list[ev.Event]:
    """The events `command` makes, consequences included; raises Refused if it can't be made."""
    return decide_and_fold(state, command)[0]


def decide_and_fold(state: State, command: cmd.Command) -> tuple[list[ev.Event], State]:
    """`decide`, and the state after its events: working out the consequences folds them
    anyway, so callers that need the new state needn't fold them a second time."""
    table = TABLE_COMMANDS.get(type(command))
    if table is not None:
        if not state.seq and not isinstance(command, cmd.OpenTable):
            raise Conflict("there is no such table")
        first = table(state, command)
    else:
        first = [_move(state, command)]
    return _with_consequences(state, first)


def _move(s: State, c: cmd.Command) -> ev.Event:
    seat = c.seat
    if not 0 <= seat <= 3:
        raise IllegalMove("seat must be 0, 1, 2 or 3", field="seat")
    if s.status != "playing":
        raise Conflict("the game is over" if s.status == "over" else "the game hasn't started")
    if isinstance(c, cmd.Ready):
        if s.phase != "scored":
            raise Conflict("the hand isn't over yet")
        if s.ready[seat]:
            raise Conflict("you are already ready for the next hand")
        return ev.PlayerReady(seat=seat)
    if isinstance(c, cmd.DealNow):
        if s.phase != "scored":
            raise Conflict("the hand isn't over yet")
        if seat != s.host_seat():
            raise NotAllowed("only the host may deal the next hand without waiting")
        return _deal(s)
    if s.phase == "scored":
        raise NotYourTurn("the hand is over; say you are ready for the next one")
    if s.turn != seat:
        name = s.seats[s.turn].name or f"seat {s.turn}"
        raise NotYourTurn(f"it's {name}'s turn {_ASKING[s.phase]}")
    phase, handler = MOVES[type(c)]
    if phase != s.phase and not (phase == "bid" and s.phase in ("bid1", "bid2")):
        raise IllegalMove(f"it's your turn to {_WHAT_NOW[s.phase]}")
    return handler(s, c)


def _deal(s: State) -> ev.HandDealt:
    deal_no = s.deal_no + 1
    dealer = (s.first_dealer + s.deal_no) % 4
    hands, up, kitty = dealt(s.seed, deal_no, dealer)
    return ev.HandDealt(
        deal_no=deal_no,
        dealer=dealer,
        hands=[[CODES[c] for c in h] for h in hands],
        up=CODES[up],
        kitty=[CODES[c] for c in kitty],
    )


def consequence(s: State) -> ev.Event | None:
    """The fact that follows on its own from `s`, if any."""
    phase = s.phase
    if phase == "play":
        if len(s.trick) == 4 - len(s.sitting):
            return ev.TrickTaken(
                winner=winner(s.trick, s.trump), cards=[CODES[c] for _, c in s.trick]
            )
        if len(s.tricks) == TRICKS:
            scorer, points, how, got = score_hand(s)
            score = list(s.score)
            score[scorer] += points
            return ev.HandScored(
                maker=s.maker,
                trump=SUITS[s.trump],
                alone=s.alone,
                defender=s.defender,
                tricks=got,
                how=how,
                team=scorer,
                points=points,
                score=score,
            )
        return None
    if phase == "bid1":
        if len(s.bids) == 4:
            return ev.UpCardTurnedDown(suit=SUITS[s.up // 6])
        return None
    if phase == "bid2":
        if len(s.bids) == 8:
            return ev.HandThrownIn(deal_no=s.deal_no)
        return None
    if phase == "scored":
        if game_over(s.score):
            return ev.GameWon(team=s.outcome.team, score=list(s.score))
        if all(s.ready):
            return _deal(s)
        return None
    if phase == "deal":
        return _deal(s)
    return None


def _with_consequences(state: State, events: list[ev.Event]) -> tuple[list[ev.Event], State]:
    s = state
    for e in events:
        s = evolve(s, e)
    out = list(events)
    while (e := consequence(s)) is not None:
        out.append(e)
        s = evolve(s, e)
    return out, s
