"""The page's words in each language: one gettext catalogue (services/api/locales), read with
Babel when the server starts and served to the page as plain JSON.

The msgid is the English text itself, so English needs no catalogue and no fetch. A language is
offered to players only when its catalogue translates every word of the page *and* every module
of the page takes its words from the catalogue: until then the page stays English for everyone,
because a page half in one language and half in another is worse than a page in one.

Recreate the template and merge it into the translations after changing the page's words:

    uv run pybabel extract -F services/api/locales/babel.cfg --no-default-keywords \\
        -k t -k tc:1c,2 -k tn:1,2 -k tParts -k N_ --omit-header --sort-output \\
        -o services/api/locales/messages.pot .
    uv run pybabel update -i services/api/locales/messages.pot -d services/api/locales \\
        --no-fuzzy-matching
"""

from __future__ import annotations

import gettext
import hashlib
from functools import cache
from pathlib import Path
from typing import Annotated

import msgspec
from babel import Locale
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po
from litestar import Request, Response, get
from litestar.params import FromPath

from services.api.contract import problems
from services.api.problem_words import LOCALES
from services.api.problems import Problem

TEMPLATE = LOCALES / "messages.pot"
ENGLISH = "en"

# The page's modules whose words don't go through the catalogue yet (services/api/static/js).
# While any is left, no language but English is offered, however complete its catalogue:
# a player would see these modules' words in English beside the translated ones.
UNCONVERTED: tuple[str, ...] = ()


class Language(msgspec.Struct, frozen=True):
    code: Annotated[str, msgspec.Meta(description="The language's BCP 47 tag, e.g. `fr`.")]
    name: Annotated[str, msgspec.Meta(description="Its name in itself, e.g. `Français`.")]
    translated: Annotated[
        float,
        msgspec.Meta(ge=0, le=1, description="The share of the page's words it translates."),
    ]
    offered: Annotated[
        bool,
        msgspec.Meta(
            description="Whether the page offers it to players: only when every word of "
            "every module of the page is translated."
        ),
    ]


class Languages(msgspec.Struct, frozen=True):
    languages: Annotated[list[Language], msgspec.Meta(description="English first.")]


class Messages(msgspec.Struct, frozen=True):
    language: Language
    messages: Annotated[
        dict[str, str | list[str]],
        msgspec.Meta(
            description="Each English text of the page (placeholders as `{name}`) and its "
            "translation; a text missing here is shown in English. Empty for English. A text "
            "said differently by count (i18n.js, tn()) is keyed by its English singular and "
            "has the language's forms in gettext's order."
        ),
    ]
    plural: Annotated[
        dict[str, int],
        msgspec.Meta(
            description="For each plural category of the language (CLDR's, as the browser's "
            "`Intl.PluralRules` names them: `one`, `many`, `other`), the index of its form "
            "in `messages`. Empty for English."
        ),
    ] = {}


def _read(path: Path) -> Catalog:
    with path.open("rb") as file:
        return read_po(file)


def _key(message: Message) -> str:
    """A message as the page looks it up: its English text (the singular of one said by
    count), after its context and gettext's separator if it has one (i18n.js, tc(), tn())."""
    text = message.id[0] if isinstance(message.id, (tuple, list)) else message.id
    return f"{message.context}\x04{text}" if message.context else str(text)


def _ids(catalog: Catalog) -> set[str]:
    return {_key(message) for message in catalog if message.id}


def _said(message: Message) -> str | list[str] | None:
    """A message's translation (every form of a plural one), or None while any is missing."""
    if isinstance(message.string, (tuple, list)):
        forms = [str(form) for form in message.string]
        return forms if all(forms) else None
    return str(message.string) if message.string else None


def _translations(catalog: Catalog, wanted: set[str]) -> dict[str, str | list[str]]:
    """A catalogue's finished translations of the template's words (fuzzy guesses and words
    the page no longer has are left out)."""
    found: dict[str, str | list[str]] = {}
    for message in catalog:
        if not message.id or message.fuzzy or _key(message) not in wanted:
            continue
        said = _said(message)
        if said is not None:
            found[_key(message)] = said
    return found


# Counts enough to meet every plural category a language has (CLDR's `many` is a million's in
# French): the page picks a category with the browser's Intl.PluralRules.
_COUNTS = (*range(1001), 10**6, 2 * 10**6)


def _plural(catalog: Catalog, code: str) -> dict[str, int]:
    """Which of the catalogue's plural forms (its gettext Plural-Forms, from Babel) each of the
    language's plural categories takes. The browser knows the categories but not gettext's
    order, and the page runs no code from the server, so the server says it as data."""
    form = gettext.c2py(catalog.plural_expr)
    rule = Locale.parse(code).plural_form
    return {rule(n): form(n) for n in _COUNTS}


def _name(code: str) -> str:
    name = Locale.parse(code).get_display_name(code) or code
    return name[:1].upper() + name[1:]


@cache
def catalogues() -> dict[str, Messages]:
    """Every language the server has a catalogue for, English first; read once per process."""
    wanted = _ids(_read(TEMPLATE))
    found = {ENGLISH: Messages(Language(ENGLISH, _name(ENGLISH), 1.0, True), {})}
    for po in sorted(LOCALES.glob("*/LC_MESSAGES/messages.po")):
        code = po.parents[1].name
        catalog = _read(po)
        messages = _translations(catalog, wanted)
        share = len(messages) / len(wanted) if wanted else 1.0
        offered = share == 1.0 and not UNCONVERTED
        language = Language(code, _name(code), share, offered)
        found[code] = Messages(language, messages, _plural(catalog, code))
    return found


@get("/api/messages", tags=["messages"], responses=problems(400, 500))
async def languages() -> Languages:
    """The languages the page's words are kept in, and which of them it offers to players."""
    return Languages([messages.language for messages in catalogues().values()])


@get(
    "/api/messages/{language:str}",
    tags=["messages"],
    responses=problems(400, 404, 500, why={404: "No catalogue for that language."}),
)
async def messages(request: Request, language: FromPath[str]) -> Response[Messages]:
    """One language's catalogue for the page: the English texts and their translations. The
    answer carries an ETag; ask again with If-None-Match to get a 304 while it is unchanged."""
    found = catalogues().get(language)
    if found is None:
        known = list(catalogues())
        raise Problem(404, "there is no catalogue for that language", "language", known)
    body = msgspec.json.encode(found)
    tag = f'"{hashlib.sha256(body).hexdigest()[:32]}"'
    headers = {"ETag": tag, "Cache-Control": "no-cache"}
    if request.headers.get("if-none-match") == tag:
        return Response(content=b"", status_code=304, headers=headers)
    return Response(content=found, headers=headers)
