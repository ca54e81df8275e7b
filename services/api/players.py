"""Players: becoming a guest or registering a name, signing in, and looking a player up."""

from __future__ import annotations

from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody

from infra.players import BadLogin, NameTaken, Player
from services.api.auth import current_player, token_cookie
from services.api.bodies import Login, NewPlayer
from services.api.problems import Problem


def _signed_in(player, token: str, status: int) -> Response:
    body = {"id": player.id, "name": player.name, "token": token}
    return Response(body, status_code=status, cookies=[token_cookie(token)])


class PlayersController(Controller):
    path = "/api"
    tags = ["players"]

    @post("/players", status_code=201)
    async def create(self, request: Request, data: JSONBody[NewPlayer]) -> Response:
        """A guest, or with a password (8+ characters) a registered, unique name."""
        try:
            player, token = await request.app.state.services.players.create(
                data.name.strip(), data.password
            )
        except NameTaken:
            raise Problem(
                409,
                f"the name {data.name!r} is registered already; sign in with "
                "POST /api/sessions or pick another",
                field="name",
            ) from None
        return _signed_in(player, token, 201)

    @post("/sessions", status_code=200)
    async def sign_in(self, request: Request, data: JSONBody[Login]) -> Response:
        try:
            player, token = await request.app.state.services.players.login(
                data.name.strip(), data.password
            )
        except BadLogin:
            raise Problem(401, "that name and password don't match", field="password") from None
        return _signed_in(player, token, 200)

    @get("/players/me", dependencies={"player": Provide(current_player)})
    async def me(self, player: NamedDependency[Player]) -> dict:
        """Who the token (or the browser's cookie) belongs to: a page can't read its HttpOnly
        cookie, so this is how it learns whether it is still signed in, and as whom."""
        return {"id": player.id, "name": player.name, "registered": player.registered}

    @get("/players/{player_id:str}")
    async def show(self, request: Request, player_id: FromPath[str]) -> dict:
        player = await request.app.state.services.players.get(player_id)
        if player is None:
            raise Problem(404, f"there is no player {player_id}", field="id")
        return {"id": player.id, "name": player.name, "registered": player.registered}
