"""The review after each hand (docs/bots.md "The review after each hand"): for every card
played, the tricks its side could still take before it and after it, double dummy; and the
bids, judged over likely deals from what each bidder knew (bid_review.py).

The card review reads the cards that were played and nothing else: a seat's hand is the cards
it played over the five tricks, so the dealer's buried card, the kitty and the hand of a seat
sitting out never enter, and a review says nothing a finished hand's tricks didn't show.
Perfect play by both sides from then on, every hand open, is what "could still take" means, so
a card is costly exactly when some other card its seat could have played keeps more tricks for
its side against the best defence. Counts are of the tricks left, the one being played
included.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import msgspec

from domain import events as ev
from domain.bots.bid_review import Bid, Bidding, BidReview, review_bids
from domain.bots.solver import Solver, runs
from domain.cards import CODES, INDEX, TRUMPS, Code, TrumpCode, mask_of
from domain.hands import sorted_codes
from domain.house_rules import HouseRules
from domain.tricks import playable, winner

Trick = tuple[tuple[int, int], ...]  # (seat, card) in the order played


class CardReview(msgspec.Struct, frozen=True):
    """One card played: `before` and `after` are the tricks its seat's side could still take
    (of those left, this one included) with perfect play, just before it and just after it.
    `better`: where the card cost tricks, the cards that would have kept `before`, one of each
    set of cards that win and lose alike, as a hand is sorted; empty otherwise."""

    trick: int
    seat: int
    card: Code
    before: int
    after: int
    better: list[Code]


class HandReview(msgspec.Struct, frozen=True):
    """A scored hand's review: `hand_no` counts the scored hands as the view's `hands` do.
    `bids`: the call and any pass that likely cost, judged over likely deals (bid_review.py);
    none where the record doesn't show the bidder's hand (a claim, a seat sitting out)."""

    hand_no: int
    trump: TrumpCode
    maker: int
    cards: list[CardReview]
    bids: list[BidReview] = []


class PlayedHand(msgspec.Struct, frozen=True):
    """What a review reads of a hand: the call and the tricks as they were played; the
    bidding, and the cards a claim showed (by seat), for the bids' review."""

    hand_no: int
    trump: TrumpCode
    maker: int
    tricks: list[Trick]
    bidding: Bidding | None = None
    claimed: tuple[int, int] | None = None  # the claimer's seat and its cards shown


def played_hands(
    events: Iterable[ev.Event], first: int = 1, rules: HouseRules | None = None
) -> Iterator[PlayedHand]:
    """Each scored hand of a log, from its public record alone; `first`, the number of the
    first hand when the events start at an earlier hand's end, not the game's start, and
    `rules` the table's house rules when the events start after its opening.

    Of a deal it reads the dealer and the up card, which everyone saw; never the hands, the
    kitty or a card buried or swapped."""
    tricks: list[Trick] = []
    trick: list[tuple[int, int]] = []
    scored = first - 1
    on = rules or HouseRules()
    deal: tuple[int, Code] | None = None
    bids: list[Bid] = []
    claimed: tuple[int, int] | None = None
    for e in events:
        if isinstance(e, ev.CardPlayed):
            trick.append((e.seat, INDEX[e.card]))
        elif isinstance(e, ev.TrickTaken):
            tricks.append(tuple(trick))
            trick = []
        elif isinstance(e, ev.BidPassed):
            bids.append(Bid(e.seat, e.round, "pass", None, False))
        elif isinstance(e, ev.TrumpOrdered):
            bids.append(Bid(e.seat, 1, "order", e.suit, e.alone))
        elif isinstance(e, ev.TrumpCalled):
            bids.append(Bid(e.seat, 2, "call", e.suit, e.alone))
        elif isinstance(e, ev.TricksClaimed):
            claimed = (e.seat, mask_of(INDEX[c] for c in e.cards))
        elif isinstance(e, ev.HandDealt):
            deal, bids, claimed = (e.dealer, e.up), [], None
        elif isinstance(e, (ev.TableOpened, ev.SettingsChanged)):
            on = e.settings
        elif isinstance(e, ev.HandScored):
            scored += 1
            bidding = None
            if deal is not None:
                before = list(e.score)
                before[e.team] -= e.points
                bidding = Bidding(deal[0], deal[1], bids, before, on)
            yield PlayedHand(scored, e.trump, e.maker, tricks, bidding, claimed)
            tricks, trick, deal, bids, claimed = [], [], None, [], None


