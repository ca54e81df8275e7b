"""Tables: opening, the lobby, seats, house rules, the start, moves and the public log.

Each handler turns the request into a domain command and lets `services.tables.Tables`
decide and append it; the answer is the caller's own view of the table afterwards.
"""

from __future__ import annotations

import secrets
from typing import Any

import msgspec
from litestar import Controller, Request, Response, delete, get, patch, post, put
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody

from domain import commands as cmd
from domain.errors import Conflict
from domain.state import State
from domain.table import LEVELS
from domain.view import View, view
from infra.players import Player
from projections.log import public_line
from services.api.auth import current_player, optional_player
from services.api.bodies import BotLevel, NewTable, move_command, table_code
from services.api.problems import Problem
from services.tables import Tables

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def _tables(request: Request) -> Tables:
    return request.app.state.services.tables


def seat_view(state: State, player: Player | None) -> View:
    seat = None if player is None else state.seat_of(player.id)
    return view(state, seat)


def _level(level: str) -> str:
    if level not in LEVELS:
        raise Problem(
            422, f"bots must be one of {', '.join(LEVELS)}", field="bots", allowed=list(LEVELS)
        )
    return level


class TablesController(Controller):
    path = "/api/tables"
    tags = ["tables"]
    dependencies = {"player": Provide(current_player)}

    @post("/", status_code=201)
    async def open(
        self, request: Request, player: NamedDependency[Player], data: JSONBody[NewTable]
    ) -> View:
        """Open a table; the caller is its host and sits in `seat`."""
        _level(data.bots)
        tables = _tables(request)
        codes = (
            [table_code(data.code)]
            if data.code is not None
            else ["".join(secrets.choice(CODE_ALPHABET) for _ in range(6)) for _ in range(5)]
        )
        for i, code in enumerate(codes):
            command = cmd.OpenTable(
                code=code,
                host=player.id,
                name=player.name,
                seed=secrets.token_hex(32),
                seat=data.seat,
                settings=data.settings,
                bots=data.bots,
            )
            try:
                state = await tables.execute(code, command)
            except Conflict:  # the only conflict in opening: the code is in use
                if data.code is None and i + 1 < len(codes):
                    continue
                raise Problem(409, f"the code {code} is taken", field="code") from None
            return seat_view(state, player)
        raise Problem(409, "couldn't find a free code; try again", field="code")

    @get("/", dependencies={"player": Provide(optional_player)})
    async def waiting(self, request: Request, player: NamedDependency[Player | None]) -> dict:
        """Tables waiting for players, newest first."""
        lobby = request.app.state.services.lobby
        await lobby.catch_up()
        return {"tables": [msgspec.to_builtins(row) for row in await lobby.rows()]}

    @get("/{code:str}", dependencies={"player": Provide(optional_player)})
    async def show(
        self, request: Request, code: FromPath[str], player: NamedDependency[Player | None]
    ) -> View:
        return seat_view(await _tables(request).load(table_code(code)), player)

    @post("/{code:str}/seats/{seat:int}", status_code=200)
    async def sit(
        self,
        request: Request,
        code: FromPath[str],
        seat: FromPath[int],
        player: NamedDependency[Player],
    ) -> View:
        command = cmd.TakeSeat(player=player.id, name=player.name, seat=seat)
        return seat_view(await _tables(request).execute(table_code(code), command), player)

    @delete("/{code:str}/seats/{seat:int}", status_code=200)
    async def stand(
        self,
        request: Request,
        code: FromPath[str],
        seat: FromPath[int],
        player: NamedDependency[Player],
    ) -> View:
        command = cmd.LeaveSeat(player=player.id, seat=seat)
        return seat_view(await _tables(request).execute(table_code(code), command), player)

    @put("/{code:str}/seats/{seat:int}/bot")
    async def bot(
        self,
        request: Request,
        code: FromPath[str],
        seat: FromPath[int],
        player: NamedDependency[Player],
        data: JSONBody[BotLevel],
    ) -> View:
        command = cmd.SeatBot(player=player.id, seat=seat, level=_level(data.level))
        return seat_view(await _tables(request).execute(table_code(code), command), player)

    @patch("/{code:str}/settings")
    async def settings(
        self,
        request: Request,
        code: FromPath[str],
        player: NamedDependency[Player],
        data: JSONBody[dict[str, Any]],
    ) -> View:
        command = cmd.ChangeSettings(player=player.id, settings=data)
        return seat_view(await _tables(request).execute(table_code(code), command), player)

    @post("/{code:str}/start", status_code=200)
    async def start(
        self, request: Request, code: FromPath[str], player: NamedDependency[Player]
    ) -> View:
        command = cmd.StartGame(player=player.id)
        return seat_view(await _tables(request).execute(table_code(code), command), player)

    @post("/{code:str}/moves", status_code=200)
    async def move(
        self, request: Request, code: FromPath[str], player: NamedDependency[Player]
    ) -> View:
        """A move by the caller's seat; `seq`, if sent, must be the table's current one."""
        code = table_code(code)
        try:
            body = msgspec.json.decode(await request.body())
        except msgspec.DecodeError:
            raise Problem(400, 'the body must be JSON: {"type": ..., ...}') from None
        seq = body.get("seq") if isinstance(body, dict) else None

        def command(state: State) -> cmd.Command:
            seat = state.seat_of(player.id)
            if seat is None:
                raise Problem(403, "you don't sit at this table", field="code")
            return move_command(body, seat)[0]

        key = request.headers.get("idempotency-key")
        command_id = f"{player.id}:{code}:{key}" if key else None
        after = await _tables(request).execute(
            code, command, expected_seq=seq if isinstance(seq, int) else None, command_id=command_id
        )
        return view(after, after.seat_of(player.id))

    @get("/{code:str}/log", dependencies={"player": Provide(optional_player)})
    async def log(
        self, request: Request, code: FromPath[str], player: NamedDependency[Player | None]
    ) -> Response:
        """The table's events as NDJSON; secrets are blank until the game is over."""
        code = table_code(code)
        tables = _tables(request)
        records = await tables.store.read(code)
        if not records:
            raise Problem(404, f"there is no table {code}", field="code")
        over = any(r.type == "GameWon" for r in records)
        lines = b"".join(msgspec.json.encode(public_line(r, over)) + b"\n" for r in records)
        return Response(lines, media_type="application/x-ndjson")
