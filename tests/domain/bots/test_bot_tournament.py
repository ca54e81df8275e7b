"""The duplicate tournament runner (services/bots/tournament.py): each deal both ways."""

from __future__ import annotations

import pytest

from domain import new_game
from services.bots.tournament import (
    game_seed,
    parser,
    play_game,
    play_pair,
    run,
    wilson,
)


def test_a_game_pair_deals_the_same_cards_to_the_other_side():
    """Same seed, teams swapped: A's seats in the second game hold B's cards of the first."""
    seed = game_seed(0, 0)
    first = new_game(seed)
    again = new_game(seed)
    assert first.deal.hands == again.deal.hands and first.deal.dealer == again.deal.dealer


def test_a_pair_is_two_games_and_every_hand_is_counted():
    r = play_pair(("hard", "easy", 0, 3, None))
    assert r.games == 2 and sum(r.wins) == 2
    assert sum(r.hands) > 0 and sum(r.points) >= 20


def test_run_adds_up_and_reports_a_wilson_interval():
    r = run("medium", "easy", 4, workers=1, seed=5, progress=False)
    assert r.games == 4 and sum(r.wins) == 4 and r.decisions > 0
    lo, hi = r.interval()
    assert 0.0 <= lo <= r.share <= hi <= 1.0
    assert "medium vs easy: 4 games" in r.summary()


def test_games_can_be_played_to_another_target():
    """`--points` plays every game to that house rule's target; only the five targets are taken."""
    assert parser().parse_args(["hard", "easy"]).points == 10
    assert parser().parse_args(["hard", "easy", "--points", "5"]).points == 5
    with pytest.raises(SystemExit):
        parser().parse_args(["hard", "easy", "--points", "9"])
    winner, _hands, points, _ = play_game(game_seed(0, 1), ("easy",) * 4, {"points": 5})
    assert points[winner] >= 5 > points[1 - winner]


def test_wilson_interval():
    lo, hi = wilson(55, 100)
    assert lo == pytest.approx(0.452, abs=0.001) and hi == pytest.approx(0.644, abs=0.001)
    assert wilson(0, 0) == (0.0, 1.0)


def test_run_refuses_an_unknown_level():
    with pytest.raises(ValueError):
        run("grandmaster", "easy", 2, workers=1, progress=False)
