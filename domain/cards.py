"""The 24-card deck (docs/euchre.md "The cards and the bowers"): card codes at the edges, small
ints and bit masks inside.

A card is an index 0-23, suit-major: ``suit * 6 + rank`` with suits S H D C (0-3) and ranks
9 T J Q K A (0-5). A set of cards is an int with one bit per card, so following suit and
counting are single mask operations, which the bots' search leans on.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, get_args

RANKS = "9TJQKA"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
NO_TRUMP = 4  # the index for "no trump" (not made yet, or a no-trump call) in the tables below

Code = Literal[
    "9S",
    "TS",
    "JS",
    "QS",
    "KS",
    "AS",
    "9H",
    "TH",
    "JH",
    "QH",
    "KH",
    "AH",
    "9D",
    "TD",
    "JD",
    "QD",
    "KD",
    "AD",
    "9C",
    "TC",
    "JC",
    "QC",
    "KC",
    "AC",
]
SuitCode = Literal["S", "H", "D", "C"]
# What a hand is played in: a suit, or "N" for no trump (the `no_trump` house rule).
TrumpCode = Literal["S", "H", "D", "C", "N"]

# Suit-major, as the index: CODES[suit * 6 + rank] == RANKS[rank] + SUITS[suit].
SUITS: tuple[SuitCode, ...] = get_args(SuitCode)
CODES: tuple[Code, ...] = get_args(Code)
TRUMPS: tuple[TrumpCode, ...] = get_args(TrumpCode)  # TRUMPS[NO_TRUMP] == "N"
INDEX: dict[str, int] = {code: i for i, code in enumerate(CODES)}
DECK = (1 << 24) - 1
JACK = RANKS.index("J")
NINE, TEN = RANKS.index("9"), RANKS.index("T")


def suit(card: int) -> int:
    return card // 6


def rank(card: int) -> int:
    return card % 6


def same_color(s: int) -> int:
    """The other suit of the same colour (spades-clubs, hearts-diamonds): the left bower's suit."""
    return 3 - s


def bit(card: int) -> int:
    return 1 << card


def cards_of(mask: int) -> list[int]:
    """The cards in a mask, lowest index first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def count(mask: int) -> int:
    return mask.bit_count()


def left_bower(trump: int) -> int:
    return same_color(trump) * 6 + JACK


def right_bower(trump: int) -> int:
    return trump * 6 + JACK


def _follows(card: int, trump: int) -> int:
    if trump != NO_TRUMP and card == left_bower(trump):
        return trump
    return suit(card)


def _power(card: int, trump: int, led: int) -> int:
    """Trump beats the suit led, which beats everything else (worth 0, so it can never win).

    Trump runs 9 T Q K A (100-104), then the left bower (105) and the right (106); the suit
    led runs 50-55 by rank.
    """
    if trump != NO_TRUMP and _follows(card, trump) == trump:
        if card == right_bower(trump):
            return 106
        if card == left_bower(trump):
            return 105
        return 100 + "9TQKA".index(RANKS[rank(card)])
    if suit(card) == led:
        return 50 + rank(card)
    return 0


# FOLLOWS[trump][card]: the suit a card belongs to for following; SUIT_MASK[trump][suit]: the
# cards that follow `suit`; POWER[trump][led][card]: its strength in a trick. trump may be
# NO_TRUMP (4), where jacks stay in their own suits: before trump is made, and in a no-trump
# hand, where that is exactly the ranking (the highest card of the suit led wins).
FOLLOWS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_follows(c, t) for c in range(24)) for t in range(5)
)
SUIT_MASK: tuple[tuple[int, ...], ...] = tuple(
    tuple(mask_of(c for c in range(24) if FOLLOWS[t][c] == s) for s in range(4)) for t in range(5)
)
POWER: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(_power(c, t, led) for c in range(24)) for led in range(4)) for t in range(5)
)


NINES_AND_TENS = mask_of(s * 6 + r for s in range(4) for r in (NINE, TEN))


RANK_NAMES = ("nine", "ten", "jack", "queen", "king", "ace")


def card_words(card: int, trump: int | None = None) -> str:
    """A card as a sentence names it to a player ("the nine of clubs"), the bowers by their
    names once trump is known: refusals are read at the table, not only by programs."""
    named = f"the {RANK_NAMES[rank(card)]} of {SUIT_NAMES[suit(card)]}"
    if trump is not None and card == right_bower(trump):
        return f"the right bower ({named})"
    if trump is not None and card == left_bower(trump):
        return f"the left bower ({named})"
    return named


def words_for(cards: list[int], trump: int | None, joint: str = "and") -> str:
    """Cards in a sentence: "a", "a or b", "a, b or c"."""
    named = [card_words(c, trump) for c in cards]
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} {joint} {named[-1]}"


def is_farmers_hand(hand: int) -> bool:
    """Five cards, every one a 9 or a 10."""
    return count(hand) == 5 and hand & ~NINES_AND_TENS == 0


def sort_key(card: int, trump: int | None) -> tuple[int, int]:
    """Trump first (bowers on top), then the other suits; high cards first within a suit."""
    t = NO_TRUMP if trump is None else trump
    s = FOLLOWS[t][card]
    group = 0 if s == t else 1 + s
    return (group, -POWER[t][s][card])
