"""What a player's name may be, and which names pass for one another."""

import pytest

from infra.names import BadName, clean, key


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("Ada", "Ada"),
        ("  Ada   Lovelace ", "Ada Lovelace"),
        ("Ada\u00a0\u3000Lovelace", "Ada Lovelace"),  # any Unicode space is a space
        ("Jose\u0301", "Jos\u00e9"),  # NFC
        ("\u2764\ufe0f Bo", "\u2764\ufe0f Bo"),  # an emoji with its presentation selector
        ("x" * 24, "x" * 24),
    ],
)
def test_names_are_trimmed_and_normalised(raw, stored):
    assert clean(raw) == stored


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("", "0 visible"),
        ("   ", "0 visible"),
        ("x" * 25, "25 visible"),
        ("Ada\u0000", "U+0000"),
        ("Ada\nLovelace", "U+000A"),
        ("A\u202eda", "RIGHT-TO-LEFT OVERRIDE"),
        ("Ad\u200ba", "ZERO WIDTH SPACE"),
        ("Ad\u2060a", "WORD JOINER"),
        ("\u2067Ada", "RIGHT-TO-LEFT ISOLATE"),
        ("\u3164", "HANGUL FILLER"),
        ("\u2800", "BRAILLE PATTERN BLANK"),
        ("\ue000", "U+E000"),  # private use
        ("\U000e0041da", "U+E0041"),  # a tag character
        ("a\u0378", "U+0378"),  # unassigned
        ("Ada\u2028", "LINE SEPARATOR"),
        ("Z" + "\u0301" * 5, "accents"),
    ],
)
def test_names_that_hide_or_fake_what_they_are_are_refused(raw, why):
    with pytest.raises(BadName, match="1-24 visible characters") as refused:
        clean(raw)
    assert why in str(refused.value)


def test_look_alike_names_share_a_key():
    assert key("Grace") == key("GRACE") == key("gr\u0430ce") == key("\uff27race")
    assert key("\u0391da") == key("Ada")  # Greek capital alpha
    assert key("B0b") == key("Bob")
    assert key("Grace") != key("Gracie")
