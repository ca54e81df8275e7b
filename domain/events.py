"""What happened at a table, in the order it happened: the log's vocabulary.

Events are frozen msgspec Structs named in the past tense and tagged with their class name in
the `type` field, so one union decodes the whole log. Cards are written as codes ("JS") so the
log reads on its own; the rules turn them into indexes when folding. Derived facts (a trick
taken, a hand scored, a game won) are events too, so an auditor can check them.
"""

from __future__ import annotations

from typing import Literal, get_args

import msgspec

from domain.cards import Code, SuitCode, TrumpCode
from domain.house_rules import HouseRules

# The bots' levels, listed once: everything else (LEVELS, the API's bodies) derives from it.
Level = Literal["easy", "medium", "hard", "expert"]
LEVELS: tuple[Level, ...] = get_args(Level)
# The reactions anyone at a table may show (domain/talk.py), listed once: the API's body and
# `/schema` derive from it. Each is one code point, so no variation selector can split one.
Emoji = Literal["👍", "👏", "😂", "😮", "😬", "🤔", "🔥", "🎉"]
EMOJI: tuple[Emoji, ...] = get_args(Emoji)


class Event(msgspec.Struct, frozen=True, tag_field="type", tag=True, gc=False):
    pass


class TableOpened(Event, frozen=True, omit_defaults=True):
    """`seed` is the table's secret; only its hash is shown until the game is over. `version`:
    the log's format (domain/sealing.py), absent in version 1 logs."""

    code: str
    host: str
    settings: HouseRules
    bots: Level
    seed: str
    seed_hash: str
    version: int = 1


class SeatTaken(Event, frozen=True, omit_defaults=True):
    """`registered`: the name is a registered player's, not a guest's (absent in older logs).
    `contribution`: the seed the player gave openly for the deals (64 hex digits), if any;
    `commitment`: the SHA-256 of one they keep secret until the start (domain/reveal.py)."""

    seat: int
    player: str
    name: str
    registered: bool = False
    contribution: str | None = None
    commitment: str | None = None


class SeatLeft(Event, frozen=True):
    """Before the start the seat empties; during a game a bot covers it until the player returns."""

    seat: int
    player: str


class BotSeated(Event, frozen=True):
    seat: int
    level: Level


class BotRemoved(Event, frozen=True):
    """Before the start the host may take a bot out of a seat, to make room for a person."""

    seat: int


AwayReason = Literal["gone", "timeout"]


class PlayerWentAway(Event, frozen=True):
    """A seated person stopped answering: no stream and no request for the grace period
    ("gone"), or their own decision went unmade past the turn limit ("timeout"). A bot of the
    table's level covers the seat from the decision pending now."""

    seat: int
    player: str
    reason: AwayReason


class PlayerCameBack(Event, frozen=True):
    """A person who went away opened the table again or moved: the seat is theirs again."""

    seat: int
    player: str


class TableLocked(Event, frozen=True):
    """Nobody new may sit; people already seated may still come back."""


class TableUnlocked(Event, frozen=True):
    pass


class PlayerBanned(Event, frozen=True):
    """The host sent `player` away for good: the seat they held, if any, goes to a bot, and
    they may neither sit nor watch again. `name` is theirs as the table knew it, if it did."""

    player: str
    seat: int | None
    name: str | None


class SeatsSwapped(Event, frozen=True):
    """Before the start the host chose a partner: whoever sat in `seats[0]` and `seats[1]`
    change places."""

    seats: list[int]


class SeatsHeld(Event, frozen=True):
    """A table opened to play again: each seat of the old game's people kept for them (their
    player id by seat, None where nobody is kept), until they sit or a bot is given it."""

    players: list[str | None]


class RematchOffered(Event, frozen=True):
    """At game over the host opened table `code` to play again: everyone here is invited."""

    code: str


class SettingsChanged(Event, frozen=True):
    settings: HouseRules


class StartCalled(Event, frozen=True):
    """The host started the game and the seats in `asked`, whose people committed to seeds
    of their own, are asked to reveal them; the game starts once each has answered."""

    asked: list[int]


class SeedRevealed(Event, frozen=True):
    """`seed` hashes to the commitment the seat's person gave when they sat down."""

    seat: int
    seed: str


class SeedWithheld(Event, frozen=True):
    """The seat's person didn't reveal their seed (by choice, or a bot answered for them
    once they were away): the game's seed is made without it."""

    seat: int


class GameStarted(Event, frozen=True, omit_defaults=True):
    """`contributions`: by seat, the seeds the players sitting there gave (None for a bot's
    seat or one that gave none); absent when nobody gave one, and the deals then come from the
    server's seed alone (domain/shuffle.py `game_seed`)."""

    first_dealer: int
    contributions: list[str | None] | None = None


class HandDealt(Event, frozen=True, omit_defaults=True):
    """The shuffle's result, secret until the game is over: the log can be replayed without the
    seed, and an auditor re-derives it from the seed to check. `seal` binds `hands` and `kitty`
    till then (domain/sealing.py; absent in version 1 logs)."""

    deal_no: int
    dealer: int
    hands: list[list[Code]]
    up: Code
    kitty: list[Code]
    seal: str | None = None


