"""The double-dummy solver against trying every line: `--positions` whole hands dealt at random
(five tricks to go; lone hands and lone defences among them), each valued by the solver and by
exhaustive search (tests/domain/bots/bot_kit.py `perfect_tricks`, across `--processes`), which
must agree on every one. Prints the disagreements (the goal is none) and the solver's speed in
positions/s on one core, each position asked every threshold from 0 to 5 tricks.

    uv run python bench/solver.py [--positions 2000] [--processes 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "domain" / "bots"), str(ROOT / "tests" / "domain")]
from bot_kit import perfect_tricks, random_position  # noqa: E402

from domain.bots.solver import Solver  # noqa: E402


def exhaustive(position: tuple) -> int:
    hands, trump, playing, makers, turn = position
    return perfect_tricks(hands, trump, playing, makers, (), turn)


def solved(position: tuple) -> int:
    hands, trump, playing, makers, turn = position
    solver = Solver(hands, trump, playing, makers)
    return sum(solver.reach((), turn, need) for need in range(1, 6))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    rng = random.Random(2026)
    positions = [random_position(rng) for _ in range(args.positions)]
    times, values = [], []
    for position in positions:
        started = time.perf_counter()
        values.append(solved(position))
        times.append(time.perf_counter() - started)
    started = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.processes) as pool:
        truth = pool.map(exhaustive, positions, chunksize=8)
    brute = time.perf_counter() - started
    wrong = [n for n, (a, b) in enumerate(zip(values, truth, strict=True)) if a != b]
    lone = sum(len(p[2]) < 4 for p in positions)
    print(
        f"{args.positions} whole hands ({lone} with a seat sitting out): "
        f"{len(wrong)} disagreements with trying every line (goal: none)"
    )
    print(
        f"solver: {len(times) / sum(times):,.0f} positions/s on one core "
        f"(median {1000 * statistics.median(times):.2f} ms, max {1000 * max(times):.1f} ms); "
        f"trying every line: {args.positions / brute:.1f} positions/s on {args.processes} processes"
    )
    if wrong:
        raise SystemExit(f"disagreements at positions {wrong[:10]}")


if __name__ == "__main__":
    main()