def review(hand: PlayedHand) -> HandReview:
    """Every card of `hand` with what it did to its side's tricks.

    Worked out in the makers' tricks: each position's count is the one before it, moved only
    as far as the card moved it, so most cards cost one question of the solver (did it keep
    the count?), and only a costly card's alternatives are asked about at all."""
    trump = TRUMPS.index(hand.trump)
    playing = sorted(seat for seat, _ in hand.tricks[0])
    held = [0, 0, 0, 0]
    for trick in hand.tricks:
        for seat, card in trick:
            held[seat] |= 1 << card
    makers = hand.maker % 2
    solver = Solver(held, trump, playing, makers)
    m = _makers_take(solver, (), hand.tricks[0][0][0], len(hand.tricks))
    out = []
    for no, trick in enumerate(hand.tricks, start=1):
        solver.deal(held)
        left = held[trick[0][0]].bit_count()
        for i, (seat, card) in enumerate(trick):
            ours = seat % 2 == makers
            nxt = solver.nxt[seat]
            on = trick[:i]
            # The seat plays for its side: the makers' count can only fall on a maker's card,
            # only rise on a defender's.
            moved = _moved(solver, (*on, (seat, card)), nxt, m, ours)
            before, after = (m, moved) if ours else (left - m, left - moved)
            better = 0
            if after < before:
                live = held[0] | held[1] | held[2] | held[3]
                run = runs(playable(held[seat], on, trump), live, trump)
                tops = set(run.values()) - {run[card]}
                better = mask_of(c for c in tops if _keeps(solver, (*on, (seat, c)), nxt, m, ours))
            named = sorted_codes(better, trump)
            out.append(CardReview(no, seat, CODES[card], before, after, named))
            m = moved
        m -= winner(trick, trump) % 2 == makers
        for seat, card in trick:
            held[seat] &= ~(1 << card)
    bids = [] if hand.bidding is None else review_bids(hand.hand_no, hand.bidding, _shown(hand))
    return HandReview(hand.hand_no, hand.trump, hand.maker, out, bids)


def _shown(hand: PlayedHand) -> list[int]:
    """Each seat's cards as the tricks and a claim showed them."""
    shown = [0, 0, 0, 0]
    for trick in hand.tricks:
        for seat, card in trick:
            shown[seat] |= 1 << card
    if hand.claimed is not None:
        seat, cards = hand.claimed
        shown[seat] |= cards
    return shown


def _makers_take(solver: Solver, trick: Trick, turn: int, left: int) -> int:
    """The makers' tricks of the `left` to go, with `trick` on the table and `turn` to play.
    Asked threshold by threshold, as the solver answers; what it learns of a position makes
    the next question of it nearly free."""
    n = 0
    while n < left and solver.reach(trick, turn, n + 1):
        n += 1
    return n


def _moved(solver: Solver, trick: Trick, turn: int, m: int, makers_moved: bool) -> int:
    """The makers' tricks once the last card of `trick` is down, where they could take `m`
    before it: at most `m` after a maker's card, at least `m` after a defender's."""
    if makers_moved:
        while m > 0 and not solver.reach(trick, turn, m):
            m -= 1
        return m
    while solver.reach(trick, turn, m + 1):
        m += 1
    return m


def _keeps(solver: Solver, trick: Trick, turn: int, m: int, makers_moved: bool) -> bool:
    """Whether the last card of `trick` keeps the makers' count at `m`, the best its side
    could do: the makers still reach `m`, or the defenders still hold them to it."""
    if makers_moved:
        return solver.reach(trick, turn, m)
    return not solver.reach(trick, turn, m + 1)
