"""Both rounds of bidding, stick the dealer, going alone and the Canadian loner.

Most tests use the plain deal (euchre_kit.PLAIN_DEAL): dealer 0; seat 0 holds the spades,
1 the hearts, 2 the diamonds, 3 the clubs (9 T Q K A each); JS is turned up; JH JD JC lie in
the kitty.
"""

from __future__ import annotations

import msgspec
import pytest
from euchre_kit import crafted, held, passes, plain, refused, run

from domain import apply, decide, deciding, legal, view
from domain import commands as cmd
from domain import events as ev
from domain.cards import INDEX
from domain.errors import IllegalMove, NotYourTurn


def test_bidding_starts_left_of_the_dealer():
    """§ Bidding: round one: the seat left of the dealer bids first."""
    for dealer in range(4):
        state = plain(dealer=dealer)
        assert state.phase == "bid1"
        assert state.turn == (dealer + 1) % 4
        assert state.deal.kitty_state == "up"
        assert [(d.seat, d.kind) for d in deciding(state)] == [((dealer + 1) % 4, "bid")]


def test_ordering_up_makes_the_up_cards_suit_trump_and_the_dealer_picks_it_up():
    """§ Bidding: round one: an order makes spades trump and the dealer takes JS."""
    state, events = run(plain(), cmd.Order(seat=1))
    assert events == [ev.TrumpOrdered(seat=1, suit="S", alone=False)]
    assert state.deal.trump == 0 and state.deal.maker == 1 and state.deal.alone is None
    assert state.deal.kitty_state == "picked"
    assert state.phase == "discard" and state.turn == 0
    assert held(state.deal.hands[0]) == {"9S", "TS", "QS", "KS", "AS", "JS"}
    assert view(state, None).counts == [6, 5, 5, 5]


@pytest.mark.parametrize("card", ["JS", "9S", "TS", "QS", "KS", "AS"])
def test_the_dealer_buries_any_of_six_cards_the_up_card_included(card):
    """§ Bidding: round one: the dealer discards any one of the six, even the card picked up."""
    state, _ = run(plain(), cmd.Order(seat=1))
    state, events = run(state, cmd.Discard(seat=0, card=card))
    assert events == [ev.CardBuried(seat=0, card=card)]
    assert state.deal.buried == INDEX[card]
    assert card not in held(state.deal.hands[0]) and len(held(state.deal.hands[0])) == 5
    assert state.phase == "play" and state.turn == 1 and state.deal.leader == 1
    assert view(state, 0).buried == card


def test_the_dealer_may_order_the_up_card_to_themselves():
    """§ Bidding: round one: the dealer, bidding last, may take the card up too."""
    state = passes(plain(), 3)
    assert state.turn == 0
    state, events = run(state, cmd.Order(seat=0))
    assert events == [ev.TrumpOrdered(seat=0, suit="S", alone=False)]
    assert state.phase == "discard" and state.deal.maker == 0


def test_the_dealer_cannot_bury_a_card_they_dont_hold():
    """§ Bidding: round one: the discard is one of the dealer's six."""
    state, _ = run(plain(), cmd.Order(seat=1))
    e = refused(state, cmd.Discard(seat=0, card="AH"), IllegalMove)
    assert e.reason == "you don't hold AH"
    e = refused(state, cmd.Discard(seat=0, card="XX"), IllegalMove)
    assert e.reason == "'XX' is not a card"
    refused(state, cmd.Discard(seat=1, card="AH"), NotYourTurn)


def test_four_passes_turn_the_up_card_down():
    """§ Bidding: round two: everyone passed, the card is turned down and bidding goes round."""
    state = passes(plain(), 3)
    state, events = run(state, cmd.Pass(seat=0))
    assert events == [ev.BidPassed(seat=0, round=1), ev.UpCardTurnedDown(suit="S")]
    assert state.phase == "bid2" and state.deal.kitty_state == "down" and state.turn == 1
    assert held(state.deal.hands[0]) == {"9S", "TS", "QS", "KS", "AS"}


def test_a_call_in_round_two_names_trump_with_no_pick_up():
    """§ Bidding: round two: a seat calls another suit; nobody picks up or discards."""
    state = passes(plain(), 5)
    assert state.turn == 2
    state, events = run(state, cmd.Call(seat=2, suit="H"))
    assert events == [ev.TrumpCalled(seat=2, suit="H", alone=False)]
    assert state.deal.trump == 1 and state.deal.maker == 2
    assert state.phase == "play" and state.turn == 1 and state.deal.buried is None
    assert view(state, None).counts == [5, 5, 5, 5]
    assert [msgspec.to_builtins(b) for b in view(state, None).bids] == [
        {"seat": 1, "bid": "pass", "round": 1},
        {"seat": 2, "bid": "pass", "round": 1},
        {"seat": 3, "bid": "pass", "round": 1},
        {"seat": 0, "bid": "pass", "round": 1},
        {"seat": 1, "bid": "pass", "round": 2},
        {"seat": 2, "bid": "call", "round": 2, "suit": "H", "alone": False},
    ]


