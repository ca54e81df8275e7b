"""What a hand is worth, winning at the target (ten unless the host chose another), and the
hand and deal numbers."""

from __future__ import annotations

import hashlib

import pytest
from euchre_kit import SEED, crafted, events_of, finish, last_trick, passes, plain, refused, run
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from domain import apply, deciding, legal, view
from domain import commands as cmd
from domain import events as ev
from domain.errors import Conflict
from domain.house_rules import POINTS

# Dealer 0; seat 1 holds the five best hearts; 9S is turned up.
LONE_MARCH_DEAL = (
    ["TS QS KS AS 9D", "JH JD AH KH QH", "9H TH TD QD KD", "9C TC QC KC AC"],
    "9S",
    "JS JC AD",
)


def play_last_trick(state):
    """Play the fifth trick; the events it makes, from the first card on."""
    out = []
    while state.phase == "play":
        state, events = apply(state, legal(state, state.turn)[0])
        out.extend(events)
    return state, out


@pytest.mark.parametrize(
    ("maker", "tricks", "alone", "defender", "team", "points", "how"),
    [
        (1, 3, False, None, 1, 1, "made"),
        (1, 4, False, None, 1, 1, "made"),
        (1, 5, False, None, 1, 2, "march"),
        (1, 3, True, None, 1, 1, "made"),
        (1, 4, True, None, 1, 1, "made"),
        (1, 5, True, None, 1, 4, "march"),
        (1, 2, False, None, 0, 2, "euchre"),
        (1, 1, False, None, 0, 2, "euchre"),
        (1, 0, False, None, 0, 2, "euchre"),
        (1, 2, True, None, 0, 2, "euchre"),
        (1, 2, True, 0, 0, 4, "euchre"),
        (1, 0, True, 2, 0, 4, "euchre"),
        (1, 3, True, 0, 1, 1, "made"),
        (1, 5, True, 2, 1, 4, "march"),
        (2, 3, False, None, 0, 1, "made"),
        (2, 5, False, None, 0, 2, "march"),
        (0, 5, True, None, 0, 4, "march"),
        (2, 1, False, None, 1, 2, "euchre"),
        (0, 2, True, 3, 1, 4, "euchre"),
    ],
)
def test_the_scoring_table(maker, tricks, alone, defender, team, points, how):
    """§ Scoring: 3 or 4 tricks score 1; a march 2 (4 alone); a euchre 2 (4 to a lone defender)."""
    for makers_win_last in (True, False):
        if (makers_win_last and tricks == 0) or (not makers_win_last and tricks == 5):
            continue
        state = last_trick(
            maker, tricks, makers_win_last, alone, defender, score=(3, 5), humans=True
        )
        state, events = play_last_trick(state)
        (scored,) = events_of(ev.HandScored, events)
        expected = [3, 5]
        expected[team] += points
        assert scored == ev.HandScored(
            maker=maker,
            trump="H",
            alone=maker if alone else None,
            defender=defender,
            tricks=tricks,
            how=how,
            team=team,
            points=points,
            score=expected,
        )
        assert state.score == tuple(expected)
        assert state.phase == "scored"


def test_a_lone_march_scores_four():
    """§ Scoring: a lone march scores 4 (the five best hearts, alone)."""
    hands, up, kitty = LONE_MARCH_DEAL
    state = passes(crafted(hands, up, kitty, humans=True), 4)
    state, _ = run(state, cmd.Call(seat=1, suit="H", alone=True))
    state, events = finish(state)
    (scored,) = events_of(ev.HandScored, events)
    assert (scored.how, scored.points, scored.team, scored.alone, scored.tricks) == (
        "march",
        4,
        1,
        1,
        5,
    )
    assert state.score == (0, 4)


def test_a_march_with_a_partner_scores_two():
    """§ Scoring: all five, not alone, scores 2."""
    hands, up, kitty = LONE_MARCH_DEAL
    state = passes(crafted(hands, up, kitty, humans=True), 4)
    state, _ = run(state, cmd.Call(seat=1, suit="H"))
    state, events = finish(state)
    (scored,) = events_of(ev.HandScored, events)
    assert (scored.how, scored.points, scored.team) == ("march", 2, 1)


def test_only_the_scoring_team_gains_points():
    """§ Scoring: exactly one team scores a hand."""
    for defender in (None, 0):
        state = last_trick(1, 1, False, alone=True, defender=defender, score=(4, 7), humans=True)
        state, _ = play_last_trick(state)
        assert state.score[1] == 7 and state.score[0] > 4


def test_a_team_on_nine_marching_alone_wins_on_thirteen():
    """§ Winning: 9 + 4 = 13; the game ends at 13 and the seed is revealed."""
    state = last_trick(1, 5, True, alone=True, score=(6, 9))
    state, events = play_last_trick(state)
    assert events[-2].points == 4
    assert events[-1] == ev.GameWon(team=1, score=[6, 13])
    assert state.status == "over" and state.phase == "over"
    assert state.winner == 1 and state.score == (6, 13) and state.turn is None
    seen = view(state, None)
    assert seen.winner == 1 and seen.status == "over" and seen.score == [6, 13]
    assert seen.seed == SEED
    assert hashlib.sha256(bytes.fromhex(seen.seed)).hexdigest() == seen.seed_hash
    assert all(view(state, n).seed == SEED for n in range(4))


def test_nothing_is_accepted_once_the_game_is_over():
    """§ Winning: after the game is won nobody decides anything."""
    state, _ = play_last_trick(last_trick(1, 5, True, alone=True, score=(6, 9)))
    assert deciding(state) == []
    for n in range(4):
        assert legal(state, n) == [] and view(state, n).can == {}
        e = refused(state, cmd.Play(seat=n, card="9S"), Conflict)
        assert e.reason == "the game is over"
    e = refused(state, cmd.Ready(seat=0), Conflict)
    assert e.reason == "the game is over"


