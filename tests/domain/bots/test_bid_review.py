"""The bids' review (domain/bots/bid_review.py): a call judged over likely deals from what its
bidder knew, the same every time for the same hand, blind to the hidden cards, and able to
tell a hopeless call (or pass) from a sound one."""

from __future__ import annotations

from euchre_kit import crafted_events, finish, mask, run
from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain import fold
from domain.bots import bid_review
from domain.bots.bid_review import Bid, Bidding, _known, review_bids
from domain.bots.review import played_hands, review
from domain.cards import INDEX
from domain.house_rules import HouseRules

RULES = HouseRules()  # stick the dealer and going alone on, defending alone and Canadian off


def judged(bids: list[Bid], hands: dict[int, str], dealer: int = 0, up: str = "9S"):
    shown = [mask(hands[s]) if s in hands else 0 for s in range(4)]
    return review_bids(1, Bidding(dealer, up, bids, [0, 0], RULES), shown)


def test_ordering_alone_without_a_trump_is_flagged_and_said_to_be_euchred():
    (r,) = judged([Bid(1, 1, "order", "S", True)], {1: "9H TH 9D TD 9C"})
    assert r.seat == 1 and r.costly
    assert r.made.bid == "order" and r.made.alone and r.made.euchred >= r.deals * 3 // 4
    passing = next(o for o in r.others if o.bid == "pass")
    assert passing.points >= r.made.points + 0.5


def test_ordering_alone_on_the_five_top_trumps_is_not():
    (r,) = judged([Bid(1, 1, "order", "S", True)], {1: "JS JC AS KS QS"}, up="9S")
    assert not r.costly and r.made.euchred == 0 and r.made.points == 4
    assert r.deals >= 8 and all(o.points < r.made.points for o in r.others)


def test_passing_the_five_top_trumps_is_flagged_and_a_weak_pass_is_not_mentioned():
    bids = [Bid(1, 1, "pass", None, False), Bid(2, 1, "pass", None, False)]
    (r,) = judged(bids, {1: "JS JC AS KS QS", 2: "9H TH 9D TD 9C"})
    assert r.seat == 1 and r.made.bid == "pass" and r.costly
    assert r.others[0].bid == "order" and r.others[0].suit == "S"


def test_the_same_hand_is_judged_the_same_every_time():
    bids = [Bid(1, 1, "pass", None, False), Bid(2, 1, "order", "S", False)]
    hands = {1: "JS JC AS KS QS", 2: "TS AH KH 9D 9C"}
    assert judged(bids, hands) == judged(bids, hands) != []


# Dealer 0 with the 9S turned: seats 1, 2 and 3 pass, and the dealer orders and buries. The
# dealer's buried card and the kitty are what the review must not read.
DEAL = (
    ["JS AS KD QD 9H", "9D TD 9C TC QC", "JH QH KH AH TH", "AD JD KC AC JC"],
    "9S",
    "TS QS KS",
)


def dealer_orders(buried: str) -> list[ev.Event]:
    """The deal played out: three passes, the dealer orders the 9S up, buries `buried` and
    every seat plays its first legal card each trick."""
    events = crafted_events(*DEAL, dealer=0)
    state = fold(events)
    state, bidding = run(
        state,
        cmd.Pass(seat=1),
        cmd.Pass(seat=2),
        cmd.Pass(seat=3),
        cmd.Order(seat=0),
        cmd.Discard(seat=0, card=buried),
    )
    state, played = finish(state)
    return [*events, *bidding, *played]


def test_the_bid_review_is_the_same_whatever_the_buried_card_and_the_kitty_were():
    """The dealer kept the same five either way; what it buried and what lay in the kitty
    differ, and the hands the others were dealt are swapped about too: the review, bids and
    all, can't tell."""
    log = dealer_orders("9H")
    (hand,) = played_hands(log)
    seen = review(hand)
    assert [b.seat for b in seen.bids if b.made.bid == "order"] == [0]
    other = []
    for e in log:
        if isinstance(e, ev.HandDealt):
            e = replace(e, hands=[e.hands[0], *reversed(e.hands[1:])], kitty=["TS", "9H", "KS"])
        elif isinstance(e, ev.CardBuried):
            e = replace(e, card="QS")
        other.append(e)
    assert other != log
    (scrambled,) = played_hands(other)
    assert review(scrambled) == seen


def test_a_euchred_loner_on_no_trump_is_told_the_call_cost_it():
    """Seat 1 orders the 9S up alone holding no spade; the dealer holds five: euchred, and
    the review of the hand says the call did it (the cards alone can't)."""
    deal = (
        ["JS AS KS QS TS", "9H TH 9D TD 9C", "JH QH KH AH JD", "QD KD AD TC JC"],
        "9S",
        "QC KC AC",
    )
    events = crafted_events(*deal, dealer=0)
    state, bidding = run(
        fold(events), cmd.Order(seat=1, alone=True), cmd.Discard(seat=0, card="TS")
    )
    state, played = finish(state)
    (hand,) = played_hands([*events, *bidding, *played])
    scored = [e for e in played if isinstance(e, ev.HandScored)]
    assert scored[0].how == "euchre"
    (call,) = review(hand).bids
    assert call.seat == 1 and call.made.alone and call.costly
    assert call.made.euchred == call.deals


def test_a_bid_is_judged_by_the_points_still_needed_whatever_the_game_is_played_to():
    """Two points short of 10 and two short of 5 are the same spot for a bid: the review of a
    loner there says the same, and differs from one at the start of a game to 10."""
    bids = [Bid(1, 1, "order", "S", True)]
    shown = [0, mask("JS JC AS KS AH"), 0, 0]

    def at(score: list[int], target: int):
        return review_bids(1, Bidding(0, "9S", bids, score, replace(RULES, points=target)), shown)

    assert at([0, 8], 10) == at([0, 3], 5)
    assert at([0, 8], 10) != at([0, 0], 10)


def test_a_stuck_dealers_call_has_nothing_to_be_set_against_and_is_not_judged(monkeypatch):
    """Stick the dealer, going alone off: everyone passed twice, so the dealer must call, and
    calling is all it may do; with no other bid to weigh it by there is no verdict (the page
    once drew one against nothing and failed). The likely deals are given, so the review
    can't give up first for want of them."""
    passes = [Bid(s, 1, "pass", None, False) for s in (1, 2, 3, 0)]
    passes += [Bid(s, 2, "pass", None, False) for s in (1, 2, 3)]
    stuck = Bid(0, 2, "call", "H", False)
    bidding = Bidding(0, "9S", [*passes, stuck], [0, 0], replace(RULES, alone="off"))
    k = _known(stuck, mask("JH QH KH 9D 9C"), INDEX["9S"], bidding, len(passes))
    assert "pass" not in k.can and not k.can["call"]["alone"]
    deal = [
        mask(h) for h in ("JH QH KH 9D 9C", "9H TH AH TD JD", "QD KD AD TC JC", "QC KC AC JS AS")
    ]
    monkeypatch.setattr(bid_review, "_likely", lambda *_: [deal] * bid_review.DEALS)
    assert bid_review._judged(1, k, stuck) is None
