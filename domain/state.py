"""A table's state: plain immutable data, rebuilt by folding its events through `evolve`; and
seats' teams and partners (docs/euchre.md "Seats and teams").

Cards are indexes and hands are bit masks (domain.cards); `None` means "not yet" or "nobody".
Everything a seat may not see (others' hands, the kitty, the buried card, the seed) lives here
too, and only `view` decides what leaves.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.events import Level
from domain.house_rules import HouseRules

Status = Literal["waiting", "playing", "over"]
# "deal" is the instant between a hand's end and the next deal, which no view ever shows.
Phase = Literal[
    "waiting",
    "reveal",
    "farmer",
    "bid1",
    "bid2",
    "discard",
    "defend",
    "play",
    "scored",
    "deal",
    "over",
]
KittyState = Literal["up", "down", "picked", "out"]
BidKind = Literal["order", "call", "pass"]
How = Literal["made", "march", "euchre"]


class Seat(msgspec.Struct, frozen=True, gc=False):
    """`away`: a bot covers the person's seat. `left`: they left by choice, timed out too
    often or were banned, so only sitting down again brings them back (docs/euchre.md "Away
    and back"); `timeouts` counts this game's. `contribution`: the seed the person gave for
    the deals when they sat down, if any, or revealed at the start; `commitment`: its hash,
    given instead when they sat down."""

    player: str | None = None
    name: str | None = None
    bot: Level | None = None
    away: bool = False
    registered: bool = False
    left: bool = False
    timeouts: int = 0
    contribution: str | None = None
    commitment: str | None = None  # to a seed revealed at the start (domain/reveal.py)

    @property
    def is_bot(self) -> bool:
        """A bot's seat, or a player's that a bot covers while they are away."""
        return self.bot is not None and (self.player is None or self.away)


class Bid(msgspec.Struct, frozen=True, gc=False):
    seat: int
    round: int
    bid: BidKind
    suit: int | None = None
    alone: bool = False


class Trick(msgspec.Struct, frozen=True, gc=False):
    leader: int
    cards: tuple[tuple[int, int], ...]  # (seat, card) in the order played
    winner: int


class Outcome(msgspec.Struct, frozen=True, gc=False):
    hand_no: int
    deal_no: int
    maker: int
    trump: int
    alone: int | None
    defender: int | None
    tricks: int
    how: How
    team: int
    points: int
    score: tuple[int, int]


class Claimed(msgspec.Struct, frozen=True, gc=False):
    """The rest of a hand claimed (domain/claim.py): by whom, their cards shown face up, and
    how many tricks went to their side with them."""

    seat: int
    cards: int
    tricks: int


EMPTY_SEATS = (Seat(), Seat(), Seat(), Seat())


class Talk(msgspec.Struct, frozen=True, gc=False):
    """Table talk's part of the state (domain/talk.py): who is muted, and where the log's
    latest run of talk began, so a move's `seq` can be checked against the game alone."""

    muted: tuple[str, ...] = ()
    last: int = 0  # the seq of the latest talk event
    game_seq: int = 0  # the seq of the last event before that run of talk


class DealState(msgspec.Struct, frozen=True, gc=False):
    """One deal's part of the state, from the cards dealt to who is ready for the next: each
    deal starts from a new value (domain/dealing.py), so nothing of the last one carries over
    by a field forgotten, and a throw-in is a deal like any other. `dealer` is None only
    before the first."""

    dealer: int | None = None
    up: int | None = None
    kitty_state: KittyState | None = None
    kitty: tuple[int, ...] = ()
    hands: tuple[int, int, int, int] = (0, 0, 0, 0)
    trump: int | None = None
    maker: int | None = None
    alone: int | None = None
    defender: int | None = None
    sitting: tuple[int, ...] = ()
    bids: tuple[Bid, ...] = ()
    buried: int | None = None
    trick: tuple[tuple[int, int], ...] = ()
    leader: int | None = None
    tricks: tuple[Trick, ...] = ()
    taken: tuple[int, int] = (0, 0)
    claimed: Claimed | None = None  # the rest, claimed (domain/claim.py)
    moves: int = 0  # decisions made this deal: part of each decision's key
    ready: tuple[bool, bool, bool, bool] = (False, False, False, False)  # for the next deal


class State(msgspec.Struct, frozen=True, gc=False):
    seq: int = 0
    # The seq and hash (hex) of the logged event a state was last known to follow, as the log
    # gave it (domain/chain.py): set by whoever folds logged events, never by `evolve`, so a
    # head whose seq isn't `seq` is out of date and mustn't be shown as this state's.
    head: tuple[int, str] = (0, "")
    code: str = ""
    host: str | None = None
    seats: tuple[Seat, ...] = EMPTY_SEATS
    settings: HouseRules = HouseRules()
    bots: Level = "medium"
    seed: str = ""
    seed_hash: str = ""
    version: int = 1  # the log's format (domain/sealing.py)
    deal_seed: str = ""  # the game's seed, from the start (domain/shuffle.py `game_seed`)
    locked: bool = False
    banned: tuple[tuple[str, str | None], ...] = ()  # (player, name) in the order banned
    held: tuple[str | None, ...] = (None, None, None, None)  # seats kept to play again
    again: str | None = None  # the table the host opened to play again
    status: Status = "waiting"
    first_dealer: int = 0
    score: tuple[int, int] = (0, 0)
    deal_no: int = 0
    phase: Phase = "waiting"
    turn: int | None = None
    # Seats still to be asked: for their seeds at the start, farmers, or defenders of a loner.
    asked: tuple[int, ...] = ()
    deal: DealState = DealState()
    outcome: Outcome | None = None
    history: tuple[Outcome, ...] = ()
    # The seq at which everyone was asked to decide at once (the hand scored, or the start
    # calling for seeds): till they all have, views from it on are current.
    asked_at: int = 0
    winner: int | None = None
    stalled: int | None = None  # the seat the game was ended for stalling (domain/stall.py)
    closed: str | None = None  # the house's reason, once it closed the table (domain/closing.py)
    talk: Talk = Talk()

    @property
    def hand_no(self) -> int:
        return len(self.history) + 1

    def seat_of(self, player: str) -> int | None:
        for n, seat in enumerate(self.seats):
            if seat.player == player:
                return n
        return None

    def host_seat(self) -> int | None:
        return None if self.host is None else self.seat_of(self.host)

    def is_banned(self, player: str) -> bool:
        return any(p == player for p, _ in self.banned)


def seats_with(s: State, n: int, seat: Seat) -> tuple[Seat, ...]:
    """The table's seats with seat `n` replaced."""
    seats = list(s.seats)
    seats[n] = seat
    return tuple(seats)


def ready_with(s: State, n: int, value: bool) -> tuple[bool, bool, bool, bool]:
    r = list(s.deal.ready)
    r[n] = value
    return r[0], r[1], r[2], r[3]


def team(seat: int) -> int:
    return seat % 2


def partner(seat: int) -> int:
    return (seat + 2) % 4
