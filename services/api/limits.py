"""Rate limits: how often one address, name or player may sign up, sign in, open tables, move,
chat or act as a host (lock, ban, choose partners, mute), answered with 429 and `Retry-After`
beyond that.

The counters live in Redis (the `limits` library's async storage, sliding windows), so every API
process behind a balancer counts against the same numbers. Keys are prefixed with the database's
name: processes serving one database share limits, and a test's server never sees another's.
If Redis can't be reached the request goes through (and a warning is logged): the limits
protect the service, they must not be what takes it down.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable

import msgspec
import redis.asyncio as aioredis
from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from litestar import Request
from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler

from infra import names
from infra.fairness import seconds
from infra.players import Players
from infra.settings import RateLimits
from services.api.auth import optional_player
from services.api.problems import Problem

log = logging.getLogger(__name__)

# What each limit is called in a 429's detail, and the request field it counts by.
WHAT = {
    "sign_ins_per_name": ("sign-ins for this name", "name"),
    "sign_ins_per_address": ("sign-ins from your address", None),
    "sign_ups_per_address": ("new players from your address", None),
    "tables_per_address": ("tables opened from your address", None),
    "tables_per_player": ("tables opened by you", None),
    "moves_per_player": ("moves from you", None),
    "chat_per_player": ("chat messages from you", None),
    "reactions_per_player": ("reactions from you", None),
    "host_actions_per_player": ("host actions from you", None),
    "streams_per_anonymous_address": ("streams opened from your address", None),
    "streams_per_player": ("streams opened by you", None),
}


def _storage(redis: aioredis.Redis | None, prefix: str) -> Storage:
    """The shared Redis when there is one, over the app's own connection pool (closed with
    it), which knows where the server is (one address, a socket, or Sentinel's primary): the
    URL given to `limits` only picks its redis-py storage. A process's own memory otherwise
    (right for one process only)."""
    if redis is None:
        return MemoryStorage()
    return RedisStorage(
        "async+redis://",
        implementation="redispy",
        key_prefix=prefix,
        connection_pool=redis.connection_pool,
    )


class Limiter:
    def __init__(
        self,
        limits: RateLimits,
        redis: aioredis.Redis | None,
        prefix: str,
        players: Players,
    ) -> None:
        self.players = players  # who a request is, for the limits counted per player
        self._rules: dict[str, list[RateLimitItem]] = {
            rule: parse_many(text)
            for rule, text in msgspec.structs.asdict(limits).items()
            if text is not None
        }
        self._limiter = SlidingWindowCounterRateLimiter(_storage(redis, prefix))

    async def hit(self, counted: list[tuple[str, str]]) -> None:
        """Count one event for each (rule, who); Problem 429 naming the first that is over.

        All are tested before any is counted, so a refused request uses up nothing.
        """
        items = [(rule, who, item) for rule, who in counted for item in self._rules.get(rule, ())]
        try:
            for rule, who, item in items:
                if not await self._limiter.test(item, rule, who):
                    raise await self._refusal(rule, who, item)
            for rule, who, item in items:
                if not await self._limiter.hit(item, rule, who):  # lost a race to another
                    raise await self._refusal(rule, who, item)
        except Problem:
            raise
        except Exception as error:  # the storage is down: let the request through
            log.warning("rate limits %s not checked: %s", [r for r, _ in counted], error)

    async def _refusal(self, rule: str, who: str, item: RateLimitItem) -> Problem:
        stats = await self._limiter.get_window_stats(item, rule, who)
        wait = max(1, math.ceil(stats.reset_time - time.time()))
        what, field = WHAT[rule]
        return Problem(
            429,
            f"too many {what} (at most {item}); try again in {wait} {seconds(wait)}",
            field=field,
            headers={"Retry-After": str(wait)},
        )


async def _address(request: Request) -> str | None:
    """The client's address: the connection's, or the one a proxy in EUCHRE_TRUSTED_PROXIES
    forwards (services.api.server), never one any client can write in a header."""
    return request.client.host if request.client else None


async def _anonymous_address(request: Request, players: Players) -> str | None:
    """The address of a caller not signed in: a signed-in one is counted as themselves."""
    signed_in = await optional_player(request, players) is not None
    return None if signed_in else await _address(request)


async def _player(request: Request, players: Players) -> str | None:
    player = await optional_player(request, players)
    return None if player is None else player.id


class _Named(msgspec.Struct):
    name: str


async def _name(request: Request) -> str | None:
    """The body's name as sign-in compares it; a body that isn't one is left to the handler."""
    try:
        named = msgspec.json.decode(await request.body(), type=_Named)
        return names.normal(named.name).casefold()
    except (msgspec.DecodeError, RecursionError):
        return None


_WHO: dict[str, Callable[[Request, Players], Awaitable[str | None]]] = {
    "name": lambda request, _: _name(request),
    "address": lambda request, _: _address(request),
    "anonymous_address": _anonymous_address,
    "player": _player,
}


def limited(*rules: str) -> Callable[[ASGIConnection, BaseRouteHandler], Awaitable[None]]:
    """A route guard counting `rules` (RateLimits field names) before the handler runs."""
    unknown = set(rules) - set(WHAT)
    if unknown:
        raise ValueError(f"no such rate limit: {', '.join(sorted(unknown))}")

    async def guard(connection: ASGIConnection, _: BaseRouteHandler) -> None:
        limiter: Limiter | None = getattr(connection.app.state, "limiter", None)
        if limiter is None:
            return
        counted = []
        for rule in rules:
            who = await _WHO[rule.rpartition("_per_")[2]](connection, limiter.players)
            if who is not None:
                counted.append((rule, who))
        await limiter.hit(counted)

    return guard
