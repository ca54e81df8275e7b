"""The log in PostgreSQL: the appender, the doorbell's ringer and the reader over one pool of
psycopg's own, one store per process for every request and worker.

Appends and reads are single statements in autocommit mode, prepared once per connection;
the profile of the API put SQLAlchemy's async layer at half the cost of a move, so the hot path
doesn't go through it (read models and players still do).
"""

from __future__ import annotations

import msgspec
import psycopg
from psycopg.types.json import set_json_loads
from psycopg_pool import AsyncConnectionPool

from infra.db import conninfo, server_options
from infra.eventstore.appending import Appender
from infra.eventstore.reading import Reader
from infra.eventstore.ringing import Ringer


async def _configure(conn: psycopg.AsyncConnection) -> None:
    """Event data decodes as the domain encoded it (msgspec), on every pooled connection."""
    set_json_loads(msgspec.json.decode, conn)


class EventStore(Appender, Reader):
    """records.Log on PostgreSQL: appends are the Appender's, reads the Reader's."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        Reader.__init__(self, pool)
        Appender.__init__(self, pool, Ringer(pool))

    @classmethod
    async def open(
        cls, url: str, size: int = 10, settings: dict[str, str] | None = None
    ) -> EventStore:
        """A store for the database at `url` holding up to `size` connections, each with the
        server `settings` given (e.g. {"synchronous_commit": "off"} where durability isn't
        under test)."""
        pool = AsyncConnectionPool(
            conninfo(url),
            min_size=min(2, size),
            max_size=size,
            kwargs={
                "autocommit": True,
                "prepare_threshold": 0,
                "options": server_options(settings or {}),
            },
            configure=_configure,
            open=False,
        )
        await pool.open(wait=True)
        return cls(pool)

    async def close(self) -> None:
        """Finish the appends and rings still waiting, then close every connection."""
        await self.drain()
        await self._ringer.close()
        await self._pool.close()
