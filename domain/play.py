"""Tricks: following suit and who takes one. The left bower follows trump, not its own suit."""

from __future__ import annotations

from domain.cards import FOLLOWS, NO_TRUMP, POWER, SUIT_MASK


def playable(hand: int, trick: tuple[tuple[int, int], ...], trump: int | None) -> int:
    """The cards a seat may play: any card to lead; else the suit led if it holds one."""
    if not trick:
        return hand
    t = NO_TRUMP if trump is None else trump
    follow = hand & SUIT_MASK[t][FOLLOWS[t][trick[0][1]]]
    return follow or hand


def winner(trick: tuple[tuple[int, int], ...], trump: int) -> int:
    """The seat whose card is strongest: the highest trump, else the highest of the suit led."""
    led = FOLLOWS[trump][trick[0][1]]
    power = POWER[trump][led]
    best_seat, best = trick[0][0], -1
    for seat, card in trick:
        p = power[card]
        if p > best:
            best_seat, best = seat, p
    return best_seat
