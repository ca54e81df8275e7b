"""Who is rated and by how much (docs/ratings.md): the rules on hand-made logs, the fold on
games the rules played, the anchors and the worked example."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rated_kit import finished_game

from domain import events as ev
from domain.game import fold
from domain.house_rules import HouseRules
from projections.ratings import (
    AGAINST_MEDIUM,
    ANCHORS,
    GRACE_SECONDS,
    MODEL,
    NEW,
    TAU,
    Rating,
    Stats,
    counted,
    game_of,
    rate,
    versus,
)

SEED = "5e" * 32
SETTLED = Rating(1500.0, 70.0)


def opened(bots: ev.Level = "medium") -> ev.TableOpened:
    return ev.TableOpened(
        code="T", host="ada", settings=HouseRules(), bots=bots, seed=SEED, seed_hash="h"
    )


def person(seat: int, player: str, registered: bool = True) -> ev.SeatTaken:
    return ev.SeatTaken(seat=seat, player=player, name=player.title(), registered=registered)


def log(*during: ev.Event, seats=None, winner: int = 0, bots: ev.Level = "medium") -> list:
    """A table with Ada (registered) in seat 0 and bots elsewhere unless `seats` says, its
    game started, `during` it, then won by `winner`."""
    seats = seats or [person(0, "ada")]
    before = game_of([opened(bots), *seats])
    empty = [n for n, s in enumerate(before.seats) if s.player is None and s.bot is None]
    filled = [ev.BotSeated(seat=n, level=bots) for n in empty]
    return [
        opened(bots),
        *seats,
        *filled,
        ev.GameStarted(first_dealer=0),
        *during,
        ev.GameWon(team=winner, score=[10, 6] if winner == 0 else [6, 10]),
    ]


def hands(count: int) -> list[ev.Event]:
    """`count` hands scored (how they went is no matter to who played them)."""
    one = ev.HandScored(
        maker=1,
        trump="S",
        alone=None,
        defender=None,
        tricks=3,
        how="made",
        team=1,
        points=1,
        score=[0, 1],
    )
    return [one] * count


def timed(events: list, at: dict[int, float]) -> list[float]:
    """Each event's time: from the nearest index at or before it in `at` (seconds), else 0."""
    times, now = [], 0.0
    for n, _ in enumerate(events):
        now = at.get(n, now)
        times.append(now)
    return times


def results(events, known=None, times=None):
    return rate(game_of(events, times), known or {})


def test_a_registered_winner_gains_and_the_bots_are_counted_at_their_anchors():
    seats = results(log())
    assert [s.status for s in seats] == ["rated", "bot", "bot", "bot"]
    assert seats[0].after.mu > NEW.mu and seats[0].won
    assert [s.before for s in seats[1:]] == [ANCHORS["medium"]] * 3
    assert all(s.after is None for s in seats[1:])


def test_a_guest_counts_as_new_and_never_changes():
    seats = results(log(seats=[person(0, "ada"), person(2, "gus", registered=False)]))
    assert seats[2].status == "guest"
    assert seats[2].before == NEW and seats[2].after is None
    assert seats[0].status == "rated"


def test_a_game_of_guests_alone_is_not_rated():
    assert results(log(seats=[person(0, "gus", registered=False)])) is None


def test_a_game_never_won_is_not_rated():
    """An abandoned game: the table stopped before a team reached 10."""
    events = log()[:-1]
    assert game_of(events).winner is None
    assert rate(game_of(events), {}) is None


def test_a_leaver_is_rated_as_having_lost_though_the_bot_won_for_them():
    events = log(ev.SeatLeft(seat=0, player="ada"), winner=0)
    (ada, *_) = results(events)
    assert ada.status == "left" and not ada.won
    assert ada.after.mu < SETTLED.mu
    # exactly what losing the game would have done to them
    (lost, *_) = results(log(winner=1))
    assert ada.after == lost.after


def test_one_who_leaves_while_the_start_asks_for_seeds_is_a_leaver():
    """The game is under way from the host's start (domain/reveal.py): leaving while the seeds
    are asked for is no way out of a rated loss."""
    called = [opened(), person(0, "ada")]
    called += [ev.BotSeated(seat=n, level="medium") for n in (1, 2, 3)]
    events = [
        *called,
        ev.StartCalled(asked=[0]),
        ev.SeatLeft(seat=0, player="ada"),
        ev.SeedWithheld(seat=0),
        ev.GameStarted(first_dealer=0),
        ev.GameWon(team=1, score=[6, 10]),
    ]
    (ada, *_) = results(events)
    assert ada.status == "left" and not ada.won


