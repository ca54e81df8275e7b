"""Points a hand between two bot levels: each deal played once each way from 0-0.

Run: uv run python bench/hands.py A B [--deals N] [--workers W] [--start K] [--save FILE].
Level A sits in seats 0 and 2 against B, then the same deal is played again with the teams
swapped, and A's points minus B's over the two plays is the deal's result. One hand a deal,
not whole games: a change to a bot moves points a hand long before it moves games won, and
the two plays of a deal share their luck, so 4,000 deals tell apart changes of 0.02-0.03
points a hand, which 2,000 games cannot. `--save` writes each deal's result as JSON, and
`--against FILE` pairs them deal by deal with an earlier run's (say, of the code before a
change), which cancels even more of the luck: most deals are played the same way by both.
`--set NAME=VALUE` (repeatable) sets one of the expert's settings in domain/bots/expert.py
first, `--set NEAR=99` say, so a setting is measured both ways without editing the code.
`--as-hard DECISION` (repeatable) hands one kind of the expert's decisions back to the hard
bot's rule, so paired with a run without it, it prices what the expert's search earns there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import multiprocessing
import time

from domain.bots import LEVELS, bidding, expert, play
from domain.bots.discard import bury_for_void
from services.bots import tournament

# expert.py's decisions, each with the hard bot's rule for it.
HARD_RULES = {
    "round_one": lambda k, rng: bidding.round_one(k, expert.STYLE),
    "round_two": lambda k, rng: bidding.round_two(k, expert.STYLE),
    "discard": lambda k, rng: bury_for_void(k.cards("discard"), k.trump),
    "defend_alone": lambda k, rng: bidding.defend_alone(k, "hard"),
    "choose_card": lambda k, rng: play.choose_card(k, "hard", rng),
}


def hand(seed: str, levels: tuple[str, str, str, str]) -> int:
    """Team 0's points (negative if team 1 scored) in the first hand of a game from `seed`."""
    state, _ = tournament.play(seed, levels, hands=1)
    scored = state.history[0]
    return scored.points if scored.team == 0 else -scored.points


def deal(job: tuple[str, str, int]) -> int:
    """A's points minus B's over deal `n` played both ways."""
    a, b, n = job
    seed = hashlib.sha256(f"hands:{n}".encode()).hexdigest()
    return hand(seed, (a, b, a, b)) - hand(seed, (b, a, b, a))


def played(jobs: list[tuple[str, str, int]], workers: int) -> list[int]:
    """Each deal's result, by `workers` processes forked now: they play with whatever the
    caller set before the call (`--set`, or bench/ceiling.py's cheats)."""
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return pool.map(deal, jobs, chunksize=8)


def mean_and_half_width(xs: list[float]) -> tuple[float, float]:
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / max(1, len(xs) - 1))
    return m, 1.96 * sd / math.sqrt(len(xs))


def setting(item: str) -> None:
    """Sets one of expert.py's settings (its upper-case numbers) before the deals are played;
    the worker processes, forked after, play with it."""
    name, _, value = item.partition("=")
    now = getattr(expert, name, None) if name.isupper() else None
    if not isinstance(now, int | float) or isinstance(now, bool):
        raise SystemExit(f"--set: domain/bots/expert.py has no number setting {name!r}")
    try:
        setattr(expert, name, type(now)(value))
    except ValueError:
        raise SystemExit(f"--set {name}: {value!r} is not a {type(now).__name__}") from None


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("a", choices=LEVELS)
    p.add_argument("b", choices=LEVELS)
    p.add_argument("--deals", type=int, default=4000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--start", type=int, default=0, help="the first deal's number")
    p.add_argument("--save", help="write each deal's result here (JSON)")
    p.add_argument("--against", help="an earlier --save of the same deals to pair with")
    p.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="an expert setting"
    )
    p.add_argument(
        "--as-hard",
        action="append",
        default=[],
        choices=sorted(HARD_RULES),
        help="a decision the expert leaves to the hard bot's rule",
    )
    args = p.parse_args()
    for item in args.set:
        setting(item)
    for decision in args.as_hard:
        setattr(expert, decision, HARD_RULES[decision])
    jobs = [(args.a, args.b, n) for n in range(args.start, args.start + args.deals)]
    start = time.perf_counter()
    results = played(jobs, args.workers)
    seconds = time.perf_counter() - start
    m, half = mean_and_half_width([r / 2 for r in results])
    print(
        f"{args.a} vs {args.b}: {len(results)} deals played both ways, "
        f"{m:+.4f} points a hand (95% CI ±{half:.4f}), {seconds:.0f}s"
    )
    if args.save:
        with open(args.save, "w") as f:
            json.dump({"start": args.start, "results": results}, f)
    if args.against:
        with open(args.against) as f:
            before = json.load(f)
        if before["start"] != args.start:
            raise SystemExit("--against must hold the same deals: its --start differs")
        pairs = list(zip(results, before["results"], strict=False))
        m, half = mean_and_half_width([(x - y) / 2 for x, y in pairs])
        differ = sum(1 for x, y in pairs if x != y)
        print(
            f"  against {args.against}: {m:+.4f} points a hand (95% CI ±{half:.4f}) "
            f"over {len(pairs)} deals, {differ} played differently"
        )


if __name__ == "__main__":
    main()
