"""§ The log's codec: every event the rules write reads back as itself, and a log that doesn't
decode is an error, never a silent skip."""

from __future__ import annotations

import random

import msgspec
import pytest
from euchre_kit import human_table, play_game, random_chooser, random_settings, seed_of

from domain import events as ev
from domain import fold
from domain.chain import canonical
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


def test_a_table_opened_before_the_target_could_be_chosen_reads_as_a_game_to_ten() -> None:
    """§ Winning: a logged TableOpened whose house rules have no `points` decodes as a game to
    10, and its hash stays the one taken over the data as stored (nothing is filled in)."""
    rules = {"stick_dealer": "on", "alone": "on", "defend_alone": "off", "farmers": "off"}
    rules |= {"canadian": "off", "bot_pace": "brisk"}
    old = {"code": "OLD", "host": "h", "settings": rules, "bots": "medium"}
    old |= {"seed": "ab" * 32, "seed_hash": "cd" * 32}
    opened = to_event("TableOpened", old)
    assert isinstance(opened, ev.TableOpened) and opened.settings.points == 10
    assert fold([opened]).settings.points == 10
    assert "points" not in old["settings"]
    assert canonical("OLD", 1, "TableOpened", old) != canonical(
        "OLD", 1, "TableOpened", to_record(opened)[1]
    ), "re-encoding would add the default: the chain must hash what was stored"