def test_one_who_went_away_and_never_came_back_is_a_leaver_too():
    events = log(ev.PlayerWentAway(seat=0, player="ada", reason="gone"), winner=0)
    assert results(events)[0].status == "left"


def test_one_who_came_back_and_finished_is_rated_normally():
    events = log(
        ev.PlayerWentAway(seat=0, player="ada", reason="timeout"),
        ev.PlayerCameBack(seat=0, player="ada"),
        ev.SeatLeft(seat=0, player="ada"),
        ev.SeatTaken(seat=0, player="ada", name="Ada", registered=True),
        winner=0,
    )
    assert results(events)[0] == results(log(winner=0))[0]


def test_the_leavers_partner_keeps_the_sides_result():
    seats = [person(0, "ada"), person(2, "bo")]
    left = results(log(ev.SeatLeft(seat=0, player="ada"), seats=seats))
    stayed = results(log(seats=seats))
    assert left[2] == stayed[2] and left[2].won


def test_seats_before_the_start_follow_moves_swaps_and_bans():
    seats = [
        person(0, "ada"),
        person(1, "bo"),
        ev.SeatLeft(seat=1, player="bo"),
        person(2, "bo"),
        person(1, "cy"),
        ev.SeatsSwapped(seats=[1, 2]),
        person(3, "dee"),
        ev.PlayerBanned(player="dee", seat=3, name="Dee"),
    ]
    game = game_of(log(seats=seats))
    assert [s.player for s in game.seats] == ["ada", "bo", "cy", None]
    assert game.seats[3].bot == "medium"


def test_partners_move_by_their_share_of_the_sides_variance():
    sure, unsure = Rating(1500, 80), Rating(1500, 300)
    seats = [person(0, "ada"), person(2, "bo")]
    out = results(log(seats=seats), {"ada": sure, "bo": unsure})
    gain = [out[n].after.mu - out[n].before.mu for n in (0, 2)]
    share = [r.sigma**2 + TAU**2 for r in (sure, unsure)]
    assert gain[0] > 0 and gain[1] > 0
    assert gain[0] / gain[1] == pytest.approx(share[0] / share[1], rel=1e-9)


def test_the_anchors_reproduce_the_measured_shares():
    for level, share in AGAINST_MEDIUM.items():
        pair = [MODEL.rating(ANCHORS[level].mu, ANCHORS[level].sigma) for _ in range(2)]
        mediums = [MODEL.rating(ANCHORS["medium"].mu, ANCHORS["medium"].sigma) for _ in range(2)]
        assert MODEL.predict_win([pair, mediums])[0] == pytest.approx(share, abs=1e-9)
    assert ANCHORS["medium"].mu == 1500
    assert ANCHORS["easy"].mu < ANCHORS["medium"].mu < ANCHORS["hard"].mu


def test_bot_anchors_are_unchanged_after_a_thousand_games():
    rng = random.Random(7)
    known: dict[str, Rating] = {}
    anchors = dict(ANCHORS)
    levels = list(ANCHORS)
    for _ in range(1000):
        level = rng.choice(levels)
        seats = [person(0, "ada"), person(2, "bo")] if rng.random() < 0.5 else None
        out = rate(game_of(log(seats=seats, winner=rng.randrange(2), bots=level)), known)
        for s in out:
            if s.status == "bot":
                assert s.before == ANCHORS[level] and s.after is None
            elif s.after is not None:
                known[s.player] = s.after
    assert anchors == ANCHORS
    assert set(known) == {"ada", "bo"}


def test_the_worked_example():
    """docs/ratings.md "A worked example": a settled player with a medium bot as partner
    against two bots of each level; then with a friend as partner and the player covered."""
    moves = {}
    for level in ("easy", "medium", "hard"):
        for winner in (0, 1):
            seats = [person(0, "ada"), ev.BotSeated(seat=2, level="medium")]
            out = results(log(seats=seats, winner=winner, bots=level), {"ada": SETTLED})
            moves[level, winner] = round(out[0].after.mu - SETTLED.mu, 1)
    assert moves == {
        ("easy", 0): 3.7,
        ("easy", 1): -15.4,
        ("medium", 0): 9.5,
        ("medium", 1): -9.5,
        ("hard", 0): 10.6,
        ("hard", 1): -8.5,
    }
    new = results(log(bots="medium"))[0]
    assert round(new.after.mu - NEW.mu, 1) == 142.9
    # The friend as partner, the player covered (a bot finished most of their hands, so the win
    # isn't theirs): only the friend moves.
    seats = [person(0, "ada"), person(2, "bo")]
    away = ev.PlayerWentAway(seat=0, player="ada", reason="gone")
    back = ev.PlayerCameBack(seat=0, player="ada")
    covered = [*hands(1), away, *hands(3), back, *hands(1)]
    out = results(log(*covered, seats=seats), {"ada": SETTLED, "bo": SETTLED})
    assert [s.status for s in out] == ["covered", "bot", "rated", "bot"]
    assert round(out[2].after.mu - SETTLED.mu, 1) == 9.2


