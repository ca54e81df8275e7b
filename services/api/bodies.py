"""Request and response bodies: typed Structs, so the OpenAPI document shows what is served
and `services.api.decoding` can name a bad field and what it may be."""

from __future__ import annotations

import functools
import operator
import re
from typing import TYPE_CHECKING, Annotated, Literal, get_type_hints

import msgspec
from litestar.params import Parameter

from domain import house_rules
from domain.bots.review import HandReview
from domain.cards import Code as CardCode
from domain.cards import TrumpCode
from domain.commands import MOVE_TYPES, Command
from domain.events import Emoji, Level
from domain.seat_view import View
from domain.talk import MAX_TEXT
from infra.names import MAX_VISIBLE
from infra.ratings import GameResult
from projections.heads import SignedHead
from projections.lobby import LobbyRow
from projections.ratings import Rating, Record, SeatStatus, Totals
from projections.talk import ChatLine, ReactionLine
from services.api.problems import Problem

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
# A new name: the schema adds the pattern of `infra.names`' rule (services.api.contract).
NewName = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=40,
        description=f"1-{MAX_VISIBLE} visible characters once trimmed (letters, digits, spaces, "
        "punctuation, emoji; up to 3 accents on a letter); no control, format or invisible "
        "characters. At most 40 as sent. A name `pattern` matches is never refused as a name.",
    ),
]
Password = Annotated[str, msgspec.Meta(min_length=8, max_length=200)]
CODE = re.compile(r"^[A-Z0-9-]{4,32}$")
CODE_PATTERN = "^[A-Za-z0-9-]{4,32}$"
TableCode = Annotated[
    str,
    msgspec.Meta(
        pattern=CODE_PATTERN,
        description="4-32 of A-Z, 0-9 and dashes; lower case is upper-cased",
    ),
]
Seat = Annotated[int, msgspec.Meta(ge=0, le=3)]
Seq = Annotated[int, msgspec.Meta(ge=0, description="the view's `seq` the move was decided on")]


class NewPlayer(msgspec.Struct, forbid_unknown_fields=True):
    name: NewName
    password: Password | None = None


class Login(msgspec.Struct, forbid_unknown_fields=True):
    name: Name
    password: Password


def _each_optional(declared: type[msgspec.Struct], doc: str) -> type[msgspec.Struct]:
    """`declared`'s fields, each with its values and words, but optional and left out unless
    given: a body that changes only what it names."""
    hints = get_type_hints(declared, include_extras=True)
    return msgspec.defstruct(
        declared.__name__,
        [(key, hints[key] | None, None) for key in declared.__struct_fields__],
        namespace={"__doc__": doc},
        module=__name__,
        forbid_unknown_fields=True,
        omit_defaults=True,
    )


# domain.house_rules declares each rule once; the body is made from it when this module loads,
# so the type checker knows it only as a Struct.
if TYPE_CHECKING:
    HouseRules = msgspec.Struct
else:
    HouseRules = _each_optional(
        house_rules.HouseRules,
        "House rules to set; a rule left out keeps its current value (or its default).",
    )


PlayerSeed = Annotated[
    str,
    msgspec.Meta(
        pattern="^[0-9a-f]{64}$",
        description="your own seed for the deals: 64 lowercase hex digits, mixed with the "
        "server's at the start, and public at once: `commitment` keeps it secret until then "
        '(docs/audit.md "The seed")',
    ),
]
Commitment = Annotated[
    str,
    msgspec.Meta(
        pattern="^[0-9a-f]{64}$",
        description="the SHA-256 of your own seed's 32 bytes, as 64 lowercase hex digits: you "
        "reveal the seed at the start (move `reveal`), once everyone has sat down, and it is "
        'mixed with the server\'s (docs/audit.md "The seed")',
    ),
]


class NewTable(msgspec.Struct, forbid_unknown_fields=True):
    code: TableCode | None = None
    settings: HouseRules | None = None
    bots: Level = "medium"
    seat: Seat = 0
    seed: PlayerSeed | None = None
    commitment: Commitment | None = None


class SitBody(msgspec.Struct, forbid_unknown_fields=True):
    seed: PlayerSeed | None = None
    commitment: Commitment | None = None


class BotLevel(msgspec.Struct, forbid_unknown_fields=True):
    level: Level


class ChatBody(msgspec.Struct, forbid_unknown_fields=True):
    text: Annotated[
        str,
        msgspec.Meta(
            min_length=1,
            max_length=MAX_TEXT,
            description=f"one line of plain text, 1-{MAX_TEXT} characters once trimmed; shown "
            "as text, never as markup; no control characters, line breaks or direction overrides",
        ),
    ]


