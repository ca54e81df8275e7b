"""The bids' review after each hand (docs/bots.md "The review after each hand"): the call, and
any pass that would likely have been a winning call, judged over deals the bidder could not
tell from the real one.

The card review (review.py) judges each card with every hand open, since by then the tricks
have shown them. A bid can't be judged that way: it was made on five cards, the up card and
the bids before it, and a bid that the hidden cards happened to beat was not a mistake. So
each bid is judged over deals of the cards its bidder couldn't see, weighed by how likely the
bids before it were with them (the expert bot's model, bots/inference.py), each deal played
out for each option with every hand open (bots/solver.py), the others bidding by the hard
bot's rules after a pass (bots/expert.py).

It reads the public record of a scored hand and nothing else: the dealer, the up card everyone
saw, the bids, the score, and the bidder's hand as its tricks showed it. A dealer who ordered
the up card is judged with the four cards it kept besides it and a guess at the one it buried,
dealt like the others' cards; the buried card, the kitty and a hand sitting out never enter.
The deals come from a seed made of that record alone, so a hand's review is always the same.
"""

from __future__ import annotations

import random

import msgspec

from domain.bots import bidding, expert, inference
from domain.bots.known import Known
from domain.cards import (
    CODES,
    DECK,
    INDEX,
    NO_TRUMP,
    SUITS,
    TRUMPS,
    Code,
    SuitCode,
    TrumpCode,
    cards_of,
    mask_of,
)
from domain.hands import sorted_codes
from domain.house_rules import HouseRules
from domain.state import BidKind

DEALS = 20  # likely deals a bid is judged over
FEWEST = 8  # likely deals found below which the bids before are too strange to judge by
TRIES = 400  # deals drawn at most, unlikely ones included, to find them
MARGIN = 0.5  # points a hand: how much better another bid must look for this one to cost
NEAR = 0.75  # tricks below the hard bot's bar within which a pass is worth judging
STYLE = inference.STYLE


class Bid(msgspec.Struct, frozen=True):
    """One bid as the table saw it."""

    seat: int
    round: int
    bid: BidKind
    suit: TrumpCode | None
    alone: bool


class Bidding(msgspec.Struct, frozen=True):
    """What the bids' review reads of a hand besides its cards played: all public. `score`,
    the points before the hand; `rules`, the house rules that shape the bidding (the points
    that win the game among them, which shape it too)."""

    dealer: int
    up: Code
    bids: list[Bid]
    score: list[int]
    rules: HouseRules


class BidOption(msgspec.Struct, frozen=True):
    """A bid the seat could make, with the points its side could expect from it (negative
    when the other side scores) and, for a call, in how many of the deals it was euchred."""

    bid: BidKind
    suit: SuitCode | None
    alone: bool
    points: float
    euchred: int


class BidReview(msgspec.Struct, frozen=True):
    """One bid judged over `deals` likely deals from what its seat knew: `made` is the bid,
    `others` the bids it is set against (passing, for a call; the call, for a pass; with a
    partner, for a call alone). `costly`: one of `others` looked better by half a point."""

    seat: int
    round: int
    made: BidOption
    others: list[BidOption]
    deals: int
    costly: bool


Option = tuple[BidKind, int | None, bool]  # kind, suit, alone


def review_bids(hand_no: int, bidding: Bidding, shown: list[int]) -> list[BidReview]:
    """The hand's call and the passes that would likely have won more, each seat's hand being
    `shown[seat]`, the cards its tricks (or a claim) showed: a seat with fewer than five
    shown, or none, isn't judged. Nor is a no-trump hand's bidding: the bots it is judged by
    weigh suits only (docs/bots.md "No trump")."""
    out: list[BidReview] = []
    if any(b.suit == TRUMPS[NO_TRUMP] for b in bidding.bids):
        return out
    up = INDEX[bidding.up]
    for n, b in enumerate(bidding.bids):
        hand = shown[b.seat]
        if b.bid == "order" and b.seat == bidding.dealer:
            hand &= ~(1 << up)  # the dealer's five kept include the up card
            if hand.bit_count() != 4:
                continue
        elif hand.bit_count() != 5:
            continue
        k = _known(b, hand, up, bidding, n)
        judged = _judged(hand_no, k, b)
        if judged is not None and (b.bid != "pass" or judged.costly):
            out.append(judged)
    return out


