"""Bots see what a player sees: scramble every secret a seat can't see and its move stays.

The secrets: the other hands (each keeping its size), the kitty's face-down cards, and the
buried card unless the seat dealt. Each level gets a fresh `random.Random(k)` both times.
"""

from __future__ import annotations

import random

import pytest
from euchre_kit import TOGGLE_KEYS, bot_table, seed_of
from msgspec.structs import replace

from domain import apply, deciding, view
from domain.bots import LEVELS, choose
from domain.cards import cards_of
from domain.state import State


def scrambled(s: State, seat: int, rng: random.Random) -> State:
    others = [n for n in range(4) if n != seat]
    hidden_buried = s.buried is not None and seat != s.dealer
    pool = [c for n in others for c in cards_of(s.hands[n])] + list(s.kitty)
    if hidden_buried:
        pool.append(s.buried)
    rng.shuffle(pool)
    hands = list(s.hands)
    at = 0
    for n in others:
        size = s.hands[n].bit_count()
        hands[n] = sum(1 << c for c in pool[at : at + size])
        at += size
    kitty = tuple(pool[at : at + len(s.kitty)])
    at += len(s.kitty)
    buried = pool[at] if hidden_buried else s.buried
    return replace(s, hands=tuple(hands), kitty=kitty, buried=buried)


def states(n_games: int):
    """Every decision point of some random games, under random house rules."""
    for g in range(n_games):
        rng = random.Random(g)
        settings = {k: rng.choice(("on", "off")) for k in TOGGLE_KEYS}
        settings["farmers"] = "on"
        state, _ = bot_table(seed_of(("secrets", g)), settings)
        while state.status == "playing":
            d = deciding(state)[0]
            yield state, d.seat
            level = LEVELS[(d.seat + g) % 4]
            state, _ = apply(state, choose(view(state, d.seat), level, random.Random(0)))


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_decides_the_same_whatever_it_cannot_see(level):
    rng = random.Random(level)
    checked = 0
    for k, (state, seat) in enumerate(states(3)):
        if k % 3:
            continue
        mine = view(state, seat)
        expected = choose(mine, level, random.Random(k))
        for _ in range(2):
            other = scrambled(state, seat, rng)
            theirs = view(other, seat)
            assert theirs == mine
            assert choose(theirs, level, random.Random(k)) == expected
        checked += 1
    assert checked > 100
