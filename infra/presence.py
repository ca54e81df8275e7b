"""Who is at a table: a key per (table, player) in Redis that lives `grace` seconds past the
person's last request to the table or the last beat of a stream they hold open.

The API processes write it (a request's at once, unless written a moment ago; open streams in
one pipelined round trip per beat); the workers read it to tell who is gone (docs/euchre.md
"Away and back"). A stream's opening and closing are written by one writer per process, all
that came meanwhile in a round: 4,000 streams opening or closing at once each awaited their
own three commands, and held the connections every request's rate limits wait for. Being in
Redis, it outlives any one API process, and a person whose stream moves to another process
stays present. A flushed Redis makes people look gone for a moment: the next beat of their
stream, or their next request, brings them back.

Each round that opened or closed someone's stream announces the tables it touched (CHANGED,
a PostgreSQL notice every API process hears), so the tables' feeds tell everyone watching
who has no stream open and when a bot covers them (`disconnected`): a closed tab is shown as
such within a second, not once its grace has run out.

Presence degrades, it never fails what it serves: a write that fails or takes longer than
WRITE_SECONDS is logged and skipped (the next beat writes it again), so a slow or absent Valkey
slows no stream and no move, and makes people look gone at worst.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable

import redis.asyncio as aioredis
import redis.exceptions
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.db import database_name

log = logging.getLogger(__name__)

GRACE_SECONDS = 20.0
BEAT_ROUND = 200  # commands in one round trip of a beat
WRITE_SECONDS = 2.0  # the longest a request's write, or one round of the writer's, may take
GATHER_SECONDS = 0.05  # the writer lets the streams opening and closing meanwhile join a round
CHANGED = "euchre_presence_changed"  # the channel a round notifies, with the tables' codes
# A request shows its player there, stream or not, for this long: a program that plays by
# requests alone (no stream) isn't shown disconnected while it plays. Longer than a request's
# write is held back (grace / 4), so one asking every few seconds is never shown gone between.
ASKED_SECONDS = 10

Announce = Callable[[set[str]], Awaitable[None]]


def announcer(engine: AsyncEngine) -> Announce:
    """Tells every API process (their doorbells listen on CHANGED) whose tables saw a
    signed-in watcher's stream open or close."""

    async def announce(codes: set[str]) -> None:
        async with engine.begin() as conn:
            await conn.execute(select(func.pg_notify(CHANGED, " ".join(sorted(codes)))))

    return announce


def namespace(database_url: str) -> str:
    """The keys' prefix for the service on this database: the API and workers agree on it,
    and services on other databases sharing a Redis stay apart."""
    return f"euchre-presence:{database_name(database_url)}"