class FarmerSwapped(Event, frozen=True, omit_defaults=True):
    """`gave` went into the kitty and `got` came out of it, sight unseen; both are secret, and
    `seal` binds them (domain/sealing.py; absent in version 1 logs)."""

    seat: int
    gave: list[Code]
    got: list[Code]
    seal: str | None = None


class FarmerKept(Event, frozen=True):
    seat: int


class BidPassed(Event, frozen=True):
    seat: int
    round: int


class UpCardTurnedDown(Event, frozen=True):
    """Everyone passed the first round: the turned card's suit can't be called now."""

    suit: SuitCode


class TrumpOrdered(Event, frozen=True):
    """Round one: the up card's suit is trump; the dealer takes the card unless sitting out."""

    seat: int
    suit: SuitCode
    alone: bool


class TrumpCalled(Event, frozen=True):
    """`suit` "N": no trump was called (house rule `no_trump`)."""

    seat: int
    suit: TrumpCode
    alone: bool


class CardBuried(Event, frozen=True, omit_defaults=True):
    """The dealer's discard; which card is secret from everyone but the dealer, and `seal`
    binds it (domain/sealing.py; absent in version 1 logs)."""

    seat: int
    card: Code
    seal: str | None = None


class DefenceChosen(Event, frozen=True):
    """A defender's answer to a lone call: alone sits their own partner out."""

    seat: int
    alone: bool


class CardPlayed(Event, frozen=True):
    seat: int
    card: Code


class TrickTaken(Event, frozen=True):
    winner: int
    cards: list[Code]


class TricksClaimed(Event, frozen=True):
    """`seat`, on lead, claimed the rest of the hand and the rules found it certain from what
    that seat knew (domain/claim.py): its `cards` are shown face up and the `tricks` left go
    to its side, unplayed."""

    seat: int
    cards: list[Code]
    tricks: int


class HandScored(Event, frozen=True):
    maker: int
    trump: TrumpCode
    alone: int | None
    defender: int | None
    tricks: int
    how: Literal["made", "march", "euchre"]
    team: int
    points: int
    score: list[int]


class HandThrownIn(Event, frozen=True):
    """Stick the dealer off and four passes twice: nothing scores and the deal passes left."""

    deal_no: int


class PlayerReady(Event, frozen=True):
    seat: int


class DealCalled(Event, frozen=True):
    """The host dealt the next hand without waiting for everyone to be ready; the deal follows
    (in version 1 logs the deal came alone, with nothing to say who asked)."""

    seat: int


class HintGiven(Event, frozen=True):
    """The person in `seat`, alone with bots, was shown what the expert bot would do in their
    place (domain/hint.py): a game they win after it isn't credited to their rating
    (docs/ratings.md "Integrity"). What the hint said is the seat's alone and isn't logged."""

    seat: int


class GameAbandoned(Event, frozen=True):
    """The service ended a game that stalled: `player` in `seat` held their decision past the
    stall limit while present (docs/euchre.md "A stalled game"). The other side wins by it."""

    seat: int
    player: str


class TableClosed(Event, frozen=True):
    """The house closed the table for `reason` (domain/closing.py): nothing more happens at
    it, nobody wins, and the game isn't rated."""

    reason: str


class GameWon(Event, frozen=True):
    """A team reached the target (house rule `points`), or the other side stalled the game
    (after GameAbandoned)."""

    team: int
    score: list[int]


# Table talk (domain/talk.py): in the log, beside the game. `seat` is the speaker's seat at the
# time, None for a spectator; `name` is theirs then, so the log reads on its own.
class ChatSaid(Event, frozen=True):
    """`text` is plain text, trimmed, one line; whoever shows it must show it as text."""

    player: str
    seat: int | None
    name: str
    text: str


class ReactionShown(Event, frozen=True):
    player: str
    seat: int | None
    name: str
    emoji: Emoji


class PlayerMuted(Event, frozen=True):
    """The host silenced `player` at this table: their chat and reactions are refused."""

    player: str
    name: str


class PlayerUnmuted(Event, frozen=True):
    player: str


AnyEvent = (
    TableOpened
    | SeatTaken
    | SeatLeft
    | BotSeated
    | BotRemoved
    | SettingsChanged
    | StartCalled
    | SeedRevealed
    | SeedWithheld
    | PlayerWentAway
    | PlayerCameBack
    | TableLocked
    | TableUnlocked
    | PlayerBanned
    | SeatsSwapped
    | SeatsHeld
    | RematchOffered
    | GameStarted
    | HandDealt
    | FarmerSwapped
    | FarmerKept
    | BidPassed
    | UpCardTurnedDown
    | TrumpOrdered
    | TrumpCalled
    | CardBuried
    | DefenceChosen
    | CardPlayed
    | TrickTaken
    | TricksClaimed
    | HandScored
    | HandThrownIn
    | PlayerReady
    | DealCalled
    | HintGiven
    | GameAbandoned
    | TableClosed
    | GameWon
    | ChatSaid
    | ReactionShown
    | PlayerMuted
    | PlayerUnmuted
)

EVENT_TYPES: dict[str, type[Event]] = {cls.__name__: cls for cls in AnyEvent.__args__}