def test_round_two_cannot_call_the_turned_down_suit():
    """§ Bidding: round two: spades were turned down, so any other suit but not spades."""
    state = passes(plain(), 4)
    e = refused(state, cmd.Call(seat=1, suit="S"), IllegalMove)
    assert e.reason == "spades was turned down; call another suit"
    assert e.field == "suit" and e.allowed == ["H", "D", "C"]
    assert view(state, 1).can["call"]["suits"] == ["H", "D", "C"]
    assert {c.suit for c in legal(state, 1) if isinstance(c, cmd.Call)} == {"H", "D", "C"}


def test_a_suit_that_isnt_one_is_refused():
    """§ Bidding: round two: a suit is S, H, D or C."""
    state = passes(plain(), 4)
    e = refused(state, cmd.Call(seat=1, suit="X"), IllegalMove)
    assert e.allowed == ["S", "H", "D", "C"]


@pytest.mark.parametrize("suit", ["HD", "", "SHDC"])
def test_a_call_naming_several_suits_or_none_is_refused(suit):
    """§ Bidding: round two: a call names exactly one suit."""
    hands = ["9S TS QS KS AS", "9H TH QH KH AH", "9D TD QD KD AD", "9C TC QC KC AC"]
    state = passes(crafted(hands, up="JD", kitty="JS JH JC"), 4)  # diamonds turned down
    refused(state, cmd.Call(seat=1, suit=suit), IllegalMove)


def test_each_round_has_its_own_move():
    """§ Bidding: round one orders, round two calls; the other is refused with what to do."""
    state = plain()
    e = refused(state, cmd.Call(seat=1, suit="H"), IllegalMove)
    assert e.reason == "it's your turn to order it up or pass"
    e = refused(state, cmd.Discard(seat=1, card="9H"), IllegalMove)
    assert e.reason == "it's your turn to order it up or pass"
    state = passes(state, 4)
    e = refused(state, cmd.Order(seat=1), IllegalMove)
    assert e.reason == "it's your turn to call a suit or pass"
    e = refused(state, cmd.Play(seat=1, card="9H"), IllegalMove)
    assert e.reason == "it's your turn to call a suit or pass"


def test_bidding_out_of_turn_is_refused_naming_whose_turn_it_is():
    """§ Whose turn: a bid from the wrong seat raises NotYourTurn."""
    state = plain()
    e = refused(state, cmd.Order(seat=2), NotYourTurn)
    assert e.reason == "it's seat 1's turn to bid"
    e = refused(plain(humans=True), cmd.Pass(seat=3), NotYourTurn)
    assert e.reason == "it's P1's turn to bid"


def test_stick_the_dealer_on_the_dealer_cannot_pass_in_round_two():
    """§ Stick the dealer: everyone else passed twice, so the dealer must call trump."""
    state = passes(plain(settings={"stick_dealer": "on"}), 7)
    assert state.turn == 0 and state.phase == "bid2"
    e = refused(state, cmd.Pass(seat=0), IllegalMove)
    assert e.reason.startswith("the dealer must call trump")
    assert not any(isinstance(c, cmd.Pass) for c in legal(state, 0))
    assert {(c.suit, c.alone) for c in legal(state, 0)} == {
        (s, a) for s in "HDC" for a in (False, True)
    }
    assert "pass" not in view(state, 0).can and "call" in view(state, 0).can
    state, events = run(state, cmd.Call(seat=0, suit="C"))
    assert events == [ev.TrumpCalled(seat=0, suit="C", alone=False)]


def test_stick_the_dealer_on_others_may_still_pass_in_round_two():
    """§ Stick the dealer: only the dealer is stuck."""
    state = passes(plain(settings={"stick_dealer": "on"}), 4)
    for seat in (1, 2, 3):
        assert "pass" in view(state, seat).can
        state, _ = run(state, cmd.Pass(seat=seat))


def test_stick_the_dealer_off_eight_passes_throw_the_hand_in():
    """§ Stick the dealer: off, the dealer's pass throws the hand in; nothing scores."""
    state = passes(plain(settings={"stick_dealer": "off"}), 7)
    assert "pass" in view(state, 0).can
    state, events = run(state, cmd.Pass(seat=0))
    assert [type(e) for e in events] == [ev.BidPassed, ev.HandThrownIn, ev.HandDealt]
    assert events[1] == ev.HandThrownIn(deal_no=1)
    assert events[2].deal_no == 2 and events[2].dealer == 1
    assert not any(isinstance(e, ev.HandScored) for e in events)
    assert state.score == (0, 0) and state.history == ()
    assert state.phase == "bid1" and state.deal.dealer == 1 and state.turn == 2
    seen = view(state, None)
    assert (seen.hand_no, seen.deal_no) == (1, 2)
    assert seen.bids == [] and seen.kitty_state == "up" and seen.hands == []


