"""§ Play again: the host offers the next table at game over; seats are kept for the last
game's people until they take them or bots are given them."""

from __future__ import annotations

from euchre_kit import SEED, refused, run
from msgspec.structs import replace

from domain import Conflict, NotAllowed
from domain import commands as cmd
from domain import events as ev
from domain.state import State


def over() -> State:
    """p0 hosts; the game is over (as a fold would leave it)."""
    state, _ = run(State(), cmd.OpenTable(code="OLD", host="p0", name="P0", seed=SEED))
    return replace(state, status="over", phase="over")


def reopened() -> State:
    """The next table: p0 back in seat 0, a hard bot in seat 1, seats 2 and 3 kept."""
    state, _ = run(
        State(),
        cmd.OpenTable(code="NEW", host="p0", name="P0", seed=SEED),
        cmd.SeatBot(player="p0", seat=1, level="hard"),
        cmd.HoldSeats(player="p0", players=[None, None, "p2", "p3"]),
    )
    return state


def test_the_host_offers_the_next_table_once_the_game_is_over():
    state, events = run(over(), cmd.OfferRematch(player="p0", code="NEW"))
    assert events == [ev.RematchOffered(code="NEW")] and state.again == "NEW"
    refused(state, cmd.OfferRematch(player="p0", code="NEWER"), Conflict)
    refused(over(), cmd.OfferRematch(player="p1", code="NEW"), NotAllowed)
    waiting, _ = run(State(), cmd.OpenTable(code="W", host="p0", name="P0", seed=SEED))
    refused(waiting, cmd.OfferRematch(player="p0", code="NEW"), Conflict)


def test_a_kept_seat_is_its_players_alone():
    state = reopened()
    assert state.held == (None, None, "p2", "p3")
    refused(state, cmd.TakeSeat(player="p9", name="P9", seat=2), Conflict)
    state, _ = run(state, cmd.TakeSeat(player="p2", name="P2", seat=2))
    assert state.held == (None, None, None, "p3") and state.seats[2].player == "p2"


def test_the_seats_still_kept_go_to_bots_of_the_tables_level():
    state, _ = run(reopened(), cmd.TakeSeat(player="p3", name="P3", seat=3))
    state, events = run(state, cmd.GiveHeldSeats())
    assert events == [ev.BotSeated(seat=2, level="medium")]
    assert state.held == (None, None, None, None)
    refused(state, cmd.GiveHeldSeats(), Conflict)


def test_only_empty_seats_are_kept_and_only_by_the_host_before_the_start():
    state, _ = run(State(), cmd.OpenTable(code="NEW", host="p0", name="P0", seed=SEED))
    refused(state, cmd.HoldSeats(player="p0", players=["p5", None, None, None]), Conflict)
    refused(state, cmd.HoldSeats(player="p1", players=[None, "p1", None, None]), NotAllowed)


def test_the_start_gives_kept_seats_bots_and_keeps_nothing():
    state, _ = run(reopened(), cmd.StartGame(player="p0"))
    assert state.held == (None, None, None, None)
    assert [s.bot for s in state.seats[2:]] == ["medium", "medium"]
