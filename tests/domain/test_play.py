"""Playing the tricks: who leads, following suit (the left bower follows trump), who takes one."""

from __future__ import annotations

import msgspec
import pytest
from euchre_kit import crafted, events_of, finish, passes, plain, refused, run

from domain import apply, decide, legal, view
from domain import commands as cmd
from domain import events as ev
from domain.errors import IllegalMove, NotYourTurn

# Dealer 0; 9H turned up and turned down; seat 3 calls clubs in round two.
CLUBS_DEAL = (
    ["9C QS TS AD KD", "KS AS 9D TD QD", "JS 9S AH KH QH", "JC AC KC QC TC"],
    "9H",
    "TH JH JD",
)


def clubs_trump(settings: dict | None = None, humans: bool = False):
    hands, up, kitty = CLUBS_DEAL
    state = passes(crafted(hands, up, kitty, settings=settings, humans=humans), 6)
    state, _ = run(state, cmd.Call(seat=3, suit="C"))
    assert state.phase == "play" and state.turn == 1 and state.deal.trump == 3
    return state


def test_the_seat_left_of_the_dealer_leads():
    """§ Play: the seat left of the dealer leads the first trick."""
    for dealer in range(4):
        state = passes(plain(dealer=dealer), 4)
        state, _ = run(state, cmd.Call(seat=state.turn, suit="H"))
        assert state.deal.leader == state.turn == (dealer + 1) % 4


def test_the_next_seat_playing_leads_when_the_dealers_left_sits_out():
    """§ Play: the dealer's left sits out (their partner went alone), so the seat after leads."""
    state = passes(plain(), 6)
    state, _ = run(state, cmd.Call(seat=3, suit="C", alone=True))
    assert state.deal.sitting == (1,)
    assert state.deal.leader == state.turn == 2


def test_the_nine_of_spades_must_follow_the_king_when_clubs_are_trump():
    """§ Play: clubs trump, KS led, holding JS and 9S: 9S must follow; JS may not be played."""
    state, _ = run(clubs_trump(), cmd.Play(seat=1, card="KS"))
    assert view(state, 2).can == {"play": {"cards": ["9S"]}}
    assert legal(state, 2) == [cmd.Play(seat=2, card="9S")]
    e = refused(state, cmd.Play(seat=2, card="JS"), IllegalMove)
    assert e.reason == "you must follow spades" and e.field == "card"
    e = refused(state, cmd.Play(seat=2, card="AH"), IllegalMove)
    assert e.reason == "you must follow spades"
    state, events = run(state, cmd.Play(seat=2, card="9S"))
    assert events == [ev.CardPlayed(seat=2, card="9S")]


def test_left_bower_must_follow_trump():
    """§ Play: clubs led (trump): the jack of spades is a club, so it must be played."""
    state, events = run(
        clubs_trump(),
        cmd.Play(seat=1, card="KS"),
        cmd.Play(seat=2, card="9S"),
        cmd.Play(seat=3, card="JC"),
        cmd.Play(seat=0, card="QS"),
    )
    assert events[-1] == ev.TrickTaken(winner=3, cards=["KS", "9S", "JC", "QS"])
    assert state.turn == 3
    state, _ = run(state, cmd.Play(seat=3, card="AC"))
    assert view(state, 0).can["play"]["cards"] == ["9C"]
    state, _ = run(state, cmd.Play(seat=0, card="9C"))
    assert view(state, 1).can["play"]["cards"] == ["AS", "QD", "TD", "9D"]  # void: anything
    state, _ = run(state, cmd.Play(seat=1, card="9D"))
    assert view(state, 2).can["play"]["cards"] == ["JS"]
    e = refused(state, cmd.Play(seat=2, card="AH"), IllegalMove)
    assert e.reason == "you must follow trump"
    state, events = run(state, cmd.Play(seat=2, card="JS"))
    assert events[-1] == ev.TrickTaken(winner=2, cards=["AC", "9C", "9D", "JS"])


