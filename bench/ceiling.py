"""What seeing every card would be worth: an expert that cheats, against hard (or, with
`--against LEVEL`, another level).

Run: uv run python bench/ceiling.py [--games N] [--workers W], or with `--deals N [--start K]`
for the measurement below. It plays duplicate games (as `euchre tournament expert hard`) with
two experts no one could ever play against:

- "sees while bidding": each bid, alone or not, is the real deal solved open-handed for every
  option (the deals it would sample replaced by the one deal there is); the discard, the
  defence and the play are the real expert's;
- "sees everything": the same, and every discard, defence and card solved on the real deal.

With `--deals N` it measures instead where in the play seeing the cards pays, in points a hand
over N deals played both ways from 0-0 (bench/hands.py's deals, the first numbered K) against
the expert as it is: an expert that sees every card only when it plays a card with five or
four in hand (the first two tricks), or with three or two (the next two); bidding, discard and
defence stay honest. `--seeing partner` (or `opponents`) shows it only those hands then, the
rest dealt as its view allows, to tell whose cards the gap is made of. `--bids` measures
instead an expert that sees every card in one round's bids (round one, then round two), the
rest of its decisions honest.

They bound what any search over deals of the hidden cards can reach with open-handed values,
which is what the issue's floors for the expert (70% of games against hard, 80% against
medium) are measured against: docs/bots.md "Strength" quotes the figures. The cheating is done
here, by replacing the expert's dealers; domain/ never sees a State it shouldn't.
"""

from __future__ import annotations

import argparse
import copy
import random
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar

import hands

from domain import State
from domain.bots import LEVELS, expert, search
from domain.bots.known import Known
from domain.bots.memory import Memory
from domain.bots.sampling import Unseen
from services.bots import tournament

T = TypeVar("T")
_truth: list[State] = []  # the state the seat deciding now is looking at
_view = tournament.view


def _seen(state: State, seat: int | None) -> Any:
    _truth[:] = [state]
    return _view(state, seat)


def _the_deal(k: Known, rng: object) -> Iterator[tuple[list[int], float]]:
    yield list(_truth[0].deal.hands), 1.0


# Whose cards the cheat sees: the seats round from it, and how a result names them.
SEATS = {
    "everyone": ((1, 2, 3), "every card"),
    "partner": ((2,), "its partner's cards"),
    "opponents": ((1, 3), "its opponents' cards"),
}


def _seeing(offsets: tuple[int, ...]) -> type[Unseen]:
    """A stand-in for sampling.Unseen whose deals give the seats `offsets` round from the one
    deciding their real cards and deal the rest as the view allows: Unseen is handed a memory
    in which those seats are known to hold them."""

    class Seeing(Unseen):
        def __init__(self, k: Known, mem: Memory):
            mem = copy.copy(mem)
            mem.held = list(mem.held)
            for s in {(k.me + o) % 4 for o in offsets} - set(k.sitting):
                mem.held[s] = _truth[0].deal.hands[s]
            super().__init__(k, mem)

        def hands(self, rng: random.Random, my_hand: int) -> list[int]:
            if self.seats:
                return super().hands(rng, my_hand)
            hands = list(_truth[0].deal.hands)  # every hand seen: the real deal, rng untouched
            hands[self.me] = my_hand
            return hands

    return Seeing


# every bid solved, on the real deal, and taken on its word
_BIDDING_SEEN: dict[str, Any] = {"NEAR": 99.0, "BID_MARGIN": 0.0, "_deals": _the_deal}


def sees_while_bidding() -> None:
    for name, value in _BIDDING_SEEN.items():
        setattr(expert, name, value)


def _sees_in(decide: Callable[[Known, random.Random], T]) -> Callable[[Known, random.Random], T]:
    """`decide` (one round's bids) made seeing every card, the expert's other decisions left
    honest."""

    def seeing(k: Known, rng: random.Random) -> T:
        honest = {name: getattr(expert, name) for name in _BIDDING_SEEN}
        sees_while_bidding()
        try:
            return decide(k, rng)
        finally:
            for name, value in honest.items():
                setattr(expert, name, value)

    return seeing


