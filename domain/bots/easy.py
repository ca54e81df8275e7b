"""The easy bot: a beginner who loves to make trump and plays each trick on its own.

It orders or calls holding two cards of a suit, or one and an ace elsewhere, counting by the
printed suit (it forgets that the other jack of the colour is trump too, a beginner's
classic); it goes alone only when the hand can't lose. It leads its best card, takes a trick
whenever it can with the best card it has (even from its partner), and otherwise throws its
truly lowest card: lowest by rank within the suits, with trumps (bowers on top) above every
other suit. Now and then (BLUNDER of its cards) it loses the thread and plays any card it
may. Measured: medium beats it in about 94% of games.
"""

from __future__ import annotations

import random

from domain.bots.known import Known
from domain.bots.strength import power, sure_tricks
from domain.cards import FOLLOWS, POWER, SUITS, SuitCode, cards_of

BLUNDER = 0.25


SUIT = tuple(0b111111 << (6 * s) for s in range(4))  # by the printed suit


def _trumps(hand: int, s: int) -> int:
    return (hand & SUIT[s]).bit_count()


def _aces(hand: int, s: int) -> int:
    return sum(1 for c in cards_of(hand & ~SUIT[s]) if c % 6 == 5)


def _worth(hand: int, s: int) -> bool:
    n = _trumps(hand, s)
    return n >= 2 or (n == 1 and _aces(hand, s) >= 1)


def round_one(k: Known) -> tuple[bool, bool]:
    u = k.up // 6
    hand = k.hand | (1 << k.up if k.me == k.dealer else 0)
    offer = k.can["order"]
    alone = offer["alone"] and k.to_go > 2 and sure_tricks(hand, u) >= 5
    if offer.get("must_alone"):
        return alone, alone
    return _worth(hand, u) or alone, alone


def round_two(k: Known) -> tuple[SuitCode | None, bool]:
    offer = k.can["call"]
    suits = [SUITS.index(x) for x in offer["suits"]]
    best = max(suits, key=lambda s: (_trumps(k.hand, s), _aces(k.hand, s)))
    alone = offer["alone"] and k.to_go > 2 and sure_tricks(k.hand, best) >= 5
    if _worth(k.hand, best) or alone or "pass" not in k.can:
        return SUITS[best], alone
    return None, False


def lowest(cards: int, trump: int) -> int:
    """The truly lowest card: every trump outranks every other suit, and a bower outranks
    the ace of trump; among the rest, the lowest rank (a 10 is below a queen)."""
    return min(cards_of(cards), key=lambda c: (power(c, trump), c // 6))


def bury(hand: int, trump: int) -> int:
    return lowest(hand, trump)


def choose_card(k: Known, rng: random.Random) -> int:
    options = k.cards("play")
    t = k.trump
    if rng.random() < BLUNDER:
        return rng.choice(cards_of(options))
    if not k.trick:
        return max(cards_of(options), key=lambda c: (power(c, t), -(c // 6)))
    led = FOLLOWS[t][k.trick[0][1]]
    p = POWER[t][led]
    best = max(p[c] for _, c in k.trick)
    winners = [c for c in cards_of(options) if p[c] > best]
    if winners:
        return max(winners, key=lambda c: p[c])
    return lowest(options, t)
