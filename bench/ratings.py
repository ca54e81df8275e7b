"""Ratings through the worker: how many games one `euchre worker` process rates per second,
and how long after a game's `GameWon` commits its rating can be read.

A scratch database on the server at EUCHRE_DATABASE_URL (else EUCHRE_TEST_DATABASE_URL, else
the local test server) and a Redis database of the bench's own (EUCHRE_BENCH_REDIS_URL, else
database 8 on the local Redis, flushed before and after). One worker process with one thread
runs against them: one core of Python at most.

- Throughput: `--games` finished games, each with one to four of `--players` registered people
  (a guest now and then) and bots in the other seats, are copied into the log in one
  transaction; one wake-up is sent; timed from that commit till the last game's result is
  written. The worker's CPU (from /proc) is reported beside it.
- Lag: `--live` more games, one at a time every `--every` seconds, each appended but for its
  `GameWon`, then the `GameWon` appended through the use cases with the commit hook the API
  uses (so the wake-up is the real one); the lag is the time from the `GameWon`'s commit (the
  log's own time) to its result being readable.

    uv run python bench/ratings.py [--games 5000] [--live 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import redis
from load import environment, tree_cpu
from scratch import copy_logs, scratch_database
from sqlalchemy import text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from rated_kit import finished_game  # noqa: E402

from domain.codec import to_record  # noqa: E402
from domain.game import fold  # noqa: E402
from infra.db import create_engine  # noqa: E402
from infra.eventstore import EventStore, NewEvent  # noqa: E402
from services.bots.runtime import BotSends  # noqa: E402

BENCH_REDIS = "redis://127.0.0.1:6379/8"


def people(rng: random.Random, players: int) -> list:
    seats: list = [None] * 4
    count = rng.randint(1, 4)
    for n in rng.sample(range(4), count):
        who = f"p{rng.randrange(players)}"
        registered = rng.random() < 0.9
        seats[n] = (who if registered else f"guest-{who}", registered)
    if len({s[0] for s in seats if s}) < count:  # one person can't sit twice
        return people(rng, players)
    return seats


def games(rng: random.Random, count: int, players: int, prefix: str) -> list[tuple[str, list]]:
    """Finished games; in one in five a person leaves before the end."""
    out = []
    for n in range(count):
        seats = people(rng, players)
        seated = [i for i, p in enumerate(seats) if p is not None]
        leaver = rng.choice(seated) if rng.random() < 0.2 else None
        level = rng.choice(("easy", "medium", "hard"))
        code = f"{prefix}{n:05d}"
        out.append((code, finished_game(code, rng.getrandbits(32), seats, level, leaver)))
    return out


async def count_results(engine) -> int:
    async with engine.connect() as conn:
        return await conn.scalar(text("SELECT count(*) FROM game_ratings"))


async def until_results(engine, count: int, timeout: float = 600) -> float:
    deadline = time.monotonic() + timeout
    while (done := await count_results(engine)) < count:
        if time.monotonic() > deadline:
            raise SystemExit(f"only {done} of {count} games rated")
        await asyncio.sleep(0.005)
    return time.time()


async def throughput(url: str, worker: int, sends: BotSends, logs) -> None:
    engine = create_engine(url, pool_size=1)
    try:
        copy_logs(url, logs)
        committed = time.time()
        cpu = tree_cpu(worker)
        sends.wake_ratings()
        done = await until_results(engine, len(logs))
        cpu = tree_cpu(worker) - cpu
    finally:
        await engine.dispose()
    took = done - committed
    print(
        f"throughput: {len(logs)} games rated in {took:.2f} s: {len(logs) / took:,.0f} games/s "
        f"(goal: 500 or more on one core); the worker used {cpu:.2f} CPU s "
        f"({1000 * cpu / len(logs):.2f} ms a game, {cpu / took:.2f} of a core)"
    )


async def lag(url: str, sends: BotSends, logs, every: float) -> None:
    store = await EventStore.open(url, size=2)
    engine = create_engine(url, pool_size=1)
    lags = []
    try:
        for code, events in logs:
            *start, won = events
            await store.append(code, 0, [NewEvent(*to_record(e)) for e in start])
            result = await store.append(code, len(start), [NewEvent(*to_record(won))])
            # What the use cases do after every commit: the API's own hook.
            await sends.scheduler(fold(events), [won], time.monotonic())
            at = await _commit_time(store, code, result.last_seq)
            lags.append(await _visible(engine, code) - at)
            await asyncio.sleep(every)
    finally:
        await store.close()
        await engine.dispose()
    lags.sort()

    def pct(q: float) -> float:
        return 1000 * lags[min(len(lags) - 1, int(q * len(lags)))]

    print(
        f"lag from GameWon's commit to its rating readable, {len(lags)} games one at a time: "
        f"p50 {pct(0.5):.0f} ms, p95 {pct(0.95):.0f} ms, p99 {pct(0.99):.0f} ms, "
        f"max {1000 * lags[-1]:.0f} ms (goal: p95 1 s or less); "
        f"median {1000 * statistics.median(lags):.0f} ms"
    )


async def _commit_time(store: EventStore, code: str, seq: int) -> float:
    (record,) = await store.read(code, after_seq=seq - 1)
    at: datetime = record.at
    return at.timestamp()


async def _visible(engine, code: str) -> float:
    query = text("SELECT 1 FROM game_ratings WHERE code = :code")
    while True:
        async with engine.connect() as conn:
            if await conn.scalar(query, {"code": code}):
                return time.time()
        await asyncio.sleep(0.002)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--live", type=int, default=200)
    parser.add_argument("--every", type=float, default=0.05, help="seconds between live games")
    args = parser.parse_args()
    rng = random.Random(2026)
    started = time.perf_counter()
    backlog = games(rng, args.games, args.players, "B")
    live = games(rng, args.live, args.players, "L")
    took = time.perf_counter() - started
    print(f"played {args.games + args.live} games by the rules in {took:.0f} s")
    redis_url = os.environ.get("EUCHRE_BENCH_REDIS_URL", BENCH_REDIS)
    redis.Redis.from_url(redis_url).flushdb()
    with (
        scratch_database() as url,
        tempfile.NamedTemporaryFile("w+", prefix="euchre-ratings-", suffix=".log") as said,
    ):
        env = environment(EUCHRE_DATABASE_URL=url, EUCHRE_REDIS_URL=redis_url)
        argv = [sys.executable, "-m", "services.cli", "worker", "--threads", "1"]
        worker = subprocess.Popen(argv, cwd=ROOT, env=env, stderr=said, text=True)
        sends = BotSends(redis_url)
        try:
            deadline = time.monotonic() + 60
            while "worker ready" not in Path(said.name).read_text():
                if worker.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the worker did not start:\n{Path(said.name).read_text()}")
                time.sleep(0.1)
            asyncio.run(throughput(url, worker.pid, sends, backlog))
            asyncio.run(lag(url, sends, live, args.every))
        finally:
            sends.close()
            worker.terminate()
            worker.wait(timeout=60)
            redis.Redis.from_url(redis_url).flushdb()


if __name__ == "__main__":
    main()
