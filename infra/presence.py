"""Who is at a table: a key per (table, player) in Redis that lives `grace` seconds past the
person's last request to the table or the last beat of a stream they hold open.

The API processes write it (a request's at once, unless written a moment ago; open streams in
one pipelined round trip per beat); the workers read it to tell who is gone (docs/euchre.md
"Away and back"). Being in Redis, it outlives any one API process, and a person whose stream
moves to another process stays present. A flushed Redis makes people look gone for a moment:
the next beat of their stream, or their next request, brings them back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterable

import redis.asyncio as aioredis
import redis.exceptions
from sqlalchemy.engine import make_url

log = logging.getLogger(__name__)

GRACE_SECONDS = 20.0
BEAT_ROUND = 200  # commands in one round trip of a beat


def namespace(database_url: str) -> str:
    """The keys' prefix for the service on this database: the API and workers agree on it,
    and services on other databases sharing a Redis stay apart."""
    return f"euchre-presence:{make_url(database_url).database}"


class Presence:
    def __init__(self, redis: aioredis.Redis, namespace: str, grace: float = GRACE_SECONDS) -> None:
        self._redis = redis
        self._namespace = namespace
        self.grace = grace
        self._written: dict[tuple[str, str], float] = {}
        self._open: Counter[tuple[str, str]] = Counter()
        # Every open stream here, by table: its watcher's id (a player's, or one made up for
        # someone not signed in) and name, for the tables' lists of who watches.
        self._streams: dict[str, dict[str, tuple[str, str | None]]] = {}

    def key(self, code: str, player: str) -> str:
        return f"{self._namespace}:{code}:{player}"

    async def seen(self, code: str, player: str) -> None:
        """`player` asked something of table `code`: present till the grace runs out. A
        request never fails for this: a lost write at worst makes them look gone early."""
        pair = (code, player)
        now = time.monotonic()
        if now - self._written.get(pair, -1e9) < self.grace / 4:
            return
        self._written[pair] = now
        try:
            await self._redis.set(self.key(code, player), b"1", ex=self._ttl)
        except redis.exceptions.RedisError as error:
            log.warning("could not record that %s is at %s: %s", player, code, error)

    @contextlib.asynccontextmanager
    async def watching(
        self, code: str, player: str | None, name: str | None = None
    ) -> AsyncIterator[None]:
        """Present for as long as this stream is open, and the grace after it closes; listed
        among the table's watchers while it is open (by name if signed in)."""
        stream = uuid.uuid4().hex
        watcher = player or f"anon:{stream}"
        self._streams.setdefault(code, {})[stream] = (watcher, name)
        if player is not None:
            await self.seen(code, player)
            self._open[code, player] += 1
        await self._list(code, [(watcher, name)])
        try:
            yield
        finally:
            streams = self._streams[code]
            del streams[stream]
            if not streams:
                del self._streams[code]
            still = any(w == watcher for w, _ in streams.values())
            with contextlib.suppress(redis.exceptions.RedisError):
                if not still:
                    await self._redis.hdel(self._watchers(code), watcher)
            if player is not None:
                self._open[code, player] -= 1
                if not self._open[code, player]:
                    del self._open[code, player]
                self._written.pop((code, player), None)
                await self.seen(code, player)  # the grace runs from the stream's end

    def _watchers(self, code: str) -> str:
        return f"{self._namespace}:watchers:{code}"

    async def _list(self, code: str, watchers: list[tuple[str, str | None]]) -> None:
        try:
            await self._redis.hset(self._watchers(code), mapping=self._listing(watchers))
            await self._redis.expire(self._watchers(code), self._ttl * 2)
        except redis.exceptions.RedisError as error:
            log.warning("could not list a watcher of %s: %s", code, error)

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
        """Beat four times per grace period, so a streaming person's key never runs out."""
        while True:
            await asyncio.sleep(self.grace / 4)
            try:
                await self.beat()
            except redis.exceptions.RedisError as error:
                log.warning("could not record who is present: %s", error)

    async def close(self) -> None:
        await self._redis.aclose()

    async def absent(self, pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        """Those of `pairs` (table, player) not seen within the grace period."""
        wanted = list(pairs)
        if not wanted:
            return set()
        found = await self._redis.mget([self.key(code, player) for code, player in wanted])
        return {pair for pair, value in zip(wanted, found, strict=True) if value is None}
