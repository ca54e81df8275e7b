"""Player names: what a name may be, and the key under which two names count as the same.

A name is shown to everyone at a table, so it must read as what it is: no control or format
characters (a right-to-left override can make "Ada" display as something else, a zero-width
space can make two names look equal), no blank letters, nothing unassigned. Names are stored
NFC-normalised, trimmed, and with each run of spaces (any of Unicode's) made one space, so
"Ada" typed on two keyboards is one name.
"""

from __future__ import annotations

import re
import unicodedata

from confusable_homoglyphs import confusables

MAX_VISIBLE = 24
MAX_MARKS = 3  # combining marks on one letter: enough for any script, too few for "zalgo"
# Categories no name needs: controls, format characters (zero-width, bidi overrides),
# private use, surrogates, unassigned, and line/paragraph separators.
REFUSED = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}
# Letters and marks that draw nothing (Hangul fillers, Braille blank, the grapheme joiner...).
BLANK = set("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f")
SPACES = re.compile("[ \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+")  # category Zs
ALLOWED = (
    f"a name is 1-{MAX_VISIBLE} visible characters (letters, digits, spaces, punctuation, "
    "emoji); control, format and invisible characters are not allowed"
)


class BadName(ValueError):
    """The name can't be used; the message says why and what is allowed."""


def normal(raw: str) -> str:
    """The name as typed, in the one form it is stored in: what sign-in looks up (a name
    registered before these rules may break them, and must still sign in)."""
    return SPACES.sub(" ", unicodedata.normalize("NFC", raw)).strip(" ")


def clean(raw: str) -> str:
    """The name as it will be stored and shown, or BadName saying what is wrong with it."""
    name = normal(raw)
    for position, char in enumerate(name, start=1):
        if unicodedata.category(char) in REFUSED or char in BLANK:
            code = f"U+{ord(char):04X}"
            label = unicodedata.name(char, "an unassigned or control character")
            raise BadName(f"{ALLOWED}; character {position} is {code} {label}")
    marks = 0
    visible = 0
    for char in name:
        if unicodedata.category(char).startswith("M"):
            marks += 1
            if marks > MAX_MARKS:
                raise BadName(f"{ALLOWED}; at most {MAX_MARKS} accents may stack on one letter")
        else:
            marks = 0
            visible += 1
    if not 1 <= visible <= MAX_VISIBLE:
        raise BadName(f"{ALLOWED}; this one has {visible} visible characters")
    return name


def key(name: str) -> str:
    """Two names with the same key would pass for one another at a table.

    Compatibility forms are folded (NFKC: full-width and mathematical letters), then every
    letter that `confusable_homoglyphs` (Unicode's confusables data) says looks like a Latin
    one is replaced by it (Cyrillic "а", Greek "Α", the digit "0" for "O"), then case is folded.
    This is a subset of the UTS #39 skeleton: look-alikes within Latin itself ("I" and "l",
    "rn" and "m") still count as different.
    """
    folded = unicodedata.normalize("NFKC", name)
    found = confusables.is_confusable(folded, greedy=True, preferred_aliases=["latin"]) or []
    swaps = {}
    for item in found:
        latin = [g["c"] for g in item["homoglyphs"] if g["n"].startswith("LATIN ")]
        if latin:
            swaps[item["character"]] = latin[0]
    return "".join(swaps.get(char, char) for char in folded).casefold()
