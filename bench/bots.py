"""Bot speed on one core: decisions per second for each level, and how long each decision takes.

Run: uv run python bench/bots.py [--games G] [--rounds N] [--seconds S]. Decision points are
taken from whole games between mixed bots (all house rules on, so every kind of decision turns
up). Printed per level:

- the median rate over the rounds, for `choose` on a ready view and for `view` + `choose` (what
  a bot worker does), every decision point included;
- the time of each decision that has a choice (more than one legal move: a lone legal card or
  "ready" costs nothing and would flatter the percentiles), as p50, p95, p99 and the slowest,
  one pass over the points;
- for the expert, the mean number of deals (worlds) it solved per such decision.

Goals: hard at 2,000 decisions/s or more; expert p95 <= 250 ms and p99 <= 500 ms (its search
runs inside the think time, services/bots/pacing.py SEARCH_SECONDS).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import time

from domain import apply, deciding, legal, new_game, view
from domain.bots import choose, expert, sampling

ALL_ON = {k: "on" for k in ("stick_dealer", "alone", "defend_alone", "farmers", "canadian")}
LEVELS = ("easy", "medium", "hard", "expert")
FAST = ("easy", "medium", "hard")  # the levels the decision points' games are played by


def decision_points(games: int) -> list:
    """(state, seat) at every decision of `games` games between mixed levels."""
    out = []
    for g in range(games):
        seed = hashlib.sha256(f"bench:{g}".encode()).hexdigest()
        state = new_game(seed, ALL_ON)
        levels = [FAST[(g + n) % 3] for n in range(4)]
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
            n += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return n / elapsed


class Worlds:
    """Counts the deals the expert builds, by wrapping the two places it deals them."""

    def __init__(self) -> None:
        self.n = 0
        hands, deals = sampling.Unseen.hands, expert._deals

        def counted_hands(unseen, rng, my_hand):
            self.n += 1
            return hands(unseen, rng, my_hand)

        def counted_deals(k, rng):
            for world in deals(k, rng):
                self.n += 1
                yield world

        sampling.Unseen.hands = counted_hands  # type: ignore[method-assign]
        expert._deals = counted_deals


def pct(sorted_ms: list[float], q: float) -> float:
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10, help="games to take decisions from")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="per level per round")
    args = parser.parse_args()
    points = decision_points(args.games)
    views = [view(s, seat) for s, seat in points]
    choices = [v for v, (s, seat) in zip(views, points, strict=True) if len(legal(s, seat)) > 1]
    print(
        f"{len(points)} decisions from {args.games} games ({len(choices)} with a choice), "
        f"one core, {args.rounds} rounds"
    )
    worlds = Worlds()
    header = (
        f"  {'level':8} {'choose/s':>9} {'view+choose/s':>14}"
        f" {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'max ms':>7} {'worlds':>7}"
    )
    print(header)
    for level in LEVELS:
        rng = random.Random(0)
        bare, full = [], []
        for _ in range(args.rounds):
            bare.append(rate(lambda v, lv=level, r=rng: choose(v, lv, r), views, args.seconds))
            full.append(
                rate(lambda p, lv=level, r=rng: choose(view(*p), lv, r), points, args.seconds)
            )
        worlds.n = 0
        ms = []
        for v in choices:
            start = time.perf_counter()
            choose(v, level, rng)
            ms.append(1000 * (time.perf_counter() - start))
        ms.sort()
        mean_worlds = f"{worlds.n / len(choices):7.1f}" if level == "expert" else f"{'':>7}"
        print(
            f"  {level:8} {statistics.median(bare):9.0f} {statistics.median(full):14.0f}"
            f" {pct(ms, 0.5):7.2f} {pct(ms, 0.95):7.2f} {pct(ms, 0.99):7.2f} {ms[-1]:7.1f}"
            f" {mean_worlds}"
        )
    print("  goals: hard >= 2000 decisions/s; expert p95 <= 250 ms, p99 <= 500 ms")


if __name__ == "__main__":
    main()
