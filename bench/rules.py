"""Rules engine speed: random full games to 10 per second, and events folded per second.

Run: uv run python bench/rules.py [--seconds N]. One core, all house rules on; prints figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from domain import apply, deciding, fold, legal
from domain.game import opening

ALL_ON = {
    "stick_dealer": "on",
    "alone": "on",
    "defend_alone": "on",
    "farmers": "on",
    "canadian": "on",
}


def random_game(rng: random.Random, code: str = "GAME") -> tuple[list, int]:
    log = opening(f"{rng.getrandbits(256):064x}", ALL_ON, code=code)
    state = fold(log)
    while state.status == "playing":
        turn = deciding(state)[0]
        state, events = apply(state, rng.choice(legal(state, turn.seat)))
        log.extend(events)
    return log, len(state.history)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0, help="per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(2026)
    games_rates, fold_rates, logs, hands = [], [], [], []
    for _ in range(args.rounds):
        n, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < args.seconds:
            log, h = random_game(rng)
            logs.append(log)
            hands.append(h)
            n += 1
        games_rates.append(n / elapsed)
        sample = logs[-200:]
        events = sum(len(x) for x in sample)
        start = time.perf_counter()
        for log in sample:
            fold(log)
        fold_rates.append(events / (time.perf_counter() - start))
    games = statistics.median(games_rates)
    print(f"random full games to 10, all house rules on, one core ({args.rounds} rounds)")
    print(
        f"  games/s         median {games:8.0f}   (min {min(games_rates):.0f}, max "
        f"{max(games_rates):.0f})"
    )
    print(f"  hands/game      mean   {statistics.mean(hands):8.1f}")
    print(f"  hands/s         median {games * statistics.mean(hands):8.0f}")
    print(f"  events/game     mean   {statistics.mean(len(x) for x in logs):8.1f}")
    print(f"  events folded/s median {statistics.median(fold_rates):8.0f}")
    print(f"  goal: 500 games/s -> ratio {games / 500:.2f}")


if __name__ == "__main__":
    main()
