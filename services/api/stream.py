"""The event stream: each watcher's own view at once, then after every change.

One feed per table per process reads the log when the doorbell rings (or a short timer
fires, in case a ring was lost) and hands each stable state to every watcher, who turns it
into their own view. So a hundred browsers on one table cost one query per change.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import msgspec
from litestar import Controller, Request, get
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath
from litestar.response import ServerSentEvent, ServerSentEventMessage

from domain.state import State
from domain.view import view
from infra.doorbell import Doorbell
from infra.players import Player
from projections.table import fold_records, stable_states
from services.api.auth import optional_player
from services.api.bodies import table_code
from services.tables import Tables

KEEP_ALIVE = 15.0
POLL = 5.0


class Feed:
    """The log reader for one table, alive while someone watches it."""

    def __init__(self, code: str, state: State) -> None:
        self.code = code
        self.state = state
        self.queues: set[asyncio.Queue[State]] = set()
        self.task: asyncio.Task[None] | None = None

    async def run(self, tables: Tables, doorbell: Doorbell, poll: float) -> None:
        async with doorbell.watch(self.code) as wake:
            while True:
                records = await tables.store.read(self.code, after_seq=self.state.seq)
                # A batch always ends at a stable state, so the last one is the table now.
                for s in stable_states(records, self.state):
                    for q in self.queues:
                        q.put_nowait(s)
                    self.state = s
                await wake.wait(poll)


class Feeds:
    def __init__(
        self, tables: Tables, doorbell: Doorbell, poll: float = POLL, keep_alive: float = KEEP_ALIVE
    ) -> None:
        self.keep_alive = keep_alive
        self._tables = tables
        self._doorbell = doorbell
        self._poll = poll
        self._feeds: dict[str, Feed] = {}

    def watching(self, code: str) -> int:
        """How many streams in this process watch `code` now."""
        feed = self._feeds.get(code)
        return 0 if feed is None else len(feed.queues)

    @contextlib.asynccontextmanager
    async def subscribe(self, code: str) -> AsyncIterator[asyncio.Queue[State]]:
        feed = self._feeds.get(code)
        if feed is None:
            feed = Feed(code, await self._tables.load(code))
            self._feeds[code] = feed
            feed.task = asyncio.create_task(feed.run(self._tables, self._doorbell, self._poll))
        queue: asyncio.Queue[State] = asyncio.Queue()
        feed.queues.add(queue)
        try:
            yield queue
        finally:
            feed.queues.discard(queue)
            if not feed.queues and self._feeds.get(code) is feed:
                del self._feeds[code]
                feed.task.cancel()


async def _history(tables: Tables, code: str, after: int) -> tuple[list[State], State]:
    """Every stable state after seq `after`, and the table now: what a resumed stream missed."""
    records = await tables.store.read(code)
    if not records:
        await tables.load(code)  # raises NoSuchTable
    start = fold_records(records[:after])
    missed = list(stable_states(records[after:], start))
    if after > len(records):  # an id from the future (a reset server, say): start afresh
        return [start], start
    return missed, missed[-1] if missed else start


def _message(state: State, player: Player | None) -> ServerSentEventMessage:
    seat = None if player is None else state.seat_of(player.id)
    data = msgspec.json.encode(view(state, seat)).decode()
    return ServerSentEventMessage(data=data, event="view", id=str(state.seq))


async def _events(
    request: Request, code: str, player: Player | None, last_id: int | None
) -> AsyncIterator[ServerSentEventMessage]:
    services = request.app.state.services
    async with services.feeds.subscribe(code) as queue:
        if last_id is None:
            current = await services.tables.load(code)
            sent = [current]
        else:
            sent, current = await _history(services.tables, code, last_id)
        for s in sent:
            yield _message(s, player)
        seq = current.seq
        while True:
            try:
                s = await asyncio.wait_for(queue.get(), services.feeds.keep_alive)
            except TimeoutError:
                yield ServerSentEventMessage(comment="keep-alive")
                continue
            if s.seq > seq:
                seq = s.seq
                yield _message(s, player)


class StreamController(Controller):
    path = "/api/tables"
    tags = ["tables"]

    @get("/{code:str}/events", dependencies={"player": Provide(optional_player)})
    async def events(
        self, request: Request, code: FromPath[str], player: NamedDependency[Player | None]
    ) -> ServerSentEvent:
        """`event: view` with `id: <seq>` at once and after every change; honours
        Last-Event-ID (every state after it is sent); a comment every 15 s keeps it open."""
        code = table_code(code)
        await request.app.state.services.tables.load(code)  # 404 before the stream opens
        raw = request.headers.get("last-event-id")
        last_id = int(raw) if raw and raw.isdigit() else None
        return ServerSentEvent(_events(request, code, player, last_id))
