"""The one way a process opens its Redis (or Valkey) client: from a URL naming one server, or
the Sentinels that watch a replicated set of them (docs/operations.md "Redis with Sentinel").

redis-py's default pool refuses a request outright ("Too many connections") once 100 are in
use. A burst does that: every stream reconnecting after an API process restarts, or a crowd of
requests each checking its rate limit. A refused presence write makes a person look gone; a
refused limit check answers 503. Waiting a moment for a connection is what a person would want.

With Sentinel, `redis+sentinel://[:password@]host:port[,host:port...]/service[/db]`, each
connection asks the Sentinels which server is the service's primary before it connects, so
after a failover the next command reaches the new primary. The password is the data
servers'; the Sentinels are asked without one. Replication is asynchronous: a failover can lose
the last writes the old primary acknowledged. Nothing of the game's lives only there (the log is
PostgreSQL's); a bot turn lost on the way is sent again by the sweeper.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import redis
import redis.asyncio as aioredis
from redis.asyncio.sentinel import Sentinel as AsyncSentinel
from redis.asyncio.sentinel import SentinelConnectionPool as AsyncSentinelPool
from redis.sentinel import Sentinel

# Connections per process: enough that one event loop's requests rarely wait (each command is
# a round trip of well under a millisecond on the same host), few enough that many processes
# stay far inside the server's own limit of 10,000 clients.
POOL_SIZE = 100
# How long a command may wait for a connection before it fails as the server being down.
WAIT_SECONDS = 10.0
SENTINEL = "redis+sentinel://"
# How long a Sentinel may take to answer which server is primary before the next is asked.
ASK_SECONDS = 1.0


@dataclass(frozen=True)
class Sentinels:
    """What a `redis+sentinel://` URL names."""

    hosts: list[tuple[str, int]]
    service: str
    db: int
    password: str | None


def sentinels(url: str) -> Sentinels | None:
    """The Sentinels `url` names, None for a URL of one server; ValueError for a sentinel URL
    missing a host, a port or the service's name."""
    if not url.startswith(SENTINEL):
        return None
    parts = urlsplit(url)
    where = parts.netloc.rpartition("@")[2]
    hosts = []
    for host in where.split(","):
        name, _, port = host.rpartition(":")
        if not name or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"expected host:port for each Sentinel, not {host!r}")
        hosts.append((name.strip("[]"), int(port)))
    path = [unquote(p) for p in parts.path.split("/") if p]
    if not path or len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):
        raise ValueError("expected the service's name after the Sentinels, then a db number")
    password = unquote(parts.password) if parts.password else None
    return Sentinels(hosts, path[0], int(path[1]) if len(path) == 2 else 0, password)


class _WaitingSentinelPool(AsyncSentinelPool, aioredis.BlockingConnectionPool):
    """Sentinel's pool, waiting for a free connection as the pool for one server does."""


def connect(url: str, **options: Any) -> aioredis.Redis:
    """An asyncio client for `url`, over a pool that waits for a free connection, with
    `options` (timeouts) for each connection to the data server."""
    found = sentinels(url)
    if found is None:
        pool = aioredis.BlockingConnectionPool.from_url(
            url, max_connections=POOL_SIZE, timeout=WAIT_SECONDS, **options
        )
        return aioredis.Redis(connection_pool=pool)
    asked = AsyncSentinel(found.hosts, socket_timeout=ASK_SECONDS)
    return asked.master_for(
        found.service,
        connection_pool_class=_WaitingSentinelPool,
        max_connections=POOL_SIZE,
        timeout=WAIT_SECONDS,
        db=found.db,
        password=found.password,
        **options,
    )


def client(url: str, **options: Any) -> redis.Redis:
    """A blocking client for `url` (the broker's, the operator commands'), with `options`
    (timeouts) for each connection to the data server."""
    found = sentinels(url)
    if found is None:
        return redis.Redis.from_url(url, **options)
    asked = Sentinel(found.hosts, socket_timeout=ASK_SECONDS)
    return asked.master_for(found.service, db=found.db, password=found.password, **options)
