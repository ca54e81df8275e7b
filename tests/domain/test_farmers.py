"""Farmer's hand: five 9s and 10s may be swapped, three for the kitty's three, sight unseen."""

from __future__ import annotations

from itertools import combinations

import pytest
from euchre_kit import crafted, held, refused, run

from domain import commands as cmd
from domain import deciding, legal, view
from domain import events as ev
from domain.cards import CODES
from domain.errors import IllegalMove, NotYourTurn

FARMERS = {"farmers": "on"}

# Seat 2 holds a farmer's hand; JC is turned up; QC KC AC lie in the kitty.
FARMER_DEAL = (
    ["JD KD AD 9C TC", "JS QS KS AS TD", "9S TS 9H TH 9D", "JH QH KH AH QD"],
    "JC",
    "QC KC AC",
)


def farmer_table(dealer: int = 0, farmer: int = 2, settings: dict | None = FARMERS):
    """The farmer deal, turned so that `farmer` holds the 9s and 10s."""
    hands, up, kitty = FARMER_DEAL
    shift = farmer - 2
    turned = [hands[(n - shift) % 4] for n in range(4)]
    return crafted(turned, up, kitty, dealer=dealer, settings=settings)


def test_a_farmers_hand_is_asked_before_bidding():
    """§ Farmer's hand: with the rule on, the seat holding one decides first."""
    state = farmer_table()
    assert state.phase == "farmer" and state.turn == 2 and state.asked == (2,)
    assert [(d.seat, d.kind) for d in deciding(state)] == [(2, "farmer")]
    assert view(state, 2).can == {"farmer": {"cards": ["TS", "9S", "TH", "9H", "9D"]}}
    assert view(state, 1).can == {} and legal(state, 1) == []
    options = legal(state, 2)
    assert options[0] == cmd.Farmer(seat=2, cards=[])
    assert len(options) == 1 + 10
    assert {tuple(sorted(o.cards)) for o in options[1:]} == {
        tuple(sorted(three)) for three in combinations(["9S", "TS", "9H", "TH", "9D"], 3)
    }


def test_swapping_three_puts_them_in_the_kitty_and_gives_the_kittys_three():
    """§ Farmer's hand: the three go into the kitty and the kitty's three come out."""
    state, events = run(farmer_table(), cmd.Farmer(seat=2, cards=["9H", "TS", "9S"]))
    assert events == [ev.FarmerSwapped(seat=2, gave=["9S", "TS", "9H"], got=["QC", "KC", "AC"])]
    assert held(state.deal.hands[2]) == {"TH", "9D", "QC", "KC", "AC"}
    assert {CODES[c] for c in state.deal.kitty} == {"9S", "TS", "9H"}
    assert state.phase == "bid1" and state.turn == 1 and state.deal.up is not None
    assert view(state, 2).hand == ["TH", "9D", "AC", "KC", "QC"]  # no trump yet: S H D C
    assert view(state, None).counts == [5, 5, 5, 5]


def test_keeping_a_farmers_hand_is_swapping_nothing():
    """§ Farmer's hand: keep with cards []."""
    before = farmer_table()
    state, events = run(before, cmd.Farmer(seat=2, cards=[]))
    assert events == [ev.FarmerKept(seat=2)]
    assert state.deal.hands == before.deal.hands and state.deal.kitty == before.deal.kitty
    assert state.phase == "bid1" and state.turn == 1


@pytest.mark.parametrize("dealer", range(4))
def test_the_farmer_may_sit_anywhere_and_bidding_then_starts_left_of_the_dealer(dealer):
    """§ Farmer's hand: the farmer answers, then bidding starts from the dealer's left."""
    for farmer in range(4):
        state = farmer_table(dealer=dealer, farmer=farmer)
        assert state.phase == "farmer" and state.turn == farmer
        state, _ = run(state, cmd.Farmer(seat=farmer, cards=[]))
        assert state.phase == "bid1" and state.turn == (dealer + 1) % 4


@pytest.mark.parametrize(
    ("cards", "reason"),
    [
        (["9S", "TS"], "swap exactly three different cards, or none to keep your hand"),
        (["9S", "TS", "9H", "TH"], "swap exactly three different cards, or none to keep your hand"),
        (["9S", "9S", "TS"], "swap exactly three different cards, or none to keep your hand"),
        (["9S", "TS", "JS"], "you don't hold JS"),
        (["9S", "TS", "ZZ"], "'ZZ' is not a card"),
    ],
)
def test_a_farmer_swaps_exactly_three_of_their_own_cards(cards, reason):
    """§ Farmer's hand: exactly three different cards from the hand, or none."""
    e = refused(farmer_table(), cmd.Farmer(seat=2, cards=cards), IllegalMove)
    assert e.reason == reason


def test_only_the_farmer_answers_and_only_a_farmers_question():
    """§ Farmer's hand: others wait; bidding waits for the farmer."""
    state = farmer_table()
    e = refused(state, cmd.Farmer(seat=1, cards=[]), NotYourTurn)
    assert e.reason == "it's seat 2's turn to decide on a farmer's hand"
    refused(state, cmd.Pass(seat=1), NotYourTurn)
    e = refused(state, cmd.Pass(seat=2), IllegalMove)
    assert e.reason == "it's your turn to swap three cards or keep your farmer's hand"
    state, _ = run(state, cmd.Farmer(seat=2, cards=[]))
    e = refused(state, cmd.Farmer(seat=1, cards=[]), IllegalMove)
    assert e.reason == "it's your turn to order it up or pass"


def test_farmers_off_a_farmers_hand_is_never_asked():
    """§ Farmer's hand: with the rule off the deal goes straight to bidding."""
    for settings in ({"farmers": "off"}, {}):
        state = farmer_table(settings=settings)
        assert state.phase == "bid1" and state.turn == 1 and state.asked == ()
        assert "farmer" not in view(state, 2).can


def test_a_deal_holds_at_most_one_farmers_hand():
    """§ Farmer's hand: eight 9s and 10s in the deck, so two farmers can't be dealt together."""
    nines_and_tens = [c for c in held((1 << 24) - 1) if c[0] in "9T"]
    assert len(nines_and_tens) == 8 < 2 * 5
