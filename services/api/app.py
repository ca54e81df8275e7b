"""The litestar app factory: wires the event store, players, lobby and feeds once per process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import redis.asyncio as aioredis
from litestar import Litestar
from litestar.openapi import OpenAPIConfig
from sqlalchemy import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from domain.events import Event
from domain.state import State
from infra import collector, keyvalue
from infra.db import create_engine
from infra.doorbell import Doorbell
from infra.eventstore import EventStore
from infra.idempotency import Replies
from infra.lobby import Lobby
from infra.players import REVOKED, Players
from infra.presence import Presence, namespace
from infra.ratings import Ratings
from infra.reviews import Reviews
from infra.settings import RateLimits, StreamLimits
from infra.signing import Signer
from infra.transparency import PublicLog
from services.api.contract import SECURITY_SCHEMES, finish
from services.api.decoding import MAX_BODY, StrictBody
from services.api.edge import edge
from services.api.event_schema import events_schema
from services.api.headers import security_headers
from services.api.heads import Heads
from services.api.health import health, ready
from services.api.keys import KeysController
from services.api.limits import Limiter
from services.api.players import LeaderboardController, PlayersController
from services.api.problems import EXCEPTION_HANDLERS
from services.api.reviews import ReviewsController
from services.api.room import RoomController
from services.api.rules_page import rules
from services.api.stream import KEEP_ALIVE, POLL, Feeds, StreamController
from services.api.stream_limits import StreamGate
from services.api.tables import TablesController
from services.api.talk import TalkController
from services.api.transparency import TransparencyController
from services.api.web import web
from services.use_cases import OnCommit, Tables

LOBBY_POLL = 5.0
LOBBY_GATHER = 0.5


@dataclass
class Services:
    engine: AsyncEngine
    store: EventStore
    doorbell: Doorbell
    tables: Tables
    players: Players
    lobby: Lobby
    feeds: Feeds
    redis: aioredis.Redis | None
    presence: Presence | None
    replies: Replies
    broker_url: str | None
    ratings: Ratings
    reviews: Reviews
    signer: Signer
    heads: Heads
    public_log: PublicLog


async def _follow_lobby(lobby: Lobby, doorbell: Doorbell) -> None:
    """Keep the lobby close behind the log without a transaction per move: after a ring, let
    the appends of the next moment gather first. This is the lobby's only writer in the
    process; reading it reads rows."""
    async with doorbell.watch(None) as wake:
        while True:
            try:
                await lobby.catch_up()
            except DBAPIError as error:
                # A database restarting: this task ending would leave the lobby still for good.
                logging.getLogger(__name__).warning("the lobby could not catch up: %s", error)
            if await wake.wait(LOBBY_POLL):
                await asyncio.sleep(LOBBY_GATHER)


def create_app(
    database_url: str,
    redis_url: str | None = None,
    on_commit: OnCommit | None = None,
    stream_poll: float = POLL,
    keep_alive: float = KEEP_ALIVE,
    rate_limits: RateLimits | None = RateLimits(),  # noqa: B008 (frozen)
    secure_cookies: str = "auto",
    broker_url: str | None = None,
    signer: Signer | None = None,
    sign_heads: bool = True,
    stream_limits: StreamLimits = StreamLimits(),  # noqa: B008 (frozen)
) -> Litestar:
    """The API for the database at `database_url` (already migrated).

    `on_commit` runs after each command's events commit (the bots' scheduler hooks in here).
    `rate_limits` None turns the limits off; `secure_cookies` is auto, on or off (see
    services.api.auth.secure); `broker_url`, where bot turns queue if not on `redis_url`, is
    what the health check asks after. `signer` holds the key the service signs with; None is
    a key in memory, published only while this process runs. `sign_heads` False leaves the
    views' heads unsigned (EUCHRE_SIGNED_HEADS=off, to measure what signing costs).
    `stream_limits`: how many event streams the process holds open, and for how long one
    whose client stopped reading (services.api.stream_limits).
    """
    signer = signer or Signer.ephemeral()

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        # Players, the lobby and idempotent replies share the engine; every move goes through
        # the store's own pool (sizes: docs/scaling.md).
        engine = create_engine(database_url, pool_size=5, max_overflow=10)
        store = await EventStore.open(database_url, size=20)
        redis = keyvalue.connect(redis_url) if redis_url else None
        app.state.secure_cookies = secure_cookies
        app.state.stream_gate = StreamGate(stream_limits)
        if rate_limits is not None:
            prefix = f"euchre-limits:{make_url(database_url).database}"
            app.state.limiter = Limiter(rate_limits, redis, redis_url, prefix)
        players = Players(engine)
        async with Doorbell(engine, notices={REVOKED: players.forget}) as doorbell:

            async def committed(after: State, events: list[Event], made: float) -> None:
                feeds.committed(after, events)
                if on_commit is not None:
                    await on_commit(after, events, made)

            presence = None if redis is None else Presence(redis, namespace(database_url))
            tables = Tables(store, committed)
            lobby = Lobby(engine, store)
            heads = Heads(signer if sign_heads else None)
            feeds = Feeds(
                tables, doorbell, heads, stream_poll, keep_alive, stream_limits.stall_seconds
            )
            app.state.services = Services(
                engine,
                store,
                doorbell,
                tables,
                players,
                lobby,
                feeds,
                redis,
                presence,
                Replies(engine),
                broker_url or redis_url,
                Ratings(engine, store),
                Reviews(engine, store),
                signer,
                heads,
                PublicLog(engine, store),
            )
            background = [asyncio.create_task(_follow_lobby(lobby, doorbell))]
            if presence is not None:
                background.append(asyncio.create_task(presence.run()))
            collector.settle()
            try:
                yield
            finally:
                for task in background:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                if redis is not None:
                    await redis.aclose()
                await store.close()
                await engine.dispose()

    app = Litestar(
        route_handlers=[
            PlayersController,
            LeaderboardController,
            TablesController,
            ReviewsController,
            RoomController,
            TalkController,
            StreamController,
            health,
            ready,
            KeysController,
            TransparencyController,
            events_schema,
            rules,
            web,
        ],
        exception_handlers=EXCEPTION_HANDLERS,
        lifespan=[lifespan],
        # Every body goes through one strict decoder; answers are encoded as their types say.
        dto=StrictBody,
        return_dto=None,
        request_max_body_size=MAX_BODY,
        openapi_config=OpenAPIConfig(
            title="Euchre Tables",
            version="0.1.0",
            path="/schema",
            description="The family's Euchre over HTTP and Server-Sent Events. "
            "Beyond the contract, see docs/api.md.",
            components=SECURITY_SCHEMES,
        ),
    )
    finish(app)
    app.asgi_handler = security_headers(edge(app.asgi_handler))
    return app
