"""Tables: opening, the lobby, seats, house rules, the start, moves and the public log.

Each handler turns the request into a domain command and lets `services.use_cases.Tables`
decide and append it; the answer is the caller's own view of the table afterwards.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any

import msgspec
from litestar import Controller, Response, delete, get, patch, post, put
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, HeaderParameter, JSONBody, Parameter

from domain import commands as cmd
from domain.decider import can
from domain.errors import Conflict, IllegalMove
from domain.events import Level
from domain.state import State
from infra import metrics
from infra.idempotency import Replies
from infra.lobby import Lobby
from infra.players import Player, Players
from infra.ratings import Ratings
from projections import audit
from projections.audit import Verdict
from services.api.auth import current_player, optional_player
from services.api.bodies import (
    BotLevel,
    Code,
    HouseRules,
    MoveBody,
    NewTable,
    ShownView,
    SignedView,
    SitBody,
    TableRatings,
    Waiting,
    move_command,
    table_code,
)
from services.api.contract import OPTIONAL, READ, SIGNED_IN, WRITE, problems
from services.api.limits import limited
from services.api.problems import Problem
from services.api.retries import HEADER, fingerprint, once
from services.api.room import Room
from services.api.stream import Feeds

MAX_POSITION = 2**63 - 1  # a lobby position is a PostgreSQL bigint
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def _fresh_code() -> str:
    """A code nobody chose: six of 32 letters and digits that can't be misread."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))


def _opened_by(
    player: Player,
    code: str,
    seat: int,
    settings: dict[str, Any] | None,
    bots: Level,
    contribution: str | None = None,
    commitment: str | None = None,
) -> cmd.OpenTable:
    """`player` opens table `code` as its host, the server choosing its secret seed."""
    return cmd.OpenTable(
        code=code,
        host=player.id,
        name=player.name,
        registered=player.registered,
        seed=secrets.token_hex(32),
        seat=seat,
        settings=settings,
        bots=bots,
        contribution=contribution,
        commitment=commitment,
    )


async def _keep_house_rules(players: Players, player: Player, state: State) -> None:
    """A registered host's house rules pre-fill the next table they open."""
    if player.registered:
        rules = msgspec.structs.asdict(state.settings)
        await players.keep_house_rules(player.id, rules)


SeatNo = Annotated[int, Parameter(ge=0, le=3, description="a seat, 0-3 clockwise")]
IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name=HEADER,
        required=False,
        description="a retry with the same key gets the first answer (status and body) "
        "for 24 hours; the same key on a different move is refused with 422",
    ),
]


