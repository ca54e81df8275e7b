"""Health, as a liveness answer and a readiness answer (docs/operations.md "Health").

`/api/health` is 200 whenever this process answers: a database or broker down, or no bot
worker alive, is no reason to restart an API process (a liveness probe that failed on them
would restart every API process at once for a fault none of them has). Its body says `ok` or
`degraded`, naming what is down, so a dead worker is seen even though every server answers.
`/api/health/ready` is 503 only when this process itself can't serve, its database out of
reach: a load balancer then sends its requests to the others. A missing worker leaves every
API process ready, since taking them all out would only add an outage to a stalled table.
"""

from __future__ import annotations

from litestar import Request, Response, get
from litestar.openapi import ResponseSpec
from sqlalchemy import text

from infra import heartbeat
from infra.broker import AMQP, amqp_answers
from services.api.bodies import Health, Ready
from services.api.contract import problems

NO_WORKER = "no bot worker alive"


async def _database(request: Request) -> str:
    try:
        async with request.app.state.services.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception as error:
        return f"down: {type(error).__name__}"
    return "ok"


@get("/api/health", tags=["health"], responses=problems(400, 500))
async def health(request: Request) -> Health:
    """200 while this process answers; `status` says whether the service is degraded."""
    services = request.app.state.services
    status = {"database": await _database(request), "broker": "ok"}
    # Bot turns queue on RabbitMQ where it is the broker, else on the Redis limits use too.
    redis_is = "broker"
    if services.broker_url is not None and services.broker_url.startswith(AMQP):
        redis_is = "redis"
        status["redis"] = "ok"
        try:
            await amqp_answers(services.broker_url)
        except Exception as error:
            status["broker"] = f"down: {type(error).__name__}"
    workers = None
    if services.redis is None:
        status[redis_is] = "down: no Redis configured"
    else:
        try:
            await services.redis.ping()
            database = services.engine.url.render_as_string()
            workers = await heartbeat.alive(services.redis, heartbeat.namespace(database))
        except Exception as error:
            status[redis_is] = f"down: {type(error).__name__}"
    degraded = [f"{name} {value}" for name, value in status.items() if value != "ok"]
    if workers == 0:
        degraded.append(NO_WORKER)
    return Health(
        status="degraded" if degraded else "ok",
        workers=workers,
        degraded=degraded,
        **status,
    )


@get(
    "/api/health/ready",
    tags=["health"],
    responses={
        **problems(400, 500),
        503: ResponseSpec(Ready, description="This process can't reach its database."),
    },
)
async def ready(request: Request) -> Response[Ready]:
    """200 while this process can serve; 503 while its database is out of reach."""
    database = await _database(request)
    if database != "ok":
        return Response(Ready("unready", database), status_code=503, headers={"Retry-After": "5"})
    return Response(Ready("ready", database))
