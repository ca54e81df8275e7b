"""What one seat knows, read off its view once and kept as small ints and bit masks.

A bot never sees the State: `Known(view)` is built from the same `View` a player's browser
gets, so the secrecy contract covers bots too. Everything else in the package works on this.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from domain.cards import INDEX, NO_TRUMP, SUITS, TRUMPS
from domain.house_rules import HouseRules
from domain.seat_view import View
from domain.state import BidKind


def _card(code: str | None) -> int | None:
    return None if code is None else INDEX[code]


def _mask(codes: Iterable[str]) -> int:
    m = 0
    for code in codes:
        m |= 1 << INDEX[code]
    return m


class Known:
    """The seat's own hand and every public fact of the deal, as ints (cards 0-23, suits 0-3).

    `trump` is NO_TRUMP (4) while bidding, so the FOLLOWS/POWER tables index cleanly; `bids`
    are (seat, round, kind, suit, alone); tricks are (leader, ((seat, card), ...), winner).
    """

    __slots__ = (
        "alone",
        "bids",
        "buried",
        "can",
        "counts",
        "dealer",
        "defender",
        "hand",
        "kitty_state",
        "maker",
        "me",
        "phase",
        "rules",
        "sitting",
        "taken",
        "target",
        "them",
        "trick",
        "tricks",
        "trump",
        "up",
        "us",
    )

    def __init__(self, v: View):
        if v.you is None:
            raise ValueError("a bot plays a seat; a spectator's view has nothing to decide")
        if v.dealer is None or v.up is None:
            raise ValueError("nothing is decided before the first deal")
        me = v.you
        self.me = me
        self.can = suits_only(v.can)
        self.phase = v.phase
        self.dealer = v.dealer
        self.trump = NO_TRUMP if v.trump is None else TRUMPS.index(v.trump)
        self.up = INDEX[v.up]
        self.kitty_state = v.kitty_state
        self.hand = _mask(v.hand)
        self.maker = v.maker
        self.alone = v.alone
        self.defender = v.defender
        self.sitting = tuple(v.sitting)
        self.buried = _card(v.buried)
        self.us = v.score[me % 2]
        self.them = v.score[1 - me % 2]
        self.counts = tuple(v.counts)
        self.taken = (v.taken[me % 2], v.taken[1 - me % 2])
        self.rules = msgspec.convert(v.settings, HouseRules)
        self.target: int = self.rules.points
        self.bids = tuple(
            (
                b.seat,
                b.round,
                b.bid,
                None if b.suit is None else TRUMPS.index(b.suit),
                bool(b.alone),
            )
            for b in v.bids
        )
        self.trick = tuple((p.seat, INDEX[p.card]) for p in v.trick)
        self.tricks = tuple(
            (t.leader, tuple((p.seat, INDEX[p.card]) for p in t.cards), t.winner) for t in v.tricks
        )

    @classmethod
    def at_bid(
        cls,
        me: int,
        hand: int,
        dealer: int,
        up: int,
        bids: tuple[tuple[int, int, BidKind, int | None, bool], ...],
        score: tuple[int, int],
        rules: HouseRules,
    ) -> Known:
        """What `me` knew at its bid in a hand now scored (the bids' review,
        domain/bots/bid_review.py): its hand, the up card, the bids before its own and the score.
        Nothing else of the hand enters; `can` is the caller's to give."""
        k = cls.__new__(cls)
        k.me, k.hand, k.dealer, k.up, k.bids, k.rules = me, hand, dealer, up, bids, rules
        k.target = rules.points
        k.us, k.them = score[me % 2], score[1 - me % 2]
        k.can = {}
        k.trump = NO_TRUMP
        k.kitty_state = "up" if all(b[1] == 1 for b in bids) else "down"
        k.phase = "bid1" if k.kitty_state == "up" else "bid2"
        k.maker = k.alone = k.defender = k.buried = None
        k.sitting = ()
        k.counts = (5, 5, 5, 5)
        k.taken = (0, 0)
        k.trick = k.tricks = ()
        return k

    @property
    def to_go(self) -> int:
        """Points this seat's team still needs to win the game (house rule `points`)."""
        return self.target - self.us

    @property
    def they_to_go(self) -> int:
        return self.target - self.them

    @property
    def partner(self) -> int:
        return (self.me + 2) % 4

    @property
    def turned(self) -> int:
        """The up card's suit."""
        return self.up // 6

    @property
    def makers(self) -> int:
        """The making team (0 or 1); only asked once trump is made."""
        if self.maker is None:
            raise ValueError("no one has made trump yet")
        return self.maker % 2

    def ours(self, seat: int | None) -> bool:
        return seat is not None and seat % 2 == self.me % 2

    def playing(self) -> list[int]:
        """Seats in this hand's play, clockwise from mine."""
        return [s for s in ((self.me + k) % 4 for k in range(4)) if s not in self.sitting]

    def still_to_play(self) -> list[int]:
        """Seats after mine in the current trick, in order."""
        n = len(self.playing()) - len(self.trick) - 1
        after = [s for s in ((self.me + k) % 4 for k in range(1, 4)) if s not in self.sitting]
        return after[:n]

    def cards(self, kind: str) -> int:
        """The cards `can[kind]` offers (play or discard), as a mask."""
        return _mask(self.can[kind]["cards"])


def suits_only(can: dict[str, Any]) -> dict[str, Any]:
    """The bots never call no trump (docs/bots.md "No trump"): their bidding weighs suits only,
    so a no-trump call is left out of what they may call. A hand someone else played in no
    trump they play like any other: `trump` is NO_TRUMP, where the card tables rank it."""
    call = can.get("call")
    if call is None:
        return can
    suits = [x for x in call["suits"] if x in SUITS]
    return {**can, "call": {**call, "suits": suits}}
