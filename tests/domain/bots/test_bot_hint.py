"""Hints (domain/hint.py, domain/bots/hint.py): a person alone with bots asks on their turn and
gets the expert's own move from their seat's view, with a reason in a player's words; anyone
else is refused, and nothing the seat can't see changes the advice."""

from __future__ import annotations

import random

import pytest
from bot_kit import scrambled
from euchre_kit import mask, refused, seed_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import apply, deciding, view
from domain import commands as cmd
from domain import events as ev
from domain.bots import choose
from domain.bots.hint import NUMBERS, advise, name
from domain.bots.strength import TRUMP_MASK
from domain.cards import INDEX, SUITS
from domain.errors import Conflict, NotAllowed, NotYourTurn
from domain.hint import HINTED
from domain.state import State
from domain.talk import current_since


def mine_trump(v) -> int | None:
    return None if v.trump is None else SUITS.index(v.trump)


def solo(seed: str, *people: str) -> State:
    """p0's table against expert bots, started; `people` take the seats after p0's first."""
    state, _ = apply(
        State(), cmd.OpenTable(code="SOLO", host="p0", name="P0", seed=seed, bots="expert")
    )
    for n, p in enumerate(people, start=1):
        state, _ = apply(state, cmd.TakeSeat(player=p, name=p.upper(), seat=n))
    state, _ = apply(state, cmd.StartGame(player="p0"))
    return state


def turns(state: State, decisions: int):
    """p0's next `decisions` hinted decisions, the other seats played by medium bots and p0 by
    the expert: (state, number) at each."""
    k = 0
    while state.status == "playing" and k < decisions:
        d = deciding(state)[0]
        if d.seat == 0 and d.kind in HINTED:
            yield state, k
            k += 1
        level = "expert" if d.seat == 0 else "medium"
        state, _ = apply(state, choose(view(state, d.seat), level, random.Random(k)))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32))
def test_the_hint_is_the_experts_own_move_from_the_seats_view_said_in_words(n):
    for state, k in turns(solo(seed_of(("hint", n))), 12):
        after, events = apply(state, cmd.AskHint(player="p0"))
        assert events == [ev.HintGiven(seat=0)]
        # Beside the game: the view the player decided on is still current for their move.
        assert current_since(after) <= state.seq < after.seq
        mine = view(after, 0)
        advice = advise(mine, random.Random(k))
        assert advice.move == choose(mine, "expert", random.Random(k))
        apply(after, advice.move)  # the rules take it
        words = advice.words
        assert words[0].isupper() and words.endswith(".") and len(words.split()) >= 4
        assert "seat" not in words and "None" not in words
        if advice.card is not None:  # the card is named as the player knows it
            assert name(INDEX[advice.card], mine_trump(mine)) in words
        if mine.phase == "bid1":  # the trumps counted are the hand's, the up card the dealer's
            held = TRUMP_MASK[INDEX[mine.up] // 6] & (
                mask(" ".join(mine.hand)) | (1 << INDEX[mine.up] if mine.dealer == 0 else 0)
            )
            assert f"{NUMBERS[held.bit_count()]} trump" in words
        # Nothing the seat can't see moves the advice.
        other = scrambled(after, 0, random.Random(k))
        assert advise(view(other, 0), random.Random(k)) == advice


def test_only_the_person_alone_with_bots_may_ask_on_their_own_turn():
    state = solo(seed_of("refusals"))
    refused(state, cmd.AskHint(player="kibitzer"), NotAllowed)
    while all(d.seat != 0 for d in deciding(state)):
        d = deciding(state)[0]
        refused(state, cmd.AskHint(player="p0"), NotYourTurn)
        state, _ = apply(state, choose(view(state, d.seat), "medium", random.Random(0)))
    apply(state, cmd.AskHint(player="p0"))
    # A table with another person at it: no hints for anyone.
    shared = solo(seed_of("refusals"), "p1")
    for p in ("p0", "p1"):
        error = refused(shared, cmd.AskHint(player=p), Conflict)
        assert "another person" in str(error)


def test_no_hint_before_the_game_or_while_away():
    state, _ = apply(
        State(), cmd.OpenTable(code="SOLO", host="p0", name="P0", seed=seed_of("w"), bots="easy")
    )
    refused(state, cmd.AskHint(player="p0"), Conflict)
    started, _ = apply(state, cmd.StartGame(player="p0"))
    away, _ = apply(started, cmd.MarkAway(seat=0, reason="gone"))
    refused(away, cmd.AskHint(player="p0"), Conflict)


@pytest.mark.parametrize(
    "card,trump,said",
    [
        ("JH", 1, "the right bower"),
        ("JD", 1, "the left bower"),
        ("AS", 1, "the ace of spades"),
        ("9C", None, "the nine of clubs"),
    ],
)
def test_cards_are_named_as_players_say_them(card, trump, said):
    assert name(INDEX[card], trump) == said
