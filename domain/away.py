"""Away and back (docs/euchre.md "Away and back"): a person who stops answering is covered by
a bot of the table's level, and takes the seat back by opening the table again or moving.

The service notices who stopped answering (no stream and no request for `GRACE_SECONDS`, or
their own decision unmade past the turn limit) and says so with `MarkAway`; the rules only
check that the seat is a person's, not yet away and, for a timeout, deciding. A person who
left by choice, timed out `TIMEOUTS_TO_LEAVE` times in the game or was banned stays covered
until they sit down again (`lifecycle.take_seat`); `ComeBack`, or any move of theirs
(`MakeMove`), is for the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.errors import Conflict, IllegalMove, NotAllowed
from domain.house_rules import Pace
from domain.phases import Evolve
from domain.state import Seat, State, ready_with, seats_with

GRACE_SECONDS = 20.0
TURN_LIMIT_SECONDS: dict[Pace, float] = {"brisk": 60.0, "relaxed": 120.0}
TIMEOUTS_TO_LEAVE = 3


def turn_limit(s: State) -> float | None:
    """How long a person may take over their own decision at this table, if there's a limit."""
    return TURN_LIMIT_SECONDS[s.settings.bot_pace] if s.settings.turn_limit == "on" else None


def mark_away(s: State, c: cmd.MarkAway) -> list[ev.Event]:
    from domain.decider import deciding  # the decider dispatches to this module

    if not 0 <= c.seat <= 3:
        raise IllegalMove("seat must be 0, 1, 2 or 3", field="seat", allowed=["0", "1", "2", "3"])
    if s.status != "playing":
        raise Conflict("only a game under way has seats to cover")
    seat = s.seats[c.seat]
    if seat.player is None:
        raise Conflict(f"seat {c.seat} is a bot's")
    if seat.away:
        raise Conflict(f"a bot already covers seat {c.seat}")
    if c.reason == "timeout":
        if turn_limit(s) is None:
            raise Conflict("this table has no turn limit")
        if all(d.seat != c.seat for d in deciding(s)):
            raise Conflict(f"seat {c.seat} has nothing to decide")
    return [ev.PlayerWentAway(seat=c.seat, player=seat.player, reason=c.reason)]


def own_seat(s: State, player: str) -> int:
    """The seat `player` sits in; refused if they sit at none."""
    n = s.seat_of(player)
    if n is None:
        raise NotAllowed("you don't sit at this table", field="code")
    return n


def come_back(s: State, c: cmd.ComeBack) -> list[ev.Event]:
    n = own_seat(s, c.player)
    seat = s.seats[n]
    if not seat.away:
        raise Conflict("you are at the table")
    if s.is_banned(c.player):
        raise NotAllowed("you were banned from this table")
    if seat.left:
        raise Conflict("you left the table: sit down in your seat again to come back")
    return [ev.PlayerCameBack(seat=n, player=c.player)]


def back_to_move(s: State, c: cmd.MakeMove) -> list[ev.Event]:
    """What a person's move says before the move itself: that they are back, if away."""
    n = own_seat(s, c.player)
    if c.move.seat != n:
        raise NotAllowed(f"you sit in seat {n}, not seat {c.move.seat}", field="seat")
    return come_back(s, cmd.ComeBack(player=c.player)) if s.seats[n].away else []


COMMANDS: dict[type[cmd.Command], Callable[[State, Any], list[ev.Event]]] = {
    cmd.MarkAway: mark_away,
    cmd.ComeBack: come_back,
}


def covered(s: State, n: int, *, left: bool = False, timeout: bool = False) -> State:
    """Seat `n`'s person is away: a bot of the table's level plays for them, ready at once
    between hands as bots always are."""
    old = s.seats[n]
    timeouts = old.timeouts + timeout
    seat = replace(
        old,
        away=True,
        bot=old.bot or s.bots,
        timeouts=timeouts,
        left=old.left or left or timeouts >= TIMEOUTS_TO_LEAVE,
    )
    ready = ready_with(s, n, True)
    return replace(
        s, seq=s.seq + 1, seats=seats_with(s, n, seat), deal=replace(s.deal, ready=ready)
    )


def uncovered(s: State, n: int, seat: Seat) -> State:
    """The person is back in seat `n`: the bot steps aside, and between hands the person has
    yet to say they are ready."""
    ready = ready_with(s, n, False) if s.phase == "scored" and s.seats[n].is_bot else s.deal.ready
    return replace(
        s, seq=s.seq + 1, seats=seats_with(s, n, seat), deal=replace(s.deal, ready=ready)
    )


def _went_away(s: State, e: ev.PlayerWentAway) -> State:
    return covered(s, e.seat, timeout=e.reason == "timeout")


def _came_back(s: State, e: ev.PlayerCameBack) -> State:
    return uncovered(s, e.seat, replace(s.seats[e.seat], away=False))


EVOLVE: Evolve = {
    ev.PlayerWentAway: _went_away,
    ev.PlayerCameBack: _came_back,
}
