"""Who is calling: a bearer token, or the same token in a cookie for browsers (EventSource
can't set headers, but sends cookies).

A cookie is sent by the browser whoever's page asks, so a request it authorises may come from
another site (CSRF). Such a request that changes something must show it comes from our own page:
an `Origin` (or, failing that, `Referer`) naming this host. A bearer token is only ever sent by
code that holds it, so it needs no such check.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from litestar import Request
from litestar.datastructures import Cookie
from litestar.di import NamedDependency

from infra.players import Banned, Player, Players, token_hash
from services.api.problems import Problem

COOKIE = "euchre_token"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


def secure(request: Request) -> bool:
    """Whether cookies get `Secure`: EUCHRE_SECURE_COOKIES on/off, or with auto (the default)
    when the request came over HTTPS (behind a proxy: its X-Forwarded-Proto, which uvicorn
    honours from trusted proxies)."""
    setting = getattr(request.app.state, "secure_cookies", "auto")
    return setting == "on" or (setting == "auto" and request.url.scheme == "https")


def token_cookie(token: str, secure: bool = False) -> Cookie:
    return Cookie(
        key=COOKIE,
        value=token,
        httponly=True,
        secure=secure,
        samesite="lax",
        path="/",
        max_age=60 * 60 * 24 * 365,
    )


def cleared_cookie(secure: bool = False) -> Cookie:
    return Cookie(
        key=COOKIE, value="", httponly=True, secure=secure, samesite="lax", path="/", max_age=0
    )


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise Problem(
            401,
            "the Authorization header must be 'Bearer <token>'",
            field="Authorization",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return value.strip()


def _same_origin(request: Request) -> bool:
    """Whether the page that sent this is our own: its host (and port) is the one asked.

    A proxy that rewrites `Host` says the original in `X-Forwarded-Host`; trusting that is
    safe here, since another site's page can't set it without a CORS preflight we never grant.
    """
    source = request.headers.get("origin") or request.headers.get("referer")
    if not source or source == "null":
        return False
    try:
        sender = urlsplit(source).netloc.lower()
    except ValueError:  # not a URL at all (`http://[`): no page of ours sent it
        return False
    hosts = [request.headers.get("host"), request.headers.get("x-forwarded-host")]
    return any(host is not None and sender == host.strip().lower() for host in hosts)


def token(request: Request) -> str | None:
    """The caller's token: the bearer header's, else the cookie's, which for a request that
    changes state only counts when it comes from this site's own page."""
    bearer = _bearer(request)
    if bearer is not None:
        return bearer
    cookie = request.cookies.get(COOKIE)
    if cookie and request.method not in SAFE_METHODS and not _same_origin(request):
        raise Problem(
            403,
            "a request signed in by cookie must come from this site's page (its Origin or "
            "Referer must name this host); other clients send 'Authorization: Bearer <token>'",
            field="Origin",
        )
    return cookie or None


def token_digest(request: Request) -> str | None:
    """The hash of the caller's token, as REVOKED names it, or None without one."""
    found = token(request)
    return None if found is None else token_hash(found)


def banned(error: Banned) -> Problem:
    """A banned player's refusal, naming the operator's reason."""
    return Problem(403, f"you are banned from this site: {error.reason}", field="Authorization")


async def optional_player(request: Request, players: NamedDependency[Players]) -> Player | None:
    """The caller, once per request: a rate limit's guard asks before the handler does, and
    the handler's answer is the guard's (kept in the request's own state)."""
    if "player" in request.state:
        return request.state["player"]
    player = await _resolved(request, players)
    request.state["player"] = player
    return player


async def _resolved(request: Request, players: Players) -> Player | None:
    found = token(request)
    if found is None:
        return None
    try:
        player = await players.by_token(found)
    except Banned as error:
        raise banned(error) from None
    if player is None:
        raise Problem(
            401,
            "that token is not valid; get a new one from POST /api/players",
            field="Authorization",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return player


async def current_player(request: Request, players: NamedDependency[Players]) -> Player:
    player = await optional_player(request, players)
    if player is None:
        raise Problem(
            401,
            "sign in first: send 'Authorization: Bearer <token>' from POST /api/players",
            field="Authorization",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return player
