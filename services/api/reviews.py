"""The review after each hand over HTTP: each scored hand's cards, what each did to its side's
tricks, and what would have kept the tricks a card cost (docs/bots.md "The review after each
hand").

A review is of the cards played alone, so once its hand is scored it tells nothing the tricks
didn't show; the table's privacy rule holds as for its log, and a hand not yet scored has no
review to read.
"""

from __future__ import annotations

from litestar import Controller, Request, get
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath

from infra.players import Player
from services.api.auth import optional_player
from services.api.bodies import Code, TableReviews, table_code
from services.api.contract import OPTIONAL, READ, problems
from services.api.room import watched


class ReviewsController(Controller):
    path = "/api/tables"

    @get(
        "/{code:str}/reviews",
        dependencies={"player": Provide(optional_player)},
        security=OPTIONAL,
        responses=problems(*READ, 403),
    )
    async def reviews(
        self, request: Request, code: FromPath[Code], player: NamedDependency[Player | None]
    ) -> TableReviews:
        """Every scored hand's review that the reviews worker has done, oldest first. Whoever
        may watch the table may read them."""
        state = await watched(request, table_code(code), player)
        scored = len(state.history)
        hands = await request.app.state.services.reviews.of(state.code, scored)
        return TableReviews(scored=scored, hands=hands)
