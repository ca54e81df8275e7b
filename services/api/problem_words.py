"""The server's own words, the title and detail of a problem (services/api/problems.py), in the
language the asker prefers (Accept-Language; the page sends the one it is shown in).

They have a gettext catalogue of their own beside the page's, in the same locales directory
(`<language>/LC_MESSAGES/problems.po`), read with Babel when the server starts. A detail is
written where the refusal happens, often with values in it ("seat 2 is taken"), so the
catalogue's English texts are templates with `{placeholders}`: a detail is matched against
them and the values found are put into the translation. A value that is itself words is
translated too, by the entries whose context names its placeholder ("start the game" under
`what`, for "only the host may {what}"; "hearts" under `suit`); those may be templates in turn,
for a value made of parts ("{card} or {cards}" under `cards`, a list of cards of any length).
A placeholder with no entries, a player's `{name}` say, is put in as it is. Where templates
compete ("there is no field {field}" and "{detail}; allowed: {allowed}"), the one that
accounts for more of the English as its own words, its values' included, is taken; one whose
worded value has no entry isn't. A detail no template matches is said in English, as is every
detail when English is wanted. The French is kept by hand: every refusal a player or a client
can meet goes there, and the tests check that each English text there is still one the server
says, or quotes (msgspec's complaints, a password's advice). A reply kept for an
Idempotency-Key (services/api/retries.py) is replayed as it was first said, in English.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

LOCALES = Path(__file__).parent / "locales"
DOMAIN = "problems"
ENGLISH = "en"
SLOT = re.compile(r"\{(\w+)\}")


@dataclass
class Words:
    """One language's problem words, by context: None for a whole title or detail, a
    placeholder's name for the values put into it. Each context has whole texts and templates
    to match."""

    whole: dict[tuple[str | None, str], str] = field(default_factory=dict)  # (context, English)
    templates: dict[str | None, list[tuple[re.Pattern[str], str]]] = field(default_factory=dict)
    worded: set[str | None] = field(default_factory=set)  # the placeholders with words of their own


def _pattern(template: str) -> re.Pattern[str]:
    """ "seat {seat} is taken" as a pattern that finds the seat's value in "seat 2 is taken"."""
    parts = SLOT.split(template)
    return re.compile(
        "".join(
            re.escape(part) if n % 2 == 0 else f"(?P<{part}>.+?)" for n, part in enumerate(parts)
        ),
        re.DOTALL,
    )


@cache
def catalogues() -> dict[str, Words]:
    """Every language with a problems catalogue; read once per process."""
    found: dict[str, Words] = {}
    for po in sorted(LOCALES.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        with po.open("rb") as file:
            catalog = read_po(file)
        words = found.setdefault(po.parents[1].name, Words())
        for message in catalog:
            if not message.id or not message.string or message.fuzzy:
                continue
            english, said = str(message.id), str(message.string)
            if SLOT.search(english):
                found_in = words.templates.setdefault(message.context, [])
                found_in.append((_pattern(english), said))
            else:
                words.whole[message.context, english] = said
        words.worded = {context for context, _ in words.whole} | set(words.templates)
    return found


def _wanted(accept: str) -> list[str]:
    """Accept-Language's primary tags, most wanted first; those it refuses (q=0) left out."""
    weighed = []
    for n, item in enumerate(accept.split(",")):
        tag, _, params = item.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if tag and weight > 0:
            weighed.append((-weight, n, tag.split("-")[0].lower()))
    return [tag for _, _, tag in sorted(weighed)]


def language(accept: str | None, have: Collection[str] | None = None) -> str:
    """The language to answer in: the first wanted that has a catalogue (or is among `have`,
    for words kept elsewhere), or English (also when English comes first, or anything will do)."""
    have = catalogues() if have is None else have
    for tag in _wanted(accept or ""):
        if tag in (ENGLISH, "*"):
            return ENGLISH
        if tag in have:
            return tag
    return ENGLISH


def translated(text: str, code: str) -> str:
    """`text`, a problem's English title or detail, in the language `code`, where its
    catalogue has it; else as it is."""
    words = catalogues().get(code)
    said = None if words is None else _said(words, text, None)
    return text if said is None else said[0]  # words the catalogue hasn't: all English, not half


def _said(words: Words, text: str, context: str | None) -> tuple[str, int] | None:
    """`text` as said under `context` and how many of its characters were the catalogue's own
    words, or None if the catalogue can't say all of it."""
    if (context, text) in words.whole:
        return words.whole[context, text], len(text)
    best: tuple[str, int] | None = None
    for pattern, said in words.templates.get(context, ()):
        found = pattern.fullmatch(text)
        if not found:
            continue
        values: dict[str, str] = {}
        own = len(text)
        for name, value in found.groupdict().items():
            worded = _said(words, value, name) if name in words.worded else (value, 0)
            if worded is None:
                break
            values[name] = worded[0]
            own += worded[1] - len(value)
        else:
            if best is None or own > best[1]:
                best = _filled(said, values), own
    return best


def _filled(said: str, values: dict[str, str]) -> str:
    return SLOT.sub(lambda slot: values.get(slot[1], slot[0]), said)
