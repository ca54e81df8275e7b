"""Whose decision it is (`deciding`), and the move played for a seat whose own was refused."""

from __future__ import annotations

import msgspec

from domain import commands as cmd
from domain.cards import CODES, SUITS, cards_of
from domain.moves import stuck
from domain.play import playable
from domain.state import State

KINDS = {
    "farmer": "farmer",
    "bid1": "bid",
    "bid2": "bid",
    "discard": "discard",
    "defend": "defend",
    "play": "play",
}


class Decision(msgspec.Struct, frozen=True):
    """`key` names this one decision: it survives other tables' and seats' noise and changes as
    soon as the decision is made, so a bot's think time and a stale turn can be keyed to it."""

    seat: int
    kind: str  # farmer, bid, discard, defend, play or ready
    key: str


def deciding(s: State) -> list[Decision]:
    if s.status != "playing":
        return []
    if s.phase == "scored":
        return [
            Decision(seat=n, kind="ready", key=f"{s.deal_no}.ready.{n}")
            for n in range(4)
            if not s.ready[n]
        ]
    kind = KINDS.get(s.phase)
    if kind is None or s.turn is None:
        return []
    return [Decision(seat=s.turn, kind=kind, key=f"{s.deal_no}.{s.moves}.{s.turn}")]


def fallback(s: State, seat: int) -> cmd.Command:
    """Always legal when `seat` is deciding: pass (or call the first suit open to a stuck
    dealer), keep a farmer's hand, don't defend alone, discard or play the first card allowed."""
    phase = s.phase
    if phase == "scored":
        return cmd.Ready(seat=seat)
    if phase == "farmer":
        return cmd.Farmer(seat=seat, cards=[])
    if phase == "bid1":
        return cmd.Pass(seat=seat)
    if phase == "bid2":
        if stuck(s, seat):
            suit = next(x for i, x in enumerate(SUITS) if i != s.up // 6)
            return cmd.Call(seat=seat, suit=suit)
        return cmd.Pass(seat=seat)
    if phase == "discard":
        return cmd.Discard(seat=seat, card=CODES[cards_of(s.hands[seat])[0]])
    if phase == "defend":
        return cmd.Defend(seat=seat, alone=False)
    if phase == "play":
        return cmd.Play(
            seat=seat, card=CODES[cards_of(playable(s.hands[seat], s.trick, s.trump))[0]]
        )
    raise ValueError(f"seat {seat} has nothing to decide in phase {phase}")
