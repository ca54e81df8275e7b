"""A table the house closes (docs/euchre.md "A table the house closes"): nothing more is
allowed at it, nobody wins, the game isn't rated, and its secrets stay sealed."""

from __future__ import annotations

import pytest
from rated_kit import finished_game

from domain import commands as cmd
from domain import deciding, fold, legal, view
from domain import events as ev
from domain.errors import Conflict, IllegalMove
from domain.game import apply
from domain.state import State
from projections.ratings import game_of, rate

SEED = "5e" * 32
PEOPLE = [("ada", True), ("gus", True), ("bo", True), ("cy", True)]


def under_way(moves: int = 6) -> tuple[State, list[ev.Event]]:
    events = finished_game("SHUT", 3, PEOPLE)
    started = next(n for n, e in enumerate(events) if isinstance(e, ev.GameStarted))
    kept = events[: started + moves]
    return fold(kept), kept


def test_a_closed_game_is_over_with_nobody_winning_and_refuses_every_command() -> None:
    state, _ = under_way()
    seat = deciding(state)[0].seat
    state, made = apply(state, cmd.CloseTable(reason="  abuse reported  "))
    assert made == [ev.TableClosed(reason="abuse reported")]
    assert state.status == "over" and state.closed == "abuse reported"
    assert state.winner is None and deciding(state) == [] and legal(state, seat) == []
    for command in (
        cmd.Play(seat=seat, card="JS"),
        cmd.Say(player="ada", name="Ada", text="hello?"),
        cmd.TakeSeat(player="zed", name="Zed", seat=1),
        cmd.OfferRematch(player="ada", code="AGAIN"),
        cmd.CloseTable(reason="again"),
    ):
        with pytest.raises(Conflict, match="closed by the house: abuse reported"):
            apply(state, command)


def test_the_view_says_why_and_keeps_the_seed_sealed() -> None:
    state, _ = under_way()
    state, _ = apply(state, cmd.CloseTable(reason="fault"))
    shown = view(state, 0)
    assert shown.closed == "fault" and shown.status == "over"
    assert shown.seed is None and shown.can == {}
    won = fold(finished_game("WON", 3, PEOPLE))
    assert view(won, 0).closed is None and view(won, 0).seed is not None


def test_a_waiting_table_closes_and_a_finished_one_cant() -> None:
    waiting, _ = apply(State(), cmd.OpenTable(code="WAIT", host="ada", name="Ada", seed=SEED))
    closed, _ = apply(waiting, cmd.CloseTable(reason="spam"))
    assert closed.status == "over"
    with pytest.raises(Conflict, match="over already"):
        apply(fold(finished_game("WON", 4, PEOPLE)), cmd.CloseTable(reason="late"))
    with pytest.raises(Conflict, match="no such table"):
        apply(State(), cmd.CloseTable(reason="nothing there"))


@pytest.mark.parametrize("reason", ["", "   ", "two\nlines", "x" * 501])
def test_a_reason_is_one_printable_line(reason: str) -> None:
    state, _ = under_way()
    with pytest.raises(IllegalMove):
        apply(state, cmd.CloseTable(reason=reason))


def test_a_closed_game_is_never_rated() -> None:
    state, events = under_way(moves=200)
    assert state.status == "playing"
    _, made = apply(state, cmd.CloseTable(reason="fault"))
    game = game_of([*events, *made])
    assert game is not None and rate(game, {}) is None
