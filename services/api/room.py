"""The host's room over HTTP (docs/euchre.md "The room"), and what opening a table does for
the person opening it: whether they may watch, that they are present, and back in their
seat if they were away."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import msgspec
from litestar import Controller, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody

from domain import commands as cmd
from domain import view
from domain.errors import Conflict
from domain.room import may_watch
from domain.state import State
from infra.activity import waited
from infra.eventstore import RecordedEvent
from infra.players import Player
from infra.presence import Presence
from services.api.auth import current_player, optional_player
from services.api.bodies import Code, SignedView, table_code
from services.api.contract import OPTIONAL, READ, SIGNED_IN, WRITE, problems
from services.api.heads import Heads
from services.api.limits import limited
from services.use_cases import Tables

# Locks, bans, partners and mutes: each is a host's event in the log and a new view for
# everyone watching, so a host in a loop must not be a firehose (docs/security.md).
HOST_LIMIT = limited("host_actions_per_player")

PlayerId = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


NO_TABLE = "No table has this code."
UNSEEN = (
    "You may not watch this table: the host banned you, or it takes no spectators and you "
    "don't play at it."
)


class Spectators(msgspec.Struct):
    count: int
    names: Annotated[
        list[str] | None,
        msgspec.Meta(description="for the host: the signed-in spectators' names; else null"),
    ]


class Ban(msgspec.Struct, forbid_unknown_fields=True):
    player: PlayerId


class Partner(msgspec.Struct, forbid_unknown_fields=True):
    seat: Annotated[int, msgspec.Meta(ge=0, le=3)]


class Room:
    """The tables as the room answers for them: who may watch, who is present, and each
    caller's own view with its signed head."""

    def __init__(self, tables: Tables, heads: Heads, presence: Presence | None) -> None:
        self.tables = tables
        self.heads = heads
        self.presence = presence

    async def present(self, code: str, player: Player | None) -> None:
        if player is not None and self.presence is not None:
            await self.presence.seen(code, player.id)

    async def watched(self, code: str, player: Player | None) -> State:
        """The table, for whoever may watch it (a private table is its players' alone)."""
        state = await self.tables.load(code)
        may_watch(state, None if player is None else player.id)
        return state

    async def arrive(self, code: str, player: Player | None) -> State:
        """The table as `player` opens it: refused if they may not watch it; otherwise they
        are present, and if a bot covered their seat while they were gone, it is theirs
        again."""
        state = await self.watched(code, player)
        await self.present(code, player)
        n = None if player is None else state.seat_of(player.id)
        if n is None or player is None:
            return state
        seat = state.seats[n]
        if state.status != "playing" or not seat.away or seat.left:
            return state
        try:
            return await self.tables.execute(code, cmd.ComeBack(player=player.id))
        except Conflict:  # back already, by another request of theirs
            return await self.tables.load(code)

    async def waited(self, code: str) -> float | None:
        """How long the table's decision has waited, as its turn limit counts."""
        return await waited(self.tables.store, code)

    async def log(self, code: str, player: Player | None) -> list[RecordedEvent]:
        """The table's log as recorded, for whoever may watch it (a private table's is its
        players' alone)."""
        await self.watched(code, player)
        return await self.tables.store.read(code)

    async def act(
        self, code: str, command: cmd.Command | Sequence[cmd.Command], player: Player | None
    ) -> SignedView:
        """`command` (or commands, in one append) carried out at the table, answered with the
        caller's view of the result."""
        return await self.seat_view(await self.tables.execute(code, command), player)

    async def seat_view(self, state: State, player: Player | None) -> SignedView:
        """The caller's view: their seat's if they sit at the table, a spectator's otherwise;
        with its signed head, read from the log where the state doesn't know it."""
        seat = None if player is None else state.seat_of(player.id)
        made = self.heads.of(state)
        if made is None:
            state = await self.tables.headed(state)
            made = self.heads.of(state)
        fields = msgspec.structs.asdict(view(state, seat))
        if made is None:
            return SignedView(**fields)
        return SignedView(**fields, head=made[0], signed_head=made[1])


class RoomController(Controller):
    path = "/api/tables"
    tags = ["room"]
    dependencies = {"player": Provide(current_player)}

    @get(
        "/{code:str}/spectators",
        dependencies={"player": Provide(optional_player)},
        security=OPTIONAL,
        responses=problems(*READ, 403, why={403: UNSEEN, 404: NO_TABLE}),
    )
    async def spectators(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player | None],
        room: NamedDependency[Room],
    ) -> Spectators:
        """Who watches without a seat, on every API process: how many, and for the host,
        the names of those signed in."""
        code = table_code(code)
        state = await room.watched(code, player)
        watching = [] if room.presence is None else await room.presence.watchers(code)
        outside = [(w, name) for w, name in watching if state.seat_of(w) is None]
        host = player is not None and player.id == state.host
        names = [name for _, name in outside if name is not None] if host else None
        return Spectators(count=len(outside), names=names)

    @post(
        "/{code:str}/lock",
        status_code=200,
        responses=problems(
            *WRITE,
            429,
            why={
                403: "Only the host may lock the table.",
                404: NO_TABLE,
                409: "The table is locked already, or its game is over.",
            },
        ),
        security=SIGNED_IN,
        guards=[HOST_LIMIT],
    )
    async def lock(
        self, code: FromPath[Code], player: NamedDependency[Player], room: NamedDependency[Room]
    ) -> SignedView:
        """Host only: nobody new may sit down; people with a seat may still come back."""
        command = cmd.LockTable(player=player.id)
        return await room.act(table_code(code), command, player)

    @post(
        "/{code:str}/unlock",
        status_code=200,
        responses=problems(
            *WRITE,
            429,
            why={
                403: "Only the host may unlock the table.",
                404: NO_TABLE,
                409: "The table isn't locked, or its game is over.",
            },
        ),
        security=SIGNED_IN,
        guards=[HOST_LIMIT],
    )
    async def unlock(
        self, code: FromPath[Code], player: NamedDependency[Player], room: NamedDependency[Room]
    ) -> SignedView:
        """Host only: anyone may sit down again."""
        command = cmd.UnlockTable(player=player.id)
        return await room.act(table_code(code), command, player)

    @post(
        "/{code:str}/bans",
        status_code=200,
        responses=problems(
            *WRITE,
            429,
            why={
                403: "Only the host may ban someone.",
                404: NO_TABLE,
                409: "`player` is you, or banned already; or the game is over.",
            },
        ),
        security=SIGNED_IN,
        guards=[HOST_LIMIT],
    )
    async def ban(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player],
        room: NamedDependency[Room],
        data: JSONBody[Ban],
    ) -> SignedView:
        """Host only: `player` loses any seat to a bot and may neither sit nor watch again."""
        command = cmd.BanPlayer(player=player.id, banned=data.player)
        return await room.act(table_code(code), command, player)

    @post(
        "/{code:str}/partners",
        status_code=200,
        responses=problems(
            *WRITE,
            429,
            why={
                403: "Only the host may choose partners.",
                404: NO_TABLE,
                409: "The game has started, you don't sit at the table, `seat` is your own or "
                "empty, or whoever sits there is your partner already.",
            },
        ),
        security=SIGNED_IN,
        guards=[HOST_LIMIT],
    )
    async def partners(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player],
        room: NamedDependency[Room],
        data: JSONBody[Partner],
    ) -> SignedView:
        """Host only, before the start: whoever sits in `seat` becomes the host's partner,
        changing places with whoever sits across from the host."""
        command = cmd.ChoosePartner(player=player.id, seat=data.seat)
        return await room.act(table_code(code), command, player)
