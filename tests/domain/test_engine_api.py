"""§ Driving the engine: the public names outside engines and auditors use, from `domain` only."""

from __future__ import annotations

import random

import pytest

import domain
from domain import (
    AnyEvent,
    Deal,
    IllegalMove,
    Refused,
    State,
    apply,
    deciding,
    fold,
    legal,
    new_game,
    opening,
    view,
)
from domain import commands as cmd
from domain import events as ev

SEED = "0f" * 32
HANDS = [
    ["9S", "TS", "JS", "QS", "KS"],
    ["AS", "9H", "TH", "JH", "QH"],
    ["KH", "AH", "9D", "TD", "JD"],
    ["QD", "KD", "AD", "9C", "TC"],
]
DEAL = Deal(dealer=3, hands=HANDS, up="JC", kitty=["QC", "KC", "AC"])

PUBLIC = [
    "new_game",
    "opening",
    "apply",
    "legal",
    "deciding",
    "view",
    "fold",
    "decide",
    "evolve",
    "fallback",
    "can",
    "State",
    "View",
    "Command",
    "Move",
    "Event",
    "AnyEvent",
    "Decision",
    "Refused",
    "IllegalMove",
    "NotYourTurn",
    "NotAllowed",
    "Conflict",
    "Deal",
]


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_is_importable_from_domain(name: str) -> None:
    assert name in domain.__all__
    assert getattr(domain, name) is not None


def test_a_game_plays_to_ten_through_the_public_names() -> None:
    rng = random.Random(9)
    state = new_game(seed=SEED, settings={"defend_alone": "on", "farmers": "on"})
    log = opening(SEED, {"defend_alone": "on", "farmers": "on"})
    while state.status == "playing":
        turn = deciding(state)[0]
        state, events = apply(state, rng.choice(legal(state, turn.seat)))
        log.extend(events)
    assert max(state.score) >= 10 and state.winner is not None
    assert fold(log) == state


def test_a_hand_starts_from_the_deal_given() -> None:
    state = new_game(seed=SEED, deal=DEAL)
    assert state.deal.dealer == 3 and state.deal_no == 1 and state.phase == "bid1"
    assert deciding(state)[0].seat == 0  # left of the dealer bids first
    for seat, hand in enumerate(HANDS):
        assert sorted(view(state, seat).hand) == sorted(hand)
    assert view(state, None).up == "JC"
    dealt = opening(SEED, deal=DEAL)[-1]
    assert isinstance(dealt, ev.HandDealt)
    assert (dealt.hands, dealt.up, dealt.kitty) == (HANDS, "JC", ["QC", "KC", "AC"])
    assert fold(opening(SEED, deal=DEAL)) == state


def test_the_hand_after_a_given_deal_comes_from_the_seed_with_the_deal_passed_left() -> None:
    state = new_game(seed=SEED, deal=DEAL)
    while state.deal_no == 1:
        turn = deciding(state)[0]
        state, _ = apply(state, legal(state, turn.seat)[0])
    assert state.deal_no == 2 and state.deal.dealer == 0
    assert state.deal.hands != new_game(seed=SEED, deal=DEAL).deal.hands


def test_the_given_deal_plays_like_any_other() -> None:
    state = new_game(seed=SEED, deal=DEAL, settings={"stick_dealer": "on"})
    state, events = apply(state, cmd.Order(seat=0))
    assert isinstance(events[0], ev.TrumpOrdered) and events[0].suit == "C"
    assert state.phase == "discard" and "JC" in view(state, 3).hand


@pytest.mark.parametrize(
    "bad",
    [
        Deal(dealer=4, hands=HANDS, up="JC", kitty=["QC", "KC", "AC"]),
        Deal(dealer=0, hands=HANDS[:3], up="JC", kitty=["QC", "KC", "AC"]),
        Deal(dealer=0, hands=HANDS, up="JC", kitty=["QC", "KC", "JC"]),
        Deal(dealer=0, hands=HANDS, up="JC", kitty=["QC", "KC"]),
    ],
)
def test_a_deal_that_is_not_the_24_cards_once_is_refused(bad: Deal) -> None:
    with pytest.raises(IllegalMove):
        new_game(seed=SEED, deal=bad)
    assert issubclass(IllegalMove, Refused)


def test_every_event_in_the_log_union_changes_the_table() -> None:
    """One handler per event type: a new event without one fails here, not mid-game."""
    from domain.evolve import HANDLERS

    assert set(HANDLERS) == set(AnyEvent.__args__)
    assert State().seq == 0
