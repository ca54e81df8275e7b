"""Health, as a liveness answer and a readiness answer (docs/operations.md "Health").

`/api/health/live` is 200 whenever this process's event loop answers, and asks nothing of
anyone: a database or broker down, or no bot worker alive, is no reason to restart an API
process (a liveness probe that failed on them would restart every API process at once for a
fault none of them has), and a probe that waited on them would fail with them.
`/api/health/ready` is 503 only when this process itself can't serve, its database out of
reach: a load balancer then sends its requests to the others. A missing Redis or worker leaves
every API process ready, since taking them all out would only add an outage to a stalled
table; `missing` names them. `/api/health` is the whole picture for a person or a monitor:
`ok` or `degraded`, naming what is down (the broker included), so a dead worker is seen even
though every server answers.
"""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis
from litestar import Response, get
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from infra import heartbeat
from infra.broker import AMQP, amqp_answers
from services.api.bodies import Health, Live, Ready
from services.api.contract import problems

NO_WORKER = "no bot worker alive"
REDIS_SECONDS = 1.0  # the most a health answer waits on Redis


async def _database(engine: AsyncEngine) -> str:
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception as error:
        return f"down: {type(error).__name__}"
    return "ok"


@get("/api/health", tags=["health"], responses=problems(400, 500))
async def health(
    engine: NamedDependency[AsyncEngine],
    redis: NamedDependency[aioredis.Redis | None],
    broker_url: NamedDependency[str | None],
) -> Health:
    """200 while this process answers; `status` says whether the service is degraded."""
    status = {"database": await _database(engine), "broker": "ok"}
    # Bot turns queue on RabbitMQ where it is the broker, else on the Redis limits use too.
    redis_is = "broker"
    if broker_url is not None and broker_url.startswith(AMQP):
        redis_is = "redis"
        status["redis"] = "ok"
        try:
            await amqp_answers(broker_url)
        except Exception as error:
            status["broker"] = f"down: {type(error).__name__}"
    workers, said = await _workers(engine, redis)
    if said != "ok":
        status[redis_is] = said
    degraded = [f"{name} {value}" for name, value in status.items() if value != "ok"]
    if workers == 0:
        degraded.append(NO_WORKER)
    return Health(
        status="degraded" if degraded else "ok",
        workers=workers,
        degraded=degraded,
        **status,
    )


@get("/api/health/live", tags=["health"], responses=problems(400, 500))
async def live() -> Live:
    """200 while this process answers at all."""
    return Live("live")


async def _workers(engine: AsyncEngine, redis: aioredis.Redis | None) -> tuple[int | None, str]:
    """Bot workers alive, and what Redis (where they beat) said when asked: within
    REDIS_SECONDS, since the readiness answer asks too, and a Redis that takes connections
    but never answers would otherwise hold it past the load balancer's check timeout, taking
    every API process out for a fault that leaves them ready."""
    if redis is None:
        return None, "down: no Redis configured"
    try:
        async with asyncio.timeout(REDIS_SECONDS):
            await redis.ping()
            database = engine.url.render_as_string()
            return await heartbeat.alive(redis, heartbeat.namespace(database)), "ok"
    except Exception as error:
        return None, f"down: {type(error).__name__}"


@get(
    "/api/health/ready",
    tags=["health"],
    responses={
        **problems(400, 500),
        503: ResponseSpec(Ready, description="This process can't reach its database."),
    },
)
async def ready(
    engine: NamedDependency[AsyncEngine], redis: NamedDependency[aioredis.Redis | None]
) -> Response[Ready]:
    """200 while this process can serve; 503 while its database is out of reach. Either way
    `missing` names what else the service lacks."""
    database = await _database(engine)
    workers, said = await _workers(engine, redis)
    missing = [] if said == "ok" else [f"redis {said}"]
    if workers == 0:
        missing.append(NO_WORKER)
    if database != "ok":
        unready = Ready("unready", database, missing)
        return Response(unready, status_code=503, headers={"Retry-After": "5"})
    return Response(Ready("ready", database, missing))
