"""A process's worker machinery: a Dramatiq worker whose actors play bot turns, rate the
games won and review the hands scored, and a sweeper; and the sending side alone, for the API.

The actor's work is async (the event store is), so the runtime keeps one event loop in a
thread of its own with its own engine and table cache; Dramatiq's worker threads hand each
message to it. `euchre worker` runs one runtime per process, and `euchre serve` runs one in a
child process beside the API (so a newcomer's bots move with nothing else started, and the
worker's threads never hold the GIL the API's event loop is waiting for).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time

import dramatiq

from domain.events import GameWon, HandScored
from infra import keyvalue
from infra.activity import Activity
from infra.broker import (
    BOT_QUEUE,
    BOT_TURN,
    RATE_GAMES,
    RATINGS_QUEUE,
    REVIEW_HANDS,
    REVIEWS_QUEUE,
    make_broker,
    send_bot_turns,
    send_rate_games,
    send_review_hands,
)
from infra.db import create_engine
from infra.eventstore import EventStore
from infra.heartbeat import Heartbeat
from infra.heartbeat import namespace as workers
from infra.presence import Presence, namespace
from infra.ratings import Ratings
from infra.reviews import Reviews
from infra.transparency import PublicLog
from services.bots.sweeper import Sweeper
from services.bots.turns import Scheduler, Send, play_turn
from services.use_cases import AfterCommit, Tables

log = logging.getLogger(__name__)

TURN_TIMEOUT = 60.0
# How long an idle consumer goes without looking at its queue. A message sent is taken at once
# (RabbitMQ pushes it; on Redis the broker's bell rings, infra/broker.py), so this bounds only
# what comes back unsent (a dead worker's messages) and how long a stopping worker's threads
# take to notice.
WAKE_MS = 250


def _not_twice(record: logging.LogRecord) -> bool:
    return not record.getMessage().startswith("You're adding a middleware of the same type twice")


class BotSends:
    """Where the API's commits send bot turns and the read models' wake-ups: a broker and the
    scheduler, no worker."""

    def __init__(
        self,
        broker_url: str,
        scale: float = 1.0,
        namespace: str = "euchre",
        queue_type: str = "classic",
    ) -> None:
        self.broker = make_broker(broker_url, namespace, queue_type)
        self._scale = scale
        # The broker's own sends, bound to it: the scheduler and the sweeper call these, so
        # after the API's commits nothing of this module runs.
        self.wake_ratings = functools.partial(send_rate_games, self.broker)
        self.wake_reviews = functools.partial(send_review_hands, self.broker)
        self._send_all = functools.partial(send_bot_turns, self.broker)
        self.scheduler = self.scheduling()

    def scheduling(self, here: Send | None = None) -> Scheduler:
        """A scheduler that sends on this broker; `here`, if given, plays the bot turns
        instead (Scheduler says when)."""
        wakes = {GameWon: self.wake_ratings, HandScored: self.wake_reviews}
        return Scheduler(self._send_all, self._scale, wakes, gathered={HandScored}, here=here)

    def send(self, code: str, key: str, delay: float | None) -> None:
        self._send_all([(code, key, delay)])

    def close(self) -> None:
        self.scheduler.close()
        self.broker.close()

    def __enter__(self) -> BotSends:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class BotRuntime:
    def __init__(
        self,
        database_url: str,
        broker_url: str,
        scale: float = 1.0,
        *,
        namespace: str = "euchre",
        threads: int = 4,
        sweep: bool = True,
        grace: float | None = None,
        presence_url: str | None = None,
        queue_type: str = "classic",
    ) -> None:
        """`presence_url`: the Redis where the API records who is at which table, for the
        sweeper to tell who is gone (none: nobody is), and where this worker says it is alive
        (infra/heartbeat.py). `queue_type`: RabbitMQ's, for its queues (infra/broker.py)."""
        self.database_url = database_url
        self.scale = scale
        self._sends = BotSends(broker_url, scale, namespace, queue_type)
        self.broker = self._sends.broker
        self.scheduler = self._sends.scheduler
        # The worker's own moves schedule the turns they leave pending on its loop.
        self._playing = self._sends.scheduling(here=self._wait_for_turn)
        self.send = self._sends.send
        self.wake_ratings = self._sends.wake_ratings
        self.wake_reviews = self._sends.wake_reviews
        self._threads = threads
        self._sweep = sweep
        self._grace = grace
        self._presence_url = presence_url
        self._presence: Presence | None = None
        self._heartbeat: Heartbeat | None = None
        self._beating: asyncio.Task | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="bots", daemon=True)
        self._workers: list[dramatiq.Worker] = []
        self._waiting: set[asyncio.Task[None]] = set()  # turns waiting out their think time
        self._sweeper: asyncio.Task | None = None
        self.tables: Tables | None = None

    def _on_loop(self, coro, timeout: float | None = TURN_TIMEOUT):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    async def _setup(self) -> None:
        self._engine = create_engine(self.database_url, pool_size=2)
        store = await EventStore.open(self.database_url, size=self._threads + 2)
        self._store = store
        # The worker's after-commit table: it has no streams, only the bots' step.
        self.tables = Tables(store, AfterCommit().then(self._playing))
        self.activity = Activity(self._engine, store)
        self.ratings = Ratings(self._engine, store)
        self.public_log = PublicLog(self._engine, store)
        self.reviews = Reviews(self._engine, store)
        if self._presence_url is not None:
            redis = keyvalue.connect(self._presence_url)
            self._presence = Presence(redis, namespace(self.database_url))
            self._heartbeat = Heartbeat(redis, workers(self.database_url))

    def _bot_turn(self, code: str, key: str, due: float | None = None) -> None:
        """A turn waits out its think time on the event loop, not on this message's thread,
        and the message is done: a worker that stops meanwhile loses it, and the sweeper sends
        it again once it is overdue, as for any turn lost. So does a turn that comes already
        due: held on the thread till played, late turns took up every thread while the loop
        was busy, the messages behind them came later still, and the worker fell seconds
        behind (docs/scaling.md). A turn sent again after it failed (no `due`) is played on
        the thread, with Dramatiq's retries."""
        if due is None:
            outcome = self._on_loop(play_turn(self.tables, code, key, self.scale))
            log.debug("bot turn %s at %s: %s", key, code, outcome)
        else:
            now = time.time()
            wait, late = max(0.0, due - now), max(0.0, now - due)
            self._loop.call_soon_threadsafe(self._wait_for_turn, code, key, wait, late)

    def _wait_for_turn(self, code: str, key: str, wait: float, late: float = 0.0) -> None:
        task = self._loop.create_task(self._turn_after(wait, code, key, late))
        self._waiting.add(task)
        task.add_done_callback(self._waiting.discard)

    async def _turn_after(self, wait: float, code: str, key: str, late: float) -> None:
        try:
            outcome = await play_turn(self.tables, code, key, self.scale, wait, late)
        except Exception:
            # Back through the broker, to be played with its retries.
            log.exception("bot turn %s at %s failed; sending it again", key, code)
            await asyncio.to_thread(self.send, code, key, None)
        else:
            log.debug("bot turn %s at %s: %s", key, code, outcome)

    def _rate_games(self) -> None:
        """Games won: rated, and added to the public log of finished games."""
        rated = self._on_loop(self.ratings.catch_up())
        logged = self._on_loop(self.public_log.catch_up())
        log.debug("ratings read %d games won, the public log %d", rated, logged)

    def _review_hands(self) -> None:
        reviewed = self._on_loop(self.reviews.review_some())
        log.debug("reviews read %d hands scored", reviewed)

    def start(self) -> BotRuntime:
        self._thread.start()
        self._on_loop(self._setup())
        for work, name, queue in (
            (self._bot_turn, BOT_TURN, BOT_QUEUE),
            (self._rate_games, RATE_GAMES, RATINGS_QUEUE),
            (self._review_hands, REVIEW_HANDS, REVIEWS_QUEUE),
        ):
            dramatiq.actor(
                work,
                broker=self.broker,
                actor_name=name,
                queue_name=queue,
                max_retries=3,
                min_backoff=200,
                max_backoff=2000,
            )
        self._workers = [
            dramatiq.Worker(
                self.broker,
                queues={BOT_QUEUE},
                worker_threads=self._threads,
                worker_timeout=WAKE_MS,
            ),
            # Two threads: a wake-up of the reviews may take seconds (a portion of a long
            # history), and a game won's rating doesn't wait behind it; a second wake-up of a
            # follower already busy returns at once.
            dramatiq.Worker(
                self.broker,
                queues={RATINGS_QUEUE, REVIEWS_QUEUE},
                worker_threads=2,
                worker_timeout=WAKE_MS,
            ),
        ]
        # Each worker adds its own middleware to the broker, to make consumers for its queues,
        # and the broker warns of a second of one type. Their queues don't overlap, so nothing
        # is consumed twice: that one warning is left out of the log.
        self.broker.logger.addFilter(_not_twice)
        try:
            for worker in self._workers:
                worker.start()
        finally:
            self.broker.logger.removeFilter(_not_twice)
        if self._sweep:
            kw = {} if self._grace is None else {"grace": self._grace}
            sweeper = Sweeper(
                self.activity,
                self.tables,
                self.send,
                self.scale,
                presence=self._presence,
                wakes=[
                    (self.ratings.behind, self.wake_ratings),
                    (self.public_log.behind, self.wake_ratings),
                    (self.reviews.behind, self.wake_reviews),
                ],
                **kw,
            )
            self._sweeper = self._on_loop(self._begin(sweeper.run(self.database_url)))
        if self._heartbeat is not None:
            self._beating = self._on_loop(self._begin(self._heartbeat.run()))
        return self

    @staticmethod
    async def _begin(work) -> asyncio.Task:
        return asyncio.create_task(work)

    async def _drop_waiting(self) -> None:
        """Turns still waiting out their think time go, as a stopped worker's would: the
        sweeper sends them again. On the loop, whose callbacks are all that change the set."""
        await asyncio.gather(*map(self._end, list(self._waiting)))

    @staticmethod
    async def _end(task: asyncio.Task) -> None:
        """Cancel `task` and wait till it has let go of its connections, before they close."""
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    def stop(self) -> None:
        # Together: each takes up to two of its worker timeouts to see it should stop.
        stopping = [
            threading.Thread(target=worker.stop, kwargs={"timeout": 10_000})
            for worker in self._workers
        ]
        for thread in stopping:
            thread.start()
        for thread in stopping:
            thread.join()
        if self._thread.is_alive():
            self._on_loop(self._drop_waiting(), timeout=10)
        # Before the loop stops: the turns and wake-ups queued go out on the broker first.
        self._playing.close()
        self.scheduler.close()
        if self._thread.is_alive():
            if self._sweeper is not None:
                self._on_loop(self._end(self._sweeper), timeout=10)
            self._on_loop(self._store.close(), timeout=10)
            if self._heartbeat is not None and self._beating is not None:
                self._on_loop(self._end(self._beating), timeout=10)
                self._on_loop(self._heartbeat.end(), timeout=10)
            if self._presence is not None:
                self._on_loop(self._presence.close(), timeout=10)
            self._on_loop(self._engine.dispose(), timeout=10)
            self.reviews.close()
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        self.broker.close()

    def __enter__(self) -> BotRuntime:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