def test_the_left_bower_led_calls_for_trump_not_spades():
    """§ Play: clubs trump, JS led: clubs must follow and spades needn't."""
    hands = ["AS 9H TH QH KH", "JS AD KD QD TD", "9S TS QS KS 9C", "JC AC KC QC TC"]
    state = passes(crafted(hands, up="AH", kitty="JH JD 9D"), 6)
    state, _ = run(state, cmd.Call(seat=3, suit="C"), cmd.Play(seat=1, card="JS"))
    assert view(state, 2).can["play"]["cards"] == ["9C"]
    e = refused(state, cmd.Play(seat=2, card="KS"), IllegalMove)
    assert e.reason == "you must follow trump"
    state, _ = run(state, cmd.Play(seat=2, card="9C"), cmd.Play(seat=3, card="AC"))
    assert view(state, 0).can["play"]["cards"] == ["AS", "KH", "QH", "TH", "9H"]
    state, events = run(state, cmd.Play(seat=0, card="AS"))
    assert events[-1] == ev.TrickTaken(winner=1, cards=["JS", "9C", "AC", "AS"])


def test_the_winner_of_a_trick_leads_the_next():
    """§ Play: whoever takes a trick leads the next one."""
    state, _events = run(
        clubs_trump(),
        cmd.Play(seat=1, card="KS"),
        cmd.Play(seat=2, card="9S"),
        cmd.Play(seat=3, card="JC"),
        cmd.Play(seat=0, card="QS"),
    )
    assert state.deal.leader == state.turn == 3
    assert state.deal.taken == (0, 1)
    seen = view(state, None)
    assert seen.trick == []
    assert msgspec.to_builtins(seen.tricks) == [
        {
            "leader": 1,
            "winner": 3,
            "cards": [
                {"seat": 1, "card": "KS"},
                {"seat": 2, "card": "9S"},
                {"seat": 3, "card": "JC"},
                {"seat": 0, "card": "QS"},
            ],
        }
    ]


def test_playing_out_of_turn_is_refused():
    """§ Whose turn: the seat whose turn it isn't raises NotYourTurn, naming whose it is."""
    state = clubs_trump()
    e = refused(state, cmd.Play(seat=2, card="9S"), NotYourTurn)
    assert e.reason == "it's seat 1's turn to play"


def test_a_card_you_dont_hold_is_refused():
    """§ Play: play() takes a card the seat holds."""
    state = clubs_trump()
    e = refused(state, cmd.Play(seat=1, card="AH"), IllegalMove)
    assert e.reason == "you don't hold AH"
    e = refused(state, cmd.Play(seat=1, card="1S"), IllegalMove)
    assert e.reason == "'1S' is not a card"


def test_an_illegal_move_changes_nothing():
    """§ Driving the engine: after a refused decide the state is identical, field for field."""
    state, _ = run(clubs_trump(), cmd.Play(seat=1, card="KS"))
    snapshot = msgspec.json.encode(state)
    copy = msgspec.json.decode(snapshot, type=type(state))
    for bad in (
        cmd.Play(seat=2, card="JS"),
        cmd.Play(seat=3, card="JC"),
        cmd.Pass(seat=2),
        cmd.Discard(seat=2, card="9S"),
        cmd.Ready(seat=2),
    ):
        with pytest.raises(Exception) as info:
            decide(state, bad)
        assert info.type.__name__ in {"IllegalMove", "NotYourTurn", "Conflict"}
        assert msgspec.json.encode(state) == snapshot
        assert state == copy


def test_a_hand_is_five_tricks_then_it_scores():
    """§ Play: after five tricks the hand is scored."""
    state, events = finish(clubs_trump(humans=True))
    assert state.phase == "scored"
    assert len(events_of(ev.TrickTaken, events)) == 5
    assert all(len(t.cards) == 4 for t in events_of(ev.TrickTaken, events))
    assert len(events_of(ev.CardPlayed, events)) == 20
    (scored,) = events_of(ev.HandScored, events)
    assert scored.maker == 3 and scored.trump == "C"
    assert sum(state.deal.taken) == 5