def test_alone_off_refuses_going_alone_in_either_round():
    """§ House rules: with going alone off, order and call alone are refused."""
    state = plain(settings={"alone": "off"})
    e = refused(state, cmd.Order(seat=1, alone=True), IllegalMove)
    assert e.reason == "going alone is off at this table"
    assert view(state, 1).can["order"] == {"alone": False, "must_alone": False}
    assert all(not getattr(c, "alone", False) for c in legal(state, 1))
    state = passes(state, 4)
    refused(state, cmd.Call(seat=1, suit="H", alone=True), IllegalMove)
    assert view(state, 1).can["call"]["alone"] is False
    assert all(not getattr(c, "alone", False) for c in legal(state, 1))


def test_alone_on_offers_going_alone_in_both_rounds():
    """§ Going alone: order and call carry alone."""
    state = plain(settings={"alone": "on"})
    assert view(state, 1).can["order"] == {"alone": True, "must_alone": False}
    assert cmd.Order(seat=1, alone=True) in legal(state, 1)
    state = passes(state, 4)
    assert view(state, 1).can["call"]["alone"] is True
    assert cmd.Call(seat=1, suit="D", alone=True) in legal(state, 1)


def test_going_alone_sits_the_makers_partner_out():
    """§ Going alone: a lone caller's partner sits out; tricks have three cards."""
    state, events = run(passes(plain(), 4), cmd.Call(seat=1, suit="H", alone=True))
    assert events == [ev.TrumpCalled(seat=1, suit="H", alone=True)]
    assert state.deal.alone == 1 and state.deal.sitting == (3,)
    assert state.phase == "play" and state.turn == 1
    seats_to_play = []
    for _ in range(3):
        seats_to_play.append(state.turn)
        state, events = apply(state, legal(state, state.turn)[0])
    assert seats_to_play == [1, 2, 0]
    taken = [e for e in events if isinstance(e, ev.TrickTaken)]
    assert len(taken) == 1 and len(taken[0].cards) == 3
    assert legal(state, 3) == [] and view(state, 3).can == {}


def test_the_dealer_still_picks_up_when_an_opponent_orders_alone():
    """§ Going alone: otherwise the dealer picks up and discards even if someone else goes alone."""
    state, _ = run(plain(), cmd.Order(seat=1, alone=True))
    assert state.deal.kitty_state == "picked" and state.phase == "discard" and state.turn == 0
    assert state.deal.sitting == (3,)
    state, _ = run(state, cmd.Discard(seat=0, card="9S"))
    assert state.phase == "play" and state.turn == 1


def test_the_dealers_partner_ordering_alone_sits_the_dealer_out_and_nothing_is_picked_up():
    """§ Going alone: the dealer's partner orders alone: kitty_state out, the dealer sits out."""
    state = passes(plain(), 1)
    state, events = run(state, cmd.Order(seat=2, alone=True))
    assert events == [ev.TrumpOrdered(seat=2, suit="S", alone=True)]
    assert state.deal.kitty_state == "out"
    assert state.deal.sitting == (0,) and state.deal.alone == 2
    assert held(state.deal.hands[0]) == {"9S", "TS", "QS", "KS", "AS"}
    assert not any(state.deal.hands[n] >> INDEX["JS"] & 1 for n in range(4))
    assert state.phase == "play" and state.turn == 1 and state.deal.buried is None
    assert view(state, None).up == "JS"


def test_the_dealers_partner_ordering_with_the_dealer_has_the_dealer_pick_up():
    """§ Bidding: round one: a partner's ordinary order still gives the dealer the card."""
    state, _ = run(passes(plain(settings={"canadian": "off"}), 1), cmd.Order(seat=2))
    assert state.deal.kitty_state == "picked" and state.phase == "discard" and state.turn == 0


def test_canadian_loner_the_dealers_partner_may_order_only_alone():
    """§ Canadian loner: on, the dealer's partner orders alone or passes."""
    state = passes(plain(settings={"canadian": "on"}), 1)
    assert state.turn == 2
    e = refused(state, cmd.Order(seat=2, alone=False), IllegalMove)
    assert e.reason.endswith("(Canadian loner)")
    assert e.field == "alone" and e.allowed == ["true"]
    assert view(state, 2).can["order"] == {"alone": True, "must_alone": True}
    assert legal(state, 2) == [cmd.Pass(seat=2), cmd.Order(seat=2, alone=True)]
    after, _ = run(state, cmd.Order(seat=2, alone=True))
    assert after.deal.kitty_state == "out" and after.deal.sitting == (0,)


