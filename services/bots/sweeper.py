"""The sweeper: re-sends bot turns that are overdue, so a lost message, a dead worker or a
flushed Redis never stalls a table.

Every worker process offers to sweep, but only the one holding a PostgreSQL session lock does;
if it dies, its session ends, the lock frees and another takes over. It reads tables that have
gone quiet from the activity read model (kept from the log, so Redis can lose everything).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import psycopg

from infra.activity import Activity
from services.bots.pacing import bot_decisions, think_seconds
from services.bots.turns import Send
from services.use_cases import NoSuchTable, Tables

log = logging.getLogger(__name__)

GRACE_SECONDS = 5.0  # beyond a decision's think time, before its turn counts as lost
SWEEP_EVERY = 2.0
CANDIDATE_RETRY = 10.0
SWEEPER_LOCK = 0x7377_6565_7000  # "sweep"


class Sweeper:
    def __init__(
        self,
        activity: Activity,
        tables: Tables,
        send: Send,
        scale: float,
        grace: float = GRACE_SECONDS,
    ) -> None:
        self._activity = activity
        self._tables = tables
        self._send = send
        self._scale = scale
        self._grace = grace
        self._resent: dict[tuple[str, str], float] = {}

    async def sweep(self) -> int:
        """Send again every bot turn overdue now; how many were sent."""
        await self._activity.catch_up()
        now = time.monotonic()
        sent = 0
        for code, idle in await self._activity.quiet_since(self._grace):
            try:
                state = await self._tables.load(code)
            except NoSuchTable:
                continue
            for decision in bot_decisions(state):
                if idle < think_seconds(state, decision, self._scale) + self._grace:
                    continue
                key = (code, decision.key)
                if now - self._resent.get(key, -1e9) < self._grace:
                    continue  # sent a moment ago; give the worker its chance
                log.info(
                    "bot turn %s at %s is overdue by %.1f s; sending it again",
                    decision.key,
                    code,
                    idle,
                )
                self._send(code, decision.key, 0.0)
                self._resent[key] = now
                sent += 1
        self._resent = {k: t for k, t in self._resent.items() if now - t < 10 * self._grace}
        return sent

    async def run(self, database_url: str, every: float = SWEEP_EVERY) -> None:
        """Sweep for as long as this process holds the sweeper's lock; offer again if not."""
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    database_url, autocommit=True
                ) as lock:
                    cursor = await lock.execute("SELECT pg_try_advisory_lock(%s)", (SWEEPER_LOCK,))
                    if not (await cursor.fetchone())[0]:
                        await asyncio.sleep(CANDIDATE_RETRY)
                        continue
                    log.info("this process is the sweeper")
                    while True:
                        await self.sweep()
                        await asyncio.sleep(every)
                        await lock.execute("SELECT 1")  # still holding it: the session is alive
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the sweeper stopped; offering again shortly")
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.sleep(CANDIDATE_RETRY)
