"""Bots see what a player sees: scramble every secret a seat can't see and its move stays.

The secrets: the other hands (each keeping its size), the kitty's face-down cards, and the
buried card unless the seat dealt. Each level gets a fresh `random.Random(k)` both times.
"""

from __future__ import annotations

import random

import pytest
from bot_kit import scrambled
from euchre_kit import TOGGLE_KEYS, bot_table, seed_of

from domain import apply, deciding, view
from domain.bots import LEVELS, choose


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


def test_hard_searches_only_what_it_can_see():
    """Hard's search deals the unseen cards out at random: from its rng and its view alone.
    Late in a hand, where it searches, scrambling the hidden cards leaves its card alone."""
    rng = random.Random("search")
    checked = 0
    for g in range(12):
        state, _ = bot_table(seed_of(("search secrets", g)), {})
        while state.status == "playing" and checked < 60:
            seat = deciding(state)[0].seat
            mine = view(state, seat)
            searched = "play" in mine.can and 2 <= len(mine.hand) <= 3
            if searched and len(mine.can["play"]["cards"]) > 1:
                expected = choose(mine, "hard", random.Random(g))
                for _ in range(2):
                    theirs = view(scrambled(state, seat, rng), seat)
                    assert theirs == mine
                    assert choose(theirs, "hard", random.Random(g)) == expected
                checked += 1
            state, _ = apply(state, choose(mine, "hard", random.Random(checked)))
    assert checked == 60
