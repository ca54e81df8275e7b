"""Whose turn it is, the fallback move, and what each seat sees."""

from __future__ import annotations

import random

import msgspec
import pytest
from euchre_kit import (
    ALL_ON,
    SEED,
    bot_table,
    crafted,
    human_table,
    passes,
    plain,
    play_game,
    random_chooser,
    run,
    seed_of,
)

from domain import Decision, State, decide, deciding, fallback, legal, new_game, view
from domain import commands as cmd

# In the order a view is sent: what everyone at the table sees, then the seat's own.
VIEW_FIELDS = [
    "code",
    "seq",
    "status",
    "host",
    "seats",
    "settings",
    "score",
    "hand_no",
    "deal_no",
    "phase",
    "dealer",
    "turn",
    "up",
    "kitty_state",
    "trump",
    "maker",
    "alone",
    "defender",
    "sitting",
    "bids",
    "counts",
    "trick",
    "leader",
    "tricks",
    "taken",
    "outcome",
    "hands",
    "winner",
    "seed_hash",
    "seed",
    "you",
    "hand",
    "buried",
    "can",
]


# Whose turn --------------------------------------------------------------------------------


def test_one_seat_decides_each_step_with_its_kind():
    """§ Whose turn: deciding names the seat, the kind of decision and its key."""
    state = plain(settings={"defend_alone": "on"})
    assert deciding(state) == [Decision(seat=1, kind="bid", key="1.0.1")]
    state, _ = run(state, cmd.Order(seat=1, alone=True))
    assert deciding(state) == [Decision(seat=0, kind="discard", key="1.1.0")]
    state, _ = run(state, cmd.Discard(seat=0, card="9S"))
    assert deciding(state) == [Decision(seat=2, kind="defend", key="1.2.2")]
    state, _ = run(state, cmd.Defend(seat=2, alone=False), cmd.Defend(seat=0, alone=False))
    assert deciding(state) == [Decision(seat=1, kind="play", key="1.4.1")]


def test_nobody_decides_before_the_start_or_after_the_end():
    """§ Whose turn: a waiting or finished table has no decisions."""
    assert deciding(State()) == []
    state, _ = run(State(), cmd.OpenTable(code="T", host="a", name="A", seed=SEED))
    assert deciding(state) == []


def test_every_decision_in_a_game_has_a_fresh_key():
    """§ Whose turn: each decision's key changes as soon as it is made and never comes back."""
    for n in range(10):
        state, _ = bot_table(seed_of(("keys", n)), ALL_ON)
        keys: list[str] = []

        def note(before, command, events, after, keys=keys):
            (d,) = deciding(before)
            keys.append(d.key)
            assert all(d.key != e.key for e in deciding(after))

        play_game(state, random_chooser(), random.Random(n), each=note)
        assert len(keys) == len(set(keys))


def test_a_decisions_key_survives_other_seats_noise():
    """§ Whose turn: a player leaving elsewhere doesn't restart the decision being made."""
    state, _ = human_table(seed_of("noise"))
    before = deciding(state)
    other = next(n for n in range(4) if n != before[0].seat)
    state, _ = run(state, cmd.LeaveSeat(player=f"p{other}", seat=other))
    assert deciding(state) == before


def test_between_hands_every_seat_not_yet_ready_decides():
    """§ Whose turn: kind ready, one decision per seat still to say so."""
    state, _ = human_table(seed_of("between"))
    while state.phase != "scored":
        state, _ = run(state, fallback(state, deciding(state)[0].seat))
    deal = state.deal_no
    assert deciding(state) == [
        Decision(seat=n, kind="ready", key=f"{deal}.ready.{n}") for n in range(4)
    ]
    state, _ = run(state, cmd.Ready(seat=2))
    assert [d.seat for d in deciding(state)] == [0, 1, 3]


# Fallback ----------------------------------------------------------------------------------


def test_fallback_passes_a_bid():
    """§ Fallback: pass, in either round."""
    state = plain()
    assert fallback(state, 1) == cmd.Pass(seat=1)
    state = passes(state, 4)
    assert fallback(state, 1) == cmd.Pass(seat=1)


def test_fallback_for_a_stuck_dealer_calls_the_first_other_suit():
    """§ Fallback: if stuck, the first suit (S H D C) that wasn't turned down."""
    state = passes(plain(), 7)
    assert fallback(state, 0) == cmd.Call(seat=0, suit="H", alone=False)
    hands = ["9S TS QS KS AS", "9H TH QH KH AH", "9D TD QD KD AD", "9C TC QC KC AC"]
    state = passes(crafted(hands, up="JH", kitty="JS JD JC"), 7)
    assert fallback(state, 0) == cmd.Call(seat=0, suit="S", alone=False)
    decide(state, fallback(state, 0))


