"""The review after each hand over HTTP: each scored hand's cards, what each did to its side's
tricks, and what would have kept the tricks a card cost; and its call (and any pass that
likely cost) judged over likely deals (docs/bots.md "The review after each hand").

A review is of the hand's public record alone (the cards played, the bids, the up card), so
once its hand is scored it tells nothing the table didn't show; the table's privacy rule holds
as for its log, and a hand not yet scored has no review to read.
"""

from __future__ import annotations

from litestar import Controller, get
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath

from infra.players import Player
from infra.reviews import Reviews
from services.api.auth import optional_player
from services.api.bodies import Code, TableReviews, table_code
from services.api.contract import OPTIONAL, READ, problems
from services.api.room import Room


class ReviewsController(Controller):
    path = "/api/tables"

    @get(
        "/{code:str}/reviews",
        dependencies={"player": Provide(optional_player)},
        security=OPTIONAL,
        responses=problems(*READ, 403),
    )
    async def reviews(
        self,
        code: FromPath[Code],
        player: NamedDependency[Player | None],
        room: NamedDependency[Room],
        reviews: NamedDependency[Reviews],
    ) -> TableReviews:
        """Every scored hand's review that the reviews worker has done, oldest first. Whoever
        may watch the table may read them."""
        state = await room.watched(table_code(code), player)
        scored = len(state.history)
        hands = await reviews.of(state.code, scored)
        return TableReviews(scored=scored, hands=hands)