class ReactionBody(msgspec.Struct, forbid_unknown_fields=True):
    emoji: Emoji


# A table code in a path; `table_code` checks and upper-cases it.
Code = Annotated[
    str,
    Parameter(
        pattern=CODE_PATTERN,
        description="the table's code, 4-32 of A-Z, 0-9 and dashes; lower case is upper-cased",
    ),
]


class MuteBody(msgspec.Struct, forbid_unknown_fields=True):
    player: Annotated[str, msgspec.Meta(min_length=1, max_length=64, description="a player's id")]


def _move_body(tag: str, command: type[Command]) -> type[msgspec.Struct]:
    """The `moves` body for one domain move: its fields less the seat (the caller's own),
    plus the optional `seq`. Derived from the command, so the two can't drift apart."""
    fields = [
        (f.name, f.type, f.default) if f.required is False else (f.name, f.type)
        for f in msgspec.structs.fields(command)
        if f.name != "seat"
    ]
    return msgspec.defstruct(
        f"{command.__name__}Move",
        [*fields, ("seq", Seq | None, None)],
        tag_field="type",
        tag=tag,
        forbid_unknown_fields=True,
        kw_only=True,
    )


MOVE_BODIES = tuple(_move_body(tag, command) for tag, command in MOVE_TYPES.items())
MoveBody = functools.reduce(operator.or_, MOVE_BODIES)
_BODY_OF = {body.__struct_config__.tag: body for body in MOVE_BODIES}


def move_body(move: Command) -> msgspec.Struct:
    """A seat's move as the `moves` body that makes it: the command's fields less the seat."""
    fields = {k: v for k, v in msgspec.structs.asdict(move).items() if k != "seat"}
    return _BODY_OF[move.__struct_config__.tag](**fields)


class HintView(msgspec.Struct):
    """What the expert bot would do in the caller's seat, worked out from their seat's view
    alone (the cards anyone else holds never enter), and why."""

    seq: Annotated[int, msgspec.Meta(description="the table's seq with the hint logged")]
    move: Annotated[
        MoveBody,
        msgspec.Meta(description="the expert's move, as `moves` takes it"),
    ]
    card: Annotated[
        CardCode | None,
        msgspec.Meta(description="the card that move plays or buries, if it is one"),
    ]
    words: Annotated[str, msgspec.Meta(description="why, in a player's words")]


class Cards(msgspec.Struct, forbid_unknown_fields=True):
    cards: Annotated[list[CardCode], msgspec.Meta(description="the cards you may choose from")]


class CanOrder(msgspec.Struct, forbid_unknown_fields=True):
    alone: Annotated[bool, msgspec.Meta(description="you may order it up and go alone")]
    must_alone: Annotated[bool, msgspec.Meta(description="only alone (you are a farmer)")]


class CanCall(msgspec.Struct, forbid_unknown_fields=True):
    suits: Annotated[
        list[TrumpCode],
        msgspec.Meta(description='the suits you may call; "N", no trump, when that rule is on'),
    ]
    alone: bool


class CanReveal(msgspec.Struct, forbid_unknown_fields=True):
    commitment: Annotated[str, msgspec.Meta(description="what your seed must hash to")]


class Nothing(msgspec.Struct, forbid_unknown_fields=True):
    """No options: the move is open, as it is."""


