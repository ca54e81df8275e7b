"""`euchre replay`'s words (projections/narrative.py): the game hand by hand, and what the
people did along the way (lock, chat, away and back, a ban) in the order the log has it."""

from __future__ import annotations

import random

from rated_kit import finished_game

from domain import commands as cmd
from domain import deciding, legal
from domain.game import apply
from domain.state import State
from projections.narrative import narrate

SEED = "5e" * 32


def test_the_story_tells_the_hands_and_the_peoples_doings_in_order():
    state, events = State(), []

    def do(command: cmd.Command) -> None:
        nonlocal state
        state, new = apply(state, command)
        events.extend(new)

    do(cmd.OpenTable(code="TALE", host="ada", name="Ada", seed=SEED))
    do(cmd.TakeSeat(player="bo", name="Bo", seat=1))
    do(cmd.TakeSeat(player="cy", name="Cy", seat=2))
    do(cmd.LockTable(player="ada"))
    do(cmd.Say(player="bo", name="Bo", text="good luck"))
    do(cmd.StartGame(player="ada"))
    rng = random.Random(3)
    steps = 0
    while state.status == "playing":
        steps += 1
        if steps == 10:
            do(cmd.MarkAway(seat=1, reason="gone"))
        elif steps == 14:
            do(cmd.ComeBack(player="bo"))
        elif steps == 20:
            do(cmd.BanPlayer(player="ada", banned="cy"))
        else:
            d = rng.choice(deciding(state))
            do(rng.choice(legal(state, d.seat)))
    told = narrate(events)
    marks = [
        "(The host locks the table",
        "Bo says: good luck",
        "The game starts",
        "(Bo stopped answering",
        "(Bo is back.)",
        "(Cy is banned by the host",
        "win the game",
    ]
    places = [next(n for n, line in enumerate(told) if mark in line) for mark in marks]
    assert places == sorted(places)
    deals = [line for line in told if line.startswith("\nDeal ")]
    assert len(deals) == sum(type(e).__name__ == "HandDealt" for e in events)
    assert sum("Trick 1:" in line for line in told) == sum(
        type(e).__name__ == "HandScored" for e in events
    )


def test_a_no_trump_call_is_told_as_no_trump():
    """A game where someone called no trump (house rule `no_trump`): the story says so."""
    events = finished_game(
        "STORY", 9, [("ada", True), None, None, None], "hard", None, {"no_trump": "on"}
    )
    assert "calls no trump" in "\n".join(narrate(events))
