"""The doorbell: one LISTEN connection that wakes whoever watches a stream when it grows, and
hands on the process's other notices (a token revoked, say)."""

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from types import TracebackType

import psycopg
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.eventstore.ringing import CHANNEL

log = logging.getLogger(__name__)


# Runs of carried events a wake keeps between two waits; past that, its reader reads the log.
CARRIED_RUNS = 16

Carried = tuple[int, str]  # the seq of a ring's first event, and its events as JSON


class Wake:
    """Set by a ring and cleared by the wait that sees it; a ring says "read again", and may
    carry what was appended.

    After a wait that was rung, `announced` is the highest seq the rings since the wait before
    announced, or None if one didn't say: a reader already that far (by its own process's
    append) needn't read at all. `carried` is the events the rings since that wait carried,
    in the order they came; a reader may show those that follow on from what it has, and
    needn't read if they take it as far as `announced`.
    """

    def __init__(self) -> None:
        self._woken = asyncio.Event()
        self._rung = False
        self._pending: int | None = 0
        self._carrying: list[Carried] = []
        self.announced: int | None = None
        self.carried: list[Carried] = []

    def ring(self, seq: int | None = None, carried: Carried | None = None) -> None:
        if seq is None or self._pending is None:
            self._pending = None
        else:
            self._pending = max(self._pending, seq)
        if carried is not None and len(self._carrying) < CARRIED_RUNS:
            self._carrying.append(carried)
        self._rung = True
        self._woken.set()

    def expire(self) -> None:
        """Ends the wait under way (or the next) as if its time were up: for a waiter whose
        clock is kept by someone else, so that each wait needs no timer of its own."""
        self._woken.set()

    async def wait(self, timeout: float | None = None) -> bool:
        """True if rung since the last wait, False if `timeout` seconds passed (or `expire`
        was called) first."""
        if timeout is None:
            await self._woken.wait()
        else:
            try:
                async with asyncio.timeout(timeout):
                    await self._woken.wait()
            except TimeoutError:
                return False
        self._woken.clear()
        if not self._rung:
            return False
        self._rung = False
        self.announced, self._pending = self._pending, 0
        self.carried, self._carrying = self._carrying, []
        return True


Notice = Callable[[str | None], None]


class Doorbell:
    """Shares one database connection among every watcher in the process.

    Each browser watching a table and each waiting bot would otherwise hold a connection of its
    own. Use it as `async with Doorbell(engine) as doorbell:`; entering fails fast if the
    database is unreachable, and afterwards a dropped connection is re-opened in the background.

    `notices`: a callable for each further channel, given each notification's payload, and None
    after a reconnect, since whatever was sent while the connection was down is lost.
    """

    def __init__(
        self, engine: AsyncEngine, retry_delay: float = 1.0, notices: Mapping[str, Notice] = {}
    ) -> None:
        self._connect_args = engine.dialect.create_connect_args(engine.url)
        self._retry_delay = retry_delay
        self._notices = dict(notices)
        self._watchers: dict[str | None, set[Wake]] = {}
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> "Doorbell":
        self._task = asyncio.create_task(self._listen(await self._connect()))
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._task is not None:
            self._task.cancel()
            with suppress(asyncio.CancelledError):
                await self._task

    @asynccontextmanager
    async def watch(self, stream: str | None) -> AsyncIterator[Wake]:
        """Rings on every append to `stream`, or to any stream if None (for followers).

        Enter before reading the stream, so an append landing between the read and the wait
        still rings.
        """
        wake = Wake()
        self._watchers.setdefault(stream, set()).add(wake)
        try:
            yield wake
        finally:
            watchers = self._watchers[stream]
            watchers.discard(wake)
            if not watchers:
                del self._watchers[stream]

    async def _connect(self) -> psycopg.AsyncConnection:
        args, kwargs = self._connect_args
        conn = await psycopg.AsyncConnection.connect(*args, autocommit=True, **kwargs)
        await conn.execute("; ".join(f"LISTEN {channel}" for channel in [CHANNEL, *self._notices]))
        return conn

    async def _listen(self, conn: psycopg.AsyncConnection) -> None:
        while True:
            try:
                async for note in conn.notifies():
                    if note.channel != CHANNEL:
                        self._notices[note.channel](note.payload)
                        continue
                    head, _, carried = note.payload.partition("\n")
                    stream, _, seq = head.rpartition(":")
                    first, _, events = carried.partition("\n")
                    self._ring(
                        stream,
                        int(seq) if seq.isdigit() else None,
                        (int(first), events) if first.isdigit() and events else None,
                    )
            except psycopg.OperationalError as error:
                log.warning("doorbell connection lost, reconnecting: %s", error)
            finally:
                await conn.close()
            conn = await self._reconnect()
            # Rings sent while the connection was down are lost: everyone reads again.
            for notice in self._notices.values():
                notice(None)
            for watchers in self._watchers.values():
                for wake in watchers:
                    wake.ring()

    async def _reconnect(self) -> psycopg.AsyncConnection:
        while True:
            await asyncio.sleep(self._retry_delay)
            try:
                return await self._connect()
            except psycopg.OperationalError as error:
                log.warning("doorbell cannot reconnect yet: %s", error)

    def _ring(self, stream: str, seq: int | None, carried: Carried | None = None) -> None:
        for wake in self._watchers.get(stream, ()):
            wake.ring(seq, carried)
        for wake in self._watchers.get(None, ()):
            wake.ring(seq)  # a follower of every stream reads them all anyway