def sees_everything() -> None:
    sees_while_bidding()
    expert._dealt = _the_deal  # type: ignore[assignment]
    sees_in_play({1, 2, 3, 4, 5}, SEATS["everyone"][0])
    expert.PLAY = search.Plan(samples=(0, 1, 1, 1, 1, 1), margin=0.0)


def sees_in_play(sizes: set[int], offsets: tuple[int, ...]) -> None:
    """Every card the expert plays with one of `sizes` cards in hand is solved on deals that
    give the seats `offsets` round from it their real cards (all three: the real deal); every
    other decision is the real expert's."""
    values, unseen = search.values, search.Unseen
    seeing = _seeing(offsets)

    def open_values(k, mem, cands, n, rng, weigh=None):  # type: ignore[no-untyped-def]
        if weigh is None or k.hand.bit_count() not in sizes:
            return values(k, mem, cands, n, rng, weigh)
        search.Unseen = seeing  # type: ignore[misc]
        try:  # with every hand seen, the one real deal is all there is to solve
            return values(k, mem, cands, 1 if len(offsets) == 3 else n, rng, weigh)
        finally:
            search.Unseen = unseen  # type: ignore[misc]

    search.values = open_values


@contextmanager
def _playing_seen(sizes: set[int], offsets: tuple[int, ...]) -> Iterator[None]:
    honest = search.values
    sees_in_play(sizes, offsets)
    try:
        yield
    finally:
        search.values = honest


@contextmanager
def _bidding_seen(decision: str) -> Iterator[None]:
    decide = getattr(expert, decision)
    setattr(expert, decision, _sees_in(decide))
    try:
        yield
    finally:
        setattr(expert, decision, decide)


def paired(
    against: str,
    deals: int,
    start: int,
    workers: int,
    cheats: list[tuple[str, AbstractContextManager[None]]],
) -> None:
    """Points a hand of each cheat (what it sees, and the switch that makes it see that),
    paired deal by deal with the expert as it is."""
    jobs = [("expert", against, n) for n in range(start, start + deals)]
    honest = hands.played(jobs, workers)
    for sees, cheat in cheats:
        with cheat:  # the processes are forked inside, so they cheat as well
            seeing = hands.played(jobs, workers)
        m, half = hands.mean_and_half_width(
            [(x - y) / 2 for x, y in zip(seeing, honest, strict=True)]
        )
        print(
            f"expert that sees {sees} vs {against}: {m:+.4f} points a hand (95% CI ±{half:.4f}) "
            f"over the expert as it is, {deals} deals played both ways"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", choices=LEVELS, default="hard", help="the other side's level")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--deals", type=int, help="measure seeing in play, in points a hand")
    parser.add_argument("--start", type=int, default=0, help="with --deals: the first deal")
    parser.add_argument(
        "--seeing", choices=SEATS, default="everyone", help="with --deals: whose cards it sees"
    )
    parser.add_argument(
        "--bids", action="store_true", help="with --deals: seeing in each round's bids instead"
    )
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    tournament.view = _seen  # type: ignore[assignment]
    if args.deals:
        if args.bids:
            cheats = [
                (f"every card while it bids in {name}", _bidding_seen(decision))
                for name, decision in (("round one", "round_one"), ("round two", "round_two"))
            ]
        else:
            offsets, cards = SEATS[args.seeing]
            cheats = [
                (f"{cards} when it plays in {name}", _playing_seen(sizes, offsets))
                for name, sizes in (
                    ("the first two tricks", {5, 4}),
                    ("the third and fourth tricks", {3, 2}),
                )
            ]
        paired(args.against, args.deals, args.start, args.workers, cheats)
        return
    for name, cheat in (
        ("sees while bidding", sees_while_bidding),
        ("sees everything", sees_everything),
    ):
        cheat()  # the games' processes are forked from here, so they cheat as well
        result = tournament.run(
            "expert", args.against, args.games, workers=args.workers, progress=False
        )
        lo, hi = result.interval()
        print(
            f"expert that {name} vs {args.against}: "
            f"{100 * result.share:.1f}% of {result.games} games "
            f"(95% CI {100 * lo:.1f}-{100 * hi:.1f}%), "
            f"points {result.points[0]}-{result.points[1]}, {result.seconds:.0f}s"
        )


if __name__ == "__main__":
    main()
