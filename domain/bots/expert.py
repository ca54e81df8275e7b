"""The expert: every choice by search over deals of the cards it can't see.

It deals the hidden cards out many ways consistent with its view (sampling.py for play, the
18 unseen cards for bidding), weighs each deal by how likely the bids so far were with it
(inference.py), plays each deal out with every hand open (solver.py) for each option it has,
and takes the option worth the most points on average, the score in mind (a made point one
short of the target is a game). What it asks of a deal:

- bidding (both rounds, alone or not): ordering or calling is that contract solved, the dealer
  taking the up card and burying by the hard bot's rule; passing is the rest of the bidding
  played out by the hard bot's rules for every seat, then that contract solved (or nothing,
  when the deal is thrown in);
- the dealer's discard: each card buried, solved from the first lead;
- defending alone: with the partner out, or not;
- card play: every trick, as hard's search does (search.py), with more deals and weighed ones.

Where the deals can't tell the options apart by a clear margin, the hard bot's choice stands:
search noise should never overrule a rule that was measured. The farmer's swap stays the hard
bot's. Pure and seeded: the deals come from the view and the rng alone.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from typing import TypeVar

from domain.bots import bidding, inference, play, search
from domain.bots.discard import bury_for_void
from domain.bots.known import Known
from domain.bots.memory import Memory
from domain.bots.sampling import Unseen
from domain.bots.solver import Solver, runs
from domain.bots.strength import TRUMP_MASK, power, strength, sure_tricks
from domain.cards import DECK, FOLLOWS, SUIT_MASK, SUITS, SuitCode, cards_of, mask_of

PLAY = search.Plan(samples=(0, 0, 40, 40, 24, 16), margin=0.02)
# Hands solved from the first lead, at most, per decision: about 1.7 ms each on this machine's
# cores. Deals come a batch at a time and stop once every option is clearly above or clearly
# below the hard bot's choice by the margin, so most decisions solve far fewer (bench/bots.py).
SOLVES = 144
FEWEST = 16  # deals before a decision may stop early
BATCH = 8  # deals between looks at whether the options are told apart
SURE = 2.0  # standard errors that tell an option apart from the margin
TRIES = 4 * SOLVES  # deals drawn, unlikely ones included, before a decision settles for fewer
BID_MARGIN = 0.05  # points a hand: how much better than the hard bot's bid a bid must look
LONE_FLOOR = 2.5  # sure tricks below which going alone isn't worth solving
NEAR = 0.75  # tricks from the hard bot's bar within which a bid is worth solving
STYLE = inference.STYLE

World = tuple[list[int], float]  # four hands and the deal's weight
T = TypeVar("T")


def choose_card(k: Known, rng: random.Random) -> int:
    options = k.cards("play")
    if not options & (options - 1):
        return options.bit_length() - 1
    mem = Memory(k, full=True)
    rule = play.lead(k, mem, options, True) if not k.trick else play.follow(k, mem, options, True)
    options = _etiquette(k, mem, options)
    weigh = inference.weigher(k, mem.played)
    return search.choose(k, options, rule, rng, PLAY, mem, weigh)


def _etiquette(k: Known, mem: Memory, options: int) -> int:
    """A defender never leads a winner into a suit the loner has shown out of (docs/bots.md):
    open-handed play can't see why, since with every card known the ruff costs nothing."""
    loner = k.alone
    if k.trick or loner is None or k.ours(loner):
        return options
    t = k.trump
    kept = options
    for c in cards_of(options):
        if mem.void[loner] >> FOLLOWS[t][c] & 1 and mem.is_boss(c):
            kept &= ~(1 << c)
    return kept or options


def round_one(k: Known, rng: random.Random) -> tuple[bool, bool]:
    """(order, alone), as bidding.round_one answers."""
    offer = k.can["order"]
    rule = bidding.round_one(k, STYLE)
    options: list[tuple[bool, bool]] = [(False, False)]
    if not offer.get("must_alone"):
        options.append((True, False))
    if _lone_worth_asking(k, offer["alone"], k.turned, round_one=True):
        options.append((True, True))
    x, _ = bidding.order_strength(k, STYLE)
    near = abs(x - bidding.bar(k, STYLE, STYLE.order)) <= NEAR
    if len(options) < 2 or not (near or len(options) == 3):
        return rule

    def value(hands: list[int], option: tuple[bool, bool]) -> int:
        order, alone = option
        if not order:
            return after_pass(k, hands, 1)
        return contract(k, hands, k.turned, k.me, alone, 1)

    return _best(_deals(k, rng), options, value, rule)


