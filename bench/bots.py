"""Bot speed: decisions per second for each level, on one core.

Run: uv run python bench/bots.py [--rounds N] [--seconds S]. Decision points are taken from
whole games between mixed bots (all house rules on, so every kind of decision turns up);
each level then decides every one of them, round after round. Printed per level: the median
rate over the rounds, for `choose` on a ready view and for `view` + `choose` (what a bot
worker does). Goal: hard at 2,000 decisions/s or more.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import time

from domain import apply, deciding, new_game, view
from domain.bots import choose

ALL_ON = {k: "on" for k in ("stick_dealer", "alone", "defend_alone", "farmers", "canadian")}
LEVELS = ("easy", "medium", "hard")


def decision_points(games: int) -> list:
    """(state, seat) at every decision of `games` games between mixed levels."""
    out = []
    for g in range(games):
        seed = hashlib.sha256(f"bench:{g}".encode()).hexdigest()
        state = new_game(seed, ALL_ON)
        levels = [LEVELS[(g + n) % 3] for n in range(4)]
        rng = random.Random(g)
        while state.status == "playing":
            seat = deciding(state)[0].seat
            out.append((state, seat))
            state, _ = apply(state, choose(view(state, seat), levels[seat], rng))
    return out


def rate(fn, items, seconds: float) -> float:
    n, start = 0, time.perf_counter()
    while True:
        for item in items:
            fn(item)
        n += len(items)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20, help="games to take decisions from")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="per level per round")
    args = parser.parse_args()
    points = decision_points(args.games)
    views = [view(s, seat) for s, seat in points]
    print(f"{len(points)} decisions from {args.games} games, one core, {args.rounds} rounds")
    print(f"  {'level':8} {'choose/s':>10} {'view+choose/s':>14}")
    for level in LEVELS:
        rng = random.Random(0)
        bare, full = [], []
        for _ in range(args.rounds):
            bare.append(rate(lambda v, lv=level, r=rng: choose(v, lv, r), views, args.seconds))
            full.append(
                rate(lambda p, lv=level, r=rng: choose(view(*p), lv, r), points, args.seconds)
            )
        print(f"  {level:8} {statistics.median(bare):10.0f} {statistics.median(full):14.0f}")
    print("  goal: hard >= 2000 decisions/s")


if __name__ == "__main__":
    main()