def _known(b: Bid, hand: int, up: int, bidding: Bidding, n: int) -> Known:
    before = tuple(
        (x.seat, x.round, x.bid, None if x.suit is None else SUITS.index(x.suit), x.alone)
        for x in bidding.bids[:n]
    )
    score = (bidding.score[0], bidding.score[1])
    k = Known.at_bid(b.seat, hand, bidding.dealer, up, before, score, bidding.rules)
    k.can = inference.offer(k, b.seat, b.round)
    return k


def _judged(hand_no: int, k: Known, b: Bid) -> BidReview | None:
    """The bid against its alternatives, or None for a pass too far from a call to judge, and
    for a bid with no alternative (a stuck dealer's call not alone): nothing to weigh it by."""
    options = _options(k, b)
    if options is None or len(options) < 2:
        return None
    worth: dict[Option, list[int]] = {o: [] for o in options}
    for hands in _likely(hand_no, k, b.round):
        for o in options:
            worth[o].append(_value(k, hands, b.round, o))
    deals = len(worth[options[0]])
    if deals < FEWEST:
        return None
    made, *others = (_option(o, worth[o]) for o in options)
    costly = any(o.points >= made.points + MARGIN for o in others)
    return BidReview(b.seat, b.round, made, others, deals, costly)


def _options(k: Known, b: Bid) -> list[Option] | None:
    """The bid made first, then the ones it is judged against."""
    suit = None if b.suit is None else SUITS.index(b.suit)
    if b.bid != "pass":
        out: list[Option] = [(b.bid, suit, b.alone)]
        if "pass" in k.can:
            out.append(("pass", None, False))
        if b.alone and not k.can[b.bid].get("must_alone"):
            out.append((b.bid, suit, False))
        return out
    # The call judged against a pass is the hard bot's, alone or not, where it would call.
    if b.round == 1:
        x, _ = bidding.order_strength(k, STYLE)
        if x < bidding.bar(k, STYLE, STYLE.order) - NEAR:
            return None
        order, alone = bidding.round_one(k, STYLE)
        alone = (alone and order) or bool(k.can["order"]["must_alone"])
        return [("pass", None, False), ("order", k.turned, alone)]
    best, x, _ = bidding.call_strength(k, STYLE)
    if x < bidding.bar(k, STYLE, STYLE.call) - NEAR:
        return None
    called, alone = bidding.round_two(k, STYLE)
    if called is not None:
        best = SUITS.index(called)
    return [("pass", None, False), ("call", best, alone and called is not None)]


def _likely(hand_no: int, k: Known, rnd: int) -> list[list[int]]:
    """Up to DEALS deals of the cards the bidder couldn't see, each drawn as likely as the
    bids before it make it; the bidder's own missing card (a dealer's buried one) dealt too."""
    seed = f"{hand_no} {k.me} {rnd} {CODES[k.up]} {sorted_codes(k.hand, None)} {k.bids}"
    rng = random.Random(seed)
    pool = cards_of(DECK & ~k.hand & ~(1 << k.up))
    weigh = inference.weigher(k, [0, 0, 0, 0])
    mine = 5 - k.hand.bit_count()
    out: list[list[int]] = []
    for _ in range(TRIES):
        rng.shuffle(pool)
        hands = [0, 0, 0, 0]
        at = mine
        for s in range(4):
            if s == k.me:
                hands[s] = k.hand | mask_of(pool[:mine])
            else:
                hands[s] = mask_of(pool[at : at + 5])
                at += 5
        if rng.random() < weigh(hands):
            out.append(hands)
            if len(out) == DEALS:
                break
    return out


def _value(k: Known, hands: list[int], rnd: int, o: Option) -> int:
    kind, suit, alone = o
    if kind == "pass":
        return expert.after_pass(k, hands, rnd)
    assert suit is not None
    return expert.contract(k, hands, suit, k.me, alone, rnd)


def _option(o: Option, points: list[int]) -> BidOption:
    kind, suit, alone = o
    euchred = 0 if kind == "pass" else sum(p < 0 for p in points)
    mean = round(sum(points) / len(points), 1)
    return BidOption(kind, None if suit is None else SUITS[suit], alone, mean, euchred)
