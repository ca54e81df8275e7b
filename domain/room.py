"""The host's room (docs/euchre.md "The room"): locking the table, banning a player, choosing
partners before the start, and who may watch.

A lock keeps new people out and lets those already seated come back; a ban sends a player
away for good, a seat they held going to a bot. Partners are chosen by moving seats: the
rules' teams stay seat % 2.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.away import covered
from domain.errors import Conflict, IllegalMove, NotAllowed
from domain.phases import Evolve
from domain.state import Seat, State, partner, seats_with

# Bans a table holds at most: every view lists them, and a host with a script once grew the
# view to 28 KB with 300. A table needing more is better closed and opened again.
MAX_BANS = 30


def _host(s: State, player: str, what: str) -> None:
    if player != s.host:
        raise NotAllowed(f"only the host may {what}")
    if s.status == "over":
        raise Conflict(f"the game is over; there is no need to {what}")


def lock_table(s: State, c: cmd.LockTable) -> list[ev.Event]:
    _host(s, c.player, "lock the table")
    if s.locked:
        raise Conflict("the table is locked already")
    return [ev.TableLocked()]


def unlock_table(s: State, c: cmd.UnlockTable) -> list[ev.Event]:
    _host(s, c.player, "unlock the table")
    if not s.locked:
        raise Conflict("the table isn't locked")
    return [ev.TableUnlocked()]


def ban_player(s: State, c: cmd.BanPlayer) -> list[ev.Event]:
    _host(s, c.player, "ban a player")
    if c.banned == c.player:
        raise Conflict("you can't ban yourself")
    if s.is_banned(c.banned):
        raise Conflict("that player is banned already")
    if len(s.banned) >= MAX_BANS:
        raise Conflict(f"a table holds at most {MAX_BANS} bans; open a new table to start afresh")
    n = s.seat_of(c.banned)
    name = None if n is None else s.seats[n].name
    return [ev.PlayerBanned(player=c.banned, seat=n, name=name)]


def choose_partner(s: State, c: cmd.ChoosePartner) -> list[ev.Event]:
    if not 0 <= c.seat <= 3:
        raise IllegalMove("seat must be 0, 1, 2 or 3", field="seat", allowed=["0", "1", "2", "3"])
    if c.player != s.host:
        raise NotAllowed("only the host may choose partners")
    if s.status != "waiting":
        raise Conflict("the game has started; partners are as they sit")
    mine = s.host_seat()
    if mine is None:
        raise Conflict("sit down first: your partner is whoever sits across from you")
    if c.seat == mine:
        raise Conflict("you can't be your own partner")
    there = s.seats[c.seat]
    if there.player is None and there.bot is None:
        raise Conflict(f"nobody sits in seat {c.seat}")
    if c.seat == partner(mine) and there.name is None:
        raise Conflict("that bot is your partner already")
    if c.seat == partner(mine):
        raise Conflict(f"{there.name} is your partner already")
    return [ev.SeatsSwapped(seats=[c.seat, partner(mine)])]


def may_watch(s: State, player: str | None) -> None:
    """Refuses a viewer the table won't show itself to: a banned player, or anyone not seated
    where the house rule keeps spectators out."""
    if player is not None and s.is_banned(player):
        raise NotAllowed("you were banned from this table")
    seated = player is not None and s.seat_of(player) is not None
    if s.settings.spectators == "off" and not seated:
        raise NotAllowed("this table doesn't take spectators: only its players may watch")


COMMANDS: dict[type[cmd.Command], Callable[[State, Any], list[ev.Event]]] = {
    cmd.LockTable: lock_table,
    cmd.UnlockTable: unlock_table,
    cmd.BanPlayer: ban_player,
    cmd.ChoosePartner: choose_partner,
}


def _locked(s: State, e: ev.TableLocked) -> State:
    return replace(s, seq=s.seq + 1, locked=True)


def _unlocked(s: State, e: ev.TableUnlocked) -> State:
    return replace(s, seq=s.seq + 1, locked=False)


def _banned(s: State, e: ev.PlayerBanned) -> State:
    """Before the start the seat goes to a bot of the table's level (the host may take it
    out); during the game a bot covers it to the end."""
    s = replace(s, banned=(*s.banned, (e.player, e.name)))
    n = e.seat
    if n is None:
        return replace(s, seq=s.seq + 1)
    if s.status == "waiting":
        return replace(s, seq=s.seq + 1, seats=seats_with(s, n, Seat(bot=s.bots)))
    return covered(s, n, left=True)


def _swapped(s: State, e: ev.SeatsSwapped) -> State:
    a, b = e.seats
    seats = list(s.seats)
    seats[a], seats[b] = seats[b], seats[a]
    return replace(s, seq=s.seq + 1, seats=tuple(seats))


EVOLVE: Evolve = {
    ev.TableLocked: _locked,
    ev.TableUnlocked: _unlocked,
    ev.PlayerBanned: _banned,
    ev.SeatsSwapped: _swapped,
}
