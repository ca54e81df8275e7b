"""Dealing the unseen cards out at random, as they might lie given all this seat knows.

The hard bot's search (search.py) solves each such deal with every hand open. A deal must
agree with the seat's view: its own hand, every card gone, who holds how many, who has shown
out of which suit, and the up card in the dealer's hand while the dealer hasn't played it.
It never looks further: the deals come from the rng and the view alone, so scrambling what
the seat can't see leaves them, and the move, unchanged.
"""

from __future__ import annotations

import random

from domain.bots.known import Known
from domain.bots.memory import Memory
from domain.cards import FOLLOWS, cards_of

TRIES = 20


class Unseen:
    """The cards this seat can't place, and how many each other seat in play must get.

    `fixed[seat]` are cards a seat surely holds (the dealer's up card); `need[seat]` how many
    more it holds; `blocked[seat]` the follow-suits it has shown out of. Whatever of `pool`
    no seat gets lies in the kitty, was buried, or sits with a partner out of play.
    """

    __slots__ = ("blocked", "fixed", "follows", "free", "me", "need", "pool", "seats", "takers")

    def __init__(self, k: Known, mem: Memory):
        t = k.trump
        self.me = k.me
        self.follows = FOLLOWS[t]
        fixed = [0, 0, 0, 0]
        need = [0, 0, 0, 0]
        blocked = list(mem.void)
        gone = mem.gone
        for s in range(4):
            if s == k.me or s in k.sitting:
                continue
            held = mem.held[s]
            for c in cards_of(held):
                # The up card is the dealer's until played; but a dealer out of trump (or out
                # of cards) must have buried it.
                if k.counts[s] and not blocked[s] >> FOLLOWS[t][c] & 1:
                    fixed[s] |= 1 << c
                else:
                    gone |= 1 << c
            need[s] = max(0, k.counts[s] - fixed[s].bit_count())
        known = k.hand | gone | fixed[0] | fixed[1] | fixed[2] | fixed[3]
        self.pool = cards_of(((1 << 24) - 1) & ~known)
        self.fixed = fixed
        self.need = need
        self.blocked = blocked
        self.seats = [s for s in range(4) if need[s]]
        # How many seats may hold a card of each follow-suit; cards every seat may hold
        # (`free`) need no care in dealing.
        self.takers = [sum(1 for s in self.seats if not blocked[s] >> su & 1) for su in range(4)]
        everyone = len(self.seats)
        self.free = [c for c in self.pool if self.takers[FOLLOWS[t][c]] == everyone]

    def deal(self, rng: random.Random) -> list[int]:
        """One deal of the pool: the four hands (this seat's own included), honouring every
        seat's count and shown-out suits. Cards some seat can't hold go out first, most
        constrained first, each to a place (a seat, or nowhere) with chance in proportion to
        the room left there; the rest, which any seat may hold, fill the room left in a
        random order."""
        for _ in range(TRIES):
            hands = self._try(rng)
            if hands is not None:
                return hands
        return self._loose(rng)

    def _try(self, rng: random.Random) -> list[int] | None:
        follows, blocked, seats, takers = self.follows, self.blocked, self.seats, self.takers
        room = list(self.need)
        spare = len(self.pool) - sum(room)
        if spare < 0:
            return None
        rand = rng.random
        hands = list(self.fixed)
        everyone = len(seats)
        tight = [c for c in self.pool if takers[follows[c]] < everyone]
        for c in sorted(tight, key=lambda c: (takers[follows[c]], rand())):
            su = follows[c]
            total = spare
            for s in seats:
                if room[s] and not blocked[s] >> su & 1:
                    total += room[s]
            if not total:
                return None
            r = int(rand() * total)
            if r < spare:
                spare -= 1
                continue
            r -= spare
            for s in seats:
                if room[s] and not blocked[s] >> su & 1:
                    if r < room[s]:
                        hands[s] |= 1 << c
                        room[s] -= 1
                        break
                    r -= room[s]
        free = list(self.free)
        for i in range(len(free) - 1, 0, -1):
            j = int(rand() * (i + 1))
            free[i], free[j] = free[j], free[i]
        at = 0
        for s in seats:
            for c in free[at : at + room[s]]:
                hands[s] |= 1 << c
            at += room[s]
        return hands

    def _loose(self, rng: random.Random) -> list[int]:
        """Should the shown-out suits ever leave no way to fill the hands, deal ignoring them."""
        cards = list(self.pool)
        rng.shuffle(cards)
        hands = list(self.fixed)
        at = 0
        for s in range(4):
            for c in cards[at : at + self.need[s]]:
                hands[s] |= 1 << c
            at += self.need[s]
        return hands

    def hands(self, rng: random.Random, my_hand: int) -> list[int]:
        hands = self.deal(rng)
        hands[self.me] = my_hand
        return hands
