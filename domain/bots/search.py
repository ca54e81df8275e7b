"""Hard's card play by search: deal the unseen cards out many ways, play each deal out
perfectly with every hand open (solver.py), and play the card that scores best on average.

What is scored is the hand's points for this seat's team (made 1, march 2 or 4 alone,
euchred -2 or -4 against a lone defender), counted only up to what either side needs to win
the game, not tricks: a trick that neither makes, marches nor euchres is worth nothing. The
search only overrules the rule-based card (play.py) when another card does better on
average by a clear margin, so where the deals can't tell the cards apart the rules decide.

Measured by playing the same 3,000 deals both ways against medium (points a hand, 95%
intervals): searching with two or three cards left gains +0.05 a hand (+-0.015), which is
most of what hard gains over the rules-only version in games. Searching earlier as well
measured no better (+0.002 +-0.014 with four cards, -0.017 +-0.018 with five as well) at
many times the cost: open-handed play says least early on, so the first two tricks keep
the rules. 24 deals are enough (12 measured -0.009 +-0.009 against it, 48 +0.004
+-0.008), and weighting the deals by how well they fit the bidding measured no gain
(-0.001 +-0.006), so the deals are uniform over what the seat has seen.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import NamedTuple

from domain.bots.known import Known
from domain.bots.memory import Memory
from domain.bots.sampling import Unseen
from domain.bots.solver import Solver, runs
from domain.cards import DECK
from domain.scoring import worth


class Plan(NamedTuple):
    samples: tuple[int, int, int, int, int, int]  # deals to solve, by cards in hand (0-5)
    margin: float  # how much better on average (points) a card must be to overrule the rules


HARD_PLAN = Plan(samples=(0, 0, 24, 24, 0, 0), margin=0.05)


def points_for(k: Known, maker_tricks: int) -> int:
    """What the hand is worth to this seat's team if the makers end with `maker_tricks`,
    capped at what either side needs to win the game."""
    return score_for(
        k.to_go,
        k.they_to_go,
        k.ours(k.maker),
        k.alone is not None,
        k.defender is not None,
        maker_tricks,
    )


def score_for(
    to_go: int, they_to_go: int, we_make: bool, alone: bool, defended: bool, maker_tricks: int
) -> int:
    """A hand's points to one team, `to_go` and `they_to_go` what each side needs to win before
    it: won points count only up to the game's end, where a made point one short of the target
    is worth as much as a march."""
    makers_score, points, _ = worth(maker_tricks, alone, defended)
    pts = points if makers_score == we_make else -points
    if pts > 0:
        return min(pts, max(1, to_go))
    return -min(-pts, max(1, they_to_go))


def decided(k: Known) -> bool:
    """Whether every way the hand can still go scores the same (made and no march left, say,
    or already euchred): then no card is better than another."""
    taken = k.taken[0] if k.ours(k.maker) else k.taken[1]
    left = k.hand.bit_count()
    return len({points_for(k, x) for x in range(taken, taken + left + 1)}) == 1


def values(
    k: Known,
    mem: Memory,
    cands: list[int],
    n: int,
    rng: random.Random,
    weigh: Callable[[list[int]], float] | None = None,
) -> dict[int, float]:
    """Each of the cards `cands` with its average points over `n` random deals; `weigh`, if
    given, says how likely each deal is (the expert weighs them by the bidding)."""
    me = k.me
    playing = [s for s in range(4) if s not in k.sitting]
    taken = k.taken[0] if k.ours(k.maker) else k.taken[1]
    left = k.hand.bit_count()
    need3, need5 = 3 - taken, 5 - taken
    score = {tricks: points_for(k, tricks) for tricks in (0, 3, 5)}
    trick = k.trick
    unseen = Unseen(k, mem)
    total = dict.fromkeys(cands, 0.0)
    solver = Solver([0, 0, 0, 0], k.trump, playing, k.makers)
    nxt = solver.nxt[me]
    weights = 0.0
    for _ in range(n):
        hands = unseen.hands(rng, k.hand)
        w = 1.0 if weigh is None else weigh(hands)
        if w <= 0.0:
            continue
        weights += w
        solver.deal(hands)
        for c in cands:
            after = (*trick, (me, c))
            if need3 <= 0 or (need3 <= left and solver.reach(after, nxt, need3)):
                won = 5 if need5 <= left and solver.reach(after, nxt, need5) else 3
            else:
                won = 0
            total[c] += w * score[won]
    return {c: v / weights if weights else 0.0 for c, v in total.items()}


def choose(
    k: Known,
    options: int,
    rule_card: int,
    rng: random.Random,
    plan: Plan,
    mem: Memory,
    weigh: Callable[[list[int]], float] | None = None,
) -> int:
    """The card to play: the rules' card unless search finds one clearly better."""
    n = plan.samples[k.hand.bit_count()]
    if n <= 0 or decided(k):
        return rule_card
    run = runs(options, _live(k), k.trump)
    cands = sorted(set(run.values()))
    if len(cands) < 2:
        return rule_card
    vals = values(k, mem, cands, n, rng, weigh)
    best = max(vals, key=vals.__getitem__)
    if vals[best] > vals[run[rule_card]] + plan.margin:
        return best
    return rule_card


def _live(k: Known) -> int:
    """Every card not yet in a finished trick."""
    gone = 0
    for _, cards, _ in k.tricks:
        for _, c in cards:
            gone |= 1 << c
    return DECK & ~gone
