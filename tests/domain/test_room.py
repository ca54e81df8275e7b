"""§ The room: the host locks and unlocks, bans, and chooses partners; who may watch."""

from __future__ import annotations

import pytest
from euchre_kit import SEED, plain, refused, run

from domain import Conflict, NotAllowed
from domain import commands as cmd
from domain import events as ev
from domain.room import may_watch
from domain.state import State


def waiting(*sitting: str) -> State:
    """p0 hosts in seat 0; the others sit in seats 1, 2, 3 in order."""
    state, _ = run(State(), cmd.OpenTable(code="ROOM", host="p0", name="P0", seed=SEED))
    for n, player in enumerate(sitting, start=1):
        state, _ = run(state, cmd.TakeSeat(player=player, name=player.upper(), seat=n))
    return state


def test_a_locked_table_takes_nobody_new_but_its_people_may_move():
    state, events = run(waiting("p1"), cmd.LockTable(player="p0"))
    assert events == [ev.TableLocked()] and state.locked
    refused(state, cmd.TakeSeat(player="p9", name="P9", seat=2), NotAllowed)
    state, _ = run(state, cmd.TakeSeat(player="p1", name="P1", seat=3))  # already here
    state, _ = run(state, cmd.UnlockTable(player="p0"))
    run(state, cmd.TakeSeat(player="p9", name="P9", seat=2))


def test_locking_is_the_hosts_and_says_when_it_changes_nothing():
    refused(waiting("p1"), cmd.LockTable(player="p1"), NotAllowed)
    refused(waiting(), cmd.UnlockTable(player="p0"), Conflict)
    state, _ = run(waiting(), cmd.LockTable(player="p0"))
    refused(state, cmd.LockTable(player="p0"), Conflict)


def test_people_seated_at_a_locked_table_still_come_back_during_the_game():
    state = plain(dealer=0, humans=True)
    state, _ = run(state, cmd.LockTable(player="p0"), cmd.LeaveSeat(player="p2", seat=2))
    state, _ = run(state, cmd.TakeSeat(player="p2", name="P2", seat=2))
    assert not state.seats[2].away


def test_a_banned_player_loses_the_seat_to_a_bot_before_the_start_and_cannot_return():
    state, events = run(waiting("p1", "p2"), cmd.BanPlayer(player="p0", banned="p2"))
    assert events == [ev.PlayerBanned(player="p2", seat=2, name="P2")]
    assert state.seats[2].player is None and state.seats[2].bot == "medium"
    refused(state, cmd.TakeSeat(player="p2", name="P2", seat=3), NotAllowed)
    with pytest.raises(NotAllowed):
        may_watch(state, "p2")


def test_a_banned_player_in_a_game_is_covered_to_the_end():
    state = plain(dealer=0, humans=True)
    state, _ = run(state, cmd.BanPlayer(player="p0", banned="p3"))
    seat = state.seats[3]
    assert seat.away and seat.left and seat.is_bot and state.is_banned("p3")
    refused(state, cmd.ComeBack(player="p3"), NotAllowed)
    refused(state, cmd.TakeSeat(player="p3", name="P3", seat=3), NotAllowed)


def test_a_spectator_can_be_banned_and_nobody_bans_the_host_or_twice():
    state, events = run(waiting(), cmd.BanPlayer(player="p0", banned="watcher"))
    assert events == [ev.PlayerBanned(player="watcher", seat=None, name=None)]
    refused(state, cmd.BanPlayer(player="p0", banned="watcher"), Conflict)
    refused(state, cmd.BanPlayer(player="p0", banned="p0"), Conflict)
    refused(state, cmd.BanPlayer(player="watcher", banned="p0"), NotAllowed)


def test_the_hosts_partner_becomes_whoever_sits_in_the_chosen_seat():
    state = waiting("p1", "p2", "p3")
    state, events = run(state, cmd.ChoosePartner(player="p0", seat=1))
    assert events == [ev.SeatsSwapped(seats=[1, 2])]
    assert [s.player for s in state.seats] == ["p0", "p2", "p1", "p3"]
    state, _ = run(state, cmd.ChoosePartner(player="p0", seat=3))
    assert [s.player for s in state.seats] == ["p0", "p2", "p3", "p1"]


def test_partners_are_chosen_by_the_host_before_the_start_among_those_seated():
    state = waiting("p1")
    refused(state, cmd.ChoosePartner(player="p1", seat=0), NotAllowed)
    refused(state, cmd.ChoosePartner(player="p0", seat=0), Conflict)
    refused(state, cmd.ChoosePartner(player="p0", seat=3), Conflict)  # nobody there
    state, _ = run(state, cmd.SeatBot(player="p0", seat=2, level="hard"))
    refused(state, cmd.ChoosePartner(player="p0", seat=2), Conflict)  # already the partner
    state, _ = run(state, cmd.ChoosePartner(player="p0", seat=1))
    assert state.seats[2].player == "p1" and state.seats[1].bot == "hard"
    refused(plain(humans=True), cmd.ChoosePartner(player="p0", seat=1), Conflict)


def test_who_may_not_watch_may_not_talk_either():
    state, _ = run(waiting("p1"), cmd.BanPlayer(player="p0", banned="p1"))
    refused(state, cmd.Say(player="p1", name="P1", text="let me back"), NotAllowed)
    refused(state, cmd.React(player="p1", name="P1", emoji="🤔"), NotAllowed)
    run(state, cmd.Say(player="watcher", name="W", text="hello"))


def test_with_spectators_off_only_the_tables_players_may_watch():
    state, _ = run(
        State(),
        cmd.OpenTable(code="ROOM", host="p0", name="P0", seed=SEED, settings={"spectators": "off"}),
    )
    may_watch(state, "p0")
    for outsider in ("stranger", None):
        with pytest.raises(NotAllowed):
            may_watch(state, outsider)
    may_watch(waiting(), None)
