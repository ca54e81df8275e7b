"""The litestar app factory: wires the event store, players, lobby and feeds once per process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import TypeVar

import redis.asyncio as aioredis
from litestar import Litestar
from litestar.datastructures import State as AppState
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from infra import collector, keyvalue, tracing
from infra.db import create_engine, database_name
from infra.doorbell import Doorbell
from infra.eventstore import EventStore
from infra.idempotency import Replies
from infra.lobby import Lobby
from infra.players import REVOKED, Players
from infra.presence import CHANGED, Presence, announcer, namespace
from infra.ratings import Ratings
from infra.reviews import Reviews
from infra.settings import LOOPBACK, RateLimits, StreamLimits
from infra.signing import Signer
from infra.transparency import PublicLog
from services.api.access import access_log
from services.api.contract import SECURITY_SCHEMES, finish
from services.api.decoding import MAX_BODY, StrictBody
from services.api.edge import edge
from services.api.event_schema import events_schema
from services.api.hand_reviews import ReviewsController
from services.api.headers import security_headers
from services.api.heads import Heads
from services.api.health import health, live, ready
from services.api.hints import HintsController
from services.api.keys import KeysController
from services.api.limits import Limiter
from services.api.messages import catalogues, languages, messages
from services.api.metrics_page import exposition
from services.api.people import LeaderboardController, PlayersController
from services.api.problems import EXCEPTION_HANDLERS
from services.api.public_log import TransparencyController
from services.api.room import Room, RoomController
from services.api.rules_page import rules
from services.api.stream import KEEP_ALIVE, POLL, Feeds, StreamController
from services.api.stream_limits import StreamGate
from services.api.tables import TablesController
from services.api.talk import TalkController
from services.api.traced import traced
from services.api.web import web
from services.use_cases import AfterCommit, OnCommit, Tables

LOBBY_POLL = 5.0
LOBBY_GATHER = 0.5
T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class Services:
    """What the lifespan builds once per process, handed to handlers as DEPENDENCIES."""

    engine: AsyncEngine
    store: EventStore
    players: Players
    lobby: Lobby
    feeds: Feeds
    redis: aioredis.Redis | None
    replies: Replies
    broker_url: str | None
    ratings: Ratings
    reviews: Reviews
    signer: Signer
    public_log: PublicLog
    room: Room


def _provided(pick: Callable[[Services], T]) -> Provide:
    """A dependency read from what the lifespan built for this process."""

    def provide(state: AppState) -> T:
        return pick(state.services)

    return Provide(provide, sync_to_thread=False)


# What handlers and their dependencies may ask for by name, typed where they ask
# (`players: NamedDependency[Players]`); none of them reads the app's state for it.
DEPENDENCIES = {field.name: _provided(attrgetter(field.name)) for field in fields(Services)}


def drain_streams(app: Litestar) -> None:
    """End the app's event streams, each asking its client to come back: for a process
    stopping (services/cli.py), outside any request, so with no dependency to be given."""
    app.state.services.feeds.drain()


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
    metrics_allow: tuple[str, ...] | None = LOOPBACK,
) -> Litestar:
    """The API for the database at `database_url` (already migrated).

    `on_commit` runs after each command's events commit (the bots' scheduler hooks in here).
    `rate_limits` None turns the limits off; `secure_cookies` is auto, on or off (see
    services.api.auth.secure); `broker_url`, where bot turns queue if not on `redis_url`, is
    what the health check asks after. `signer` holds the key the service signs with; None is
    a key in memory, published only while this process runs. `sign_heads` False leaves the
    views' heads unsigned (EUCHRE_SIGNED_HEADS=off, to measure what signing costs).
    `stream_limits`: how many event streams the process holds open, and for how long one
    whose client stopped reading (services.api.stream_limits). `metrics_allow`: the networks
    whose clients may read /metrics (services.api.metrics_page); None with metrics off.
    """
    signer = signer or Signer.ephemeral()
    catalogues()  # the page's words in every language, read now: a broken catalogue stops the start

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        # Players, the lobby and idempotent replies share the engine; every move goes through
        # the store's own pool (sizes: docs/scaling.md).
        engine = create_engine(database_url, pool_size=5, max_overflow=10)
        store = await EventStore.open(database_url, size=20)
        redis = keyvalue.connect(redis_url) if redis_url else None
        app.state.secure_cookies = secure_cookies
        app.state.metrics_allow = metrics_allow
        app.state.stream_gate = StreamGate(stream_limits)
        players = Players(engine)
        if rate_limits is not None:
            prefix = f"euchre-limits:{database_name(database_url)}"
            app.state.limiter = Limiter(rate_limits, redis, prefix, players)

        # Feeds are made below, with the doorbell they listen to.
        def revoked(digest: str | None) -> None:
            players.forget(digest)
            feeds.revoked(digest)

        notices = {REVOKED: revoked, CHANGED: lambda codes: feeds.presence_changed(codes)}
        async with Doorbell(engine, notices=notices) as doorbell:
            presence = None
            if redis is not None:
                space = namespace(database_url)
                presence = Presence(redis, space, announce=announcer(engine))
            after_commit = AfterCommit()
            tables = Tables(store, after_commit)
            lobby = Lobby(engine, store)
            heads = Heads(signer if sign_heads else None)
            feeds = Feeds(
                tables,
                doorbell,
                heads,
                stream_poll,
                keep_alive,
                stream_limits.stall_seconds,
                presence,
            )
            # What a commit in this process sets off, in this order (docs/architecture.md
            # "After a commit"); a worker's table has the bots' step alone.
            after_commit.then(feeds.committed)
            if on_commit is not None:
                after_commit.then(on_commit)
            app.state.services = Services(
                engine=engine,
                store=store,
                players=players,
                lobby=lobby,
                feeds=feeds,
                redis=redis,
                replies=Replies(engine),
                broker_url=broker_url or redis_url,
                ratings=Ratings(engine, store),
                reviews=Reviews(engine, store),
                signer=signer,
                public_log=PublicLog(engine, store),
                room=Room(tables, heads, presence),
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
            HintsController,
            StreamController,
            health,
            live,
            ready,
            exposition,
            KeysController,
            TransparencyController,
            events_schema,
            rules,
            languages,
            messages,
            web,
        ],
        dependencies=DEPENDENCIES,
        exception_handlers=EXCEPTION_HANDLERS,
        # The process's logging is infra/logs.py's: litestar's own would replace its handler.
        logging_config=None,
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
    handler = traced(app.asgi_handler) if tracing.on() else app.asgi_handler
    app.asgi_handler = access_log(security_headers(edge(handler)))
    return app
