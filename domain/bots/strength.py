"""Judging a hand: about how many tricks it takes with a given trump, and how many are sure.

All on bit masks: `hand` is an int with one bit per card, `trump` a suit 0-3 (NO_TRUMP while
bidding only where a table says so, and in a hand someone called in no trump).
"""

from __future__ import annotations

from domain.cards import FOLLOWS, NO_TRUMP, POWER, SUIT_MASK, cards_of, same_color

ACE, KING, QUEEN, JACK, TEN, NINE = 5, 4, 3, 2, 1, 0


def _ranked(t: int, s: int) -> tuple[int, ...]:
    """The cards following suit `s` with `t` trump, strongest first."""
    return tuple(sorted(cards_of(SUIT_MASK[t][s]), key=lambda c: -POWER[t][s][c]))


# RANKED[t][s]: cards of follow-suit s under trump t, best first (t may be NO_TRUMP).
RANKED: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_ranked(t, s) for s in range(4)) for t in range(5)
)
# TRUMP[t]: the seven trumps of suit t, right bower first. TRUMP_MASK[t]: them as a mask, and
# none at all (0) in a hand played in no trump.
TRUMP: tuple[tuple[int, ...], ...] = tuple(RANKED[t][t] for t in range(4))
TRUMP_MASK: tuple[int, ...] = (*(SUIT_MASK[t][t] for t in range(4)), 0)

# What each trump is worth in tricks, by POWER (9 T Q K A left right -> 100..106).
TRUMP_WORTH = {106: 1.0, 105: 0.88, 104: 0.74, 103: 0.6, 102: 0.52, 101: 0.46, 100: 0.42}


def power(card: int, trump: int) -> int:
    """A card's strength in its own suit: trumps 100-106, others 50-55 by rank."""
    t = trump
    return POWER[t][FOLLOWS[t][card]][card]


def strength(hand: int, trump: int) -> float:
    """About how many tricks `hand` takes with `trump` as trump, before the partner's help.

    Bowers and high trumps are nearly sure; small trumps less so, but length counts (each
    trump past two is a likely extra trick once the others are drawn). An off-suit ace wins
    about once, less in a long suit (more chance someone is void), and a king behind it
    helps; a void is worth a ruff when there is trump to ruff with.
    """
    t = trump
    trumps = hand & TRUMP_MASK[t]
    n = trumps.bit_count()
    total = 0.0
    for c in cards_of(trumps):
        total += TRUMP_WORTH[POWER[t][t][c]]
    if n > 2:
        total += 0.3 * (n - 2)
    for s in range(4):
        if s == t:
            continue
        mine = hand & SUIT_MASK[t][s]
        if not mine:
            if n >= 2:
                total += 0.3
            continue
        length = mine.bit_count()
        if mine >> (s * 6 + ACE) & 1:
            total += 0.8 if length <= 2 else 0.55
            if mine >> (s * 6 + KING) & 1:
                total += 0.3
        elif mine >> (s * 6 + KING) & 1 and length >= 2:
            total += 0.15
    return total


def sure_tricks(hand: int, trump: int, gone: int = 0) -> float:
    """Tricks this hand takes on its own against any defence, near enough: its trumps in an
    unbroken line from the best one not gone; if that line can draw the others' trump, every
    trump it holds and then its off-suit winners (ace, then king behind it, ...)."""
    t = trump
    trumps = hand & TRUMP_MASK[t]
    line = 0
    for c in TRUMP[t]:
        if hand >> c & 1:
            line += 1
        elif not gone >> c & 1:
            break
    out = (TRUMP_MASK[t] & ~trumps & ~gone).bit_count()
    mine = trumps.bit_count()
    # Each round of trump the line leads draws at least one of the others'; the two
    # defenders share `out`, so it takes about out - out // 3 rounds to be sure of them all.
    rounds = out - out // 3
    if line >= rounds:
        sure = float(mine)
        for s in range(4):
            if s == t:
                continue
            for c in RANKED[t][s]:
                if hand >> c & 1:
                    sure += 1
                elif not gone >> c & 1:
                    break
        return sure
    # Not enough to draw trump: the line wins, off-suit aces win about half the time.
    sure = float(line)
    for s in range(4):
        if s != t and hand >> RANKED[t][s][0] & 1:
            sure += 0.5
    return sure


def best_suit(hand: int, suits: list[int]) -> tuple[int, float]:
    """The suit among `suits` this hand is strongest in, and how strong."""
    best, score = suits[0], -1.0
    for s in suits:
        x = strength(hand, s)
        if x > score:
            best, score = s, x
    return best, score


def next_suit(s: int) -> int:
    """The other suit of the same colour ("next"): its jack is the turned suit's left bower."""
    return same_color(s)


__all__ = [
    "NO_TRUMP",
    "RANKED",
    "TRUMP",
    "TRUMP_MASK",
    "best_suit",
    "next_suit",
    "power",
    "strength",
    "sure_tricks",
]
