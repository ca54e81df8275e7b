"""§ Away and back: a bot covers a person who stopped answering, from the decision pending then,
and the person takes the seat back by opening the table or moving; leaving, three timeouts or
a ban keep the bot in the seat until they sit down again."""

from __future__ import annotations

import pytest
from euchre_kit import finish, plain, refused, run

from domain import Conflict, NotAllowed, NotYourTurn, apply, deciding, legal
from domain import commands as cmd
from domain import events as ev
from domain.away import TIMEOUTS_TO_LEAVE, turn_limit
from domain.state import State


def people() -> State:
    """Four people, p0 the host, seat 1 to bid first."""
    return plain(dealer=0, humans=True)


def test_a_person_gone_is_covered_by_the_tables_bot_from_the_pending_decision():
    state = people()
    assert deciding(state)[0].seat == 1
    state, events = run(state, cmd.MarkAway(seat=1, reason="gone"))
    assert events == [ev.PlayerWentAway(seat=1, player="p1", reason="gone")]
    seat = state.seats[1]
    assert seat.away and seat.is_bot and seat.bot == "medium" and not seat.left
    assert seat.player == "p1"  # still theirs: the bot only covers it


def test_a_timeout_needs_the_seat_to_be_deciding_and_the_table_to_have_a_limit():
    state = people()
    refused(state, cmd.MarkAway(seat=2, reason="timeout"), Conflict)
    run(state, cmd.MarkAway(seat=1, reason="timeout"))
    no_limit = plain(dealer=0, humans=True, settings={"turn_limit": "off"})
    assert turn_limit(no_limit) is None
    refused(no_limit, cmd.MarkAway(seat=1, reason="timeout"), Conflict)
    assert turn_limit(people()) == 60.0
    assert turn_limit(plain(humans=True, settings={"bot_pace": "relaxed"})) == 120.0


def test_only_a_persons_seat_not_yet_away_can_be_marked_away():
    bots = plain(dealer=0)
    refused(bots, cmd.MarkAway(seat=1, reason="gone"), Conflict)
    state, _ = run(people(), cmd.MarkAway(seat=1, reason="gone"))
    refused(state, cmd.MarkAway(seat=1, reason="gone"), Conflict)


def test_coming_back_gives_the_person_the_decision_the_bot_had():
    state, _ = run(people(), cmd.MarkAway(seat=1, reason="gone"))
    state, events = run(state, cmd.ComeBack(player="p1"))
    assert events == [ev.PlayerCameBack(seat=1, player="p1")]
    assert not state.seats[1].away and not state.seats[1].is_bot
    assert deciding(state)[0].seat == 1
    state, _ = apply(state, cmd.Pass(seat=1))


def test_someone_not_away_or_not_seated_cannot_come_back():
    refused(people(), cmd.ComeBack(player="p1"), Conflict)
    refused(people(), cmd.ComeBack(player="stranger"), NotAllowed)


def test_a_persons_move_is_theirs_only_from_their_own_seat():
    refused(people(), cmd.MakeMove(player="p2", move=cmd.Pass(seat=1)), NotAllowed)
    refused(people(), cmd.MakeMove(player="stranger", move=cmd.Pass(seat=1)), NotAllowed)
    _, events = run(people(), cmd.MakeMove(player="p1", move=cmd.Pass(seat=1)))
    assert events == [ev.BidPassed(seat=1, round=1)]


def test_a_person_away_who_moves_is_back_and_the_move_is_made():
    state, _ = run(people(), cmd.MarkAway(seat=1, reason="gone"))
    state, events = run(state, cmd.MakeMove(player="p1", move=cmd.Pass(seat=1)))
    assert events == [ev.PlayerCameBack(seat=1, player="p1"), ev.BidPassed(seat=1, round=1)]
    assert not state.seats[1].away and not state.seats[1].is_bot
    refused(state, cmd.MakeMove(player="p1", move=cmd.Pass(seat=1)), NotYourTurn)


def test_a_move_out_of_turn_by_a_person_away_leaves_them_away():
    state, _ = run(people(), cmd.MarkAway(seat=2, reason="gone"))
    refused(state, cmd.MakeMove(player="p2", move=cmd.Pass(seat=2)), NotYourTurn)
    assert state.seats[2].away


def test_three_timeouts_keep_the_bot_in_the_seat_until_the_person_sits_down():
    state = people()
    for n in range(TIMEOUTS_TO_LEAVE):
        while deciding(state)[0].seat != 1:
            d = deciding(state)[0]
            state, _ = apply(state, _pass_or_first(state, d.seat))
        state, _ = run(state, cmd.MarkAway(seat=1, reason="timeout"))
        assert state.seats[1].timeouts == n + 1
        if n + 1 < TIMEOUTS_TO_LEAVE:
            assert not state.seats[1].left
            state, _ = run(state, cmd.ComeBack(player="p1"))
    assert state.seats[1].left
    refused(state, cmd.ComeBack(player="p1"), Conflict)
    state, events = run(state, cmd.TakeSeat(player="p1", name="P1", seat=1))
    assert [type(e) for e in events] == [ev.SeatTaken]
    assert not state.seats[1].away and not state.seats[1].left
    assert state.seats[1].timeouts == TIMEOUTS_TO_LEAVE  # counted for the whole game


def test_a_person_who_left_comes_back_only_by_sitting_down():
    state, _ = run(people(), cmd.LeaveSeat(player="p2", seat=2))
    assert state.seats[2].away and state.seats[2].left
    refused(state, cmd.ComeBack(player="p2"), Conflict)
    refused(state, cmd.MakeMove(player="p2", move=cmd.Pass(seat=2)), Conflict)
    state, _ = run(state, cmd.TakeSeat(player="p2", name="P2", seat=2))
    assert not state.seats[2].away


def test_away_between_hands_is_ready_at_once_and_back_is_not_yet():
    state = people()
    while state.phase != "play":
        d = deciding(state)[0]
        state, _ = apply(state, _pass_or_first(state, d.seat))
    state, _ = finish(state)
    assert state.phase == "scored"
    state, _ = run(state, cmd.MarkAway(seat=3, reason="gone"))
    assert state.deal.ready[3]
    state, _ = run(state, cmd.ComeBack(player="p3"))
    assert not state.deal.ready[3]


@pytest.mark.parametrize("reason", ["gone", "timeout"])
def test_nothing_is_marked_away_before_the_start_or_after_the_end(reason):
    waiting, _ = run(State(), cmd.OpenTable(code="W", host="p0", name="P0", seed="ab" * 32))
    refused(waiting, cmd.MarkAway(seat=0, reason=reason), Conflict)


def _pass_or_first(state: State, seat: int) -> cmd.Command:
    options = legal(state, seat)
    return next((o for o in options if isinstance(o, cmd.Pass)), options[0])
