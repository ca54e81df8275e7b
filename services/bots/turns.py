"""A bot's turn: schedule it after a commit, and play it when its message arrives (or, after
the worker's own move, on the worker itself).

The turn names the table and the decision key it was scheduled for. Playing it looks at the
table as the log has it (or as the worker last saw it, where the turn is pending there) and
does nothing if that decision is no longer pending, so a duplicate, late or re-sent message is
harmless. The move is appended with the seq it was decided on and the key as its command id:
two workers racing on one turn make one event, and a table seen out of date is decided again.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
import threading
import time
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import ThreadPoolExecutor

from domain import Decision, deciding, fallback, legal, view
from domain.bots import choose
from domain.errors import Refused
from domain.events import Event
from domain.state import State
from domain.talk import beside_the_game
from infra import metrics, tracing
from infra.broker import Contexts
from services.bots.pacing import SEARCH_SECONDS, bot_decisions, search_seconds, think_seconds
from services.use_cases import Stale, Tables

log = logging.getLogger(__name__)

Send = Callable[[str, str, float], None]  # (table code, decision key, delay in seconds)
SendAll = Callable[[list[tuple[str, str, float]], Contexts], None]
Wake = Callable[[], None]
# How long a gathered wake-up waits for the commits after the one that asked for it. Flat out,
# a hand is scored about every 40 ms: a wake-up each cost the API a send, and the worker a
# message and a follower's transaction for one hand (docs/scaling.md). Games won are ten times
# rarer, and a person waits for the rating: those wake at once.
WAKE_GATHER = 0.25


class Scheduler:
    """Runs after every commit (API or worker): sends each bot decision now pending, and
    wakes the ratings once a game is won and the reviews a moment after a hand is scored.

    The send is a blocking client call (redis-py, pika), and the hook runs on the event loop
    under the table's lock, so it happens on a thread of its own: a slow broker delays bot
    turns, never a person's move or anyone's stream. One thread keeps sends in commit order
    and lets a RabbitMQ client keep its one connection; it sends all the turns the commits
    left while it was sending the last lot together, so however many come, they wait for at
    most one send ahead of them. Talk changes no decision, so a commit of talk alone sends
    nothing: the turns pending were sent when the game last moved.
    """

    def __init__(
        self,
        send: SendAll,
        scale: float,
        wakes: Mapping[type[Event], Wake] | None = None,
        gathered: Collection[type[Event]] = (),
        here: Send | None = None,
    ) -> None:
        """`wakes`: for each kind of event a read model's worker follows (GameWon for the
        ratings, HandScored for the reviews), how to wake it once one commits; the kinds
        `gathered` wake it WAKE_GATHER later, for all the commits of that moment at once.

        `here`: how this process plays a turn itself, called on the loop the commits run on.
        A worker keeps the turns its own moves leave pending: sent, each would go out to the
        broker and come back (a send, a ring, a fetch, an ack, and threads on both sides) only
        to wait out its think time on a worker's loop, most often this one. Kept here, it
        waits the same way, with the same risk: a worker that stops loses the turns it is
        waiting on, and the sweeper sends them again."""
        self._send = send
        self._here = here
        self._scale = scale
        self._wakes = dict(wakes or {})
        self._gathered = frozenset(gathered)
        self._sender = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bot-sends")
        # The kinds whose wake-up is gathering, and the turns to send with when each was made;
        # the lock is for the sending thread and close().
        self._gathering: set[type[Event]] = set()
        self._unsent: list[tuple[tuple[str, str, float], float, contextvars.Context | None]] = []
        self._lock = threading.Lock()

    async def __call__(self, state: State, events: list[Event], made: float) -> None:
        """`made`: when the move was handed to the log (use_cases.OnCommit), which its bots'
        think times count from."""
        if beside_the_game(events):
            return
        for kind, wake in self._wakes.items():
            if not any(isinstance(e, kind) for e in events):
                continue
            if kind in self._gathered:
                self._gather(kind)
            else:
                self._sender.submit(self._wake, wake)
        turns = [
            (
                state.code,
                d.key,
                think_seconds(state, d, self._scale) - search_seconds(state, d, self._scale),
            )
            for d in bot_decisions(state)
        ]
        if turns and self._here is not None:
            for code, key, delay in turns:
                self._here(code, key, _left(delay, made))
        elif turns:
            context = tracing.captured()  # each turn is sent in its move's trace
            with self._lock:
                idle = not self._unsent  # else a send is on its way to take these too
                self._unsent += [(turn, made, context) for turn in turns]
            if idle:
                self._sender.submit(self._send_unsent)

    def _send_unsent(self) -> None:
        """Each turn's delay counts from its move: a send that waited on this thread (behind
        a busy broker, or a busy process's GIL) must not add that wait to the bot's think
        time, any more than the commit's own way back did."""
        with self._lock:
            unsent, self._unsent = self._unsent, []
        turns = [(code, key, _left(delay, made)) for (code, key, delay), made, _ in unsent]
        try:
            self._send(turns, [context for *_, context in unsent] if tracing.on() else None)
        except Exception:  # the sweeper re-sends what is lost
            log.exception("could not send %d bot turns", len(turns))

    def _gather(self, kind: type[Event]) -> None:
        """Wake `kind`'s worker WAKE_GATHER from now, unless a wake-up is gathering already:
        its follower reads everything committed since its checkpoint, so one wake-up sent
        after the commits it gathered serves them all."""
        with self._lock:
            if kind in self._gathering:
                return
            self._gathering.add(kind)
        asyncio.get_running_loop().call_later(WAKE_GATHER, self._wake_now, kind)

    def _wake_now(self, kind: type[Event]) -> None:
        with self._lock:
            if kind in self._gathering:  # else close() sent it
                self._gathering.discard(kind)
                self._sender.submit(self._wake, self._wakes[kind])

    @staticmethod
    def _wake(wake: Wake) -> None:
        try:
            wake()
        except Exception:  # the sweeper wakes it if this is lost
            log.exception("could not wake a read model's worker")

    def close(self) -> None:
        """Send what is queued and every wake-up still gathering, then stop the sending
        thread."""
        with self._lock:
            for kind in self._gathering:
                self._sender.submit(self._wake, self._wakes[kind])
            self._gathering.clear()
        self._sender.shutdown(wait=True)


