"""Duplicate tournaments between bot levels: `euchre tournament A B --games N`.

Two bots of level A sit as partners against two of level B. Every game is played twice from
the same seed with the teams swapped (A in seats 0 and 2, then in 1 and 3), so each side gets
the other's cards deal for deal and the luck of the deal mostly cancels. Reported: games won
by each side with a 95% Wilson interval, hands won, points, and the time taken.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import multiprocessing
import random
import sys
import time
from dataclasses import dataclass, field

from domain import State, apply, deciding, new_game, view
from domain.bots import LEVELS, choose
from domain.house_rules import POINTS


@dataclass
class Result:
    a: str
    b: str
    games: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])  # games won by A, by B
    hands: list[int] = field(default_factory=lambda: [0, 0])  # hands scored by A, by B
    points: list[int] = field(default_factory=lambda: [0, 0])
    decisions: int = 0
    seconds: float = 0.0

    def add(self, other: Result) -> None:
        self.games += other.games
        for n in range(2):
            self.wins[n] += other.wins[n]
            self.hands[n] += other.hands[n]
            self.points[n] += other.points[n]
        self.decisions += other.decisions

    @property
    def share(self) -> float:
        """A's share of the games."""
        return self.wins[0] / self.games if self.games else 0.0

    def interval(self) -> tuple[float, float]:
        """95% Wilson score interval for A's share of the games."""
        return wilson(self.wins[0], self.games)

    def summary(self) -> str:
        lo, hi = self.interval()
        hands = sum(self.hands)
        hlo, hhi = wilson(self.hands[0], hands)
        rate = self.decisions / self.seconds if self.seconds else 0.0
        return "\n".join(
            [
                f"{self.a} vs {self.b}: {self.games} games "
                f"({self.games // 2} deals played both ways)",
                f"  games won  {self.a:>6} {self.wins[0]:6d}  {self.b:>6} {self.wins[1]:6d}"
                f"   {self.a} {100 * self.share:5.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%)",
                f"  hands won  {self.a:>6} {self.hands[0]:6d}  {self.b:>6} {self.hands[1]:6d}"
                f"   {self.a} {100 * self.hands[0] / max(1, hands):5.1f}% "
                f"(95% CI {100 * hlo:.1f}-{100 * hhi:.1f}%)",
                f"  points     {self.a:>6} {self.points[0]:6d}  {self.b:>6} {self.points[1]:6d}",
                f"  {self.decisions} bot decisions in {self.seconds:.1f}s ({rate:.0f}/s)",
            ]
        )


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)  # exact at the ends, not 0.99999...
    return lo, hi


def game_seed(seed: int, n: int) -> str:
    return hashlib.sha256(f"tournament:{seed}:{n}".encode()).hexdigest()


def play(
    seed: str, levels: tuple[str, ...], settings: dict | None = None, hands: int | None = None
) -> tuple[State, int]:
    """The game from `seed` with `levels[seat]` in each seat, each seat's bot seeded from it
    alone, played to its end or until `hands` hands are scored; the state then, and the
    decisions made."""
    state = new_game(seed, settings)
    rngs = [random.Random(f"{seed}:{n}") for n in range(4)]
    decisions = 0
    while state.status == "playing" and (hands is None or len(state.history) < hands):
        d = deciding(state)[0]
        move = choose(view(state, d.seat), levels[d.seat], rngs[d.seat])
        state, _ = apply(state, move)
        decisions += 1
    return state, decisions


def play_game(seed: str, levels: tuple[str, ...], settings: dict | None = None):
    """One game to the house rule `points` (10 by default) with `levels[seat]` in each seat;
    (winning team, hands won by team, points by team, decisions made)."""
    state, decisions = play(seed, levels, settings)
    hands, points = [0, 0], [0, 0]
    for o in state.history:
        hands[o.team] += 1
        points[o.team] += o.points
    return state.winner, hands, points, decisions


def play_pair(job: tuple[str, str, int, int, dict | None]) -> Result:
    """The game numbered `n` twice: A in seats 0 and 2, then the same deals with A in 1 and 3."""
    a, b, seed, n, settings = job
    out = Result(a, b)
    s = game_seed(seed, n)
    for a_team, levels in ((0, (a, b, a, b)), (1, (b, a, b, a))):
        winner, hands, points, decisions = play_game(s, levels, settings)
        out.games += 1
        out.wins[0 if winner == a_team else 1] += 1
        out.hands[0] += hands[a_team]
        out.hands[1] += hands[1 - a_team]
        out.points[0] += points[a_team]
        out.points[1] += points[1 - a_team]
        out.decisions += decisions
    return out


def run(
    a: str,
    b: str,
    games: int,
    workers: int = 2,
    seed: int = 0,
    settings: dict | None = None,
    progress: bool = True,
) -> Result:
    """Play `games` games (rounded up to an even number: each deal is played both ways)
    between level `a` and level `b` across `workers` processes."""
    for level in (a, b):
        if level not in LEVELS:
            raise ValueError(f"no bot level {level!r}; the levels are {', '.join(LEVELS)}")
    pairs = max(1, (games + 1) // 2)
    jobs = [(a, b, seed, n, settings) for n in range(pairs)]
    total = Result(a, b)
    start = time.perf_counter()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=2 * pairs, unit="game", desc=f"{a} vs {b}", file=sys.stderr)
    if workers <= 1:
        results = map(play_pair, jobs)
        for r in results:
            total.add(r)
            if bar is not None:
                bar.update(r.games)
                bar.set_postfix_str(f"{a} {100 * total.share:.1f}%")
    else:
        ctx = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "fork")
        with ctx.Pool(workers) as pool:
            for r in pool.imap_unordered(play_pair, jobs, chunksize=4):
                total.add(r)
                if bar is not None:
                    bar.update(r.games)
                    bar.set_postfix_str(f"{a} {100 * total.share:.1f}%")
    if bar is not None:
        bar.close()
    total.seconds = time.perf_counter() - start
    return total


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="euchre tournament",
        description="Duplicate games between two bot levels: each deal is played twice, with "
        "the teams swapping cards, so luck of the deal cancels out. Prints the share of games "
        "LEVEL_A won, with its 95% interval.",
    )
    p.add_argument("a", metavar="LEVEL_A", choices=LEVELS, help=f"one of {', '.join(LEVELS)}")
    p.add_argument("b", metavar="LEVEL_B", choices=LEVELS, help="the level it plays against")
    p.add_argument("--games", type=int, default=200, help="games in all (each deal twice)")
    p.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    p.add_argument("--seed", type=int, default=0, help="which games (default 0)")
    p.add_argument(
        "--points",
        type=int,
        choices=POINTS,
        default=10,
        help="points that win a game (house rule `points`, default 10)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    result = run(
        args.a,
        args.b,
        args.games,
        workers=args.workers,
        seed=args.seed,
        settings={"points": args.points},
        progress=not args.quiet,
    )
    print(result.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