def test_reaching_exactly_ten_wins():
    """§ Winning: the first team to ten wins, checked after every hand."""
    state, events = play_last_trick(last_trick(2, 3, True, score=(9, 9), humans=True))
    assert events[-1] == ev.GameWon(team=0, score=[10, 9])
    assert state.status == "over"


def test_defenders_can_win_the_game_by_a_euchre():
    """§ Winning: a euchre's points count toward ten like any others."""
    _state, events = play_last_trick(last_trick(1, 2, False, score=(8, 9)))
    assert events[-1] == ev.GameWon(team=0, score=[10, 9])


def test_nine_points_is_not_yet_a_win_and_the_next_hand_is_dealt():
    """§ Winning: below ten the game goes on; with four bots the next hand is dealt at once."""
    state, events = play_last_trick(last_trick(1, 3, True, score=(9, 8)))
    assert [type(e) for e in events[-3:]] == [ev.TrickTaken, ev.HandScored, ev.HandDealt]
    assert state.status == "playing" and state.score == (9, 9)
    assert view(state, 0).seed is None


def to(target: int, state):
    """The same table, played to `target` (house rule `points`)."""
    return replace(state, settings=replace(state.settings, points=target))


@pytest.mark.parametrize("target", POINTS)
def test_the_game_ends_at_the_target_the_host_chose_and_not_a_point_before(target):
    """§ Winning: one point short of the chosen target the game goes on; reaching it wins."""
    _state, events = play_last_trick(to(target, last_trick(1, 3, False, score=(0, target - 2))))
    assert isinstance(events[-1], ev.HandDealt) and events[-2].score == [0, target - 1]
    state, events = play_last_trick(to(target, last_trick(1, 3, False, score=(0, target - 1))))
    assert events[-1] == ev.GameWon(team=1, score=[0, target])
    assert state.status == "over" and state.winner == 1


_hands = st.tuples(
    st.sampled_from(POINTS),
    st.integers(0, 3),  # maker
    st.integers(0, 5),  # the makers' tricks
    st.booleans(),  # the makers take the last trick
    st.booleans(),  # alone
    st.sampled_from((None, 0)),  # a lone defender, as a seat of the other team
    st.tuples(st.integers(0, 14), st.integers(0, 14)),
)


@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(_hands)
def test_a_game_is_won_exactly_when_a_hand_takes_a_team_to_the_target(hand):
    """§ Winning: whatever the target, the score before and the hand, the game is won by the
    hand that takes a team to the target (however far past it), and only by that hand."""
    target, maker, tricks, win_last, alone, defender, before = hand
    before = (min(before[0], target - 1), min(before[1], target - 1))
    if defender is not None:
        defender = (maker + 1) % 4
    if (win_last and tricks == 0) or (not win_last and tricks == 5):
        return
    state = to(target, last_trick(maker, tricks, win_last, alone, defender, score=before))
    state, events = play_last_trick(state)
    (scored,) = events_of(ev.HandScored, events)
    if max(scored.score) >= target:
        assert events[-1] == ev.GameWon(team=scored.team, score=scored.score)
        assert state.status == "over" and state.winner == scored.team
    else:
        assert isinstance(events[-1], ev.HandDealt) and state.status == "playing"


def test_hand_no_counts_scored_hands_and_deal_no_counts_every_deal():
    """§ Hand and deal numbers: hand_no is scored hands + 1; deal_no counts deals, throw-ins too."""
    hands, up, kitty = LONE_MARCH_DEAL
    state = crafted(hands, up, kitty, humans=True, settings={"stick_dealer": "off"})
    assert (view(state, 0).hand_no, view(state, 0).deal_no) == (1, 1)
    state = passes(state, 8)  # thrown in
    assert (view(state, 0).hand_no, view(state, 0).deal_no) == (1, 2)
    state, _ = run(state, cmd.Order(seat=state.turn))
    state, _ = run(state, legal(state, state.deal.dealer)[0])
    state, _ = finish(state)
    assert state.phase == "scored"
    seen = view(state, 0)
    assert (seen.hand_no, seen.deal_no) == (2, 2)
    assert seen.outcome is not None and seen.outcome.hand_no == 1 and seen.outcome.deal_no == 2
    assert seen.hands == [seen.outcome]
    assert seen.outcome.score == list(state.score)
    state, _ = run(state, *(cmd.Ready(seat=n) for n in range(4)))
    seen = view(state, 0)
    assert (seen.hand_no, seen.deal_no, seen.phase) == (2, 3, "bid1")
    assert len(seen.hands) == 1


# No trump ----------------------------------------------------------------------------------


@pytest.mark.parametrize("alone", [False, True])
def test_a_no_trump_hand_scores_as_usual(alone):
    """§ No trump: scored like a suit call, a march 2 (4 alone); the outcome names "N" as trump.
    Seat 1 holds the five hearts and leads, and nobody else holds a heart: it takes all five."""
    state = passes(plain(settings={"no_trump": "on"}), 4)
    state, _ = run(state, cmd.Call(seat=1, suit="N", alone=alone))
    state, events = finish(state)
    scored = events_of(ev.HandScored, events)[0]
    assert scored.trump == "N" and scored.maker == 1
    assert (scored.tricks, scored.how, scored.team) == (5, "march", 1)
    assert scored.points == (4 if alone else 2)
    assert view(state, None).hands[-1].trump == "N"
