"""Defending alone: with the house rule on, a lone call lets one defender go alone too."""

from __future__ import annotations

from euchre_kit import crafted, events_of, finish, passes, plain, refused, run

from domain import commands as cmd
from domain import deciding, legal, view
from domain import events as ev
from domain.errors import IllegalMove, NotYourTurn

DEFEND = {"defend_alone": "on"}

# Dealer 0; seat 1 holds two small hearts; seat 2 the five best hearts.
LONE_DEFENDER_DEAL = (
    ["9C TC QC KC AC", "9H TH AS KS QS", "JH JD AH KH QH", "9D TD QD KD AD"],
    "9S",
    "TS JS JC",
)


def test_a_lone_call_asks_the_defenders_from_the_dealers_left():
    """§ Defending alone: seat 1 calls alone with dealer 0: seat 2 is asked, then seat 0."""
    state, events = run(passes(plain(settings=DEFEND), 4), cmd.Call(seat=1, suit="H", alone=True))
    assert state.phase == "defend" and state.turn == 2 and state.asked == (2, 0)
    assert [(d.seat, d.kind) for d in deciding(state)] == [(2, "defend")]
    assert view(state, 2).can == {"defend": {}}
    assert legal(state, 2) == [cmd.Defend(seat=2, alone=False), cmd.Defend(seat=2, alone=True)]
    state, events = run(state, cmd.Defend(seat=2, alone=False))
    assert events == [ev.DefenceChosen(seat=2, alone=False)]
    assert state.phase == "defend" and state.turn == 0
    state, events = run(state, cmd.Defend(seat=0, alone=False))
    assert state.phase == "play" and state.deal.defender is None and state.deal.sitting == (3,)
    assert state.turn == 1


def test_the_defenders_are_asked_in_order_whoever_calls():
    """§ Defending alone: each defender from the dealer's left, in turn."""
    cases = {0: (1, 3), 1: (2, 0), 2: (1, 3), 3: (2, 0)}  # maker -> who is asked (dealer 0)
    for maker, asked in cases.items():
        state = passes(plain(settings=DEFEND), 4 + (maker - 1) % 4)
        state, _ = run(state, cmd.Call(seat=maker, suit="D", alone=True))
        assert state.asked == asked and state.turn == asked[0]


def test_the_first_defender_to_say_yes_sits_their_partner_out():
    """§ Defending alone: the first yes sits their own partner out; nobody else is asked."""
    state, _ = run(passes(plain(settings=DEFEND), 4), cmd.Call(seat=1, suit="H", alone=True))
    state, events = run(state, cmd.Defend(seat=2, alone=True))
    assert events == [ev.DefenceChosen(seat=2, alone=True)]
    assert state.deal.defender == 2 and state.deal.sitting == (3, 0)
    assert state.phase == "play" and state.turn == 1
    state, events = finish(state)
    assert [len(t.cards) for t in events_of(ev.TrickTaken, events)] == [2] * 5
    assert not any(isinstance(e, ev.DefenceChosen) for e in events)


def test_the_second_defender_may_go_alone_after_the_first_declines():
    """§ Defending alone: a no passes the question on."""
    state, _ = run(passes(plain(settings=DEFEND), 4), cmd.Call(seat=1, suit="H", alone=True))
    state, _ = run(state, cmd.Defend(seat=2, alone=False), cmd.Defend(seat=0, alone=True))
    assert state.deal.defender == 0 and state.deal.sitting == (3, 2)
    assert state.phase == "play" and state.turn == 1


def test_a_lone_order_asks_the_defenders_after_the_dealer_discards():
    """§ Defending alone: the dealer picks up and buries first, then the defenders are asked."""
    state, _ = run(plain(settings=DEFEND), cmd.Order(seat=1, alone=True))
    assert state.phase == "discard" and state.turn == 0
    state, _ = run(state, cmd.Discard(seat=0, card="9S"))
    assert state.phase == "defend" and state.asked == (2, 0)


def test_the_dealers_partner_alone_with_the_card_out_asks_both_defenders():
    """§ Defending alone: the dealer sits out, kitty out; seats 1 and 3 are asked."""
    state, _ = run(passes(plain(settings=DEFEND), 1), cmd.Order(seat=2, alone=True))
    assert state.deal.kitty_state == "out" and state.phase == "defend" and state.asked == (1, 3)
    state, _ = run(state, cmd.Defend(seat=1, alone=True))
    assert state.deal.sitting == (0, 3) and state.turn == 1


def test_a_lone_defenders_euchre_scores_four():
    """§ Scoring: a lone defender who euchres the lone maker scores 4."""
    hands, up, kitty = LONE_DEFENDER_DEAL
    state = passes(crafted(hands, up, kitty, settings=DEFEND, humans=True), 4)
    state, _ = run(state, cmd.Call(seat=1, suit="H", alone=True), cmd.Defend(seat=2, alone=True))
    state, events = finish(state)
    (scored,) = events_of(ev.HandScored, events)
    assert scored == ev.HandScored(
        maker=1,
        trump="H",
        alone=1,
        defender=2,
        tricks=0,
        how="euchre",
        team=0,
        points=4,
        score=[4, 0],
    )
    assert view(state, None).outcome.defender == 2


def test_a_euchre_without_a_lone_defender_scores_two():
    """§ Scoring: the same hand defended by both partners is an ordinary euchre, 2."""
    hands, up, kitty = LONE_DEFENDER_DEAL
    state = passes(crafted(hands, up, kitty, settings=DEFEND, humans=True), 4)
    state, _ = run(
        state,
        cmd.Call(seat=1, suit="H", alone=True),
        cmd.Defend(seat=2, alone=False),
        cmd.Defend(seat=0, alone=False),
    )
    state, events = finish(state)
    (scored,) = events_of(ev.HandScored, events)
    assert (scored.how, scored.points, scored.team, scored.defender) == ("euchre", 2, 0, None)


def test_defending_alone_off_a_lone_call_goes_straight_to_play():
    """§ Defending alone: off, nobody is asked."""
    state, _ = run(
        passes(plain(settings={"defend_alone": "off"}), 4), cmd.Call(seat=1, suit="H", alone=True)
    )
    assert state.phase == "play" and state.asked == () and state.turn == 1
    refused(state, cmd.Defend(seat=2, alone=True), NotYourTurn)
    refused(state, cmd.Defend(seat=1, alone=True), IllegalMove)


def test_defending_alone_on_without_a_lone_call_asks_nobody():
    """§ Defending alone: only a lone call is defended alone."""
    state, _ = run(passes(plain(settings=DEFEND), 4), cmd.Call(seat=1, suit="H"))
    assert state.phase == "play" and state.deal.defender is None


def test_only_the_defender_asked_may_answer():
    """§ Whose turn: the defence is asked of one seat at a time."""
    state, _ = run(passes(plain(settings=DEFEND), 4), cmd.Call(seat=1, suit="H", alone=True))
    e = refused(state, cmd.Defend(seat=0, alone=True), NotYourTurn)
    assert e.reason == "it's seat 2's turn to decide on defending alone"
    e = refused(state, cmd.Play(seat=2, card="9D"), IllegalMove)
    assert e.reason == "it's your turn to say whether you defend alone"
