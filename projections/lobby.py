"""The lobby: tables still waiting for players, as rows a follower keeps from the global log.

Pure: given a row (or None) and the next event of that table, the row after it.
`infra/lobby.py` stores the rows and the follower's checkpoint in one transaction.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from domain import events as ev


class LobbySeat(msgspec.Struct, frozen=True):
    seat: int
    name: str | None = None
    bot: str | None = None


class LobbyRow(msgspec.Struct, frozen=True):
    code: str
    host: str
    host_name: str | None
    settings: dict[str, str | int]
    bots: str
    seats: list[LobbySeat]
    open_seats: int
    opened_at: str  # ISO time of the TableOpened event
    position: int  # of the TableOpened event: newest first is highest first
    locked: bool = False  # kept, not listed: unlocking lists it again


# The events that can change a lobby row, by the name the log stores them under: the follower
# skips the rest without decoding them or reading rows.
CHANGES_LOBBY = frozenset(
    cls.__name__
    for cls in (
        ev.TableOpened,
        ev.SeatTaken,
        ev.SeatLeft,
        ev.BotSeated,
        ev.BotRemoved,
        ev.SettingsChanged,
        ev.StartCalled,
        ev.GameStarted,
        ev.TableLocked,
        ev.TableUnlocked,
        ev.PlayerBanned,
        ev.SeatsSwapped,
        ev.TableClosed,
    )
)


def _with_seat(row: LobbyRow, seat: LobbySeat) -> LobbyRow:
    seats = [seat if s.seat == seat.seat else s for s in row.seats]
    open_seats = sum(1 for s in seats if s.name is None and s.bot is None)
    return msgspec.structs.replace(row, seats=seats, open_seats=open_seats)


def next_row(row: LobbyRow | None, event: ev.Event, at: datetime, position: int) -> LobbyRow | None:
    """The lobby row after one event, logged at `at` and `position`; None once the table is
    no longer waiting."""
    if isinstance(event, ev.TableOpened):
        return LobbyRow(
            code=event.code,
            host=event.host,
            host_name=None,
            settings=msgspec.structs.asdict(event.settings),
            bots=event.bots,
            seats=[LobbySeat(seat=n) for n in range(4)],
            open_seats=4,
            opened_at=at.isoformat(),
            position=position,
        )
    if row is None:
        return None
    match event:
        case ev.SeatTaken(seat=seat, player=player, name=name):
            row = _with_seat(row, LobbySeat(seat=seat, name=name))
            if player == row.host:
                row = msgspec.structs.replace(row, host_name=name)
            return row
        case ev.SeatLeft(seat=seat) | ev.BotRemoved(seat=seat):
            return _with_seat(row, LobbySeat(seat=seat))
        case ev.BotSeated(seat=seat, level=level):
            return _with_seat(row, LobbySeat(seat=seat, bot=level))
        case ev.SettingsChanged(settings=rules):
            return msgspec.structs.replace(row, settings=msgspec.structs.asdict(rules))
        case ev.StartCalled() | ev.GameStarted() | ev.TableClosed():
            return None
        case ev.TableLocked() | ev.TableUnlocked():
            return msgspec.structs.replace(row, locked=isinstance(event, ev.TableLocked))
        case ev.PlayerBanned(seat=int(seat)):
            return _with_seat(row, LobbySeat(seat=seat, bot=row.bots))
        case ev.SeatsSwapped(seats=[a, b]):
            first, second = row.seats[a], row.seats[b]
            row = _with_seat(row, msgspec.structs.replace(second, seat=a))
            return _with_seat(row, msgspec.structs.replace(first, seat=b))
    return row
