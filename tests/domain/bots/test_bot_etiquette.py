"""Table manners and house rules: when to go (or defend) alone, how to lead against a loner
and as one, the Canadian loner, stick the dealer and the farmer's hand."""

from __future__ import annotations

import pytest
from bot_kit import card, move, table
from euchre_kit import crafted, mask, passes, run
from msgspec.structs import replace

from domain import commands as cmd
from domain import legal
from domain.bots.strength import strength
from domain.cards import SUITS

SMART = ("medium", "hard", "expert")

# Dealer 0; seat 1 (first to bid) holds a hand that can't lose with spades trump.
LONER_DEAL = (
    ["9H TH 9D TD 9C", "JS JC AS KS AD", "QH KH QD KD TC", "AH JH JD QC KC"],
    "9S",
    "TS QS AC",
)


def loner_table(score=(0, 0), settings=None):
    hands, up, kitty = LONER_DEAL
    state = crafted(hands, up, kitty, dealer=0, settings=settings)
    return replace(state, score=score)


@pytest.mark.parametrize("level", SMART)
def test_a_bot_goes_alone_with_a_hand_that_cannot_lose(level):
    assert move(loner_table(), 1, level) == cmd.Order(seat=1, alone=True)


@pytest.mark.parametrize("level", ("easy", *SMART))
@pytest.mark.parametrize("ours", (8, 9))
def test_no_bot_goes_alone_when_a_partnered_hand_wins_the_game_anyway(level, ours):
    """At 8 a partnered march wins, at 9 any made hand does: going alone only adds risk."""
    state = loner_table(score=(0, ours))  # seat 1 is team 1
    assert move(state, 1, level) == cmd.Order(seat=1, alone=False)


@pytest.mark.parametrize("level", SMART)
def test_a_lone_maker_runs_its_winners_first(level):
    state = loner_table()
    state, _ = run(state, cmd.Order(seat=1, alone=True), cmd.Discard(seat=0, card="9H"))
    assert state.phase == "play" and state.turn == 1
    assert card(state, 1, level) == "JS"
    # Trump drawn (the others' trump gone), it cashes its off-suit ace before anything else.
    tricks = [
        (1, [(1, "JS"), (2, "TC"), (0, "9S")], 1),
        (1, [(1, "JC"), (2, "QH"), (0, "TH")], 1),
        (1, [(1, "AS"), (2, "KH"), (0, "9D")], 1),
    ]
    later = table(
        {0: "TD 9C", 1: "KS AD", 2: "QD KD"},
        trump="S",
        maker=1,
        alone=1,
        turn=1,
        dealer=0,
        up="9S",
        kitty_state="picked",
        tricks=tricks,
    )
    assert card(later, 1, level) in ("KS", "AD")


# Dealer 3; seat 1 has no club and calls spades alone; seat 3 sits out.
SHOWN_OUT = (
    ["AC KC 9D TD QH", "JS AS KS QD KD", "9C QC JD AD 9H", "TC JC TH AH KH"],
    "JH",
    "9S TS QS",
)


def against_loner():
    hands, up, kitty = SHOWN_OUT
    state = passes(crafted(hands, up, kitty, dealer=3), 5)
    state, _ = run(state, cmd.Call(seat=1, suit="S", alone=True))
    return state


@pytest.mark.parametrize("level", SMART)
def test_a_defender_wont_lead_an_ace_the_loner_has_shown_it_can_trump(level):
    """The loner showed out of clubs on the first trick and still has trump: the ace of clubs
    would only be ruffed, so it is kept and something else is led."""
    state, _ = run(
        against_loner(),
        cmd.Play(seat=0, card="KC"),
        cmd.Play(seat=1, card="QD"),
        cmd.Play(seat=2, card="9C"),
    )
    assert state.turn == 0
    assert card(state, 0, level) != "AC"


@pytest.mark.parametrize("level", SMART)
def test_a_defender_keeps_its_ace_against_a_loner_and_leads_low_from_a_short_suit(level):
    """On the first lead the ace of clubs is kept (it still wins whenever the loner must
    follow clubs) and the lone queen of hearts goes, never a trump into the loner."""
    assert card(against_loner(), 0, level) == "QH"


def test_canadian_loner_orders_only_alone_and_only_with_a_lone_hand():
    """Dealer 0: seat 2, the dealer's partner, may order only by going alone."""
    rules = {"canadian": "on", "alone": "on"}
    strong = (
        ["9H TH 9D TD 9C", "QH KH QD KD TC", "JS JC AS KS AD", "AH JH JD QC KC"],
        "9S",
        "TS QS AC",
    )
    state = passes(crafted(*strong, dealer=0, settings=rules), 1)
    assert state.turn == 2
    for level in ("easy", *SMART):
        assert move(state, 2, level) == cmd.Order(seat=2, alone=True)
    # Good enough to order with a partner, but not alone: pass.
    good = (
        ["9H TH 9D TD 9C", "QH KH QD KD TC", "JS AS KS AD AH", "JC JH JD QC KC"],
        "9S",
        "TS QS AC",
    )
    state = passes(crafted(*good, dealer=0, settings=rules), 1)
    for level in ("easy", *SMART):
        assert move(state, 2, level) == cmd.Pass(seat=2)


@pytest.mark.parametrize("level", ("easy", *SMART))
def test_a_stuck_dealer_calls_its_best_suit(level):
    hands = ["JS AS KS AD AH", "JC JH JD QC KC", "QH KH QD KD TC", "9H TH 9D TD 9C"]
    state = passes(crafted(hands, "9S", "TS QS AC", dealer=3), 7)
    assert state.phase == "bid2" and state.turn == 3
    m = move(state, 3, level)
    assert m in legal(state, 3) and isinstance(m, cmd.Call)
    if level != "easy":
        best = max("HDC", key=lambda s: strength(state.deal.hands[3], SUITS.index(s)))
        assert m.suit == best


@pytest.mark.parametrize("level", ("easy", *SMART))
def test_a_farmers_hand_is_swapped(level):
    hands = ["9H TH 9D TD 9C", "JS AS KS AD AH", "JC JH JD QC KC", "QH KH QD KD TC"]
    state = crafted(hands, "9S", "TS QS AC", dealer=3, settings={"farmers": "on"})
    assert state.phase == "farmer" and state.turn == 0
    m = move(state, 0, level)
    assert isinstance(m, cmd.Farmer) and len(m.cards) == 3 and m in legal(state, 0)


def test_only_a_very_strong_hand_defends_alone_and_never_at_easy():
    """Seat 1 calls clubs alone; seat 2 holds both bowers and the ace and king of clubs."""
    hands = ["9H TH 9D TD AH", "QC 9S TS QS KS", "JC JS AC KC AD", "QH KH QD KD TC"]
    rules = {"defend_alone": "on"}
    state = passes(crafted(hands, "JH", "JD AS 9C", dealer=0, settings=rules), 4)
    state, _ = run(state, cmd.Call(seat=1, suit="C", alone=True))
    assert state.phase == "defend" and state.turn == 2
    assert move(state, 2, "easy") == cmd.Defend(seat=2, alone=False)
    for level in SMART:
        assert move(state, 2, level) == cmd.Defend(seat=2, alone=True)
    # Seat 2 with an ordinary hand doesn't.
    hands = state.deal.hands
    weak = replace(
        state,
        deal=replace(state.deal, hands=(hands[0], hands[1], mask("QH KH QD KD TC"), hands[2])),
    )
    for level in SMART:
        assert move(weak, 2, level) == cmd.Defend(seat=2, alone=False)
