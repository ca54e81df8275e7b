"""The expert (domain/bots/expert.py): what the bidding tells it, how it plays the rest of the
bidding out after a pass, and that it searches from its view alone."""

from __future__ import annotations

import itertools
import random

from euchre_kit import crafted, mask, passes, run
from hypothesis import assume, given
from hypothesis import strategies as st

from domain import commands as cmd
from domain import view
from domain.bots import expert, inference
from domain.bots.known import Known, suits_only
from domain.bots.strength import TRUMP_MASK
from domain.cards import INDEX
from domain.house_rules import DECLARED

# Dealer 0, 9S turned. Seat 1 leads off the bidding.
DEAL = (
    ["9H TH 9D TD 9C", "JS JC AS KD AD", "QH KH QD TC KC", "AH JH JD QC KS"],
    "9S",
    "TS QS AC",
)


def known(state, seat: int) -> Known:
    return Known(view(state, seat))


def test_a_pass_says_the_hand_was_weak_in_the_turned_suit_and_an_order_that_it_was_strong():
    k = known(crafted(*DEAL, dealer=0), 2)
    strong, weak = mask("JS JC AS KD AD"), mask("9H TH 9D TD 9C")
    passed = (1, 1, "pass", None, False)
    ordered = (1, 1, "order", 0, False)
    assert inference.bid_chance(k, passed, strong, picked=False) < 0.01
    assert inference.bid_chance(k, passed, weak, picked=False) > 0.99
    assert inference.bid_chance(k, ordered, strong, picked=False) > 0.99
    assert inference.bid_chance(k, ordered, weak, picked=False) < 0.01


def test_deals_weighed_by_the_bidding_give_the_maker_more_trump():
    """Seat 1 ordered spades: seat 2's deals of the hidden cards, weighed, put more spades
    in seat 1's hand than the same deals unweighed."""
    state, _ = run(crafted(*DEAL, dealer=0), cmd.Order(seat=1))
    state, _ = run(state, cmd.Discard(seat=0, card="9S"))
    k = known(state, 2)
    worlds = list(itertools.islice(expert._dealt(k, random.Random(1)), 400))
    spades = [(hands[1] & TRUMP_MASK[0]).bit_count() for hands, _ in worlds]
    plain = sum(spades) / len(spades)
    weighed = sum(n * w for n, (_, w) in zip(spades, worlds, strict=True)) / sum(
        w for _, w in worlds
    )
    assert weighed > plain + 0.5


def test_after_a_pass_the_others_bid_by_the_rules_and_that_contract_is_solved():
    """Seat 1 passes; in this deal of the others' cards seat 2 is weak and passes and seat 3,
    with three spades and two aces, orders by the hard bot's bar: the pass is worth exactly
    that contract solved, the dealer taking the 9S."""
    k = known(crafted(*DEAL, dealer=0), 1)
    hands = [mask(h) for h in ("QH KH QD TC KC", DEAL[0][1], "9H TH 9D TD 9C", "KS QS TS AH AC")]
    for seat, ordering in ((2, False), (3, True)):
        other = inference.as_seat(k, seat, hands[seat], inference.offer(k, seat, 1))
        assert expert.bidding.round_one(other, expert.STYLE) == (ordering, False)
    value = expert.after_pass(k, hands, 1)
    assert value == expert.contract(k, hands, 0, 3, False, 1)
    assert value == 2  # seat 1's bowers and ace euchre it
    assert expert.contract(k, hands, 0, 1, True, 1) == 4  # which ordering alone would beat


def test_a_pass_the_dealer_would_pass_too_throws_the_deal_in_worth_nothing():
    """No stick the dealer, round two, seat 1 the last before the dealer (seat 2): passing
    is worth nothing where the dealer's hand is too weak to call, and the dealer's call
    solved where it isn't."""
    settings = {"stick_dealer": "off", "alone": "on"}
    state = passes(crafted(*DEAL, dealer=2, settings=settings), 6)
    k = known(state, 1)
    assert state.turn == 1 and k.can["pass"] == {}
    mine = mask(DEAL[0][1])
    weak_dealer = [mask("QH KH QD TC KC"), mine, mask("9H TH 9D TD 9C"), mask("AH JH JD QC KS")]
    assert expert.after_pass(k, weak_dealer, 2) == 0
    strong_dealer = [weak_dealer[0], mine, weak_dealer[3], weak_dealer[2]]
    other = inference.as_seat(k, 2, strong_dealer[2], inference.offer(k, 2, 2))
    suit, alone = expert.bidding.round_two(other, expert.STYLE)
    assert suit == "H"
    assert expert.after_pass(k, strong_dealer, 2) == expert.contract(
        k, strong_dealer, 1, 2, alone, 2
    )


def test_the_expert_never_buries_a_trump_while_it_holds_another_card():
    state, _ = run(crafted(*DEAL, dealer=0), cmd.Order(seat=1))
    k = known(state, 0)
    card = expert.discard(k, random.Random(3))
    assert not TRUMP_MASK[0] >> card & 1
    assert k.hand >> card & 1 and card != INDEX["9S"]


def _counted(draws: list[int]):
    """Deals of nothing in particular, each of weight 1, counted as they are drawn."""
    while True:
        draws.append(1)
        yield [0, 0, 0, 0], 1.0


def test_an_option_clearly_better_than_the_rules_wins_after_the_fewest_deals():
    draws: list[int] = []
    pick = expert._best(_counted(draws), ["rule", "better"], lambda _, o: o == "better", "rule")
    assert pick == "better"
    assert len(draws) == expert.FEWEST


def test_an_option_no_better_than_the_rules_is_dropped_and_the_rule_stands():
    draws: list[int] = []
    pick = expert._best(_counted(draws), ["rule", "same"], lambda _, o: 0, "rule")
    assert pick == "rule"
    assert len(draws) == expert.FEWEST


def test_a_close_call_spends_the_whole_budget_of_solves():
    """An option whose gain over the rule's sits at the margin, deal for deal noisy, is never
    told apart from it: the search runs until the budget is spent, and never past it."""
    draws: list[int] = []
    swing = itertools.cycle((1.0, -1.0))

    def value(_, option):
        return 0.0 if option == "rule" else next(swing) + expert.BID_MARGIN

    expert._best(_counted(draws), ["rule", "close"], value, "rule")
    assert len(draws) == expert.SOLVES // 2


@given(
    rules=st.fixed_dictionaries(
        {
            key: st.sampled_from(rule.allowed)
            for key, rule in ((d.key, d) for d in DECLARED)
            if rule.allowed == ("on", "off")
        }
    ),
    dealer=st.integers(0, 3),
    passed=st.integers(0, 7),
    watcher=st.integers(0, 3),
)
def test_what_a_bot_assumes_a_seat_was_offered_is_what_that_seats_view_offered(
    rules, dealer, passed, watcher
):
    """Any house rules, any seat to bid in either round: the offer inference reasons with (as a
    bot sees one, no trump left out) is that seat's own view's `can`, so the bots never keep a
    copy of the bidding rules to drift from them."""
    state = crafted(*DEAL, dealer=dealer, settings=rules)
    assume(state.phase == "bid1")  # not a farmer's swap first (seat 0 holds only 9s and 10s)
    state = passes(state, passed)
    seat, rnd = state.turn, 1 if state.phase == "bid1" else 2
    k = known(state, watcher)
    assert inference.offer(k, seat, rnd) == suits_only(view(state, seat).can)
