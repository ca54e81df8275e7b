"""The one way a process opens its Redis (or Valkey) client, so every caller shares a pool
that waits for a free connection rather than failing.

redis-py's default pool refuses a request outright ("Too many connections") once 100 are in
use. A burst does that: every stream reconnecting after an API process restarts, or a crowd of
requests each checking its rate limit. A refused presence write makes a person look gone; a
refused limit check answers 503. Waiting a moment for a connection is what a person would want.
"""

from __future__ import annotations

import redis.asyncio as aioredis

# Connections per process: enough that one event loop's requests rarely wait (each command is
# a round trip of well under a millisecond on the same host), few enough that many processes
# stay far inside the server's own limit of 10,000 clients.
POOL_SIZE = 100
# How long a command may wait for a connection before it fails as the server being down.
WAIT_SECONDS = 10.0


def connect(url: str) -> aioredis.Redis:
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=POOL_SIZE, timeout=WAIT_SECONDS
    )
    return aioredis.Redis(connection_pool=pool)
