"""The rules page in the app: docs/euchre.md itself, the page the engine agrees with line for
line, so what a player reads is what the server plays, not a summary that can drift from it.
An asker who prefers French (Accept-Language, chosen as for the server's problem words) gets
its translation, docs/euchre.fr.md, kept section for section in step with it by
tests/services/test_rules_page.py.

Rendered once per process and language from our own files (raw HTML in them is not passed
through). Headings get ids and the page's own links point at them inside the app's routes,
where a bare `#id` would be taken for a page of its own. A translation's headings take the
English page's ids, heading for heading in order, so a link to a section lands on it in either
language; the translation's own links name its own headings, as GitHub shows the file, and are
pointed at the same ids.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import pairwise
from pathlib import Path
from urllib.parse import unquote

import msgspec
from litestar import Request, Response, get
from markdown_it import MarkdownIt
from markdown_it.token import Token

from services.api.contract import problems
from services.api.problem_words import ENGLISH, language

DOCS = Path(__file__).parents[2] / "docs"
PAGES = {ENGLISH: DOCS / "euchre.md", "fr": DOCS / "euchre.fr.md"}
ROUTE = "#/rules/"  # the page's route in the web table; a section's id follows it


class RulesPage(msgspec.Struct, frozen=True):
    html: str
    source: str  # the file rendered
    language: str  # its BCP 47 tag


def slug(heading: str) -> str:
    """A heading's id as the page's own links name it: GitHub's way (lower case, punctuation
    dropped, spaces to hyphens), so `[...](#farmers-hand)` finds "Farmer's hand"."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def _headings(tokens: list[Token]) -> list[str]:
    return [
        slug(after.content) for token, after in pairwise(tokens) if token.type == "heading_open"
    ]


@cache
def rendered(code: str = ENGLISH) -> RulesPage:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(PAGES[code].read_text(encoding="utf-8"))
    english = md.parse(PAGES[ENGLISH].read_text(encoding="utf-8"))
    ids = dict(zip(_headings(tokens), _headings(english), strict=True))
    for token, after in pairwise(tokens):
        if token.type == "heading_open":
            token.attrSet("id", f"rule-{ids[slug(after.content)]}")
    for token in tokens:
        for child in token.children or []:
            href = str(child.attrGet("href") or "")
            if child.type == "link_open" and href.startswith("#"):
                named = unquote(href[1:])  # the renderer encodes a French slug's accents
                child.attrSet("href", ROUTE + ids.get(named, named))
    html = md.renderer.render(tokens, md.options, {})
    return RulesPage(html=html, source=f"docs/{PAGES[code].name}", language=code)


@get("/api/rules", tags=["rules"], responses=problems(400, 500))
async def rules(request: Request) -> Response[RulesPage]:
    """The rules the engine plays by (docs/euchre.md), as HTML for the web table's rules page;
    in French where Accept-Language asks for it first, as Content-Language then says."""
    page = rendered(language(request.headers.get("accept-language"), PAGES))
    headers = {"Content-Language": page.language, "Vary": "Accept-Language"}
    return Response(page, headers=headers)
