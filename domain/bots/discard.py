"""The dealer's discard after picking the up card up: keep trump and aces, make a void."""

from __future__ import annotations

from domain.bots.strength import ACE, TRUMP_MASK, power, strength
from domain.cards import SUIT_MASK, cards_of


def bury(hand: int, trump: int) -> int:
    """The card to bury from six: never a trump while an off-suit card is left; otherwise the
    one whose loss costs the hand least (a lone low card, leaving a void to ruff with, before
    the lowest card of a longer suit), keeping aces; ties go to the lower card."""
    t = trump
    off = hand & ~TRUMP_MASK[t]
    if not off:
        return min(cards_of(hand), key=lambda c: power(c, t))
    best, best_key = -1, None
    for c in cards_of(off):
        suit_cards = off & SUIT_MASK[t][c // 6]
        key = (
            c % 6 == ACE,  # keep aces while anything else can go
            -strength(hand & ~(1 << c), t),
            power(c, t),
            suit_cards.bit_count(),
        )
        if best_key is None or key < best_key:
            best, best_key = c, key
    return best


def bury_for_void(hand: int, trump: int) -> int:
    """Hard's discard, measured better by playing hands out both ways: keep trump and aces,
    then bury from the shortest suit (a void to ruff with), the lowest card of it."""
    t = trump
    off = hand & ~TRUMP_MASK[t]
    if not off:
        return min(cards_of(hand), key=lambda c: power(c, t))
    return min(
        cards_of(off),
        key=lambda c: (c % 6 == ACE, (off & SUIT_MASK[t][c // 6]).bit_count(), power(c, t)),
    )


def best_after_pickup(hand: int, up: int, trump: int, void_first: bool = False) -> tuple[int, int]:
    """The dealer's five cards after taking `up` and burying the best discard, and that card."""
    six = hand | 1 << up
    c = (bury_for_void if void_first else bury)(six, trump)
    return six & ~(1 << c), c