def test_stats_and_records_count_the_hands_a_person_played_themselves():
    scored = ev.HandScored(
        maker=0,
        trump="H",
        alone=0,
        defender=None,
        tricks=5,
        how="march",
        team=0,
        points=4,
        score=[4, 0],
    )
    euchred = ev.HandScored(
        maker=0,
        trump="S",
        alone=None,
        defender=None,
        tricks=2,
        how="euchre",
        team=1,
        points=2,
        score=[4, 2],
    )
    away = ev.PlayerWentAway(seat=0, player="ada", reason="gone")
    back = ev.PlayerCameBack(seat=0, player="ada")
    events = log(scored, euchred, away, scored, back, bots="hard")
    game = game_of(events)
    (ada, *_) = rate(game, {})
    c = ada.counts
    assert (c.alone_made, c.marches, c.euchres_taken, c.euchred) == (1, 1, 0, 1)
    assert versus(game, 0) == "hard"
    stats = counted(Stats(), ada, versus(game, 0))
    assert stats.totals.games == 1 and stats.totals.won == 1
    assert stats.records["hard"].won == 1 and stats.records["hard"].marches == 1


def test_a_game_with_a_person_against_you_is_not_in_a_record_against_the_computer():
    game = game_of(log(seats=[person(0, "ada"), person(1, "bo")]))
    assert versus(game, 0) is None


@given(st.integers(0, 10_000))
def test_the_fold_agrees_with_the_rules_on_played_games(seed):
    people = [("ada", True), ("gus", False), ("bo", True), None]
    events = finished_game("T", seed, people, bots="easy", leaver=2)
    game = game_of(events)
    state = fold(events)
    assert game.winner == state.winner
    assert [s.player for s in game.seats] == [s.player for s in state.seats]
    assert [s.away for s in game.seats] == [s.away for s in state.seats]
    out = rate(game, {})
    assert [s.status for s in out][:3] == [
        "rated",
        "guest",
        "left" if state.seats[2].away else "rated",
    ]


# Ratings integrity (docs/ratings.md "Integrity"): the host's ban, the stand-up, the seat a bot
# played and the stalled game.


def test_a_partner_the_host_bans_in_a_lost_game_is_rated_as_having_lost():
    """Seen: a host banned their registered partner whenever the game was lost, and 6 of 6
    losses went unrated. A ban now voids nothing: the seat is rated as a bot played it out."""
    seats = [person(0, "ada"), person(2, "bo")]
    banned = ev.PlayerBanned(player="bo", seat=2, name="Bo")
    out = results(log(*hands(3), banned, *hands(1), seats=seats, winner=1), {"bo": SETTLED})
    assert out[2].status == "banned" and not out[2].won
    assert out[2].after is not None and out[2].after.mu < SETTLED.mu
    unbanned = results(log(seats=seats, winner=1), {"bo": SETTLED})[2]
    assert out[2].after == unbanned.after


def test_a_stranger_the_host_bans_in_a_won_game_is_not_charged_a_leave():
    seats = [person(0, "ada"), person(2, "bo")]
    banned = ev.PlayerBanned(player="bo", seat=2, name="Bo")
    out = results(log(*hands(3), banned, *hands(1), seats=seats, winner=0), {"bo": SETTLED})
    assert out[2].status == "banned" and out[2].won
    assert out[2].after.mu > SETTLED.mu


def sandbagged(winner: int) -> list:
    """Ada stands up at the start and lets the bot play; she sits back down and plays the
    last hand herself."""
    return log(
        ev.SeatLeft(seat=0, player="ada"),
        *hands(6),
        ev.SeatTaken(seat=0, player="ada", name="Ada", registered=True),
        *hands(1),
        winner=winner,
    )


def test_a_stand_up_not_back_within_the_grace_is_a_leave():
    """Seen: a player stood up at the start, let a bot play their seat and sat back down when
    ahead: 3 wins and 1 loss took them from 450 to 647 on a handful of their own moves."""
    known: dict[str, Rating] = {}
    for winner in (0, 0, 1, 0):
        events = sandbagged(winner)
        back = next(n for n, e in enumerate(events) if isinstance(e, ev.SeatTaken) and n > 5)
        game = game_of(events, timed(events, {back: 600.0}))
        (ada, *_) = rate(game, known)
        assert ada.status == "left" and not ada.won
        known["ada"] = ada.after
    assert known["ada"].display < NEW.display


