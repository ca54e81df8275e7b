"""The rules page in the app: docs/euchre.md itself, the page the engine agrees with line for
line, so what a player reads is what the server plays, not a summary that can drift from it.

Rendered once per process from our own file (raw HTML in it is not passed through). Headings
get ids and the page's own links point at them inside the app's routes, where a bare `#id`
would be taken for a page of its own.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import pairwise
from pathlib import Path

import msgspec
from litestar import get
from markdown_it import MarkdownIt

from services.api.contract import problems

SOURCE = Path(__file__).parents[2] / "docs" / "euchre.md"
ROUTE = "#/rules/"  # the page's route in the web table; a section's id follows it


class RulesPage(msgspec.Struct, frozen=True):
    html: str
    source: str


def slug(heading: str) -> str:
    """A heading's id as the page's own links name it: GitHub's way (lower case, punctuation
    dropped, spaces to hyphens), so `[...](#farmers-hand)` finds "Farmer's hand"."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


@cache
def rendered() -> RulesPage:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(SOURCE.read_text(encoding="utf-8"))
    for token, after in pairwise(tokens):
        if token.type == "heading_open":
            token.attrSet("id", f"rule-{slug(after.content)}")
    for token in tokens:
        for child in token.children or []:
            href = str(child.attrGet("href") or "")
            if child.type == "link_open" and href.startswith("#"):
                child.attrSet("href", ROUTE + href[1:])
    html = md.renderer.render(tokens, md.options, {})
    return RulesPage(html=html, source="docs/euchre.md")


@get("/api/rules", tags=["rules"], responses=problems(400, 500))
async def rules() -> RulesPage:
    """The rules the engine plays by (docs/euchre.md), as HTML for the web table's rules page."""
    return rendered()