class TablesController(Controller):
    path = "/api/tables"
    tags = ["tables"]
    dependencies = {"player": Provide(current_player)}

    @post(
        "/",
        status_code=201,
        responses=problems(*WRITE, 429),
        security=SIGNED_IN,
        guards=[limited("tables_per_address", "tables_per_player")],
    )
    async def open(
        self,
        player: NamedDependency[Player],
        room: NamedDependency[Room],
        players: NamedDependency[Players],
        data: JSONBody[NewTable],
    ) -> SignedView:
        """Open a table; the caller is its host and sits in `seat`."""
        tables = room.tables
        codes = (
            [table_code(data.code)] if data.code is not None else [_fresh_code() for _ in range(5)]
        )
        for i, code in enumerate(codes):
            command = _opened_by(
                player,
                code,
                seat=data.seat,
                settings=None if data.settings is None else msgspec.to_builtins(data.settings),
                bots=data.bots,
                contribution=data.seed,
                commitment=data.commitment,
            )
            try:
                state = await tables.execute(code, command)
                await _keep_house_rules(players, player, state)
            except Conflict:  # the only conflict in opening: the code is in use
                if data.code is None and i + 1 < len(codes):
                    continue
                raise Problem(409, f"the code {code} is taken", field="code") from None
            return await room.seat_view(state, player)
        raise Problem(409, "couldn't find a free code; try again", field="code")

    @get(
        "/",
        dependencies={"player": Provide(optional_player)},
        security=OPTIONAL,
        responses=problems(*READ),
    )
    async def waiting(
        self,
        player: NamedDependency[Player | None],
        lobby: NamedDependency[Lobby],
        limit: Annotated[int, Parameter(ge=1, le=100, description="tables per page")] = 20,
        before: Annotated[
            int | None,
            Parameter(ge=1, le=MAX_POSITION, description="the `next` of the page before"),
        ] = None,
    ) -> Waiting:
        """Tables waiting for players that aren't locked, newest first, a page at a time.

        Read as the lobby's follower last wrote it (it follows the log in the background,
        about a second behind): a busy lobby costs a read, never a catch-up per request.
        """
        rows = await lobby.rows(limit + 1, before)
        more = len(rows) > limit
        return Waiting(tables=rows[:limit], next=rows[limit - 1].position if more else None)

    @get(
        "/{code:str}",
        dependencies={"player": Provide(optional_player)},
        security=OPTIONAL,
        responses=problems(*READ),
    )
    async def show(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player | None],
        room: NamedDependency[Room],
        ratings: NamedDependency[Ratings],
    ) -> ShownView:
        """The caller's view: their seat's if seated, a spectator's otherwise; opening it
        brings a person whose seat a bot covered back to it. It carries the signed head of
        the event it shows, and once the game is over each seat's rating change, `pending`
        until the ratings worker has rated the game."""
        state = await room.arrive(table_code(code), player)
        shown = await room.seat_view(state, player)
        rated = waited = None
        if state.status == "over":
            rated = TableRatings.of(await ratings.game(state.code))
        elif state.status == "playing" and state.settings.turn_limit == "on":
            waited = await room.waited(state.code)
        return ShownView(**msgspec.structs.asdict(shown), ratings=rated, waited=waited)

    @post(
        "/{code:str}/seats/{seat:int}",
        status_code=200,
        responses=problems(*WRITE),
        security=SIGNED_IN,
    )
    async def sit(
        self,
        code: FromPath[Code],
        seat: FromPath[SeatNo],
        player: NamedDependency[Player],
        room: NamedDependency[Room],
        data: JSONBody[SitBody | None] = None,
    ) -> SignedView:
        """Sit down, or back down in your own seat during a game; the body, if any, gives a
        seed of your own for the deals, or better a commitment to one."""
        command = cmd.TakeSeat(
            player=player.id,
            name=player.name,
            seat=seat,
            registered=player.registered,
            contribution=None if data is None else data.seed,
            commitment=None if data is None else data.commitment,
        )
        await room.present(table_code(code), player)
        return await room.act(table_code(code), command, player)

    @delete(
        "/{code:str}/seats/{seat:int}",
        status_code=200,
        responses=problems(*WRITE),
        security=SIGNED_IN,
    )
    async def stand(
        self,
        code: FromPath[Code],
        seat: FromPath[SeatNo],
        player: NamedDependency[Player],
        room: NamedDependency[Room],
    ) -> SignedView:
        command = cmd.LeaveSeat(player=player.id, seat=seat)
        return await room.act(table_code(code), command, player)

    @put("/{code:str}/seats/{seat:int}/bot", responses=problems(*WRITE), security=SIGNED_IN)
    async def bot(
        self,
        code: FromPath[Code],
        seat: FromPath[SeatNo],
        player: NamedDependency[Player],
        room: NamedDependency[Room],
        data: JSONBody[BotLevel],
    ) -> SignedView:
        """Host only: a bot of `level` takes the seat."""
        command = cmd.SeatBot(player=player.id, seat=seat, level=data.level)
        return await room.act(table_code(code), command, player)

    @patch("/{code:str}/settings", responses=problems(*WRITE), security=SIGNED_IN)
    async def settings(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player],
        room: NamedDependency[Room],
        players: NamedDependency[Players],
        data: JSONBody[HouseRules],
    ) -> SignedView:
        """Host only, before the start: change the house rules named; the rest stay."""
        command = cmd.ChangeSettings(player=player.id, settings=msgspec.to_builtins(data))
        state = await room.tables.execute(table_code(code), command)
        await _keep_house_rules(players, player, state)
        return await room.seat_view(state, player)

    @post("/{code:str}/start", status_code=200, responses=problems(*WRITE), security=SIGNED_IN)
    async def start(
        self, code: FromPath[Code], player: NamedDependency[Player], room: NamedDependency[Room]
    ) -> SignedView:
        """Host only: start the game; empty seats get bots."""
        code = table_code(code)
        # The host is here, stream or not: a page still loading mustn't find them gone.
        await room.present(code, player)
        command = cmd.StartGame(player=player.id)
        return await room.act(code, command, player)

    @post(
        "/{code:str}/again",
        status_code=201,
        responses=problems(*WRITE, 429),
        security=SIGNED_IN,
        guards=[limited("tables_per_address", "tables_per_player")],
    )
    async def again(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player],
        room: NamedDependency[Room],
        data: JSONBody[SitBody | None] = None,
    ) -> SignedView:
        """Host only, at game over: a new table with the same house rules and bots, the host
        in their seat, every other person's seat kept for them for a minute and an invitation
        in their view of this table; the host's view of the new one. The body, if any, is the
        host's seed or commitment for the new table, as when sitting down."""
        code = table_code(code)
        tables = room.tables
        fresh = _fresh_code()
        old = await tables.execute(code, cmd.OfferRematch(player=player.id, code=fresh))
        mine = old.seat_of(player.id)
        seat = 0 if mine is None else mine
        given = SitBody() if data is None else data
        rules = msgspec.structs.asdict(old.settings)
        opening: list[cmd.Command] = [
            _opened_by(player, fresh, seat, rules, old.bots, given.seed, given.commitment)
        ]
        kept: list[str | None] = [None] * 4
        for n, was in enumerate(old.seats):
            if n == seat:
                continue
            if was.player is not None and not old.is_banned(was.player):
                kept[n] = was.player
            elif was.bot is not None:
                opening.append(cmd.SeatBot(player=player.id, seat=n, level=was.bot))
        if any(kept):
            opening.append(cmd.HoldSeats(player=player.id, players=kept))
        return await room.act(fresh, opening, player)

    @post(
        "/{code:str}/moves",
        status_code=200,
        responses=problems(
            *WRITE,
            429,
            why={
                422: "A field is wrong, the move is against the rules (`legal` lists the "
                "moves open to you), or the Idempotency-Key was used for another move.",
            },
        ),
        security=SIGNED_IN,
        guards=[limited("moves_per_player")],
    )
    async def move(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player],
        room: NamedDependency[Room],
        feeds: NamedDependency[Feeds],
        replies: NamedDependency[Replies],
        data: JSONBody[MoveBody],
        idempotency_key: IdempotencyKey = None,
    ) -> Response[SignedView]:
        """A move by the caller's seat; `seq`, if sent, must be the table's current one."""
        code = table_code(code)

        await room.present(code, player)

        async def answer() -> Response:
            tables = room.tables
            move = move_command(data, await tables.seat_of(code, player.id))
            command_id = f"{player.id}:{code}:{idempotency_key}" if idempotency_key else None
            try:
                after = await tables.execute(
                    code,
                    cmd.MakeMove(player=player.id, move=move),
                    expected_seq=data.seq,
                    command_id=command_id,
                )
            except IllegalMove as error:
                # What the caller may do instead, as their view's `can` would say it now.
                now = await tables.load(code)
                legal = can(now, now.seat_of(player.id))
                raise Problem(422, error.reason, error.field, error.allowed, legal=legal) from None
            mine = feeds.view_json(after, after.seat_of(player.id))
            return Response(mine, status_code=200, media_type="application/json")

        if idempotency_key is None:
            return await answer()
        request_print = fingerprint(code, msgspec.json.encode(data))
        return await once(replies, player.id, idempotency_key, request_print, answer)

    @get(
        "/{code:str}/log",
        dependencies={"player": Provide(optional_player)},
        security=OPTIONAL,
        media_type="application/x-ndjson",
        responses=problems(*READ),
    )
    async def log(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player | None],
        room: NamedDependency[Room],
    ) -> Response[str]:
        """The table's events as NDJSON, each with its hash; secrets are blank until the game
        is over. Whoever may watch the table may read it."""
        records = await room.log(table_code(code), player)
        return Response(audit.ndjson(audit.log_lines(records)), media_type="application/x-ndjson")

    @get(
        "/{code:str}/export",
        dependencies={"player": Provide(optional_player)},
        security=OPTIONAL,
        media_type="application/x-ndjson",
        responses=problems(*READ),
    )
    async def export(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player | None],
        room: NamedDependency[Room],
    ) -> Response[bytes]:
        """What `euchre export` writes (docs/audit.md): a header line naming the format and
        its version, then the log's lines, as a file to keep."""
        code = table_code(code)
        records = await room.log(code, player)
        last = records[-1]
        signed, _ = room.heads.signed(code, last.seq, last.hash)
        # (None where the service signs no heads: the export has none either.)
        lines = audit.ndjson(audit.export(code, records, signed))
        keep = {"Content-Disposition": f'attachment; filename="{code}.ndjson"'}
        return Response(lines, media_type="application/x-ndjson", headers=keep)

    @get(
        "/{code:str}/verify",
        dependencies={"player": Provide(optional_player)},
        security=OPTIONAL,
        responses=problems(*READ),
    )
    async def verify(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player | None],
        room: NamedDependency[Room],
    ) -> Verdict:
        """What `euchre verify` says of the table's log (docs/audit.md): `ok` with a summary,
        or the first event that disagrees and how. A game still running can't be checked:
        its cards are blank until it ends."""
        code = table_code(code)
        records = await room.log(code, player)
        verdict = audit.verify(audit.export(code, records))
        if not verdict.ok and audit.over(records):  # a game under way isn't checkable yet
            metrics.chain_failures.labels("verify").inc()
        return verdict