def round_two(k: Known, rng: random.Random) -> tuple[SuitCode | None, bool]:
    """(suit or None to pass, alone), as bidding.round_two answers."""
    offer = k.can["call"]
    rule = bidding.round_two(k, STYLE)
    _, x, _ = bidding.call_strength(k, STYLE)
    suits = [SUITS.index(code) for code in offer["suits"]]
    # The two strongest suits are the only ones worth solving.
    suits.sort(key=lambda s: -strength(k.hand, s))
    options: list[tuple[SuitCode | None, bool]] = [] if "pass" not in k.can else [(None, False)]
    lone = False
    for s in suits[:2]:
        options.append((SUITS[s], False))
        if _lone_worth_asking(k, offer["alone"], s, round_one=False):
            options.append((SUITS[s], True))
            lone = True
    if rule not in options:
        options.append(rule)
    near = abs(x - bidding.bar(k, STYLE, STYLE.call)) <= NEAR or "pass" not in k.can
    if not (near or lone):
        return rule

    def value(hands: list[int], option: tuple[SuitCode | None, bool]) -> int:
        suit, alone = option
        if suit is None:
            return after_pass(k, hands, 2)
        return contract(k, hands, SUITS.index(suit), k.me, alone, 2)

    return _best(_deals(k, rng), options, value, rule)


def discard(k: Known, rng: random.Random) -> int:
    """The card the dealer buries: each one tried over deals of the other hands."""
    six = k.cards("discard")
    rule = bury_for_void(six, k.trump)
    run = runs(six, DECK, k.trump)
    # Worth solving: the weakest card of each suit besides trump (never a trump while an
    # off-suit card is left), and the rule's card.
    off = six & ~TRUMP_MASK[k.trump]
    cands = {run[rule]}
    for s in range(4):
        mine = off & SUIT_MASK[k.trump][s]
        if mine:
            cands.add(run[min(cards_of(mine), key=lambda c: power(c, k.trump))])
    if len(cands) < 2:
        return rule
    rule = run[rule]
    maker = k.maker
    assert maker is not None

    def value(hands: list[int], card: int) -> int:
        hands = list(hands)
        hands[k.me] = six & ~(1 << card)
        return _solved(k, hands, k.trump, maker, k.alone is not None, None)

    return _best(_dealt(k, rng), sorted(cands), value, rule)


def defend_alone(k: Known, rng: random.Random) -> bool:
    rule = bidding.defend_alone(k, "hard")
    maker = k.maker
    assert maker is not None

    def value(hands: list[int], alone: bool) -> int:
        return _solved(k, hands, k.trump, maker, True, k.me if alone else None)

    options = [False, True]
    return _best(_dealt(k, rng), options, value, rule)


# -- deals -----------------------------------------------------------------------------------


def _deals(k: Known, rng: random.Random) -> Iterator[World]:
    """Deals of the 18 cards a bidder can't see, five to each other seat (the rest lie in
    the kitty), weighed by the bids so far."""
    pool = cards_of(DECK & ~k.hand & ~(1 << k.up))
    weigh = inference.weigher(k, [0, 0, 0, 0])
    for _ in range(TRIES):
        rng.shuffle(pool)
        hands = [0, 0, 0, 0]
        at = 0
        for s in range(4):
            if s == k.me:
                hands[s] = k.hand
            else:
                hands[s] = mask_of(pool[at : at + 5])
                at += 5
        w = weigh(hands)
        if w > 0.0:
            yield hands, w


def _dealt(k: Known, rng: random.Random) -> Iterator[World]:
    """Deals of the hidden cards once trump is made (sampling.py), weighed by the bids."""
    mem = Memory(k, full=True)
    unseen = Unseen(k, mem)
    weigh = inference.weigher(k, mem.played)
    for _ in range(TRIES):
        hands = unseen.hands(rng, k.hand)
        w = weigh(hands)
        if w > 0.0:
            yield hands, w


# -- valuing ---------------------------------------------------------------------------------