def test_a_seat_sitting_out_never_plays():
    """§ Going alone: the lone maker's partner is skipped; each trick has three cards."""
    state = passes(plain(), 6)
    state, _ = run(state, cmd.Call(seat=3, suit="C", alone=True))
    turns = []
    events: list[ev.Event] = []
    while state.phase == "play":
        turns.append(state.turn)
        refused(state, cmd.Play(seat=1, card="9H"), NotYourTurn)
        state, more = apply(state, legal(state, state.turn)[0])
        events.extend(more)
    assert 1 not in turns and len(turns) == 15
    assert [len(t.cards) for t in events_of(ev.TrickTaken, events)] == [3] * 5
    assert view(state, None).counts[1] == 5


def test_a_seat_holding_the_suit_led_must_follow_it():
    """§ Play: hearts led, holding a heart: "you must follow hearts"."""
    hands = ["TS 9S JD AD TH", "AH KS QS 9D TD", "9H JS AS KD QD", "9C TC QC KC AC"]
    state = passes(crafted(hands, up="KH", kitty="QH JH JC"), 4)
    state, _ = run(state, cmd.Call(seat=1, suit="S"), cmd.Play(seat=1, card="AH"))
    for card in ("JS", "AS", "KD"):
        e = refused(state, cmd.Play(seat=2, card=card), IllegalMove)
        assert e.reason == "you must follow hearts"
    assert legal(state, 2) == [cmd.Play(seat=2, card="9H")]


def test_tricks_count_for_the_team_of_the_seat_that_takes_them():
    """§ Seats and teams: a trick taken by seat 2 is team 0's; by seat 3, team 1's."""
    state, _ = run(
        clubs_trump(),
        cmd.Play(seat=1, card="KS"),
        cmd.Play(seat=2, card="9S"),
        cmd.Play(seat=3, card="JC"),
        cmd.Play(seat=0, card="QS"),
    )
    assert state.deal.taken == (0, 1)
    state, _ = run(
        state,
        cmd.Play(seat=3, card="AC"),
        cmd.Play(seat=0, card="9C"),
        cmd.Play(seat=1, card="9D"),
        cmd.Play(seat=2, card="JS"),
    )
    assert state.deal.taken == (1, 1) and view(state, None).taken == [1, 1]


# No trump ----------------------------------------------------------------------------------


def test_in_no_trump_the_highest_of_the_suit_led_wins_and_jacks_are_plain():
    """§ No trump: no bowers; a jack ranks between the ten and the queen of its own suit, and
    nothing beats the suit led."""
    hands = ["JS 9H TH QH KH", "QS 9D TD QD KD", "9S AH AD 9C TC", "TS QC KC AC JH"]
    state = passes(crafted(hands, up="JC", kitty="KS AS JD", settings={"no_trump": "on"}), 4)
    state, _ = run(state, cmd.Call(seat=1, suit="N"))
    # seat 1 leads the queen of spades; the jack of spades (no bower) can't beat it
    state, events = run(
        state,
        cmd.Play(seat=1, card="QS"),
        cmd.Play(seat=2, card="9S"),
        cmd.Play(seat=3, card="TS"),
        cmd.Play(seat=0, card="JS"),
    )
    assert events[-1] == ev.TrickTaken(winner=1, cards=["QS", "9S", "TS", "JS"])
    # a diamond lead: seat 3's jack of hearts stays a heart, it doesn't follow diamonds
    state, _ = run(state, cmd.Play(seat=1, card="9D"))
    assert legal(state, 2) == [cmd.Play(seat=2, card="AD")]
    state, _ = run(state, cmd.Play(seat=2, card="AD"))
    assert {c.card for c in legal(state, 3)} == {"QC", "KC", "AC", "JH"}
    state, events = run(state, cmd.Play(seat=3, card="QC"), cmd.Play(seat=0, card="9H"))
    assert events[-1] == ev.TrickTaken(winner=2, cards=["9D", "AD", "QC", "9H"])
    # a heart lead: the jack must follow hearts, and the ace still wins
    state, _ = run(state, cmd.Play(seat=2, card="AH"))
    assert legal(state, 3) == [cmd.Play(seat=3, card="JH")]
    state, events = run(
        state, cmd.Play(seat=3, card="JH"), cmd.Play(seat=0, card="TH"), cmd.Play(seat=1, card="TD")
    )
    assert events[-1] == ev.TrickTaken(winner=2, cards=["AH", "JH", "TH", "TD"])
