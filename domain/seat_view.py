"""`view(state, seat)`: the table as one seat (or a spectator, `None`) may see it (docs/euchre.md
"What each seat sees").

This is the only way cards leave the server. It reads a seat's own hand, the dealer's own
discard for the dealer, and public facts; never another hand, the kitty's face-down cards or
the seed before the game is over. The secrecy tests scramble those and check nothing moves.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.cards import CODES, TRUMPS, Code, TrumpCode, count
from domain.decider import can
from domain.events import Level
from domain.hands import sorted_codes
from domain.state import BidKind, How, KittyState, Outcome, Phase, State, Status


class SeatView(msgspec.Struct, frozen=True):
    seat: int
    player: str | None
    name: str | None
    bot: Level | None
    away: bool
    registered: bool = False  # a registered player's seat; a guest's or a bot's is not
    left: bool = False  # away until they sit down again (docs/euchre.md "Away and back")
    seed: str | None = None  # the seed the person gave for the deals (docs/audit.md)
    commitment: str | None = None  # its SHA-256, given to reveal it at the start


class Banned(msgspec.Struct, frozen=True):
    player: str
    name: str | None


class BidView(msgspec.Struct, frozen=True, omit_defaults=True):
    seat: int
    bid: BidKind
    round: int
    suit: TrumpCode | None = None
    alone: bool | None = None


class CardAt(msgspec.Struct, frozen=True):
    seat: int
    card: Code


class TrickView(msgspec.Struct, frozen=True):
    leader: int
    cards: list[CardAt]
    winner: int


class ClaimedView(msgspec.Struct, frozen=True):
    """The rest of the hand claimed (docs/euchre.md "Claiming the rest"): the claimer's
    cards, face up for everyone, and the tricks that went to their side with them."""

    seat: int
    cards: list[Code]
    tricks: int


class OutcomeView(msgspec.Struct, frozen=True):
    hand_no: int
    deal_no: int
    maker: int
    trump: TrumpCode
    alone: int | None
    defender: int | None
    tricks: int
    how: How
    team: int
    points: int
    score: list[int]


class TableView(msgspec.Struct, frozen=True):
    """What everyone at the table sees alike: one seat's view is this and its own fields."""

    code: str
    seq: int
    status: Status
    host: str | None
    seats: list[SeatView]
    settings: dict[str, str | int]
    bots: Level
    locked: bool
    banned: list[Banned]
    held: list[str | None]  # seats kept for the last game's people, by player id
    again: str | None  # the table the host opened to play again, once the game is over
    score: list[int]
    hand_no: int
    deal_no: int
    phase: Phase
    dealer: int | None
    turn: int | None
    up: Code | None
    kitty_state: KittyState | None
    trump: TrumpCode | None
    maker: int | None
    alone: int | None
    defender: int | None
    sitting: list[int]
    bids: list[BidView]
    counts: list[int]
    trick: list[CardAt]
    leader: int | None
    tricks: list[TrickView]
    taken: list[int]
    claimed: ClaimedView | None
    outcome: OutcomeView | None
    hands: list[OutcomeView]
    ready: list[bool]
    winner: int | None
    seed_hash: str
    seed: str | None
    muted: list[str]  # players the host has muted at this table (domain/talk.py)
    closed: str | None  # why the house closed the table (domain/closing.py), if it did


class View(TableView, frozen=True):
    you: int | None
    hand: list[Code]
    buried: Code | None
    can: dict[str, dict[str, Any]]


_encode = msgspec.json.Encoder().encode


def _suit(s: int | None) -> TrumpCode | None:
    """ "N" for no trump."""
    return None if s is None else TRUMPS[s]


def _card(c: int | None) -> Code | None:
    return None if c is None else CODES[c]


def _outcome(o: Outcome) -> OutcomeView:
    return OutcomeView(
        hand_no=o.hand_no,
        deal_no=o.deal_no,
        maker=o.maker,
        trump=TRUMPS[o.trump],
        alone=o.alone,
        defender=o.defender,
        tricks=o.tricks,
        how=o.how,
        team=o.team,
        points=o.points,
        score=list(o.score),
    )


def view(s: State, seat: int | None) -> View:
    return View(**msgspec.structs.asdict(table_view(s)), **_own(s, seat))


def table_json(s: State) -> bytes:
    """The JSON of `table_view(s)`: made once a state, it serves every seat's `view_json`."""
    return _encode(table_view(s))


def view_json(s: State, seat: int | None, table: bytes) -> bytes:
    """The JSON of `view(s, seat)`, byte for byte, from `table` (`table_json(s)`) and the
    seat's own fields: a table's five views cost one encoding of what they share."""
    own = _encode(_own(s, seat))
    return b"%b,%b" % (table[:-1], own[1:])


def _own(s: State, seat: int | None) -> dict[str, Any]:
    """View's own fields, in its order: `view_json` writes them after the table's."""
    d = s.deal
    hand = d.hands[seat] if seat is not None else 0
    return {
        "you": seat,
        "hand": sorted_codes(hand, d.trump),
        "buried": _card(d.buried) if seat is not None and seat == d.dealer else None,
        "can": can(s, seat),
    }


def table_view(s: State) -> TableView:
    d = s.deal
    return TableView(
        code=s.code,
        seq=s.seq,
        status=s.status,
        host=s.host,
        seats=[
            SeatView(
                n,
                x.player,
                x.name,
                x.bot,
                x.away,
                x.registered,
                x.left,
                x.contribution,
                x.commitment,
            )
            for n, x in enumerate(s.seats)
        ],
        settings=msgspec.structs.asdict(s.settings),
        bots=s.bots,
        locked=s.locked,
        banned=[Banned(player, name) for player, name in s.banned],
        held=list(s.held),
        again=s.again,
        score=list(s.score),
        hand_no=s.hand_no,
        deal_no=s.deal_no,
        phase=s.phase,
        dealer=d.dealer,
        turn=s.turn,
        up=_card(d.up),
        kitty_state=d.kitty_state,
        trump=_suit(d.trump),
        maker=d.maker,
        alone=d.alone,
        defender=d.defender,
        sitting=list(d.sitting),
        bids=[
            BidView(b.seat, b.bid, b.round, _suit(b.suit), b.alone if b.bid != "pass" else None)
            for b in d.bids
        ],
        counts=[count(h) for h in d.hands],
        trick=[CardAt(n, CODES[c]) for n, c in d.trick],
        leader=d.leader,
        tricks=[
            TrickView(t.leader, [CardAt(n, CODES[c]) for n, c in t.cards], t.winner)
            for t in d.tricks
        ],
        taken=list(d.taken),
        claimed=None
        if d.claimed is None
        else ClaimedView(
            d.claimed.seat,
            sorted_codes(d.claimed.cards, d.trump),
            d.claimed.tricks,
        ),
        outcome=None if s.outcome is None else _outcome(s.outcome),
        hands=[_outcome(o) for o in s.history],
        ready=list(d.ready),
        winner=s.winner,
        seed_hash=s.seed_hash,
        seed=s.seed if s.status == "over" and s.closed is None else None,
        muted=list(s.talk.muted),
        closed=s.closed,
    )
