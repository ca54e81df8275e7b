"""Every bot move is legal, at every level and under every combination of house rules."""

from __future__ import annotations

import itertools
import random

import pytest
from euchre_kit import TOGGLE_KEYS, bot_table, human_table, seed_of

from domain import apply, deciding, legal, view
from domain import commands as cmd
from domain.bots import LEVELS, choose
from domain.bots.hint import advise
from domain.bots.review import played_hands, review
from domain.cards import NO_TRUMP
from domain.state import State

COMBOS = [
    dict(zip(TOGGLE_KEYS, values, strict=True))
    for values in itertools.product(("on", "off"), repeat=len(TOGGLE_KEYS))
]


def play_checked(state: State, levels: tuple[str, ...], rng: random.Random, limit: int = 4000):
    """Play to the end with bots in every seat, checking each move against `legal`."""
    moves = 0
    while state.status == "playing":
        decisions = deciding(state)
        d = decisions[rng.randrange(len(decisions))]
        move = choose(view(state, d.seat), levels[d.seat], random.Random(moves))
        assert move in legal(state, d.seat), (state.phase, move)
        state, _ = apply(state, move)
        moves += 1
        assert moves < limit, "a game that never ends"
    return state, moves


@pytest.mark.parametrize("n", range(len(COMBOS)))
def test_every_bot_move_is_legal_under_every_house_rule_combination(n):
    settings = COMBOS[n]
    rng = random.Random(n)
    for k, rotation in enumerate(range(4)):
        levels = tuple(LEVELS[(rotation + s) % 4] for s in range(4))
        state, _ = bot_table(seed_of(("legal", n, k)), settings)
        state, moves = play_checked(state, levels, rng)
        assert state.status == "over" and moves > 0


@pytest.mark.parametrize("level", LEVELS)
def test_bots_say_ready_between_hands_and_never_deal(level):
    """At a table of people, a bot answering for a seat says "ready", even for the host."""
    state, _ = human_table(seed_of(("ready", level)), {"farmers": "on", "canadian": "on"})
    rng = random.Random(7)
    readies = 0
    while state.status == "playing" and readies < 40:
        decisions = deciding(state)
        d = decisions[rng.randrange(len(decisions))]
        move = choose(view(state, d.seat), level, random.Random(readies))
        assert move in legal(state, d.seat)
        assert move.__struct_config__.tag != "deal"
        if d.kind == "ready":
            assert move.__struct_config__.tag == "ready"
            readies += 1
        state, _ = apply(state, move)
    assert readies > 0


def test_bots_refuse_a_seat_with_nothing_to_decide():
    state, _ = bot_table(seed_of("idle"))
    idle = next(n for n in range(4) if n != deciding(state)[0].seat)
    with pytest.raises(ValueError):
        choose(view(state, idle), "medium", random.Random(0))
    with pytest.raises(ValueError):
        choose(view(state, deciding(state)[0].seat), "grandmaster", random.Random(0))


@pytest.mark.parametrize("level", LEVELS)
def test_bots_play_legally_in_hands_someone_called_no_trump(level):
    """House rule `no_trump` on: round one is always passed, and in round two seats 0 and 2
    call no trump (the bots themselves never do); bots of `level` make every other move, each
    legal, in and against those hands, to the end of the game; the hints and the reviews of
    those hands work too (the review judges no bids of a no-trump hand)."""
    state, log = bot_table(seed_of(("no trump", level)), {"no_trump": "on"})
    rng = random.Random(3)
    no_trump = moves = 0
    while state.status == "playing":
        d = deciding(state)[rng.randrange(len(deciding(state)))]
        options = legal(state, d.seat)
        if state.phase == "bid1":
            move: cmd.Command = cmd.Pass(seat=d.seat)
        elif state.phase == "bid2" and d.seat % 2 == 0:
            move = cmd.Call(seat=d.seat, suit="N", alone=moves % 3 == 0)
            no_trump += 1
        else:
            move = choose(view(state, d.seat), level, random.Random(moves))
            assert not (isinstance(move, cmd.Call) and move.suit == "N")
            if state.deal.trump == NO_TRUMP and moves % 5 == 0:
                advise(view(state, d.seat), random.Random(moves))  # the hint a person asks for
        assert move in options, (state.phase, move)
        state, events = apply(state, move)
        log += events
        moves += 1
        assert moves < 4000
    assert state.status == "over" and no_trump > 0
    reviewed = [review(hand) for hand in played_hands(log) if hand.trump == "N"]
    assert reviewed and all(r.cards and not r.bids for r in reviewed)
