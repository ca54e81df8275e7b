"""Bidding: ordering the up card, calling in round two, going (or defending) alone, and the
farmer's swap. Medium and hard share the method (a hand's strength in tricks against a bar
that depends on the seat) and differ in the bars: hard's were fitted by playing thousands of
hands out both ways from each bid (order or pass, alone or not) and keeping the crossover,
and hard lowers them near the end of a game.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from domain.bots.discard import best_after_pickup
from domain.bots.known import Known
from domain.bots.strength import TRUMP_WORTH, next_suit, power, strength, sure_tricks
from domain.cards import SUITS, SuitCode, cards_of


class Style(NamedTuple):
    order: tuple[float, float, float, float]  # round-one threshold by seat from the dealer
    call: tuple[float, float, float, float]  # round two, likewise (dealer's only if not stuck)
    up_to_partner: float  # the up card's worth to the team when the dealer is a partner
    up_to_them: float  # and its cost when the dealer is an opponent
    next_bonus: float  # round two, left of the dealer: calling "next" (the turned suit's colour)
    alone: tuple[float, float, float, float]  # sure tricks to go alone in round one, by seat
    alone_call: float  # and in round two
    reads: bool  # weighs the score and the other bids


# Seat from the dealer: 0 the dealer, 1 its left (leads first), 2 its partner, 3 its right.
MEDIUM = Style(
    order=(2.5, 2.5, 2.3, 2.5),
    call=(2.4, 2.4, 2.4, 2.4),
    up_to_partner=0.6,
    up_to_them=0.6,
    next_bonus=0.2,
    alone=(4.5, 4.5, 4.5, 4.5),
    alone_call=4.5,
    reads=False,
)
HARD = Style(
    order=(2.5, 3.0, 2.55, 2.9),
    call=(2.3, 2.2, 1.8, 1.7),
    up_to_partner=0.7,
    up_to_them=0.7,
    next_bonus=0.3,
    alone=(3.0, 3.0, 4.0, 3.0),
    alone_call=4.0,
    reads=True,
)
STYLES = {"medium": MEDIUM, "hard": HARD}


def _pos(k: Known) -> int:
    return (k.me - k.dealer) % 4


def _may_go_alone(k: Known, offered: bool) -> bool:
    """Etiquette: never alone two or one short of the target (8 or 9 of 10), where a partnered
    march (or any made hand) wins the game anyway and going alone only adds the risk of a
    euchre."""
    return offered and k.to_go > 2


def _score_shift(k: Known) -> float:
    """How much lower the bar is for the score: near the end, a call that might be euchred
    costs less than letting the other side make theirs."""
    shift = 0.0
    if k.they_to_go <= 2:
        shift += 0.25
    if k.to_go <= 1:
        shift += 0.1
    return shift


def bar(k: Known, style: Style, bars: tuple[float, float, float, float]) -> float:
    """The strength this seat bids on with `bars` (by seat from the dealer), lowered near the
    end of a game by a style that reads the score."""
    return bars[_pos(k)] - _score_shift(k) if style.reads else bars[_pos(k)]


def order_strength(k: Known, style: Style) -> tuple[float, float]:
    """(strength for ordering the up card, sure tricks if going alone) from this seat."""
    u, up, pos = k.up // 6, k.up, _pos(k)
    if pos == 0:
        hand5, _ = best_after_pickup(k.hand, up, u, void_first=style.reads)
        return strength(hand5, u), sure_tricks(hand5, u)
    x = strength(k.hand, u)
    worth = TRUMP_WORTH[power(up, u)]
    # Going alone with the dealer as partner leaves the up card out of play.
    lone = sure_tricks(k.hand, u, gone=1 << up if pos == 2 else 0)
    x += style.up_to_partner * worth if pos == 2 else -style.up_to_them * worth
    return x, lone


def round_one(k: Known, style: Style) -> tuple[bool, bool]:
    """(order, alone) for the up card's suit."""
    offer = k.can["order"]
    x, lone = order_strength(k, style)
    alone = _may_go_alone(k, offer["alone"]) and lone >= style.alone[_pos(k)]
    if offer.get("must_alone"):
        return alone, alone  # the Canadian loner: order only alone, and only when it's there
    return x >= bar(k, style, style.order) or alone, alone


def call_strength(k: Known, style: Style) -> tuple[int, float, float]:
    """(best suit to call, its strength, sure tricks alone in it)."""
    pos = _pos(k)
    best, best_x = -1, -9.0
    for code in k.can["call"]["suits"]:
        s = SUITS.index(code)
        x = strength(k.hand, s)
        if pos == 1 and s == next_suit(k.turned):
            x += style.next_bonus
        if x > best_x:
            best, best_x = s, x
    gone = 1 << k.up
    return best, best_x, sure_tricks(k.hand, best, gone)


def round_two(k: Known, style: Style) -> tuple[SuitCode | None, bool]:
    """(suit to call or None to pass, alone)."""
    offer = k.can["call"]
    stuck = "pass" not in k.can
    best, x, lone = call_strength(k, style)
    alone = _may_go_alone(k, offer["alone"]) and lone >= style.alone_call
    if x >= bar(k, style, style.call) or alone or stuck:
        return SUITS[best], alone
    return None, False


def defend_alone(k: Known, level: str) -> bool:
    """Defend alone only with a very strong hand in the makers' own trump (never at easy)."""
    if level == "easy":
        return False
    t = k.trump
    return strength(k.hand, t) >= 3.4 and sure_tricks(k.hand, t) >= 3


def farmer_swap(k: Known, level: str, rng: random.Random) -> list[int]:
    """The three cards a farmer's hand gives up (every 9 and 10 is weak, so swapping three for
    unseen cards helps on average): keep the two that best fit a suit we might make trump,
    the up card's suit when our side deals, else a pair in one suit, tens before nines."""
    hand = cards_of(k.hand)
    if level == "easy":
        return rng.sample(hand, 3)
    u = k.up // 6
    ours_deal = k.dealer % 2 == k.me % 2

    def keep(c: int) -> tuple[bool, int, int, int]:
        s = c // 6
        same = sum(1 for x in hand if x // 6 == s)
        return (ours_deal and s == u, same, c % 6, -s)

    kept = sorted(hand, key=keep, reverse=True)[:2]
    return [c for c in hand if c not in kept]
