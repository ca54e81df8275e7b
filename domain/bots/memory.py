"""What a bot remembers of the hand so far: cards gone, who has shown out of what, and who
holds what for certain.

Medium sees the current trick's cards and remembers who has shown out of what (the thing a
casual player notices). Hard counts everything public besides: every card played, the up
card when turned down or left out, its own buried card when it dealt, and the up card in the
dealer's hand until it is played.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from domain.bots.known import Known
from domain.bots.strength import TRUMP_MASK
from domain.cards import DECK, FOLLOWS, POWER, SUIT_MASK


class Memory:
    __slots__ = ("gone", "held", "k", "left", "loose", "played", "t", "void")

    def __init__(self, k: Known, full: bool):
        self.k = k
        t = self.t = k.trump
        gone = 0
        void = [0, 0, 0, 0]  # per seat: bit s set when the seat has shown out of suit s
        played = [0, 0, 0, 0]
        for _, cards, _ in k.tricks:
            led = FOLLOWS[t][cards[0][1]]
            for seat, c in cards:
                if full:
                    gone |= 1 << c
                    played[seat] |= 1 << c
                if FOLLOWS[t][c] != led:
                    void[seat] |= 1 << led
        if k.trick:
            led = FOLLOWS[t][k.trick[0][1]]
            for seat, c in k.trick:
                gone |= 1 << c
                played[seat] |= 1 << c
                if FOLLOWS[t][c] != led:
                    void[seat] |= 1 << led
        held = [0, 0, 0, 0]
        if k.kitty_state == "down" or k.kitty_state == "out":
            gone |= 1 << k.up
        elif (
            full
            and k.kitty_state == "picked"
            and k.dealer != k.me
            and not played[k.dealer] >> k.up & 1
        ):
            # The dealer took it; it is still in the dealer's hand unless buried, which a
            # dealer rarely does, so hard treats it as held.
            held[k.dealer] |= 1 << k.up
        if k.buried is not None:
            gone |= 1 << k.buried
        self.gone = gone
        self.void = void
        # The cards each seat has played this hand (with `full`; else only this trick's).
        self.played = played
        self.held = held
        # Cards whose place this seat doesn't know: in another hand, the kitty, or buried.
        self.loose = DECK & ~k.hand & ~gone & ~(held[0] | held[1] | held[2] | held[3])
        # How many cards each seat still holds.
        self.left = k.counts

    # -- where cards may be ---------------------------------------------------------------

    def out(self) -> int:
        """Cards not mine and not gone: in another hand or unknown (kitty, buried)."""
        return DECK & ~self.k.hand & ~self.gone

    def could_hold(self, seat: int) -> int:
        """The cards `seat` might hold: its known cards and the loose ones of suits it hasn't
        shown out of (none at all if it sits out or has played its last card)."""
        if seat == self.k.me:
            return self.k.hand
        if seat in self.k.sitting or not self.left[seat]:
            return 0
        t = self.t
        mask = self.loose
        v = self.void[seat]
        if v:
            for s in range(4):
                if v >> s & 1:
                    mask &= ~SUIT_MASK[t][s]
        return mask | self.held[seat]

    def void_in(self, seat: int, s: int) -> bool:
        """Whether `seat` surely has no card of follow-suit `s`: shown out, or none are out."""
        return bool(self.void[seat] >> s & 1) or not self.could_hold(seat) & SUIT_MASK[self.t][s]

    # -- winners ---------------------------------------------------------------------------

    def higher_out(self, card: int) -> int:
        """The cards of this card's suit that beat it and aren't mine or gone."""
        t = self.t
        s = FOLLOWS[t][card]
        p = POWER[t][s]
        mine = p[card]
        m = 0
        for c in _cards(SUIT_MASK[t][s] & self.out()):
            if p[c] > mine:
                m |= 1 << c
        return m

    def is_boss(self, card: int) -> bool:
        return not self.higher_out(card)

    def can_beat(self, seat: int, card: int, led: int) -> bool:
        """Whether `seat` might beat `card` (the best so far in a trick led in suit `led`).

        Following suit it needs a higher card of that suit; otherwise it must be out of the
        suit led and hold a trump (a higher one if `card` is trump). An off-suit card counts
        as ruffable only where the seat has shown out (or no card of the suit is left out):
        guessing at unseen voids would make every ace unsafe.
        """
        t = self.t
        could = self.could_hold(seat)
        if not could:
            return False
        p = POWER[t][led]
        mine = p[card]
        if could & SUIT_MASK[t][led] and not self.void[seat] >> led & 1:
            # It may follow suit; then it beats only with a higher card of the suit led
            # (or it may be out of the suit after all, which we don't guess at).
            return any(p[c] > mine for c in _cards(could & SUIT_MASK[t][led]))
        if led == t:
            return False
        return any(p[c] > mine for c in _cards(could & TRUMP_MASK[t]))

    def holds(self, card: int, led: int, seats: Iterable[int]) -> bool:
        """Whether `card` will still be winning after `seats` (the opponents among them) play."""
        k = self.k
        return not any(not k.ours(s) and self.can_beat(s, card, led) for s in seats)


def _cards(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
