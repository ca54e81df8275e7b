"""Every move a seat may make now: as commands (`legal`) and as the view's `can` (options)."""

from __future__ import annotations

from itertools import combinations

from domain import commands as cmd
from domain.cards import CODES, SUITS, cards_of, is_farmers_hand, sort_key
from domain.moves import must_alone, stuck
from domain.play import playable
from domain.state import State


def _turned(s: State) -> int:
    return s.up // 6


def _sorted(s: State, mask: int) -> list[str]:
    return [CODES[c] for c in sorted(cards_of(mask), key=lambda c: sort_key(c, s.trump))]


def can(s: State, seat: int | None) -> dict:
    """The view's `can`: each move type open to `seat` now, with its options."""
    if seat is None or s.status != "playing":
        return {}
    if s.phase == "scored":
        out = {} if s.ready[seat] else {"ready": {}}
        if seat == s.host_seat():
            out["deal"] = {}
        return out
    if s.turn != seat:
        return {}
    phase, hand = s.phase, s.hands[seat]
    alone = s.settings.alone == "on"
    if phase == "farmer":
        return {"farmer": {"cards": _sorted(s, hand)}}
    if phase == "bid1":
        return {"order": {"alone": alone, "must_alone": must_alone(s, seat)}, "pass": {}}
    if phase == "bid2":
        out = {
            "call": {"suits": [x for i, x in enumerate(SUITS) if i != _turned(s)], "alone": alone}
        }
        if not stuck(s, seat):
            out["pass"] = {}
        return out
    if phase == "discard":
        return {"discard": {"cards": _sorted(s, hand)}}
    if phase == "defend":
        return {"defend": {}}
    if phase == "play":
        return {"play": {"cards": _sorted(s, playable(hand, s.trick, s.trump))}}
    return {}


def legal(s: State, seat: int) -> list[cmd.Command]:
    """Every distinct command `seat` may send now, each one `decide` accepts."""
    if s.status != "playing":
        return []
    if s.phase == "scored":
        out: list[cmd.Command] = [] if s.ready[seat] else [cmd.Ready(seat=seat)]
        if seat == s.host_seat():
            out.append(cmd.DealNow(seat=seat))
        return out
    if s.turn != seat:
        return []
    phase, hand = s.phase, s.hands[seat]
    alone = s.settings.alone == "on"
    if phase == "play":
        return [
            cmd.Play(seat=seat, card=CODES[c]) for c in cards_of(playable(hand, s.trick, s.trump))
        ]
    if phase == "bid1":
        out = [cmd.Pass(seat=seat)]
        if not must_alone(s, seat):
            out.append(cmd.Order(seat=seat, alone=False))
        if alone:
            out.append(cmd.Order(seat=seat, alone=True))
        return out
    if phase == "bid2":
        out = [] if stuck(s, seat) else [cmd.Pass(seat=seat)]
        for i, suit in enumerate(SUITS):
            if i != _turned(s):
                out.append(cmd.Call(seat=seat, suit=suit, alone=False))
                if alone:
                    out.append(cmd.Call(seat=seat, suit=suit, alone=True))
        return out
    if phase == "discard":
        return [cmd.Discard(seat=seat, card=CODES[c]) for c in cards_of(hand)]
    if phase == "defend":
        return [cmd.Defend(seat=seat, alone=False), cmd.Defend(seat=seat, alone=True)]
    if phase == "farmer":
        out = [cmd.Farmer(seat=seat, cards=[])]
        if is_farmers_hand(hand):
            for three in combinations(cards_of(hand), 3):
                out.append(cmd.Farmer(seat=seat, cards=[CODES[c] for c in three]))
        return out
    return []
