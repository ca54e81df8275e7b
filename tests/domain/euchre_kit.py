"""Building Euchre tables for the domain tests: crafted deals, scripted hands, random games.

Named `euchre_kit` (not `helpers`) so it can't be shadowed by another test folder's module.
Scenarios are made the way the engine makes them: by folding events, or by applying commands;
only the scoring table reaches into a state with `msgspec.structs.replace`, to start a hand's
last trick with the tricks before it already taken.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable

import msgspec
from msgspec.structs import replace

from domain import apply, decide, deciding, fold, legal
from domain import commands as cmd
from domain import events as ev
from domain.cards import CODES, INDEX, SUITS, cards_of
from domain.house_rules import HouseRules
from domain.shuffle import seed_hash
from domain.state import State, Trick, partner, team

SEED = "5eed" * 16
TOGGLE_KEYS = ("stick_dealer", "alone", "defend_alone", "farmers", "canadian")
ALL_ON = dict.fromkeys(TOGGLE_KEYS, "on")


def seed_of(label: object) -> str:
    """A valid table seed (64 lowercase hex digits) named by anything."""
    return hashlib.sha256(str(label).encode()).hexdigest()


def cards(text: str) -> list[str]:
    """'JS 9S' -> ['JS', '9S']."""
    out = text.split()
    for c in out:
        assert c in INDEX, c
    return out


def mask(text: str) -> int:
    m = 0
    for c in cards(text):
        m |= 1 << INDEX[c]
    return m


def held(mask_: int) -> set[str]:
    return {CODES[c] for c in cards_of(mask_)}


def suit_no(code: str) -> int:
    return SUITS.index(code)


# A deal where nobody holds a farmer's hand and spades are turned up.
PLAIN_DEAL = (
    ["9S TS QS KS AS", "9H TH QH KH AH", "9D TD QD KD AD", "9C TC QC KC AC"],
    "JS",
    "JH JD JC",
)


def opening(settings: dict | None = None, humans: bool = False, seed: str = SEED) -> list[ev.Event]:
    """A table opened and filled: four bots, or four people with p0 the host."""
    s = HouseRules(**(settings or {}))
    host = "p0" if humans else "host"
    out: list[ev.Event] = [
        ev.TableOpened(
            code="TEST", host=host, settings=s, bots="medium", seed=seed, seed_hash=seed_hash(seed)
        )
    ]
    for n in range(4):
        if humans:
            out.append(ev.SeatTaken(seat=n, player=f"p{n}", name=f"P{n}"))
        else:
            out.append(ev.BotSeated(seat=n, level="medium"))
    return out


def crafted(
    hands: list[str],
    up: str,
    kitty: str,
    dealer: int = 0,
    settings: dict | None = None,
    humans: bool = False,
    seed: str = SEED,
) -> State:
    """A started table whose first deal is exactly this one (hands by seat)."""
    return fold(crafted_events(hands, up, kitty, dealer, settings, humans, seed))


def crafted_events(
    hands: list[str],
    up: str,
    kitty: str,
    dealer: int = 0,
    settings: dict | None = None,
    humans: bool = False,
    seed: str = SEED,
) -> list[ev.Event]:
    split = [cards(h) for h in hands]
    assert all(len(h) == 5 for h in split)
    everything = [c for h in split for c in h] + [up, *cards(kitty)]
    assert sorted(everything) == sorted(CODES), "a deal uses each of the 24 cards once"
    return [
        *opening(settings, humans, seed),
        ev.GameStarted(first_dealer=dealer),
        ev.HandDealt(deal_no=1, dealer=dealer, hands=split, up=up, kitty=cards(kitty)),
    ]


def plain(dealer: int = 0, settings: dict | None = None, humans: bool = False) -> State:
    hands, up, kitty = PLAIN_DEAL
    return crafted(hands, up, kitty, dealer=dealer, settings=settings, humans=humans)


def run(state: State, *commands: cmd.Command) -> tuple[State, list[ev.Event]]:
    """Apply commands in order; the new state and every event they made."""
    out: list[ev.Event] = []
    for c in commands:
        state, events = apply(state, c)
        out.extend(events)
    return state, out


def passes(state: State, n: int) -> State:
    """n seats pass in turn."""
    for _ in range(n):
        state, _ = apply(state, cmd.Pass(seat=state.turn))
    return state


def refused(state: State, command: cmd.Command, kind: type[Exception]) -> Exception:
    """Assert `command` is refused with `kind` and that the state is untouched."""
    before = msgspec.json.encode(state)
    try:
        decide(state, command)
    except kind as e:
        assert msgspec.json.encode(state) == before
        return e
    raise AssertionError(f"{command} was accepted")


def events_of(kind: type, events: Iterable[ev.Event]) -> list:
    return [e for e in events if isinstance(e, kind)]


def last_trick(
    maker: int,
    makers_tricks: int,
    makers_win_last: bool,
    alone: bool = False,
    defender: int | None = None,
    score: tuple[int, int] = (0, 0),
    humans: bool = False,
) -> State:
    """Hearts trump, four tricks taken, the fifth about to be led by whoever will win it.

    The makers hold `makers_tricks` tricks after the fifth. The winner leads the right bower;
    everyone else holds one spade.
    """
    before = makers_tricks - (1 if makers_win_last else 0)
    assert 0 <= before <= 4
    makers = team(maker)
    sitting: list[int] = []
    if alone:
        sitting.append(partner(maker))
    if defender is not None:
        assert team(defender) != makers
        sitting.append(partner(defender))
    playing = [n for n in range(4) if n not in sitting]
    lead = maker if makers_win_last else defender if defender is not None else (maker + 1) % 4
    hands = [0, 0, 0, 0]
    hands[lead] = mask("JH")
    spares = iter(cards("9S TS QS"))
    for n in playing:
        if n != lead:
            hands[n] = mask(next(spares))
    taken = [0, 0]
    taken[makers] = before
    taken[1 - makers] = 4 - before
    stubs = []
    for k in range(4):
        side = makers if k < before else 1 - makers
        won_by = maker if side == makers else (defender if defender is not None else 1 - makers)
        stubs.append(Trick(leader=won_by, cards=(), winner=won_by))
    base = plain(settings=ALL_ON, humans=humans)
    dealt = replace(
        base.deal,
        kitty_state="down",
        trump=SUITS.index("H"),
        maker=maker,
        alone=maker if alone else None,
        defender=defender,
        sitting=tuple(sitting),
        hands=tuple(hands),
        trick=(),
        leader=lead,
        tricks=tuple(stubs),
        taken=tuple(taken),
    )
    return replace(base, phase="play", turn=lead, score=score, deal=dealt)


def finish(state: State) -> tuple[State, list[ev.Event]]:
    """Play out the current hand with the first legal card each time."""
    out: list[ev.Event] = []
    while state.phase == "play":
        d = deciding(state)[0]
        state, events = apply(state, legal(state, d.seat)[0])
        out.extend(events)
    return state, out


# Whole games -------------------------------------------------------------------------------

Chooser = Callable[[State, random.Random], cmd.Command]


def bot_table(seed: str, settings: dict | None = None) -> tuple[State, list[ev.Event]]:
    """What `new_game` does, keeping the events: four bots, the first hand dealt."""
    state = State()
    opened = decide(
        state, cmd.OpenTable(code="GAME", host="host", name="Host", seed=seed, settings=settings)
    )
    state = fold(opened)
    state, left = apply(state, cmd.LeaveSeat(player="host", seat=0))
    state, started = apply(state, cmd.StartGame(player="host"))
    return state, [*opened, *left, *started]


def human_table(seed: str, settings: dict | None = None) -> tuple[State, list[ev.Event]]:
    """Four people (p0 the host in seat 0), started: hands wait for everyone to be ready."""
    state = State()
    state, events = run(
        state,
        cmd.OpenTable(code="HUMANS", host="p0", name="P0", seed=seed, settings=settings),
        cmd.TakeSeat(player="p1", name="P1", seat=1),
        cmd.TakeSeat(player="p2", name="P2", seat=2),
        cmd.TakeSeat(player="p3", name="P3", seat=3),
        cmd.StartGame(player="p0"),
    )
    return state, events


def random_chooser(pass_bias: float = 0.5, deal_now: float = 0.2) -> Chooser:
    """A random legal move for a random deciding seat; passes bids with extra weight."""

    def choose(state: State, rng: random.Random) -> cmd.Command:
        decisions = deciding(state)
        d = decisions[rng.randrange(len(decisions))]
        options = legal(state, d.seat)
        if state.phase == "scored":
            host = state.host_seat()
            if host is not None and rng.random() < deal_now:
                return cmd.DealNow(seat=host)
            return options[0]
        if state.phase in ("bid1", "bid2") and rng.random() < pass_bias:
            for o in options:
                if isinstance(o, cmd.Pass):
                    return o
        return options[rng.randrange(len(options))]

    return choose


def random_settings(rng: random.Random) -> dict:
    return {k: rng.choice(("on", "off")) for k in TOGGLE_KEYS}


def play_game(
    state: State,
    choose: Chooser,
    rng: random.Random,
    each: Callable[[State, cmd.Command, list[ev.Event], State], None] | None = None,
    limit: int = 5000,
) -> tuple[State, list[tuple[cmd.Command, list[ev.Event]]]]:
    """Play until the game is over; `each(before, command, events, after)` sees every step."""
    steps: list[tuple[cmd.Command, list[ev.Event]]] = []
    while state.status == "playing":
        command = choose(state, rng)
        after, events = apply(state, command)
        if each is not None:
            each(state, command, events, after)
        steps.append((command, events))
        state = after
        assert len(steps) < limit, "a game that never ends"
    return state, steps
