"""Hints (the rules are domain/hint.py, the advice domain/bots/hint.py): a person playing alone
with bots asks, on their own turn, what the expert would do in their seat.

Asking logs `HintGiven` first, so a hint is never shown without the ratings knowing of it
(docs/ratings.md "Integrity"); the advice is then worked out from the seat's own view, seeded
by the table and the decision as a bot's move is, so asking twice gives the same answer.
"""

from __future__ import annotations

import asyncio
import random

from litestar import Controller, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath

from domain import commands as cmd
from domain.bots.hint import advise
from domain.decider import deciding
from domain.hint import NOT_ALONE
from domain.seat_view import view
from infra.players import Player
from services.api.auth import current_player
from services.api.bodies import Code, HintView, move_body, table_code
from services.api.contract import SIGNED_IN, WRITE, problems
from services.api.limits import limited
from services.api.room import NO_TABLE, Room


class HintsController(Controller):
    path = "/api/tables"
    tags = ["tables"]
    dependencies = {"player": Provide(current_player)}

    @post(
        "/{code:str}/hint",
        status_code=200,
        responses=problems(
            *WRITE,
            429,
            why={
                403: "You don't play at this table: only a seated player may ask, for their "
                "own seat.",
                404: NO_TABLE,
                409: f"{NOT_ALONE} Or it isn't your turn to bid, discard or play, the game "
                "isn't under way, or a bot is playing your seat while you're away.",
            },
        ),
        security=SIGNED_IN,
        guards=[limited("moves_per_player")],
    )
    async def hint(
        self, code: FromPath[Code], player: NamedDependency[Player], room: NamedDependency[Room]
    ) -> HintView:
        """On your turn at a table where every other seat is a bot: what the expert bot would
        do in your seat, and why. Logged (`HintGiven`): a game you win after a hint isn't
        credited to your rating, and one you lose counts as ever (docs/ratings.md)."""
        code = table_code(code)
        await room.present(code, player)
        state = await room.tables.execute(code, cmd.AskHint(player=player.id))
        seat = state.seat_of(player.id)
        assert seat is not None  # the rules gave the hint to the caller's own seat
        key = next(d.key for d in deciding(state) if d.seat == seat)
        # A search of up to a few hundred milliseconds: on a thread, as the bots' are.
        advice = await asyncio.to_thread(advise, view(state, seat), random.Random(f"{code}/{key}"))
        return HintView(
            seq=state.seq, move=move_body(advice.move), card=advice.card, words=advice.words
        )
