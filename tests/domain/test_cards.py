"""The deck, the bowers, following suit and who takes a trick; seats and teams."""

from __future__ import annotations

import pytest
from euchre_kit import held, mask

from domain.cards import (
    CODES,
    FOLLOWS,
    INDEX,
    NO_TRUMP,
    POWER,
    SUITS,
    is_farmers_hand,
    left_bower,
    right_bower,
    same_color,
    sort_key,
)
from domain.state import partner, team
from domain.tricks import playable, winner

S, H, D, C = range(4)


def code_power(card: str, trump: str, led: str) -> int:
    return POWER[SUITS.index(trump)][SUITS.index(led)][INDEX[card]]


def follows(card: str, trump: str | None) -> str:
    t = NO_TRUMP if trump is None else SUITS.index(trump)
    return SUITS[FOLLOWS[t][INDEX[card]]]


def test_the_deck_is_24_cards_nine_to_ace_in_four_suits():
    """§ The cards and the bowers: 24 cards, 9 T J Q K A in spades, hearts, diamonds, clubs."""
    assert len(CODES) == len(set(CODES)) == 24
    assert sorted(CODES) == sorted(r + s for r in "9TJQKA" for s in "SHDC")
    assert all(len(c) == 2 for c in CODES)


def test_the_left_bower_is_the_other_jack_of_trumps_colour():
    """§ The cards and the bowers: spades pair with clubs, hearts with diamonds."""
    assert same_color(S) == C and same_color(C) == S
    assert same_color(H) == D and same_color(D) == H
    assert CODES[left_bower(C)] == "JS"
    assert CODES[left_bower(S)] == "JC"
    assert CODES[left_bower(H)] == "JD"
    assert CODES[left_bower(D)] == "JH"
    for t in range(4):
        assert CODES[right_bower(t)] == "J" + SUITS[t]


def test_left_bower_follows_trump_not_its_printed_suit():
    """§ The cards and the bowers: clubs trump, suit_of(JS) is clubs, not spades."""
    assert follows("JS", "C") == "C"
    assert follows("JC", "C") == "C"
    assert follows("JH", "C") == "H"
    assert follows("JD", "C") == "D"
    assert follows("JS", "H") == "S"
    assert follows("JD", "H") == "H"


def test_jacks_keep_their_own_suits_before_trump_is_named():
    """§ The cards and the bowers: with no trump yet, no card is a bower."""
    for s in "SHDC":
        assert follows("J" + s, None) == s


def test_left_bower_has_power_105_beating_every_trump_but_the_right():
    """§ The cards and the bowers: power(JS, clubs trump, spade led) is 105."""
    assert code_power("JS", "C", "S") == 105
    assert code_power("JC", "C", "S") == 106
    assert code_power("AC", "C", "S") == 104


@pytest.mark.parametrize("trump", "SHDC")
def test_trump_runs_nine_ten_queen_king_ace_then_the_bowers(trump):
    """§ The cards and the bowers: trump 9 T Q K A are 100-104, left 105, right 106."""
    left = CODES[left_bower(SUITS.index(trump))]
    for led in "SHDC":
        got = [code_power(r + trump, trump, led) for r in "9TQKA"]
        assert got == [100, 101, 102, 103, 104]
        assert code_power(left, trump, led) == 105
        assert code_power("J" + trump, trump, led) == 106


@pytest.mark.parametrize("trump", "SHDC")
def test_the_suit_led_runs_50_to_55_and_every_other_card_is_worth_nothing(trump):
    """§ The cards and the bowers: a card thrown off can't win."""
    t = SUITS.index(trump)
    left = CODES[left_bower(t)]
    for led in "SHDC":
        if led == trump:
            continue
        for card in CODES:
            p = code_power(card, trump, led)
            if card[1] == trump or card == left:
                assert p >= 100
            elif card[1] == led:
                assert p == 50 + "9TJQKA".index(card[0])
            else:
                assert p == 0


def test_nine_of_spades_must_follow_king_of_spades_when_clubs_are_trump():
    """§ Play: clubs trump, KS led, holding JS and 9S: only 9S may be played."""
    hand = mask("JS 9S")
    trick = ((1, INDEX["KS"]),)
    assert held(playable(hand, trick, C)) == {"9S"}


