"""`GET /metrics`: the Prometheus text exposition (docs/operations.md "Metrics"), for operators.

What it says (how many streams are open, how far behind the read models are, how deep the
queues are) is nobody else's business, and a scrape costs reads of Redis, the broker and the
database: it is served to the addresses in EUCHRE_METRICS_ALLOW alone (loopback unless set),
judged as the rate limits judge them (a trusted proxy's forwarded address). A request that a
proxy passed on (it names a client in X-Forwarded-For or Forwarded) is refused whoever sent
it: a scraper reaches the API processes directly, and a proxy in front of the service for its
players must not become a way in. Left out of the OpenAPI schema: it is no part of the HTTP
contract players' programs use.
"""

from __future__ import annotations

import asyncio
import logging

import redis.asyncio as aioredis
from litestar import Request, Response, get
from litestar.di import NamedDependency
from sqlalchemy.ext.asyncio import AsyncEngine

from infra import heartbeat, metrics, queues
from infra.activity import Activity
from infra.eventstore import EventStore
from infra.follower import Follower
from infra.lobby import Lobby
from infra.ratings import Ratings
from infra.reviews import Reviews
from infra.transparency import PublicLog
from services.api.problems import Problem

log = logging.getLogger(__name__)
FORWARDED = ("x-forwarded-for", "forwarded")
SCRAPE_TIMEOUT = 5.0


@get("/metrics", include_in_schema=False)
async def exposition(
    request: Request,
    engine: NamedDependency[AsyncEngine],
    store: NamedDependency[EventStore],
    redis: NamedDependency[aioredis.Redis | None],
    broker_url: NamedDependency[str | None],
    lobby: NamedDependency[Lobby],
    ratings: NamedDependency[Ratings],
    reviews: NamedDependency[Reviews],
    public_log: NamedDependency[PublicLog],
) -> Response[bytes]:
    """Every process's series, and the service's read for this scrape."""
    allow = request.app.state.metrics_allow
    if allow is None:
        raise Problem(404, "metrics are off here (EUCHRE_METRICS=off)")
    client = request.client.host if request.client else None
    if any(h in request.headers for h in FORWARDED) or not metrics.allowed(client, allow):
        raise Problem(
            403,
            "metrics are served to the addresses in EUCHRE_METRICS_ALLOW only, never through "
            "a proxy",
        )
    followers = [
        lobby.follower,
        ratings.follower,
        reviews.follower,
        public_log.follower,
        Activity(engine, store).follower,
    ]
    body = metrics.render(await _service_wide(engine, redis, broker_url, followers))
    return Response(body, media_type=metrics.MEDIA_TYPE)


async def _service_wide(
    engine: AsyncEngine,
    redis: aioredis.Redis | None,
    broker: str | None,
    followers: list[Follower],
) -> list:
    """The queues, the workers and the read models' lag (of `followers`), each from its own
    source; one that can't be read is left out and said to be down
    (`euchre_metrics_source_up`)."""
    up: dict[str, bool] = {}

    async def read(source: str, reading):
        try:
            found = await asyncio.wait_for(reading, SCRAPE_TIMEOUT)
        except Exception as error:
            log.warning("metrics: could not read the %s: %r", source, error)
            up[source] = False
            return None
        up[source] = True
        return found

    async def lags() -> dict[str, float]:
        return {f.name: await f.lag() for f in followers}

    async def workers() -> int:
        if redis is None:
            raise ConnectionError("no Redis configured")
        database = engine.url.render_as_string()
        return await heartbeat.alive(redis, heartbeat.namespace(database))

    async def depths() -> dict[str, tuple[int, float | None]]:
        if broker is None:
            raise ConnectionError("no broker configured")
        return await queues.depths(broker)

    found = await asyncio.gather(
        read("broker", depths()),
        read("redis", workers()),
        read("database", lags()),
    )
    return metrics.scraped(*found, up)
