"""§ The log's codec: every event the rules write reads back as itself, and a log that doesn't
decode is an error, never a silent skip."""

from __future__ import annotations

import random

import msgspec
import pytest
from euchre_kit import human_table, play_game, random_chooser, random_settings, seed_of

from domain import events as ev
from domain.codec import to_event, to_record


def test_every_event_of_a_game_reads_back_as_itself() -> None:
    rng = random.Random(2026)
    state, opened = human_table(seed_of("codec"), random_settings(rng))
    _, steps = play_game(state, random_chooser(), rng)
    logged = [*opened, *(e for _, events in steps for e in events)]
    assert {type(e) for e in logged} >= {ev.TableOpened, ev.HandDealt, ev.CardPlayed, ev.GameWon}
    assert [to_event(*to_record(e)) for e in logged] == logged


def test_an_unknown_type_is_refused_by_name() -> None:
    with pytest.raises(msgspec.ValidationError, match="'CardShuffledBack'"):
        to_event("CardShuffledBack", {})


def test_data_that_does_not_fit_its_type_is_refused() -> None:
    kind, data = to_record(ev.SeatLeft(seat=2, player="p2"))
    with pytest.raises(msgspec.ValidationError, match="seat"):
        to_event(kind, {**data, "seat": "two"})
    with pytest.raises(msgspec.ValidationError, match="seat"):
        to_event(kind, {})
