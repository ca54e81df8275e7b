"""A stalled game (docs/euchre.md "A stalled game"): a person who keeps the table open but
never makes their decision would hold the game forever where there is no turn limit, so the
service ends it as abandoned, naming them, and the other side wins by it.

The service's clock notices (no event for `STALL_SECONDS` while a person present decides) and
says so with `EndStalled`; the rules only check that the seat is a person's, present and
deciding.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.errors import Conflict, IllegalMove
from domain.phases import Evolve
from domain.state import State, team

# Long past any turn limit (domain/away.py): only a table without one stalls this long.
STALL_SECONDS = 300.0


def end_stalled(s: State, c: cmd.EndStalled) -> list[ev.Event]:
    from domain.decider import deciding  # the decider dispatches to this module

    if not 0 <= c.seat <= 3:
        raise IllegalMove("seat must be 0, 1, 2 or 3", field="seat", allowed=["0", "1", "2", "3"])
    if s.status != "playing":
        raise Conflict("only a game under way can stall")
    seat = s.seats[c.seat]
    if seat.player is None or seat.away:
        raise Conflict(f"a bot plays seat {c.seat}: it can't stall the game")
    if all(d.seat != c.seat for d in deciding(s)):
        raise Conflict(f"seat {c.seat} has nothing to decide")
    return [ev.GameAbandoned(seat=c.seat, player=seat.player)]


def forfeit(s: State) -> ev.GameWon | None:
    """Once a game is abandoned, the side that didn't stall it wins, at the score as it is."""
    if s.stalled is None or s.status != "playing":
        return None
    return ev.GameWon(team=1 - team(s.stalled), score=list(s.score))


COMMANDS: dict[type[cmd.Command], Callable[[State, Any], list[ev.Event]]] = {
    cmd.EndStalled: end_stalled,
}


def _abandoned(s: State, e: ev.GameAbandoned) -> State:
    return replace(s, seq=s.seq + 1, stalled=e.seat)


EVOLVE: Evolve = {ev.GameAbandoned: _abandoned}