def _best(
    worlds: Iterator[World], options: list[T], value: Callable[[list[int], T], int], rule: T
) -> T:
    """The option worth most on average over the weighed deals; the rule's own unless another
    beats it by the margin.

    Each option is judged by how much more than the rule's it earns deal by deal (the same
    deals for all, so the luck of a deal cancels). After every batch of deals, an option whose
    gain is clearly below the margin is dropped, and the search stops once every option left
    is clearly above it: a plain choice takes a few dozen solves and a close one the budget.
    """
    live = [o for o in options if o != rule]
    if not live:
        return rule
    gain = dict.fromkeys(live, 0.0)  # sum of w * (value - rule's value)
    square = dict.fromkeys(live, 0.0)  # sum of w * (value - rule's value) ** 2
    weights = squares = 0.0
    solves = 0
    for deals, (hands, w) in enumerate(worlds, 1):
        base = value(hands, rule)
        for o in live:
            d = value(hands, o) - base
            gain[o] += w * d
            square[o] += w * d * d
        weights += w
        squares += w * w
        solves += 1 + len(live)
        if solves >= SOLVES:
            break
        if deals >= FEWEST and deals % BATCH == 0:
            settled = True
            for o in list(live):
                mean = gain[o] / weights
                spread = max(0.0, square[o] / weights - mean * mean)
                error = SURE * math.sqrt(spread * squares) / weights  # n_eff = W^2 / sum w^2
                if mean + error < BID_MARGIN:
                    live.remove(o)
                elif mean - error <= BID_MARGIN:
                    settled = False
            if settled:
                break
    better = [o for o in live if gain[o] > BID_MARGIN * weights]
    return max(better, key=gain.__getitem__) if better else rule


def after_pass(k: Known, hands: list[int], rnd: int) -> int:
    """Points to us if we pass in round `rnd`: the other seats (and we, in round two) bid by
    the hard bot's rules, and whatever they make is solved."""
    s, r = k.me, rnd
    while True:
        if s == k.dealer:
            if r == 2:
                return 0  # thrown in
            r = 2
        s = (s + 1) % 4
        if r == 1:
            order, alone = bidding.round_one(
                inference.as_seat(k, s, hands[s], inference.offer(k, s, 1)), STYLE
            )
            if order:
                return contract(k, hands, k.turned, s, alone, 1)
        else:
            suit, alone = bidding.round_two(
                inference.as_seat(k, s, hands[s], inference.offer(k, s, 2)), STYLE
            )
            if suit is not None:
                return contract(k, hands, SUITS.index(suit), s, alone, 2)


def contract(k: Known, hands: list[int], trump: int, maker: int, alone: bool, rnd: int) -> int:
    """Points to us of `maker` making `trump` from these hands as dealt; ordered in round one,
    the dealer (unless sitting out) takes the up card and buries by the hard bot's rule."""
    if rnd == 1 and not (alone and maker == (k.dealer + 2) % 4):
        hands = list(hands)
        six = hands[k.dealer] | 1 << k.up
        hands[k.dealer] = six & ~(1 << bury_for_void(six, trump))
    return _solved(k, hands, trump, maker, alone, None)


def _solved(
    k: Known, hands: list[int], trump: int, maker: int, alone: bool, defender: int | None
) -> int:
    """Points to us when the hand is played out from the first lead with every card open."""
    sitting = set()
    if alone:
        sitting.add((maker + 2) % 4)
    if defender is not None:
        sitting.add((defender + 2) % 4)
    playing = [s for s in range(4) if s not in sitting]
    leader = (k.dealer + 1) % 4
    while leader in sitting:
        leader = (leader + 1) % 4
    solver = Solver(
        [0 if s in sitting else h for s, h in enumerate(hands)], trump, playing, maker % 2
    )
    tricks = 0
    if solver.reach((), leader, 3):
        tricks = 5 if solver.reach((), leader, 5) else 3
    return search.score_for(
        k.to_go, k.they_to_go, maker % 2 == k.me % 2, alone, defender is not None, tricks
    )


def _lone_worth_asking(k: Known, offered: bool, suit: int, round_one: bool) -> bool:
    """Going alone is solved only where the etiquette allows it and the hand is near it."""
    if not offered or k.to_go <= 2:
        return False
    if round_one:
        return bidding.order_strength(k, STYLE)[1] >= LONE_FLOOR
    return sure_tricks(k.hand, suit, 1 << k.up) >= LONE_FLOOR
