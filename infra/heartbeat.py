"""Which bot workers are alive: each worker process keeps a key of its own in Redis that
expires `TTL` seconds after its last beat, and health counts the keys still there.

A dead worker's messages sit in the queue and no table moves, while everything health used to
ask (the database, the broker) answers: the beats make that visible. A key per process, not a
timestamp, so no two machines' clocks are compared; a set lists the keys, so counting them
reads only the workers' own keys, never the whole Redis.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket

import redis.asyncio as aioredis
import redis.exceptions

from infra.db import database_name

log = logging.getLogger(__name__)

# A worker beats three times per TTL: two beats lost in a row (a Redis restarting) still leave
# it counted, and a worker killed leaves the count within TTL seconds.
TTL = 15
EVERY = TTL / 3


def namespace(database_url: str) -> str:
    """The workers of the service on this database (as presence's keys are named)."""
    return f"euchre-workers:{database_name(database_url)}"


class Heartbeat:
    """This process's beats, as one worker among the service's."""

    def __init__(self, redis: aioredis.Redis, namespace: str) -> None:
        self._redis = redis
        self._namespace = namespace
        self.worker = f"{socket.gethostname()}:{os.getpid()}"

    async def beat(self) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.set(f"{self._namespace}:{self.worker}", b"1", ex=TTL)
            pipe.sadd(self._namespace, self.worker)
            await pipe.execute()

    async def run(self) -> None:
        """Beat every EVERY seconds until cancelled; a Redis down is waited out, not fatal."""
        while True:
            try:
                await self.beat()
            except redis.exceptions.RedisError as error:
                log.warning("could not say this worker is alive: %s", error)
            await asyncio.sleep(EVERY)

    async def end(self) -> None:
        """A worker stopping says so at once, rather than counted till its key expires."""
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.delete(f"{self._namespace}:{self.worker}")
                pipe.srem(self._namespace, self.worker)
                await pipe.execute()
        except redis.exceptions.RedisError as error:
            log.warning("could not say this worker stopped: %s", error)


async def alive(redis: aioredis.Redis, namespace: str) -> int:
    """How many workers beat within the last TTL seconds."""
    return len(await living(redis, namespace))


async def living(redis: aioredis.Redis, namespace: str) -> list[str]:
    """The workers (host:pid) that beat within the last TTL seconds; those that didn't leave
    the list."""
    workers = sorted(await redis.smembers(namespace))
    if not workers:
        return []
    keys = [f"{namespace}:{worker.decode()}" for worker in workers]
    found = await redis.mget(keys)
    gone = [worker for worker, value in zip(workers, found, strict=True) if value is None]
    if gone:
        await redis.srem(namespace, *gone)
    return [worker.decode() for worker in workers if worker not in gone]
