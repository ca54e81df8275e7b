"""Who is calling: a bearer token, or the same token in a cookie for browsers (EventSource
can't set headers, but sends cookies)."""

from __future__ import annotations

from litestar import Request
from litestar.datastructures import Cookie

from infra.players import Player
from services.api.problems import Problem

COOKIE = "euchre_token"


def token_cookie(token: str) -> Cookie:
    return Cookie(
        key=COOKIE, value=token, httponly=True, samesite="lax", path="/", max_age=60 * 60 * 24 * 365
    )


def _token(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header:
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise Problem(
                401,
                "the Authorization header must be 'Bearer <token>'",
                field="Authorization",
                headers={"WWW-Authenticate": "Bearer"},
            )
        return value.strip()
    return request.cookies.get(COOKIE)


async def optional_player(request: Request) -> Player | None:
    token = _token(request)
    if token is None:
        return None
    player = await request.app.state.services.players.by_token(token)
    if player is None:
        raise Problem(
            401,
            "that token is not valid; get a new one from POST /api/players",
            field="Authorization",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return player


async def current_player(request: Request) -> Player:
    player = await optional_player(request)
    if player is None:
        raise Problem(
            401,
            "sign in first: send 'Authorization: Bearer <token>' from POST /api/players",
            field="Authorization",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return player
