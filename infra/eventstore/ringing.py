"""The doorbell's sending half: after appends commit, one NOTIFY tells every process listening
(infra/doorbell.py) which tables moved, carrying the events when they fit, so a watcher in
another process can show them without reading the log (docs/event-store.md "The doorbell")."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

import msgspec
import psycopg
from psycopg_pool import AsyncConnectionPool

from infra.eventstore.literals import texts

CHANNEL = "euchre_events"
log = logging.getLogger(__name__)

# Bytes of events a ring carries at most: a notification's payload must stay under 8000 bytes,
# and a hand's deal, the largest of one command's events, is a few hundred. Each event goes
# with its hash in the chain, so the watcher can sign the head it shows. The payload is seen by
# every session listening on the database, which only the service's own processes do; they may
# read the log anyway.
CARRIED = 4000
# One notifying transaction for every append a process made while the last one was on its way.
# A ring is worth nothing after a crash, so its commit doesn't wait for the disk. It goes in a
# statement of its own after the append's commit: a NOTIFY inside the append would make every
# append in the database wait for the one before it to flush (PostgreSQL holds a database-wide
# lock across a notifying commit).
RING_SQL = (
    f"SELECT pg_notify('{CHANNEL}', p), set_config('synchronous_commit', 'off', true) "
    "FROM unnest(%s::text[]) p"
)
# Seconds between two rings from one process: a ring after a quiet moment goes at once, and
# under load the next waits this long, carrying every append that committed meanwhile. A ring
# costs a statement as an append batch does; without the wait, a busy process sent one after
# every batch.
RING_GAP = 0.002


@dataclass(slots=True)
class _Ring:
    """A stream's ring on its way: the last seq appended, and the events from `first` on, if
    the appends since the last ring followed on from each other."""

    first: int
    last: int
    events: list[tuple[str, bytes, str]] | None

    def payload(self, stream: str) -> str:
        """`stream:last`, then, if they fit, a line with `first` and a line with the events
        as JSON, `[[type, data, hash], ...]` (JSON as msgspec writes it has no line break)."""
        head = f"{stream}:{self.last}"
        if self.events is None:
            return head
        encode = msgspec.json.encode
        body = b",".join(
            b'[%b,%b,"%b"]' % (encode(type_), data, hash_.encode())
            for type_, data, hash_ in self.events
        )
        if len(body) > CARRIED:
            return head
        return f"{head}\n{self.first}\n[{body.decode()}]"


class Ringer:
    """One process's rings, gathered: under load one notifying commit carries many appends'."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool
        self._rings: dict[str, _Ring] = {}
        self._ringing: asyncio.Task[None] | None = None

    def ring(
        self, stream: str, first: int, last: int, events: list[tuple[str, bytes, str]]
    ) -> None:
        """Ring for `stream`'s seqs `first`..`last` soon; `events` are theirs, (type, data as
        JSON, hash). The ring carries the events appended since the last, if they follow on
        from each other."""
        ring = self._rings.get(stream)
        if ring is None:
            self._rings[stream] = _Ring(first, last, events)
        elif ring.events is not None and ring.last + 1 == first:
            ring.last = last
            ring.events += events
        else:
            ring.last = max(ring.last, last)
            ring.events = None
        if self._ringing is None:
            self._ringing = asyncio.create_task(self._send_rings())

    async def close(self) -> None:
        """Send the rings still waiting."""
        if self._ringing is not None:
            await self._ringing

    async def _send_rings(self) -> None:
        try:
            while self._rings:
                payloads = [ring.payload(stream) for stream, ring in self._rings.items()]
                self._rings = {}
                try:
                    async with self._pool.connection() as conn:
                        await conn.execute(RING_SQL, (texts(payloads),))
                except psycopg.Error as error:
                    # Watchers poll too: a lost ring delays them, it doesn't lose a move.
                    log.warning("could not ring the doorbell: %s", error)
                await asyncio.sleep(RING_GAP)
        finally:
            self._ringing = None