def test_a_stand_up_back_within_the_grace_is_forgiven():
    events = log(
        *hands(2),
        ev.SeatLeft(seat=0, player="ada"),
        *hands(1),
        ev.SeatTaken(seat=0, player="ada", name="Ada", registered=True),
        *hands(2),
    )
    back = next(n for n, e in enumerate(events) if isinstance(e, ev.SeatTaken) and n > 5)
    game = game_of(events, timed(events, {back - 3: 100.0, back: 100.0 + GRACE_SECONDS - 1}))
    (ada, *_) = rate(game, {})
    assert ada.status == "rated" and ada.won


def test_a_seat_a_bot_played_mostly_is_not_credited_with_the_win():
    """Back within the grace each time, but the bot finished more than half the seat's hands:
    the win isn't theirs. A loss still counts."""
    absences = []
    for _ in range(4):
        absences += [
            ev.PlayerWentAway(seat=0, player="ada", reason="gone"),
            *hands(2),
            ev.PlayerCameBack(seat=0, player="ada"),
            *hands(1),
        ]
    seats = [person(0, "ada"), person(2, "bo")]
    (won, _, partner, _) = results(log(*absences, seats=seats, winner=0))
    assert won.status == "covered" and not won.won and won.after is None
    assert partner.status == "rated" and partner.won
    (lost, *_) = results(log(*absences, seats=seats, winner=1))
    assert lost.status == "rated" and lost.after.mu < NEW.mu


def test_a_stalled_game_charges_the_staller_alone():
    """Seen: with turn_limit off, a player who kept the stream open froze the game forever
    and it was never rated. The service ends it as abandoned, naming whose turn it was."""
    seats = [person(0, "ada"), person(1, "bo"), person(2, "cy")]
    events = log(
        *hands(2),
        ev.GameAbandoned(seat=1, player="bo"),
        seats=seats,
        winner=0,
    )
    events[-1] = ev.GameWon(team=0, score=[4, 6])
    out = results(events, {"ada": SETTLED, "bo": SETTLED, "cy": SETTLED})
    assert [s.status for s in out] == ["abandoned", "stalled", "abandoned", "bot"]
    assert out[1].after.mu < SETTLED.mu and not out[1].won
    assert out[0].after is None and out[2].after is None


def test_a_hinted_win_is_not_credited_and_a_hinted_loss_counts():
    """docs/ratings.md "Integrity": a hint is the expert's play, so a win after one isn't the
    person's; a loss still counts, so asking for a hint can't dodge one."""
    hinted = [*hands(2), ev.HintGiven(seat=0), *hands(3)]
    (alone, *bots) = results(log(*hinted, winner=0))
    assert alone.status == "hinted" and not alone.won and alone.after is None
    assert [b.status for b in bots] == ["bot"] * 3
    # With another registered seat the game is rated, and only the hinted seat's win is void.
    seats = [person(0, "ada"), person(2, "bo")]
    (won, _, partner, _) = results(log(*hinted, seats=seats, winner=0))
    assert won.status == "hinted" and not won.won and won.after is None
    assert partner.status == "rated" and partner.won
    (lost, *_) = results(log(*hinted, winner=1))
    assert lost.status == "rated" and not lost.won and lost.after.mu < NEW.mu
    (plain, *_) = results(log(*hands(5), winner=0))
    assert plain.status == "rated" and plain.won and plain.after.mu > NEW.mu


@pytest.mark.parametrize(
    ("points", "rated"), [(5, False), (7, False), (10, True), (11, True), (15, True)]
)
def test_a_game_to_fewer_than_10_points_rates_nobody_and_says_why(points, rated):
    """docs/ratings.md "Who is rated": the fewer the hands, the more the cards decide a game,
    and a string of short games against stronger sides would be a cheap climb. The target
    counts as it stood at the start: a host changing it in the waiting room changes it."""
    changed = ev.SettingsChanged(settings=HouseRules(points=points))
    events = log()
    events.insert(1, changed)  # in the waiting room, before anyone sat
    for winner in (0, 1):
        events[-1] = ev.GameWon(team=winner, score=[points, 0] if winner == 0 else [0, points])
        (ada, *bots) = results(events)
        assert [b.status for b in bots] == ["bot"] * 3
        if rated:
            assert ada.status == "rated" and ada.after is not None
        else:
            assert ada.status == "short" and ada.after is None and not ada.won