def test_fallback_keeps_a_farmers_hand_and_declines_to_defend_alone():
    """§ Fallback: keep a farmer's hand; don't defend alone."""
    hands = ["JD KD AD 9C TC", "JS QS KS AS TD", "9S TS 9H TH 9D", "JH QH KH AH QD"]
    state = crafted(hands, up="JC", kitty="QC KC AC", settings={"farmers": "on"})
    assert fallback(state, 2) == cmd.Farmer(seat=2, cards=[])
    state, _ = run(
        plain(settings={"defend_alone": "on"}),
        cmd.Order(seat=1, alone=True),
        cmd.Discard(seat=0, card="AS"),
    )
    assert fallback(state, 2) == cmd.Defend(seat=2, alone=False)


def test_fallback_discards_and_plays_the_first_card_allowed():
    """§ Fallback: discard the first card; play the first legal card."""
    state, _ = run(plain(), cmd.Order(seat=1))
    assert fallback(state, 0) == cmd.Discard(seat=0, card="9S")
    state, _ = run(state, cmd.Discard(seat=0, card="AS"))
    assert fallback(state, 1) == cmd.Play(seat=1, card="9H")
    state, _ = run(state, cmd.Play(seat=1, card="KH"))
    assert fallback(state, 2) == cmd.Play(seat=2, card="9D")  # void in hearts: anything


def test_fallback_for_the_canadian_dealers_partner_is_a_pass():
    """§ Fallback: under the Canadian loner the partner's pass is still allowed."""
    state = passes(plain(settings={"canadian": "on"}), 1)
    assert fallback(state, 2) in legal(state, 2)


def test_fallback_has_nothing_to_offer_when_nothing_is_decided():
    """§ Fallback: no decision, no fallback."""
    state, _ = run(State(), cmd.OpenTable(code="T", host="a", name="A", seed=SEED))
    with pytest.raises(ValueError):
        fallback(state, 0)


# What each seat sees -----------------------------------------------------------------------


def test_the_view_has_the_documented_fields():
    """§ What each seat sees: every field docs/api.md lists (extensions are allowed)."""
    seen = msgspec.to_builtins(view(new_game(SEED), 0))
    assert [f for f in seen if f in VIEW_FIELDS] == VIEW_FIELDS


def test_each_seat_sees_its_own_hand_only():
    """§ What each seat sees: hand is yours; others are counts; a spectator holds nothing."""
    state = plain()
    assert view(state, 1).hand == ["AH", "KH", "QH", "TH", "9H"]
    assert view(state, 2).hand == ["AD", "KD", "QD", "TD", "9D"]
    assert view(state, None).hand == [] and view(state, None).you is None
    assert view(state, 3).you == 3
    for seat in (None, 0, 1, 2, 3):
        seen = view(state, seat)
        assert seen.counts == [5, 5, 5, 5] and seen.up == "JS" and seen.kitty_state == "up"
        text = msgspec.json.encode(seen).decode()
        others = [c for n in range(4) if n != seat for c in view(state, n).hand]
        assert not any(f'"{c}"' in text for c in [*others, "JH", "JD", "JC"])


def test_only_the_dealer_sees_the_buried_card():
    """§ What each seat sees: buried is the dealer's own discard, for the dealer only."""
    state, _ = run(plain(), cmd.Order(seat=1), cmd.Discard(seat=0, card="KS"))
    assert view(state, 0).buried == "KS"
    for seat in (None, 1, 2, 3):
        assert view(state, seat).buried is None
        assert '"KS"' not in msgspec.json.encode(view(state, seat)).decode()


def test_the_seed_is_hidden_until_the_game_is_over():
    """§ What each seat sees: seed is null while playing; after the end it matches seed_hash."""
    state, _ = bot_table(SEED)
    rng = random.Random(1)
    while state.status == "playing":
        for seat in (None, 0, 1, 2, 3):
            assert view(state, seat).seed is None
        state, _ = run(state, random_chooser()(state, rng))
    for seat in (None, 0, 1, 2, 3):
        assert view(state, seat).seed == SEED


def test_nothing_is_yours_to_do_out_of_turn():
    """§ What each seat sees: can is {} when nothing is yours to decide."""
    state = plain()
    assert view(state, 1).can == {
        "order": {"alone": True, "must_alone": False},
        "pass": {},
    }
    for seat in (None, 0, 2, 3):
        assert view(state, seat).can == {}
    for seat in (0, 2, 3):
        assert legal(state, seat) == []


def test_the_hand_is_sorted_trump_first_once_trump_is_named():
    """§ What each seat sees: trump first (bowers on top), then the other suits, high first."""
    hands = ["9C QS TS AD KD", "KS AS 9D TD QD", "JS 9S AH KH QH", "JC AC KC QC TC"]
    state = passes(crafted(hands, up="9H", kitty="TH JH JD"), 6)
    state, _ = run(state, cmd.Call(seat=3, suit="C"))
    assert view(state, 2).hand == ["JS", "9S", "AH", "KH", "QH"]
    assert view(state, 0).hand == ["9C", "QS", "TS", "AD", "KD"]