class Presence:
    def __init__(
        self,
        redis: aioredis.Redis,
        namespace: str,
        grace: float = GRACE_SECONDS,
        announce: Announce | None = None,
    ) -> None:
        self._redis = redis
        self._announce = announce
        self._namespace = namespace
        self.grace = grace
        self._written: dict[tuple[str, str], float] = {}
        self._open: Counter[tuple[str, str]] = Counter()
        # Every open stream here, by table: its watcher's id (a player's, or one made up for
        # someone not signed in) and name, for the tables' lists of who watches.
        self._streams: dict[str, dict[str, tuple[str, str | None]]] = {}
        # What the writer has yet to write: keys to renew, watchers to list and to unlist.
        self._due_keys: set[tuple[str, str]] = set()
        self._due_listed: dict[str, set[str]] = {}
        self._due_unlisted: set[tuple[str, str]] = set()
        self._due_forgotten: set[tuple[str, str]] = set()  # last streams closed: asked no more
        self._writer: asyncio.Task[None] | None = None
        self._round: asyncio.Future[None] | None = None  # the writer's next round, when done

    def key(self, code: str, player: str) -> str:
        return f"{self._namespace}:{code}:{player}"

    def _asked(self, code: str, player: str) -> str:
        return f"{self._namespace}:asked:{code}:{player}"

    async def seen(self, code: str, player: str) -> None:
        """`player` asked something of table `code`: present till the grace runs out. A
        request never fails for this: a lost write at worst makes them look gone early."""
        pair = (code, player)
        now = time.monotonic()
        if now - self._written.get(pair, -1e9) < self.grace / 4:
            return
        self._written[pair] = now
        try:
            async with asyncio.timeout(WRITE_SECONDS), self._redis.pipeline(False) as pipe:
                pipe.set(self.key(code, player), b"1", ex=self._ttl)
                pipe.set(self._asked(code, player), b"1", ex=ASKED_SECONDS)
                await pipe.execute()
        except (redis.exceptions.RedisError, TimeoutError) as error:
            log.warning("could not record that %s is at %s: %r", player, code, error)

    @contextlib.asynccontextmanager
    async def watching(
        self, code: str, player: str | None, name: str | None = None
    ) -> AsyncIterator[None]:
        """Present for as long as this stream is open, and the grace after it closes; listed
        among the table's watchers while it is open (by name if signed in). The writer writes
        both; entering waits for its round (so a stream's first word comes once it is listed),
        which takes at most WRITE_SECONDS, written or not."""
        stream = uuid.uuid4().hex
        watcher = player or f"anon:{stream}"
        self._streams.setdefault(code, {})[stream] = (watcher, name)
        self._due_listed.setdefault(code, set()).add(stream)
        if player is not None:
            self._open[code, player] += 1
            self._due_keys.add((code, player))
        await asyncio.shield(self._wake_writer())
        try:
            yield
        finally:
            streams = self._streams[code]
            del streams[stream]
            if not streams:
                del self._streams[code]
            self._due_unlisted.add((code, watcher))
            if player is not None:
                self._open[code, player] -= 1
                if not self._open[code, player]:
                    del self._open[code, player]
                    # A page's requests came with its stream: with the stream gone, so is it.
                    self._due_forgotten.add((code, player))
                self._due_keys.add((code, player))  # the grace runs from the stream's end
            self._wake_writer()

    def _wake_writer(self) -> asyncio.Future[None]:
        """The writer's next round, which writes what is due now."""
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_due())
        if self._round is None:
            self._round = asyncio.get_running_loop().create_future()
        return self._round

    async def _write_due(self) -> None:
        """Write what streams opening and closing left due, a round at a time, till none is."""
        while self._due_keys or self._due_listed or self._due_unlisted:
            await asyncio.sleep(GATHER_SECONDS)
            keys, self._due_keys = self._due_keys, set()
            forgotten, self._due_forgotten = self._due_forgotten, set()
            listed, self._due_listed = self._due_listed, {}
            unlisted, self._due_unlisted = self._due_unlisted, set()
            done, self._round = self._round, None
            now = time.monotonic()
            try:
                async with asyncio.timeout(WRITE_SECONDS), self._redis.pipeline(False) as pipe:
                    for code, player in keys:
                        pipe.set(self.key(code, player), b"1", ex=self._ttl)
                        self._written[code, player] = now
                    for code, player in forgotten - set(self._open):
                        pipe.delete(self._asked(code, player))
                    for code, streams in listed.items():
                        open_ = self._streams.get(code, {})
                        entries = [open_[s] for s in streams if s in open_]
                        if entries:
                            pipe.hset(self._watchers(code), mapping=self._listing(entries))
                            pipe.expire(self._watchers(code), self._ttl * 2)
                    for code, watcher in unlisted:
                        if all(w != watcher for w, _ in self._streams.get(code, {}).values()):
                            pipe.hdel(self._watchers(code), watcher)
                    await pipe.execute()
            except (redis.exceptions.RedisError, TimeoutError) as error:
                count = len(keys) + len(listed) + len(unlisted)
                log.warning("could not record %d comings and goings at tables: %r", count, error)
            finally:
                if done is not None:
                    done.set_result(None)
            await self._tell({code for code, _ in keys})

    async def _tell(self, codes: set[str]) -> None:
        """Announce the tables where a signed-in watcher came or went; a notice lost only
        leaves the others' pages a beat behind (the feeds look again at every poll)."""
        if not codes or self._announce is None:
            return
        try:
            async with asyncio.timeout(WRITE_SECONDS):
                await self._announce(codes)
        except Exception as error:  # presence never fails what it serves
            log.warning("could not announce comings and goings at %d tables: %r", len(codes), error)

    def _watchers(self, code: str) -> str:
        return f"{self._namespace}:watchers:{code}"

    def _listing(self, watchers: Iterable[tuple[str, str | None]]) -> dict[str, str]:
        """Each watcher's entry: listed until the grace runs out, unless a beat renews it."""
        until = time.time() + self.grace
        return {w: f"{until:.0f}\t{name or ''}" for w, name in watchers}

    async def watchers(self, code: str) -> list[tuple[str, str | None]]:
        """Who has a stream open on table `code`, in any process: (id, name or None)."""
        found = await self._redis.hgetall(self._watchers(code))
        now = time.time()
        out = []
        for watcher, value in found.items():
            until, _, name = value.decode().partition("\t")
            if float(until) > now:
                out.append((watcher.decode(), name or None))
        return sorted(out, key=lambda w: (w[1] is None, w[1] or "", w[0]))

    async def disconnected(self, code: str, players: Iterable[str]) -> dict[str, float]:
        """Those of `players` with no stream open on table `code` in any process and no
        request to it in the last ASKED_SECONDS, each with the seconds left before the sweeper
        finds them gone (0 if the grace ran out)."""
        listed = {w for w, _ in await self.watchers(code)}
        missing = [p for p in players if p not in listed]
        if not missing:
            return {}
        async with self._redis.pipeline(transaction=False) as pipe:
            for player in missing:
                pipe.pttl(self.key(code, player))
                pipe.exists(self._asked(code, player))
            found = await pipe.execute()
        return {
            p: max(0, ms) / 1000
            for p, ms, asked in zip(missing, found[::2], found[1::2], strict=True)
            if not asked
        }

    @property
    def _ttl(self) -> int:
        return max(1, round(self.grace))

    async def beat(self) -> None:
        """Write everyone with a stream open here, and the tables' lists of who watches, a
        round of `BEAT_ROUND` commands at a time.

        One pipeline of every stream's commands blocked the event loop for tens of
        milliseconds at 2,500 streams, encoding them and reading the replies: a pause in every
        request, each beat. Rounds let requests in between."""
        now = time.monotonic()
        self._written = {p: t for p, t in self._written.items() if now - t < self.grace}
        # Snapshots: streams open and close while a round is on its way.
        async with self._redis.pipeline(transaction=False) as pipe:
            for code, player in list(self._open):
                pipe.set(self.key(code, player), b"1", ex=self._ttl)
                self._written[code, player] = now
                if len(pipe) >= BEAT_ROUND:
                    await pipe.execute()
            for code, streams in list(self._streams.items()):
                if not streams:  # the table's last stream closed during an earlier round
                    continue
                pipe.hset(self._watchers(code), mapping=self._listing(streams.values()))
                pipe.expire(self._watchers(code), self._ttl * 2)
                if len(pipe) >= BEAT_ROUND:
                    await pipe.execute()
            await pipe.execute()

    async def run(self) -> None:
        """Beat four times per grace period, so a streaming person's key never runs out. A
        beat that fails, or outlasts its period, is skipped: the next writes everyone again."""
        while True:
            await asyncio.sleep(self.grace / 4)
            try:
                async with asyncio.timeout(self.grace / 4):
                    await self.beat()
            except (redis.exceptions.RedisError, TimeoutError) as error:
                log.warning("could not record who is present: %r", error)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
        await self._redis.aclose()

    async def absent(self, pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        """Those of `pairs` (table, player) not seen within the grace period."""
        wanted = list(pairs)
        if not wanted:
            return set()
        found = await self._redis.mget([self.key(code, player) for code, player in wanted])
        return {pair for pair, value in zip(wanted, found, strict=True) if value is None}
