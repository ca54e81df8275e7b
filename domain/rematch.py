"""Play again (docs/euchre.md "Play again"): at game over the host opens a new table with the
same house rules and bots; each person of the old game is invited and their seat kept for
them, until they take it or the service gives it to a bot of the table's level.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.errors import Conflict, IllegalMove, NotAllowed
from domain.phases import Evolve
from domain.state import State

HOLD_SECONDS = 60.0  # how long the invited have to take their seats


def hold_seats(s: State, c: cmd.HoldSeats) -> list[ev.Event]:
    if c.player != s.host:
        raise NotAllowed("only the host may keep seats")
    if s.status != "waiting":
        raise Conflict("the game has started; there are no seats to keep")
    if len(c.players) != 4:
        raise IllegalMove("name a player or none for each of the four seats", field="players")
    for n, player in enumerate(c.players):
        seat = s.seats[n]
        if player is not None and (seat.player is not None or seat.bot is not None):
            raise Conflict(f"seat {n} is taken; it can't be kept for anyone")
    return [ev.SeatsHeld(players=list(c.players))]


def give_held_seats(s: State, c: cmd.GiveHeldSeats) -> list[ev.Event]:
    if s.status != "waiting" or not any(s.held):
        raise Conflict("no seat is kept here")
    return [ev.BotSeated(seat=n, level=s.bots) for n, p in enumerate(s.held) if p is not None]


def offer_rematch(s: State, c: cmd.OfferRematch) -> list[ev.Event]:
    if c.player != s.host:
        raise NotAllowed("only the host may open the next table")
    if s.status != "over":
        raise Conflict("the game isn't over yet")
    if s.again is not None:
        raise Conflict(f"the next table is open already: {s.again}")
    return [ev.RematchOffered(code=c.code)]


def kept_for(s: State, seat: int, player: str) -> None:
    """Refuses a seat kept for someone else."""
    held = s.held[seat]
    if held is not None and held != player:
        raise Conflict(f"seat {seat} is kept for a player of the last game for a minute")


COMMANDS: dict[type[cmd.Command], Callable[[State, Any], list[ev.Event]]] = {
    cmd.HoldSeats: hold_seats,
    cmd.GiveHeldSeats: give_held_seats,
    cmd.OfferRematch: offer_rematch,
}


def unheld(s: State, seat: int) -> tuple[str | None, ...]:
    """The seats kept, less `seat`: taken now, by its person or a bot."""
    return tuple(None if n == seat else p for n, p in enumerate(s.held))


def _held(s: State, e: ev.SeatsHeld) -> State:
    return replace(s, seq=s.seq + 1, held=tuple(e.players))


def _offered(s: State, e: ev.RematchOffered) -> State:
    return replace(s, seq=s.seq + 1, again=e.code)


EVOLVE: Evolve = {ev.SeatsHeld: _held, ev.RematchOffered: _offered}
