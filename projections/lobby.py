"""The lobby: tables still waiting for players, as rows a follower keeps from the global log.

Pure: given a row (or None) and the next logged event of that table, the row after it.
`infra/lobby.py` stores the rows and the follower's checkpoint in one transaction.
"""

from __future__ import annotations

from typing import Any

import msgspec


class LobbySeat(msgspec.Struct, frozen=True):
    seat: int
    name: str | None = None
    bot: str | None = None


class LobbyRow(msgspec.Struct, frozen=True):
    code: str
    host: str
    host_name: str | None
    settings: dict[str, str]
    bots: str
    seats: list[LobbySeat]
    open_seats: int
    opened_at: str  # ISO time of the TableOpened event
    position: int  # of the TableOpened event: newest first is highest first


# The events that can change a lobby row; the follower skips the rest without reading rows.
CHANGES_LOBBY = frozenset(
    {
        "TableOpened",
        "SeatTaken",
        "SeatLeft",
        "BotSeated",
        "BotRemoved",
        "SettingsChanged",
        "GameStarted",
    }
)


def _with_seat(row: LobbyRow, seat: LobbySeat) -> LobbyRow:
    seats = [seat if s.seat == seat.seat else s for s in row.seats]
    open_seats = sum(1 for s in seats if s.name is None and s.bot is None)
    return msgspec.structs.replace(row, seats=seats, open_seats=open_seats)


def next_row(row: LobbyRow | None, record: Any) -> LobbyRow | None:
    """The lobby row after one logged event; None once the table is no longer waiting."""
    data = record.data
    kind = record.type
    if kind == "TableOpened":
        return LobbyRow(
            code=data["code"],
            host=data["host"],
            host_name=None,
            settings=data["settings"],
            bots=data["bots"],
            seats=[LobbySeat(seat=n) for n in range(4)],
            open_seats=4,
            opened_at=record.at.isoformat(),
            position=record.position,
        )
    if row is None:
        return None
    if kind == "SeatTaken":
        row = _with_seat(row, LobbySeat(seat=data["seat"], name=data["name"]))
        if data["player"] == row.host:
            row = msgspec.structs.replace(row, host_name=data["name"])
        return row
    if kind == "SeatLeft":
        return _with_seat(row, LobbySeat(seat=data["seat"]))
    if kind == "BotRemoved":
        return _with_seat(row, LobbySeat(seat=data["seat"]))
    if kind == "BotSeated":
        return _with_seat(row, LobbySeat(seat=data["seat"], bot=data["level"]))
    if kind == "SettingsChanged":
        return msgspec.structs.replace(row, settings=data["settings"])
    if kind == "GameStarted":
        return None
    return row
