"""The auditor's check: how long `verify` takes for one whole game, and `euchre verify --all`
over a database of many finished games, as an auditor would run it.

- One game: `--samples` random games to 10 (all house rules on), each exported and encoded as
  the NDJSON an auditor downloads; timed from the file's text to the verdict, in this process,
  read as strictly as `euchre verify FILE` reads it (projections/lines.py).
- Many: `--games` games copied into a scratch database on the server at EUCHRE_DATABASE_URL
  (else EUCHRE_TEST_DATABASE_URL, else the local test server), not timed; then the command
  `euchre verify --all` against it, timed end to end (its progress bar on stderr).

    uv run python bench/verify.py [--samples 200] [--games 10000]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import msgspec
from load import environment
from rules import random_game
from scratch import copy_logs, scratch_database

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from log_kit import recorded  # noqa: E402

from projections.audit import export, verify  # noqa: E402
from projections.lines import parse_ndjson  # noqa: E402


def one_game(samples: int) -> None:
    rng = random.Random(7)
    took = []
    for n in range(samples):
        code = f"V{n:04d}"
        log, _ = random_game(rng, code)
        text = b"".join(
            msgspec.json.encode(line) + b"\n" for line in export(code, recorded(code, log))
        )
        started = time.perf_counter()
        verdict = verify(parse_ndjson(text))
        took.append(time.perf_counter() - started)
        assert verdict.ok, verdict.summary
    took.sort()
    median, p95 = 1000 * statistics.median(took), 1000 * took[int(0.95 * len(took))]
    print(
        f"verify one whole game (from its NDJSON), {samples} games: median {median:.1f} ms, "
        f"p95 {p95:.1f} ms, max {1000 * took[-1]:.1f} ms (goal: 20 ms or less)"
    )


def many_games(games: int) -> None:
    rng = random.Random(2026)
    with scratch_database() as url:
        started = time.perf_counter()
        codes = (f"VA{n:05d}" for n in range(games))
        events = copy_logs(url, ((code, random_game(rng, code)[0]) for code in codes))
        print(f"logged {games} games, {events} events in {time.perf_counter() - started:.0f} s")
        env = environment(
            EUCHRE_DATABASE_URL=url,
            EUCHRE_REDIS_URL=os.environ.get("EUCHRE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0"),
        )
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "services.cli", "verify", "--all"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        took = time.perf_counter() - started
    print(done.stdout.strip().splitlines()[-1])
    print(
        f"euchre verify --all: {took:.1f} s for {games} games "
        f"({games / took:,.0f} games/s; goal: 10,000 in 60 s or less)"
    )
    if done.returncode != 0:
        raise SystemExit("some games did not verify")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--games", type=int, default=10_000)
    args = parser.parse_args()
    one_game(args.samples)
    many_games(args.games)


if __name__ == "__main__":
    main()
