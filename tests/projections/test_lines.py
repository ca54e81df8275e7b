"""Reading an export strictly (projections/lines.py): an honest export reads as any JSON reader
reads it, but a key given twice, anywhere in a line, is refused by its line's number, where a
lenient reader would quietly keep one of the two; and check_line says which field of an event
line is wrong and what it may hold."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest
from log_kit import recorded
from rated_kit import finished_game

from projections.audit import export, ndjson
from projections.lines import LineError, check_line, parse_ndjson

PEOPLE = [("ada", True), ("gus", False), None, None]


@pytest.fixture(scope="module")
def text() -> bytes:
    """A whole game's export, as the file an auditor downloads."""
    game = finished_game("LINES", 5, PEOPLE, "medium")
    return ndjson(export("LINES", recorded("LINES", game)))


@pytest.fixture(scope="module")
def lines(text) -> list[dict[str, Any]]:
    return [msgspec.json.decode(line) for line in text.splitlines()]


def first(lines: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return copy.deepcopy(next(line for line in lines[1:] if line["type"] == kind))


def refused(text: bytes | str) -> LineError:
    with pytest.raises(LineError) as caught:
        parse_ndjson(text)
    return caught.value


def test_an_honest_export_reads_as_msgspec_reads_it_from_bytes_or_text(text, lines):
    assert parse_ndjson(text) == lines
    assert parse_ndjson(text.decode("utf-8")) == lines


def test_every_line_of_an_honest_export_passes_check_line(lines):
    assert [check_line(line) for line in lines[1:]] == [None] * (len(lines) - 1)


def test_a_line_with_a_duplicated_key_is_refused_naming_the_key(text, lines):
    n = lines.index(first(lines, "CardPlayed"))
    rows = text.splitlines()
    rows[n] = rows[n].replace(b'"card":', b'"card":"AS","card":', 1)
    error = refused(b"\n".join(rows))
    assert error.line == n + 1
    assert str(error) == f'Line {n + 1} has the key "card" twice in one object.'


def test_a_forged_card_before_the_real_one_passes_a_lenient_reader_but_not_this_one(lines):
    """The auditor's finding: a reader keeping the last value sees an honest line, which the
    schema and check_line can't fault, since by then the forged card is gone."""
    honest = first(lines, "CardPlayed")
    forged = msgspec.json.encode(honest).replace(b'"card":', b'"card":"AS","card":', 1)
    assert msgspec.json.decode(forged) == honest and check_line(honest) is None
    assert refused(forged).line == 1


def test_a_duplicated_key_at_any_depth_is_refused(lines):
    opened = msgspec.json.encode(first(lines, "TableOpened"))
    inside = opened.replace(b'"alone":', b'"alone":"off","alone":', 1)
    assert '"alone" twice' in str(refused(inside))
    assert '"b" twice' in str(refused(b'{"a":[{"b":1,"b":1}]}'))
    # The same key in two objects side by side is no repetition.
    assert parse_ndjson(b'{"a":[{"b":1},{"b":1}]}') == [{"a": [{"b": 1}, {"b": 1}]}]


def test_a_line_that_isnt_json_or_isnt_an_object_is_refused_by_its_number():
    head = b'{"format":"euchre-log"}\n\n'
    cases = {
        b'{"seq": 1,': "isn't JSON",
        b"[1, 2]": "isn't a JSON object",
        b'"CardPlayed"': "isn't a JSON object",
        b'{"points": NaN}': "isn't JSON (NaN is not a JSON value)",
        b'{"points": -Infinity}': "isn't JSON",
        b'{"seq": 1} {"seq": 2}': "isn't JSON",
    }
    for line, said in cases.items():
        error = refused(head + line + b"\n")
        assert error.line == 3 and str(error).startswith(f"Line 3 {said}"), (line, str(error))


def test_blank_lines_are_skipped_and_lines_may_end_in_crlf():
    assert parse_ndjson(b'\n{"a":1}\r\n \n{"b":2}\r\n\n') == [{"a": 1}, {"b": 2}]
    assert parse_ndjson("") == []


def test_a_line_separator_inside_a_string_doesnt_end_the_line():
    """U+2028 is a line break to str.splitlines, but JSON may hold it in a string."""
    assert parse_ndjson('{"text":"a\u2028b"}\n'.encode()) == [{"text": "a\u2028b"}]


def test_bytes_that_arent_utf8_are_refused_by_their_line():
    assert refused(b'{"a":1}\n{"name":"\xff"}\n').line == 2


def test_check_line_names_a_field_the_type_lacks_and_lists_the_fields_it_has(lines):
    said = check_line({**first(lines, "CardPlayed"), "forged": "AS"})
    assert said == 'CardPlayed has no field "forged"; its fields are seat, card'


def test_check_line_names_a_missing_field(lines):
    line = first(lines, "CardPlayed")
    del line["card"]
    assert check_line(line) == "CardPlayed lacks its field `card`: it is required"


def test_a_bool_or_a_string_where_an_integer_belongs_is_refused(lines):
    for wrong, got in [(True, "bool"), ("1", "str"), (1.0, "float")]:
        said = check_line({**first(lines, "CardPlayed"), "seat": wrong})
        assert said == f"CardPlayed's `seat` must be an integer: expected `int`, got `{got}`"


def test_a_wrong_card_deep_in_a_deal_is_named_with_its_place(lines):
    dealt = first(lines, "HandDealt")
    dealt["hands"][2][1] = "ZZ"
    said = check_line(dealt)
    assert said is not None
    assert said.startswith("HandDealt's `hands` must be a list of lists of card codes, or null")
    assert said.endswith("invalid enum value 'ZZ' - at `hands[2][1]`")


def test_a_secret_may_be_null_while_the_game_runs_but_no_other_field(lines):
    dealt = first(lines, "HandDealt")
    assert check_line({**dealt, "hands": None, "kitty": None}) is None
    said = check_line({**dealt, "up": None})
    assert said == "HandDealt's `up` must be a card code: expected `str`, got `null`"


def test_a_house_rule_inside_a_line_is_checked_too(lines):
    opened = first(lines, "TableOpened")
    opened["settings"]["farmers"] = "sometimes"
    said = check_line(opened)
    assert said is not None and "at `settings.farmers`" in said
    opened["settings"] = {**opened["settings"], "farmers": "on", "jokers": "on"}
    said = check_line(opened)
    assert said is not None and "unknown field `jokers`" in said


def test_the_lines_own_members_are_checked(lines):
    line = first(lines, "BidPassed")
    assert "`seq` must be an integer from 1 up" in check_line({**line, "seq": 0})
    assert "`at` must be a date and time" in check_line({**line, "at": "2026-12-01"})
    assert "`hash` must be a string of 64 lowercase hex digits" in check_line(
        {**line, "hash": line["hash"].upper()}
    )


def test_a_line_of_no_known_type_is_refused():
    assert check_line({"type": "CardForged"}) == (
        '"CardForged" is no event type (docs/events.md lists them)'
    )
    assert check_line({"seq": 1}) == "null is no event type (docs/events.md lists them)"
