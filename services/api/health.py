"""Health: whether the database and the broker answer, for load balancers and operators."""

from __future__ import annotations

from litestar import Request, Response, get
from sqlalchemy import text

from infra.broker import AMQP, amqp_answers
from services.api.bodies import Health
from services.api.contract import problems


@get("/api/health", tags=["health"], responses=problems(400, 500, 503))
async def health(request: Request) -> Response[Health]:
    """200 when both answer; 503 naming what is down."""
    services = request.app.state.services
    status = {"database": "ok", "broker": "ok"}
    try:
        async with services.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception as error:
        status["database"] = f"down: {type(error).__name__}"
    # Bot turns queue on RabbitMQ where it is the broker, else on the Redis limits use too.
    redis_is = "broker"
    if services.broker_url is not None and services.broker_url.startswith(AMQP):
        redis_is = "redis"
        status["redis"] = "ok"
        try:
            await amqp_answers(services.broker_url)
        except Exception as error:
            status["broker"] = f"down: {type(error).__name__}"
    if services.redis is None:
        status[redis_is] = "down: no Redis configured"
    else:
        try:
            await services.redis.ping()
        except Exception as error:
            status[redis_is] = f"down: {type(error).__name__}"
    down = [name for name, value in status.items() if value != "ok"]
    if down:
        body = {
            "type": "about:blank",
            "status": 503,
            "title": "Service unavailable",
            "detail": f"{' and '.join(down)} not answering",
            **status,
        }
        return Response(body, status_code=503, media_type="application/problem+json")
    return Response(Health(**status))
