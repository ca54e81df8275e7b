"""What a player, a host or a bot asks the table to do: imperative, checked by `decide`."""

from __future__ import annotations

import msgspec

from domain.cards import Code, SuitCode
from domain.events import Level


class Command(msgspec.Struct, frozen=True, tag_field="type", gc=False):
    pass


# Table commands name the player asking; the rules check they may.
class OpenTable(Command, tag="open"):
    code: str
    host: str
    name: str
    seed: str
    seat: int = 0
    settings: dict | None = None
    bots: Level = "medium"
    registered: bool = False


class TakeSeat(Command, tag="sit"):
    player: str
    name: str
    seat: int
    registered: bool = False


class LeaveSeat(Command, tag="stand"):
    player: str
    seat: int


class SeatBot(Command, tag="bot"):
    player: str
    seat: int
    level: Level


class ChangeSettings(Command, tag="settings"):
    player: str
    settings: dict


class StartGame(Command, tag="start"):
    player: str


# Moves name the seat making them: the API's `moves` body, less the seat the caller sits in.
class Farmer(Command, tag="farmer"):
    seat: int
    cards: list[Code]


class Order(Command, tag="order"):
    seat: int
    alone: bool = False


class Call(Command, tag="call"):
    seat: int
    suit: SuitCode
    alone: bool = False


class Pass(Command, tag="pass"):
    seat: int


class Discard(Command, tag="discard"):
    seat: int
    card: Code


class Defend(Command, tag="defend"):
    seat: int
    alone: bool = False


class Play(Command, tag="play"):
    seat: int
    card: Code


class Ready(Command, tag="ready"):
    seat: int


class DealNow(Command, tag="deal"):
    """The host starts the next hand without waiting for everyone to be ready."""

    seat: int


Move = Farmer | Order | Call | Pass | Discard | Defend | Play | Ready | DealNow
MOVE_TYPES: dict[str, type[Command]] = {cls.__struct_config__.tag: cls for cls in Move.__args__}
