"""What the review after each hand costs (domain/bots/review.py): `--games` games of random legal
moves under random house rules, every scored hand reviewed, timed hand by hand on one core.
Random play leaves far more costly cards than people or bots do, and as many alternatives to
try, so it is the heavy end. Prints the hands reviewed and the time per hand.

    uv run python bench/review.py [--games 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "domain")]
from euchre_kit import bot_table, play_game, random_chooser, random_settings, seed_of  # noqa: E402

from domain.bots.review import played_hands, review  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(1)
    times, costly = [], 0
    for n in range(args.games):
        state, events = bot_table(seed_of(n), random_settings(rng))
        _, steps = play_game(state, random_chooser(), rng)
        log = events + [e for _, es in steps for e in es]
        for hand in played_hands(log):
            start = time.perf_counter()
            done = review(hand)
            times.append(time.perf_counter() - start)
            costly += sum(c.after < c.before for c in done.cards)
    times.sort()
    ms = [1000 * t for t in times]
    print(
        f"{len(times)} hands ({costly} costly cards): median {statistics.median(ms):.1f} ms, "
        f"mean {statistics.mean(ms):.1f} ms, p95 {ms[int(0.95 * len(ms))]:.1f} ms, "
        f"max {ms[-1]:.1f} ms a hand"
    )


if __name__ == "__main__":
    main()
