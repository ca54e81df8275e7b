"""Write the golden games: whole seeded games, command by command and event by event.

    uv run python tests/domain/golden/make.py

Each file is JSON lines. The first is a header ({"game": ...}: name, seed, house rules and the
move rule used); then each command ({"command": ...}) is followed by the events it made
({"event": ...}), in msgspec JSON exactly as the event log stores them; the last line
({"final": ...}) is the score, winner and seq at the end. Everything is deterministic: fixed
seed labels, a fixed search for the first seed that shows what the game is meant to show, and
moves chosen by a random.Random seeded from the game's seed.

test_golden.py replays the commands through `decide` and demands exactly these events, so any
change in the rules' behaviour shows up as a diff here. Regenerate only for a deliberate change,
and read the diff.
"""

from __future__ import annotations

import hashlib
import random
import sys
from collections.abc import Callable
from itertools import count
from pathlib import Path

import msgspec

from domain import State, apply, deciding, fallback, fold, legal
from domain import commands as cmd
from domain import events as ev

HERE = Path(__file__).parent
ALL_ON = {k: "on" for k in ("stick_dealer", "alone", "defend_alone", "farmers", "canadian")}

Step = tuple[cmd.Command, list[ev.Event]]


def seed_for(name: str, n: int) -> str:
    return hashlib.sha256(f"golden/{name}/{n}".encode()).hexdigest()


def random_move(state: State, rng: random.Random, pass_bias: float) -> cmd.Command:
    """A random legal move; bids are passed with probability `pass_bias` first."""
    decisions = deciding(state)
    d = decisions[rng.randrange(len(decisions))]
    options = legal(state, d.seat)
    if state.phase in ("bid1", "bid2") and rng.random() < pass_bias:
        passes = [o for o in options if isinstance(o, cmd.Pass)]
        if passes:
            return passes[0]
    return options[rng.randrange(len(options))]


def bots(seed: str, settings: dict | None, choose: Callable[[State], cmd.Command]) -> list[Step]:
    """A table of four bots, opened and started the way `new_game` does it."""
    steps: list[Step] = []
    state = State()
    for c in (
        cmd.OpenTable(code="GOLDEN", host="host", name="Host", seed=seed, settings=settings),
        cmd.LeaveSeat(player="host", seat=0),
        cmd.StartGame(player="host"),
    ):
        state, events = apply(state, c)
        steps.append((c, events))
    return play(state, steps, choose)


def play(state: State, steps: list[Step], choose: Callable[[State], cmd.Command]) -> list[Step]:
    while state.status == "playing":
        c = choose(state)
        state, events = apply(state, c)
        steps.append((c, events))
    return steps


def people(seed: str) -> list[Step]:
    """Four people with the default rules: ready between hands, the host dealing now and then,
    and p3 leaving after the first hand (a bot covers) and coming back after the third."""
    rng = random.Random(seed)
    state = State()
    steps: list[Step] = []
    for c in (
        cmd.OpenTable(code="PEOPLE", host="p0", name="Ann", seed=seed),
        cmd.TakeSeat(player="p1", name="Bob", seat=1),
        cmd.TakeSeat(player="p2", name="Cat", seat=2),
        cmd.TakeSeat(player="p3", name="Dan", seat=3),
        cmd.StartGame(player="p0"),
    ):
        state, events = apply(state, c)
        steps.append((c, events))
    while state.status == "playing":
        scored = len(state.history)
        if state.phase == "scored" and scored == 1 and not state.seats[3].away:
            c: cmd.Command = cmd.LeaveSeat(player="p3", seat=3)
        elif state.phase == "bid1" and scored == 3 and state.seats[3].away:
            c = cmd.TakeSeat(player="p3", name="Dan", seat=3)
        elif state.phase == "scored" and len(state.history) % 3 == 2:
            c = cmd.DealNow(seat=0)
        else:
            c = random_move(state, rng, 0.5)
        state, events = apply(state, c)
        steps.append((c, events))
    return steps


def has(steps: list[Step], *wanted: Callable[[ev.Event], bool]) -> bool:
    events = [e for _, es in steps for e in es]
    return all(any(w(e) for e in events) for w in wanted)


def search(name: str, make: Callable[[str], list[Step]], *wanted) -> tuple[str, list[Step]]:
    """The first seed in golden/{name}/0, 1, ... whose game shows everything `wanted`."""
    for n in count():
        seed = seed_for(name, n)
        steps = make(seed)
        if has(steps, *wanted):
            return seed, steps
        if n > 5000:
            raise RuntimeError(f"no seed for {name}")
    raise AssertionError("unreachable")


def all_on(seed: str) -> list[Step]:
    rng = random.Random(seed)
    return bots(seed, ALL_ON, lambda s: random_move(s, rng, 0.6))


def throw_in(seed: str) -> list[Step]:
    rng = random.Random(seed)
    return bots(seed, {"stick_dealer": "off"}, lambda s: random_move(s, rng, 0.8))


def fallbacks(seed: str) -> list[Step]:
    return bots(seed, None, lambda s: fallback(s, deciding(s)[0].seat))


def games() -> dict[str, tuple[str, dict, str, list[Step]]]:
    """name -> (seed, settings, move rule, steps)."""
    out = {}
    seed, steps = search(
        "all_on",
        all_on,
        lambda e: isinstance(e, ev.FarmerSwapped | ev.FarmerKept),
        lambda e: isinstance(e, ev.DefenceChosen) and e.alone,
        lambda e: isinstance(e, ev.TrumpOrdered) and e.alone,
        lambda e: isinstance(e, ev.TrumpCalled) and e.alone,
    )
    out["all_on"] = (seed, ALL_ON, "random legal move, bids passed 60% first", steps)
    seed, steps = search("throw_in", throw_in, lambda e: isinstance(e, ev.HandThrownIn))
    out["throw_in"] = (
        seed,
        {"stick_dealer": "off"},
        "random legal move, bids passed 80% first",
        steps,
    )
    seed, steps = search(
        "people",
        people,
        lambda e: isinstance(e, ev.PlayerReady),
        lambda e: isinstance(e, ev.HandScored) and e.how == "euchre",
    )
    out["people"] = (seed, {}, "people: random legal move, bids passed 50% first", steps)
    seed = seed_for("fallback", 0)
    out["fallback"] = (seed, {}, "fallback() for every decision", fallbacks(seed))
    return out


def lines(name: str, seed: str, settings: dict, rule: str, steps: list[Step]) -> list[bytes]:
    enc = msgspec.json.encode
    out = [enc({"game": {"name": name, "seed": seed, "settings": settings, "moves": rule}})]
    state = State()
    for c, events in steps:
        out.append(enc({"command": c}))
        for e in events:
            out.append(enc({"event": e}))
        state = fold(events, state)
    out.append(
        enc({"final": {"score": list(state.score), "winner": state.winner, "seq": state.seq}})
    )
    return out


def main() -> None:
    for name, (seed, settings, rule, steps) in games().items():
        path = HERE / f"{name}.jsonl"
        path.write_bytes(b"\n".join(lines(name, seed, settings, rule, steps)) + b"\n")
        print(f"{path.name}: {len(steps)} commands, seed {seed[:12]}…", file=sys.stderr)


if __name__ == "__main__":
    main()