def test_canadian_loner_binds_only_the_dealers_partner_in_round_one():
    """§ Canadian loner: other seats order as usual; round two is unchanged."""
    state = plain(settings={"canadian": "on"})
    assert view(state, 1).can["order"]["must_alone"] is False
    run(state, cmd.Order(seat=1, alone=False))
    state = passes(state, 3)
    assert view(state, 0).can["order"]["must_alone"] is False
    run(state, cmd.Order(seat=0, alone=False))
    state = passes(state, 2)
    assert state.phase == "bid2" and state.turn == 2
    _after, events = run(state, cmd.Call(seat=2, suit="D", alone=False))
    assert events == [ev.TrumpCalled(seat=2, suit="D", alone=False)]


def test_canadian_loner_with_going_alone_off_has_no_effect():
    """§ Canadian loner: with going alone off the dealer's partner orders as anyone does."""
    state = passes(plain(settings={"canadian": "on", "alone": "off"}), 1)
    assert view(state, 2).can["order"] == {"alone": False, "must_alone": False}
    assert legal(state, 2) == [cmd.Pass(seat=2), cmd.Order(seat=2, alone=False)]
    after, _ = run(state, cmd.Order(seat=2, alone=False))
    assert after.deal.kitty_state == "picked" and after.phase == "discard"
    refused(state, cmd.Order(seat=2, alone=True), IllegalMove)


def test_canadian_loner_off_the_dealers_partner_may_order_with_the_dealer():
    """§ Canadian loner: off, must_alone is never set."""
    state = passes(plain(settings={"canadian": "off"}), 1)
    assert view(state, 2).can["order"] == {"alone": True, "must_alone": False}
    assert cmd.Order(seat=2, alone=False) in legal(state, 2)


def test_a_refused_bid_changes_nothing():
    """§ Driving the engine: decide is pure; a refusal leaves the state as it was."""
    state = passes(plain(settings={"stick_dealer": "on"}), 7)
    before = state
    for c in (cmd.Pass(seat=0), cmd.Call(seat=0, suit="S"), cmd.Order(seat=0), cmd.Pass(seat=1)):
        with pytest.raises((IllegalMove, NotYourTurn)):
            decide(state, c)
        assert state == before


# No trump ----------------------------------------------------------------------------------


def test_no_trump_is_offered_in_round_two_only_with_the_rule_on():
    """§ No trump: round two offers "N" beside the open suits when the rule is on, never in
    round one and never with the rule off."""
    on = plain(settings={"no_trump": "on"})
    assert not any(isinstance(c, cmd.Call) for c in legal(on, 1))
    calls = {c.suit for c in legal(passes(on, 4), 1) if isinstance(c, cmd.Call)}
    assert calls == {"H", "D", "C", "N"}
    off = {c.suit for c in legal(passes(plain(), 4), 1) if isinstance(c, cmd.Call)}
    assert off == {"H", "D", "C"}


def test_calling_no_trump_with_the_rule_off_is_refused_naming_the_rule():
    """§ No trump: off by default; the refusal says so and lists the suits open."""
    e = refused(passes(plain(), 4), cmd.Call(seat=1, suit="N"), IllegalMove)
    assert "no trump is off at this table" in e.reason
    assert e.field == "suit" and e.allowed == ["H", "D", "C"]


def test_a_no_trump_call_makes_the_maker_and_nobody_picks_up():
    """§ No trump: the caller is the maker, the hand goes straight to play, views say "N"."""
    state = passes(plain(settings={"no_trump": "on"}), 4)
    state, events = run(state, cmd.Call(seat=1, suit="N"))
    assert events == [ev.TrumpCalled(seat=1, suit="N", alone=False)]
    assert state.phase == "play" and state.deal.maker == 1 and state.turn == 1
    assert view(state, 2).trump == "N" and view(state, 2).bids[-1].suit == "N"


def test_the_stuck_dealer_may_call_no_trump_alone():
    """§ No trump, § Stick the dealer, § Going alone: the stuck dealer may call it, alone too."""
    state = passes(plain(settings={"no_trump": "on"}), 7)
    assert msgspec.structs.replace(cmd.Call(seat=0, suit="N"), alone=True) in legal(state, 0)
    state, _ = run(state, cmd.Call(seat=0, suit="N", alone=True))
    assert state.deal.alone == 0 and state.deal.sitting == (2,) and state.phase == "play"
