"""The sweeper: re-sends bot turns that are overdue, so a lost message, a dead worker or a
flushed Redis never stalls a table; marks away the people who stopped answering, so a
closed tab or a long silence doesn't either (docs/euchre.md "Away and back"); ends a game a
person present holds past the stall limit (docs/euchre.md "A stalled game"); and wakes the
ratings if a game won is still unrated, and the reviews if a hand scored is still unreviewed,
so a lost wake-up never leaves either so.

Every worker process offers to sweep, but only the one holding a PostgreSQL session lock does;
if it dies, its session ends, the lock frees and another takes over. It reads tables that have
gone quiet from the activity read model (kept from the log, so Redis can lose everything).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable, Sequence

import psycopg

from domain import commands as cmd
from domain import deciding
from domain.away import TURN_LIMIT_SECONDS, turn_limit
from domain.errors import Refused
from domain.events import AwayReason
from domain.rematch import HOLD_SECONDS
from domain.stall import STALL_SECONDS
from domain.state import State
from infra.activity import Activity
from infra.presence import Presence
from services.bots.pacing import bot_decisions, think_seconds
from services.bots.turns import Send, Wake
from services.use_cases import NoSuchTable, Tables

log = logging.getLogger(__name__)

Behind = Callable[[], Awaitable[bool]]  # a follower's `behind`: has the log got ahead of it?

GRACE_SECONDS = 5.0  # beyond a decision's think time, before its turn counts as lost
SWEEP_EVERY = 2.0
# How often everyone seated at a game is checked for being gone: a person's grace runs out at
# a moment of its own, and the bot is to cover them then (docs/euchre.md "Away and back"),
# not up to a sweep or two later. It was 5 s, on top of the 2 s between sweeps: a closed tab
# was covered 20-27 s after it closed, and only when the page pushed the change at once.
PRESENCE_EVERY = 1.0
CANDIDATE_RETRY = 10.0
SWEEPER_LOCK = 0x7377_6565_7000  # "sweep"


def _person_here(state: State, seat: int) -> bool:
    s = state.seats[seat]
    return s.player is not None and not s.away


class Sweeper:
    def __init__(
        self,
        activity: Activity,
        tables: Tables,
        send: Send,
        scale: float,
        grace: float = GRACE_SECONDS,
        presence: Presence | None = None,
        wakes: Sequence[tuple[Behind, Wake]] = (),
        stall: float = STALL_SECONDS,
    ) -> None:
        """Without `presence` (no Redis beside a RabbitMQ broker) nobody is found gone; turn
        limits still hold. `wakes`: read models' followers (`behind`) and how to wake their
        worker, which each sweep does while the log holds what the follower hasn't read.
        `stall`: how long a person present may hold the game before it ends as abandoned."""
        self._activity = activity
        self._tables = tables
        self._send = send
        self._scale = scale
        self._grace = grace
        self._presence = presence
        self._wakes = tuple(wakes)
        self._stall = stall
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
        await self._timed_out()
        await self._stalled()
        await self._release_held()
        for behind, wake in self._wakes:
            if await behind():
                wake()
        await self.look_for_gone()
        return sent

    async def look_for_gone(self) -> None:
        """Everyone seated at a game with no stream open and no request for the grace period
        is away: made every PRESENCE_EVERY seconds between the sweeps, and by each sweep."""
        if self._presence is not None:
            await self._gone(self._presence)

    async def _timed_out(self) -> None:
        """A person whose own decision has waited past the table's turn limit is away. The
        table's quiet time is at most how long the decision has waited, never more."""
        for code, idle in await self._activity.quiet_since(min(TURN_LIMIT_SECONDS.values())):
            state = await self._load(code)
            limit = None if state is None else turn_limit(state)
            if state is None or limit is None or idle < limit:
                continue
            for d in deciding(state):
                if _person_here(state, d.seat):
                    await self._mark_away(state, d.seat, "timeout")

    async def _stalled(self) -> None:
        """A game whose log hasn't grown for the stall limit while a person present decides
        ends as abandoned, naming them (the first in seat order, if several decide at once).
        Turn limits cover people long before this; a table without one stalls here."""
        for code, _ in await self._activity.quiet_since(self._stall):
            state = await self._load(code)
            if state is None:
                continue
            holding = [d.seat for d in deciding(state) if _person_here(state, d.seat)]
            if not holding:
                continue
            command = cmd.EndStalled(seat=min(holding))
            try:
                await self._tables.execute(code, command, expected_seq=state.seq)
            except Refused:
                continue  # they moved meanwhile: the next sweep looks again
            log.info("the game at %s stalled on seat %d and ended", code, min(holding))

    async def _release_held(self) -> None:
        """Seats kept to play again go to bots once the table has waited a minute."""
        for code, _ in await self._activity.quiet_since(HOLD_SECONDS):
            state = await self._load(code)
            if state is None or state.status != "waiting" or not any(state.held):
                continue
            try:
                await self._tables.execute(code, cmd.GiveHeldSeats(), expected_seq=state.seq)
            except Refused:
                continue  # someone sat down meanwhile: the next sweep looks again
            log.info("the seats kept at %s went to bots", code)

    async def _gone(self, presence: Presence) -> None:
        unfinished = await self._activity.unfinished()
        states = [s for code, seq in unfinished if (s := await self._seen(code, seq))]
        seated = {
            (s.code, seat.player): (s, n)
            for s in states
            if s.status == "playing"
            for n, seat in enumerate(s.seats)
            if seat.player is not None and _person_here(s, n)
        }
        for pair in await presence.absent(seated):
            state, n = seated[pair]
            await self._mark_away(state, n, "gone")

    async def _seen(self, code: str, seq: int) -> State | None:
        """The table as this process last saw it, if that is as far as `seq`, the last move
        the activity knows of (talk seats nobody): every table is looked at every few seconds,
        and a read of each would be a query for every table in play. What was seen is
        enough: a mark decided on a table since moved on is stale when appended."""
        known = self._tables.known(code)
        if known is not None and known.seq >= seq:
            return known
        return await self._load(code)

    async def _load(self, code: str) -> State | None:
        try:
            return await self._tables.load(code)
        except NoSuchTable:
            return None

    async def _mark_away(self, state: State, seat: int, reason: AwayReason) -> None:
        """Decided on the state that showed it: if the person moved meanwhile, it is stale."""
        command = cmd.MarkAway(seat=seat, reason=reason)
        try:
            await self._tables.execute(state.code, command, expected_seq=state.seq)
        except Refused:
            return  # they answered, or the table moved on: next sweep looks again
        log.info("seat %d at %s is away (%s); a bot covers it", seat, state.code, reason)

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
                    clock = asyncio.get_running_loop().time
                    swept = -math.inf
                    while True:
                        if clock() - swept >= every:
                            swept = clock()
                            await self.sweep()
                        else:
                            await self.look_for_gone()
                        await asyncio.sleep(min(every, PRESENCE_EVERY))
                        await lock.execute("SELECT 1")  # still holding it: the session is alive
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the sweeper stopped; offering again shortly")
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.sleep(CANDIDATE_RETRY)