class Can(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """The view's `can`: each move type open to you now, keyed by its `type` in the moves
    body, with what you may choose in it; empty when nothing is yours to decide. A 422 for an
    illegal move carries the same as `legal`."""

    farmer: Cards | None = None
    order: CanOrder | None = None
    call: CanCall | None = None
    pass_: Nothing | None = msgspec.field(default=None, name="pass")
    discard: Cards | None = None
    defend: Nothing | None = None
    play: Cards | None = None
    claim: Annotated[
        Nothing | None,
        msgspec.Meta(description="on your lead: claim the rest (taken only if certain)"),
    ] = None
    ready: Nothing | None = None
    deal: Nothing | None = None
    reveal: CanReveal | None = None
    withhold: Nothing | None = None


class ViewEvent(msgspec.Struct):
    """`event: view`, with `id: <seq>`: the watcher's own view, at once and after every
    change."""

    event: Literal["view"]
    id: Annotated[int, msgspec.Meta(description="the view's `seq`; send as Last-Event-ID")]
    data: SignedView


LineHead = Annotated[str, msgspec.Meta(description="the hash of the line's own event")]


class SignedChat(ChatLine, frozen=True, kw_only=True):
    """A chat line: `seat` is the speaker's then (null for a spectator), `at` the log's time;
    with the signed head of its own event."""

    head: LineHead = ""
    signed_head: SignedHead | None = None


class SignedReaction(ReactionLine, frozen=True, kw_only=True):
    """A reaction, as a chat line but with `emoji` for `text`."""

    head: LineHead = ""
    signed_head: SignedHead | None = None


class ChatEvent(msgspec.Struct):
    """`event: chat`, with `id: <seq>`: a line said at the table, to every watcher."""

    event: Literal["chat"]
    id: int
    data: SignedChat


class ReactionEvent(msgspec.Struct):
    """`event: reaction`, with `id: <seq>`."""

    event: Literal["reaction"]
    id: int
    data: SignedReaction


class Gone(msgspec.Struct):
    detail: str


class BannedEvent(msgspec.Struct):
    """`event: banned`, no `id`: the host banned the watcher; the stream ends after it."""

    event: Literal["banned"]
    data: Gone


class Disconnection(msgspec.Struct, frozen=True, order=True):
    seat: int
    covers_in: Annotated[
        float, msgspec.Meta(description="seconds until a bot covers the seat, unless they return")
    ]


class Disconnected(msgspec.Struct, frozen=True):
    """Who is seated at the game under way, not covered by a bot, with no stream open on the
    table and no request to it in the last 10 seconds; `grace`: the seconds a person has from
    their last stream's end or request."""

    seats: list[Disconnection]
    grace: float


class PresenceEvent(msgspec.Struct):
    """`event: presence`, no `id`: who is disconnected, when that changes (and on opening, if
    anyone is); an empty `seats` when everyone is back."""

    event: Literal["presence"]
    data: Disconnected


# What `GET .../events` sends: one frame per `event:` name (services.api.contract).
FRAMES = (ViewEvent, ChatEvent, ReactionEvent, BannedEvent, PresenceEvent)


def move_command(body: msgspec.Struct, seat: int) -> Command:
    """The domain command for a decoded `moves` body, made by the caller's `seat`."""
    fields = {k: v for k, v in msgspec.structs.asdict(body).items() if k != "seq"}
    return MOVE_TYPES[body.__struct_config__.tag](seat=seat, **fields)


def table_code(raw: str) -> str:
    """Codes are upper-cased; anything else outside A-Z, 0-9 and dashes is refused."""
    code = raw.upper()
    if not CODE.match(code):
        raise Problem(422, "a table code is 4-32 characters: A-Z, 0-9 and dashes", field="code")
    return code


class SignedIn(msgspec.Struct):
    id: str
    name: str
    token: Annotated[str, msgspec.Meta(description="send as `Authorization: Bearer <token>`")]


class PlayerInfo(msgspec.Struct):
    id: str
    name: str
    registered: bool


class RatingBody(msgspec.Struct):
    mu: float
    sigma: float
    display: Annotated[
        int, msgspec.Meta(description="the rating shown: mu - 3 sigma, rounded (docs/ratings.md)")
    ]

    @classmethod
    def of(cls, r: Rating) -> RatingBody:
        return cls(mu=r.mu, sigma=r.sigma, display=r.display)


class RecentGame(msgspec.Struct):
    code: str
    at: str
    won: bool
    left: Annotated[bool, msgspec.Meta(description="left before the end: rated as a loss")]
    before: RatingBody
    after: RatingBody
    log: Annotated[str, msgspec.Meta(description="the game's log, to replay it")]


class RatingPoint(msgspec.Struct):
    at: str
    display: int


class Profile(PlayerInfo):
    """A player with their rating (null for a guest: guests count as new and never change),
    counts, records against each bot level, and rated games."""

    rating: RatingBody | None
    stats: Totals
    records: dict[Level, Record]
    recent: Annotated[list[RecentGame], msgspec.Meta(description="newest first")]
    history: Annotated[list[RatingPoint], msgspec.Meta(description="oldest first")]


class Ranked(msgspec.Struct):
    rank: int
    id: str
    name: str
    rating: RatingBody
    games: int


class Leaderboard(msgspec.Struct):
    players: list[Ranked]
    next: Annotated[
        int | None,
        msgspec.Meta(description="pass as `offset` for the next page; null on the last one"),
    ] = None


class SeatRating(msgspec.Struct):
    seat: int
    player: str | None
    name: str | None
    status: Annotated[
        SeatStatus,
        msgspec.Meta(
            description="rated; banned (rated as a bot played it out); left (rated as a loss); "
            "stalled (the game was ended for it: rated as a loss); covered (a bot played most "
            "of the seat: the win isn't theirs, not rated); hinted (took a hint and won: the win "
            "isn't theirs, not rated); abandoned (a game another ended "
            "by stalling: not rated); short (a game to fewer than 10 points: not rated); "
            "guest; bot"
        ),
    ]
    before: Annotated[RatingBody, msgspec.Meta(description="what the seat counted at")]
    after: RatingBody | None


class TableRatings(msgspec.Struct):
    status: Annotated[
        Literal["pending", "rated", "unrated"],
        msgspec.Meta(description="pending: the ratings worker hasn't got to the game yet"),
    ]
    seats: list[SeatRating]

    @classmethod
    def of(cls, result: GameResult | None) -> TableRatings:
        if result is None:
            return cls(status="pending", seats=[])
        seats = [
            SeatRating(
                seat=s.seat,
                player=s.player,
                name=s.name,
                status=s.status,
                before=RatingBody.of(s.before),
                after=None if s.after is None else RatingBody.of(s.after),
            )
            for s in result.seats
        ]
        return cls(status="rated" if result.rated else "unrated", seats=seats)


class TableReviews(msgspec.Struct):
    """The table's scored hands reviewed card by card, with every hand open, and bid by bid,
    over likely deals from what the bidder knew (docs/bots.md "The review after each hand").
    A worker reviews each hand a moment after it is scored: until it has, `hands`
    holds fewer than `scored`, and asking again shortly finds it. No hand is here before its
    score is."""

    scored: Annotated[int, msgspec.Meta(description="hands scored so far at the table")]
    hands: list[HandReview]


class SignedView(View, frozen=True, kw_only=True):
    """A seat's view with the head of the logged event it shows, signed by the service
    (docs/audit.md "Signed heads")."""

    head: Annotated[
        str,
        msgspec.Meta(
            description="the hash of the logged event this view shows, its `seq`'s "
            "(docs/audit.md): kept at game over, it proves later that the stored log wasn't "
            "edited"
        ),
    ] = ""
    signed_head: Annotated[
        SignedHead | None,
        msgspec.Meta(
            description="`head` signed by the service, to keep: two signed heads of one table "
            "that can't both be true prove the server changed its log"
        ),
    ] = None


class ShownView(SignedView, frozen=True, kw_only=True):
    """A seat's view, with its signed head, and once the game is over each seat's rating
    change."""

    ratings: TableRatings | None = None
    waited: Annotated[
        float | None,
        msgspec.Meta(
            description="with the turn limit on, during a game: the seconds the decision under "
            "way has waited so far, as the turn limit counts them (a page opened mid-decision "
            "shows the time truly left); null otherwise"
        ),
    ] = None


class Me(PlayerInfo):
    house_rules: Annotated[
        dict[str, str | int] | None,
        msgspec.Meta(description="a registered player's last table's house rules, for the next"),
    ] = None


class Waiting(msgspec.Struct):
    tables: list[LobbyRow]
    next: Annotated[
        int | None,
        msgspec.Meta(description="pass as `before` for the next page; null on the last one"),
    ] = None


class Health(msgspec.Struct, omit_defaults=True):
    status: Annotated[
        Literal["ok", "degraded"],
        msgspec.Meta(description="degraded: a part below is down, or no bot worker is alive"),
    ]
    database: str
    broker: str
    redis: Annotated[
        str | None, msgspec.Meta(description="Redis for rate limits, where it isn't the broker")
    ] = None
    workers: Annotated[
        int | None,
        msgspec.Meta(
            description="bot worker processes that beat within the last 15 s "
            "(docs/operations.md); null where no Redis answers to ask"
        ),
    ] = None
    degraded: Annotated[
        list[str],
        msgspec.Meta(description="what is wrong, one entry a part: e.g. `no bot worker alive`"),
    ] = []


class Ready(msgspec.Struct):
    status: Annotated[
        Literal["ready", "unready"],
        msgspec.Meta(description="unready (with 503): this process can't reach its database"),
    ]
    database: str
    missing: Annotated[
        list[str],
        msgspec.Meta(
            description="what the service lacks that leaves this process ready all the same: "
            "its Redis, or any bot worker alive (their tables wait; /api/health says more)"
        ),
    ] = []


class Live(msgspec.Struct):
    status: Annotated[Literal["live"], msgspec.Meta(description="this process answers")]
