"""Table talk: chat lines, reactions, and the host's mutes (the rules are domain/talk.py).

Anyone signed in who may watch a table may talk at it, seated or not. A line or a reaction
answers 204: it reaches everyone, the sender too, on the table's stream, with the seq and time
the log gave it. Mutes answer with the host's view, which lists who is muted.
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, delete, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody, Parameter

from domain import commands as cmd
from infra.players import Player, Players
from services.api.auth import current_player
from services.api.bodies import ChatBody, Code, MuteBody, ReactionBody, SignedView, table_code
from services.api.contract import SIGNED_IN, WRITE, problems
from services.api.limits import limited
from services.api.problems import Problem
from services.api.room import HOST_LIMIT, NO_TABLE, UNSEEN, Room

SILENCED = f"The host has muted you at this table. {UNSEEN}"
PlayerId = Annotated[str, Parameter(max_length=64, description="the muted player's id")]


class TalkController(Controller):
    path = "/api/tables"
    tags = ["tables"]
    dependencies = {"player": Provide(current_player)}

    @post(
        "/{code:str}/chat",
        status_code=204,
        responses=problems(
            *WRITE,
            429,
            why={
                403: SILENCED,
                404: NO_TABLE,
                422: "`text` is blank, too long, or holds a character a chat line can't "
                "(its `pattern` says which).",
            },
        ),
        security=SIGNED_IN,
        guards=[limited("chat_per_player")],
    )
    async def chat(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player],
        room: NamedDependency[Room],
        data: JSONBody[ChatBody],
    ) -> None:
        """Say a line at the table, as plain text; a muted player is refused with 403."""
        command = cmd.Say(player=player.id, name=player.name, text=data.text)
        await room.present(table_code(code), player)
        await room.tables.execute(table_code(code), command)

    @post(
        "/{code:str}/reactions",
        status_code=204,
        responses=problems(*WRITE, 429, why={403: SILENCED, 404: NO_TABLE}),
        security=SIGNED_IN,
        guards=[limited("reactions_per_player")],
    )
    async def react(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player],
        room: NamedDependency[Room],
        data: JSONBody[ReactionBody],
    ) -> None:
        """Show a reaction, one of the fixed set; a muted player is refused with 403."""
        command = cmd.React(player=player.id, name=player.name, emoji=data.emoji)
        await room.present(table_code(code), player)
        await room.tables.execute(table_code(code), command)

    @post(
        "/{code:str}/mutes",
        status_code=200,
        responses=problems(
            *WRITE,
            429,
            why={
                403: "Only the host may mute someone.",
                404: "No table has this code, or no player this id.",
                409: "`player` is you, or muted already.",
            },
        ),
        security=SIGNED_IN,
        guards=[HOST_LIMIT],
    )
    async def mute(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player],
        room: NamedDependency[Room],
        players: NamedDependency[Players],
        data: JSONBody[MuteBody],
    ) -> SignedView:
        """Host only: `player` may no longer chat or react at this table."""
        code = table_code(code)
        target = await players.get(data.player)
        if target is None:
            raise Problem(404, f"there is no player {data.player}", field="player")
        command = cmd.Mute(player=player.id, target=target.id, name=target.name)
        return await room.act(code, command, player)

    @delete(
        "/{code:str}/mutes/{target:str}",
        status_code=200,
        responses=problems(
            *WRITE,
            429,
            why={
                403: "Only the host may unmute someone.",
                404: NO_TABLE,
                409: "`target` isn't muted at this table.",
            },
        ),
        security=SIGNED_IN,
        guards=[HOST_LIMIT],
    )
    async def unmute(
        self,
        code: FromPath[Code],
        target: FromPath[PlayerId],
        player: NamedDependency[Player],
        room: NamedDependency[Room],
    ) -> SignedView:
        """Host only: the muted player may chat and react again."""
        command = cmd.Unmute(player=player.id, target=target)
        return await room.act(table_code(code), command, player)
