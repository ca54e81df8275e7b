"""What the bidding says about the hidden hands, for the expert's deals (expert.py).

A seat that passed an up card it could have ordered is unlikely to hold a strong hand in
that suit; the seat that called trump likely does. The expert deals the unseen cards out at
random and weighs each deal by how likely the bids made so far were with those hands, under
a model of how a sound player bids: the hard bot's own bars (bidding.py), softened by a
logistic so that a hand just under a bar still passes now and then. People bid less
predictably than bots, which is what the softness is for.

A hand is judged as it was when its seat bid: the cards it holds in the deal plus the ones it
has played since. The dealer who ordered the up card is judged by the five it kept.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

from domain import decider
from domain.bots import bidding
from domain.bots.known import Known, suits_only
from domain.bots.strength import next_suit, strength

Can = dict[str, dict[str, Any]]  # a view's `can`
Bid = tuple[int, int, str, int | None, bool]  # Known.bids: seat, round, kind, suit, alone
SOFT = 0.35  # tricks: how far from the bar a hand must be for the bid to be nine times likelier
STYLE = bidding.HARD
_SCALE = SOFT / math.log(9)


def _likely(margin: float) -> float:
    """The chance a hand `margin` tricks above the bar bids."""
    z = margin / _SCALE
    if z < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


def as_seat(k: Known, seat: int, hand: int, can: Can) -> Known:
    """What `seat` would know holding `hand` and offered `can`, to ask the bidding rules
    what it would do: the public facts are everyone's."""
    other = copy.copy(k)
    other.me = seat
    other.hand = hand
    other.can = can
    if seat % 2 != k.me % 2:
        other.us, other.them = k.them, k.us
    return other


def offer(k: Known, seat: int, rnd: int) -> Can:
    """What `seat` was offered in bidding round `rnd`: the rules' own answer on the public
    facts, so a bot reasons with the rules the table plays, never a copy of them; as a bot
    sees it (no trump left out: the model of a bidder is a bot's)."""
    return suits_only(decider.offers(k.rules, rnd, seat, k.dealer, k.up))


def bid_chance(k: Known, bid: Bid, hand: int, picked: bool) -> float:
    """How likely `bid` (seat, round, kind, suit, alone) was for a seat holding `hand`.
    `picked`: the hand is a dealer's five after taking the up card."""
    seat, rnd, kind, suit, _ = bid
    if rnd == 1:
        other = as_seat(k, seat, hand, offer(k, seat, 1))
        if picked:
            x = strength(hand, k.turned)
        else:
            x, _ = bidding.order_strength(other, STYLE)
        p = _likely(x - bidding.bar(other, STYLE, STYLE.order))
        return p if kind == "order" else 1.0 - p
    other = as_seat(k, seat, hand, offer(k, seat, 2))
    if "pass" not in other.can:
        return 1.0  # a stuck dealer's call says nothing
    if kind == "pass" or suit is None:
        _, x, _ = bidding.call_strength(other, STYLE)
        return 1.0 - _likely(x - bidding.bar(other, STYLE, STYLE.call))
    x = strength(hand, suit)
    if seat == (k.dealer + 1) % 4 and suit == next_suit(k.turned):
        x += STYLE.next_bonus
    return _likely(x - bidding.bar(other, STYLE, STYLE.call))


def weigher(k: Known, played: list[int]) -> Callable[[list[int]], float]:
    """A deal's weight: the chance of every other seat's bids with the hands the deal gives
    it (`played[seat]`, the cards each has played, added back)."""
    picked_by = k.dealer if k.kitty_state == "picked" else None
    bids = [b for b in k.bids if b[0] != k.me]

    def weigh(hands: list[int]) -> float:
        w = 1.0
        for b in bids:
            seat = b[0]
            w *= bid_chance(k, b, hands[seat] | played[seat], b[0] == picked_by and b[1] == 1)
            if w == 0.0:
                break
        return w

    return weigh
