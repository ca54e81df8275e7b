"""Farmer's hand (docs/euchre.md "Farmer's hand", house rule `farmers`): who is asked after the
deal, the swap with the kitty, and what the kitty holds after it."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.cards import CODES, INDEX, cards_of, is_farmers_hand, mask_of
from domain.errors import IllegalMove
from domain.hands import held, sorted_codes
from domain.house_rules import HouseRules
from domain.phases import Evolve, PhaseRules
from domain.sealing import next_seal
from domain.state import State


def asked(rules: HouseRules, hands: list[int], dealer: int) -> tuple[int, ...]:
    """The seats asked before bidding, in turn from the dealer's left: each farmer's hand."""
    if rules.farmers != "on":
        return ()
    order = ((dealer + k) % 4 for k in range(1, 5))
    return tuple(n for n in order if is_farmers_hand(hands[n]))


def answer(s: State, c: cmd.Farmer) -> ev.Event:
    if not c.cards:
        return ev.FarmerKept(seat=c.seat)
    cards = {held(s, c.seat, code) for code in c.cards}
    if len(c.cards) != 3 or len(cards) != 3:
        raise IllegalMove(
            "swap exactly three different cards, or none to keep your hand", field="cards"
        )
    if not is_farmers_hand(s.deal.hands[c.seat]):
        raise IllegalMove("only a hand of five 9s and 10s may swap", field="cards")
    gave = [CODES[x] for x in sorted(cards)]
    got = [CODES[x] for x in s.deal.kitty[:3]]
    seal = next_seal(s, {"gave": gave, "got": got})
    return ev.FarmerSwapped(seat=c.seat, gave=gave, got=got, seal=seal)


def _legal(s: State, seat: int) -> list[cmd.Command]:
    hand = s.deal.hands[seat]
    out: list[cmd.Command] = [cmd.Farmer(seat=seat, cards=[])]
    if is_farmers_hand(hand):
        for three in combinations(cards_of(hand), 3):
            out.append(cmd.Farmer(seat=seat, cards=[CODES[c] for c in three]))
    return out


def _options(s: State, moves: list[cmd.Farmer]) -> dict[str, Any]:
    return {"cards": sorted_codes(mask_of(INDEX[c] for m in moves for c in m.cards), s.deal.trump)}


def _fallback(s: State, seat: int) -> cmd.Command:
    return cmd.Farmer(seat=seat, cards=[])


def _answered(s: State, **changes: Any) -> State:
    """The next farmer is asked, or bidding begins left of the dealer."""
    rest = s.asked[1:]
    d = replace(s.deal, moves=s.deal.moves + 1, **changes)
    if rest:
        return replace(s, seq=s.seq + 1, asked=rest, turn=rest[0], deal=d)
    assert d.dealer is not None
    return replace(s, seq=s.seq + 1, asked=(), phase="bid1", turn=(d.dealer + 1) % 4, deal=d)


def _swapped(s: State, e: ev.FarmerSwapped) -> State:
    d = s.deal
    gave = [INDEX[c] for c in e.gave]
    got = [INDEX[c] for c in e.got]
    hand = d.hands[e.seat] & ~mask_of(gave) | mask_of(got)
    hands = list(d.hands)
    hands[e.seat] = hand
    kitty = tuple(c for c in d.kitty if c not in got) + tuple(gave)
    return _answered(s, hands=tuple(hands), kitty=kitty)


def _kept(s: State, e: ev.FarmerKept) -> State:
    return _answered(s)


RULES = PhaseRules(
    kind="farmer",
    asking="to decide on a farmer's hand",
    what_now="swap three cards or keep your farmer's hand",
    moves={cmd.Farmer: answer},
    legal=_legal,
    options={cmd.Farmer: _options},
    fallback=_fallback,
)
EVOLVE: Evolve = {ev.FarmerSwapped: _swapped, ev.FarmerKept: _kept}