def test_left_bower_must_follow_trump():
    """§ Play: clubs trump, a club led: the jack of spades is a club and must follow."""
    hand = mask("JS 9S AH")
    trick = ((1, INDEX["9C"]),)
    assert held(playable(hand, trick, C)) == {"JS"}


def test_left_bower_cannot_follow_its_printed_suit():
    """§ Play: clubs trump, a spade led, holding only JS and hearts: any card, JS isn't a spade."""
    hand = mask("JS AH TH")
    trick = ((1, INDEX["AS"]),)
    assert held(playable(hand, trick, C)) == {"JS", "AH", "TH"}


def test_a_void_seat_may_play_anything_and_a_leader_leads_anything():
    """§ Play: no card of the suit led, any card; leading, any card."""
    hand = mask("9H TH AD")
    assert held(playable(hand, ((0, INDEX["AS"]),), C)) == {"9H", "TH", "AD"}
    assert held(playable(hand, (), C)) == {"9H", "TH", "AD"}


def trick_of(*plays: str) -> tuple[tuple[int, int], ...]:
    """'1:KS' '2:9C' ... as a trick."""
    out = []
    for p in plays:
        seat, card = p.split(":")
        out.append((int(seat), INDEX[card]))
    return tuple(out)


@pytest.mark.parametrize(
    ("plays", "trump", "won_by"),
    [
        (("0:KS", "1:AS", "2:9S", "3:QS"), "C", 1),  # highest of the suit led
        (("0:KS", "1:AS", "2:9C", "3:QS"), "C", 2),  # any trump beats the suit led
        (("0:KS", "1:AH", "2:9S", "3:AD"), "C", 0),  # an off-suit ace can't win
        (("0:AC", "1:JS", "2:KC", "3:9S"), "C", 1),  # the left bower beats the ace of trump
        (("0:JS", "1:JC", "2:AC", "3:9C"), "C", 1),  # the right bower beats the left
        (("0:9S", "1:JS", "2:AS", "3:KS"), "C", 1),  # the left bower trumps a spade lead
        (("0:JS", "1:AS", "2:9C", "3:KS"), "C", 0),  # the left bower led is trump led
        (("0:JD", "1:AD", "2:KD", "3:JH"), "H", 3),  # hearts trump: JD is the left, JH right
        (("0:9D", "1:TD", "2:JC", "3:QD"), "H", 3),  # an off-colour jack is an ordinary card
    ],
)
def test_the_highest_trump_takes_the_trick_else_the_highest_of_the_suit_led(plays, trump, won_by):
    """§ Play: winner() gives the trick to the highest power."""
    assert winner(trick_of(*plays), SUITS.index(trump)) == won_by


def test_a_three_card_trick_goes_to_its_highest_card():
    """§ Going alone: with a seat sitting out a trick has three cards."""
    assert winner(trick_of("1:QH", "2:KH", "3:9H"), S) == 2


def test_seats_zero_and_two_play_seats_one_and_three():
    """§ Seats and teams: teams are seat % 2; partners sit across."""
    assert [team(n) for n in range(4)] == [0, 1, 0, 1]
    assert [partner(n) for n in range(4)] == [2, 3, 0, 1]


def test_a_farmers_hand_is_five_nines_and_tens():
    """§ Farmer's hand: five cards, every one a 9 or a 10."""
    assert is_farmers_hand(mask("9S TS 9H TH 9D"))
    assert is_farmers_hand(mask("9S 9H 9D 9C TC"))
    assert not is_farmers_hand(mask("9S TS 9H TH JD"))
    assert not is_farmers_hand(mask("9S TS 9H TH"))
    assert not is_farmers_hand(mask("9S TS 9H TH 9D TD"))


def test_a_hand_sorts_trump_first_with_the_bowers_on_top():
    """§ What each seat sees: trump first, right then left bower, high cards first."""
    hand = ["9C", "JS", "AH", "JC", "AC", "TS", "KD"]
    got = sorted((INDEX[c] for c in hand), key=lambda c: sort_key(c, C))
    assert [CODES[c] for c in got] == ["JC", "JS", "AC", "9C", "TS", "AH", "KD"]


def test_card_codes_are_in_index_order_suit_major() -> None:
    from domain.cards import RANKS

    assert all(CODES[s * 6 + r] == RANKS[r] + SUITS[s] for s in range(4) for r in range(6))