async def play_turn(
    tables: Tables, code: str, key: str, scale: float = 0.0, wait: float = 0.0, late: float = 0.0
) -> str:
    """Make the bot move for decision `key` at table `code` in `wait` seconds; says what
    happened. `scale` is the pacing's (pacing.py): a searching level moves once its search
    time is up. `late`: how late the turn already was when it came (a message that waited in
    its queue past its time), for the bots' lateness."""
    clock = asyncio.get_running_loop().time
    moves_at = clock() + wait
    # What this process last saw of the table, most often its own last move, serves with no
    # read if the turn is pending there: were it behind the log, the append's seq check finds
    # out, and the move is decided again on a fresh read (moved on if the game has). A read
    # (a person moved last) is made at once, while the bot thinks, not added to its time.
    if _pending(tables.known(code), key) is None:
        await tables.load(code)
    await asyncio.sleep(moves_at - asyncio.get_running_loop().time())
    state = tables.known(code)
    decision = _pending(state, key)
    if state is None or decision is None:  # moved on, or forgotten meanwhile
        state = await tables.load(code)
        decision = _pending(state, key)
    if decision is None or not state.seats[decision.seat].is_bot:
        return "moved on"
    seat = decision.seat
    level = state.seats[seat].bot
    # Seeded by the table and the decision alone, never by anything secret: the same message
    # gives the same move on any worker, and the move depends only on the seat's view.
    rng = random.Random(f"{code}/{key}")
    started = time.monotonic()
    if level in SEARCH_SECONDS:
        # A search takes up to a few hundred milliseconds: on a thread of its own, so the
        # other tables' turns on this event loop aren't held up behind it.
        command = await asyncio.to_thread(choose, view(state, seat), level, rng)
        took = time.monotonic() - started
        searched = search_seconds(state, decision, scale)
        if searched - took > 0:
            await asyncio.sleep(searched - took)
        moves_at += searched
    else:
        command = choose(view(state, seat), level, rng)
        took = time.monotonic() - started
    metrics.bot_decision.labels(level).observe(took)
    how = "played"
    if command not in legal(state, seat):
        log.warning(
            "%s bot at %s seat %d chose %r, not a legal move; playing the fallback",
            level,
            code,
            seat,
            command,
        )
        command, how = fallback(state, seat), "fallback"
    try:
        await tables.execute(code, command, expected_seq=state.seq, command_id=f"bot/{code}/{key}")
    except Stale:
        return "moved on"
    except Refused as refusal:
        log.warning(
            "%s bot at %s seat %d was refused (%s); playing the fallback",
            level,
            code,
            seat,
            refusal.reason,
        )
        await tables.execute(
            code,
            fallback(state, seat),
            expected_seq=state.seq,
            command_id=f"bot/{code}/{key}/fallback",
        )
        how = "fallback"
    # Due at `moves_at`, in the log now: how late, counting the turn's own wait to be taken.
    metrics.bot_lateness.labels(level).observe(late + max(0.0, clock() - moves_at))
    return how


def _left(delay: float, made: float) -> float:
    """What is left now of a `delay` that counts from `made` (time.monotonic())."""
    return max(0.0, delay - (time.monotonic() - made))


def _pending(state: State | None, key: str) -> Decision | None:
    return next((d for d in deciding(state) if d.key == key), None) if state else None
