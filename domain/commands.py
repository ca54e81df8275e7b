"""What a player, a host or a bot asks the table to do: imperative, checked by `decide`."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.cards import Code, TrumpCode
from domain.events import AwayReason, Emoji, Level


class Command(msgspec.Struct, frozen=True, tag_field="type", gc=False):
    pass


# Table commands name the player asking; the rules check they may.
class OpenTable(Command, frozen=True, tag="open"):
    code: str
    host: str
    name: str
    seed: str
    seat: int = 0
    settings: dict[str, Any] | None = None
    bots: Level = "medium"
    registered: bool = False
    contribution: str | None = None  # the host's own seed for the deals, as TakeSeat's
    commitment: str | None = None  # the host's commitment to one, as TakeSeat's


class TakeSeat(Command, frozen=True, tag="sit"):
    player: str
    name: str
    seat: int
    registered: bool = False
    # The player's seed for the deals, 64 lowercase hex digits, given openly; or, kept secret
    # till the start, its commitment: the SHA-256 of its 32 bytes (domain/reveal.py).
    contribution: str | None = None
    commitment: str | None = None


class LeaveSeat(Command, frozen=True, tag="stand"):
    player: str
    seat: int


class SeatBot(Command, frozen=True, tag="bot"):
    player: str
    seat: int
    level: Level


class ChangeSettings(Command, frozen=True, tag="settings"):
    player: str
    settings: dict[str, Any]


class StartGame(Command, frozen=True, tag="start"):
    player: str


class MarkAway(Command, frozen=True, tag="away"):
    """The service, not a player: the seat's person has stopped answering (`reason`)."""

    seat: int
    reason: AwayReason


class EndStalled(Command, frozen=True, tag="stalled"):
    """The service, not a player: the seat's person, present, has held their decision past
    the stall limit."""

    seat: int


class CloseTable(Command, frozen=True, tag="close"):
    """The house, not a player: an operator ends the table (`euchre tables close`)."""

    reason: str


class ComeBack(Command, frozen=True, tag="back"):
    player: str


class LockTable(Command, frozen=True, tag="lock"):
    player: str


class UnlockTable(Command, frozen=True, tag="unlock"):
    player: str


class BanPlayer(Command, frozen=True, tag="ban"):
    player: str
    banned: str


class HoldSeats(Command, frozen=True, tag="hold"):
    """Right after opening a table to play again: keep each seat for the person named."""

    player: str
    players: list[str | None]


class GiveHeldSeats(Command, frozen=True, tag="release"):
    """The service, once the invited have had their minute: bots take the seats still kept."""


class OfferRematch(Command, frozen=True, tag="again"):
    player: str
    code: str


class ChoosePartner(Command, frozen=True, tag="partners"):
    """The host's partner becomes whoever sits in `seat`."""

    player: str
    seat: int


# Table talk (domain/talk.py): anyone who may watch the table, seated or not.
class Say(Command, frozen=True, tag="say"):
    player: str
    name: str
    text: str


class React(Command, frozen=True, tag="react"):
    player: str
    name: str
    emoji: Emoji


class Mute(Command, frozen=True, tag="mute"):
    """The host (`player`) silences `target`, shown in the log as `name`."""

    player: str
    target: str
    name: str


class Unmute(Command, frozen=True, tag="unmute"):
    player: str
    target: str


class AskHint(Command, frozen=True, tag="hint"):
    """A person alone with bots asks what the expert would do in their seat (domain/hint.py)."""

    player: str


# Moves name the seat making them: the API's `moves` body, less the seat the caller sits in.
class Farmer(Command, frozen=True, tag="farmer"):
    seat: int
    cards: list[Code]


class Order(Command, frozen=True, tag="order"):
    seat: int
    alone: bool = False


class Call(Command, frozen=True, tag="call"):
    """`suit` "N" calls no trump (house rule `no_trump`)."""

    seat: int
    suit: TrumpCode
    alone: bool = False


class Pass(Command, frozen=True, tag="pass"):
    seat: int


class Discard(Command, frozen=True, tag="discard"):
    seat: int
    card: Code


class Defend(Command, frozen=True, tag="defend"):
    seat: int
    alone: bool = False


class Play(Command, frozen=True, tag="play"):
    seat: int
    card: Code


class Claim(Command, frozen=True, tag="claim"):
    """On your lead, the rest of the tricks for your side (domain/claim.py)."""

    seat: int


class Ready(Command, frozen=True, tag="ready"):
    seat: int


class DealNow(Command, frozen=True, tag="deal"):
    """The host starts the next hand without waiting for everyone to be ready."""

    seat: int


class Reveal(Command, frozen=True, tag="reveal"):
    """At the start, the seed the player committed to when they sat down."""

    seat: int
    seed: str


class Withhold(Command, frozen=True, tag="withhold"):
    """At the start, no seed after all: the game's seed goes without the player's."""

    seat: int


Move = (
    Farmer
    | Order
    | Call
    | Pass
    | Discard
    | Defend
    | Play
    | Claim
    | Ready
    | DealNow
    | Reveal
    | Withhold
)
MOVE_TYPES: dict[str, type[Command]] = {cls.__struct_config__.tag: cls for cls in Move.__args__}


class MakeMove(Command, frozen=True, tag="move"):
    """A person's `move`, which must be from the seat they sit in; a person away is back by
    making it (domain/away.py). Bots and the service send moves bare."""

    player: str
    move: Move
