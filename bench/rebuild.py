"""`euchre rebuild` over a log of many finished games: how long the command takes, end to end.

Fills a scratch database on the server at EUCHRE_DATABASE_URL (else EUCHRE_TEST_DATABASE_URL,
else the local test server) with `--games` random games to 10, played by the rules engine and
copied in with COPY (not timed), then runs `euchre rebuild` against it as an operator would,
twice, and drops the database afterwards. The first rebuild also reviews every hand, which
nothing had yet; the second, like any rebuild of a database whose hands the workers have
reviewed, keeps the reviews (infra/reviews.py), and it is the one the goal is for.
Usage: uv run python bench/rebuild.py [--games 10000]
"""

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from rules import random_game
from scratch import copy_logs, scratch_database

ROOT = Path(__file__).resolve().parents[1]


def fill(url: str, games: int) -> int:
    """Logs `games` finished games, one stream each; how many events."""
    rng = random.Random(2026)
    codes = (f"RB{n:05d}" for n in range(games))
    return copy_logs(url, ((code, random_game(rng, code)[0]) for code in codes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    args = parser.parse_args()

    with scratch_database() as url:
        started = time.perf_counter()
        events = fill(url, args.games)
        print(
            f"logged {args.games} games, {events} events in {time.perf_counter() - started:.0f} s"
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("EUCHRE_")}
        env.update(
            EUCHRE_DATABASE_URL=url,
            EUCHRE_REDIS_URL=os.environ.get("EUCHRE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0"),
        )
        for run in ("first, reviewing every hand", "again, the reviews kept"):
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "services.cli", "rebuild"],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
            )
            took = time.perf_counter() - started
            if done.returncode != 0:
                raise SystemExit(f"euchre rebuild failed:\n{done.stderr}")
            print(done.stdout.strip().splitlines()[-1])
            print(
                f"euchre rebuild, {run}: {took:.1f} s for {args.games} games"
                f"  ({events / took:,.0f} events/s; goal: 10,000 games in 30 s or less)"
            )


if __name__ == "__main__":
    main()
