"""The rules page the web table shows is docs/euchre.md itself, or its French translation for
an asker who prefers French: every section can be linked to by the same id in either language,
every link of the page's own lands on a section, the translation keeps the English page's
sections and what is in them, and nothing in the files runs as markup."""

from __future__ import annotations

import re

import pytest

from services.api import rules_page
from services.api.rules_page import PAGES, rendered, slug

HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)
SECTION = re.compile(r'<h([1-6]) id="rule-([^"]+)">')


@pytest.mark.parametrize("code", sorted(PAGES))
def test_every_heading_has_the_id_the_pages_own_links_use(code):
    html = rendered(code).html
    headings = HEADING.findall(PAGES["en"].read_text(encoding="utf-8"))
    assert len(headings) > 20
    ids = re.findall(r'id="rule-([^"]+)"', html)
    assert ids == [slug(h) for h in headings], "the English page's ids, in its order"
    links = re.findall(r'href="#/rules/([^"]+)"', html)
    assert len(links) > 20, "the page links between its sections"
    assert set(links) <= set(ids), f"links to no section: {set(links) - set(ids)}"
    assert 'href="#' not in html.replace('href="#/rules/', ""), "a bare #id would be a route"


def sections(html: str) -> list[tuple[str, str, str]]:
    parts = SECTION.split(html)
    return list(zip(parts[1::3], parts[2::3], parts[3::3], strict=True))


def contents(section: str) -> dict[str, object]:
    """What a translation keeps of a section: its numbers, lists, tables, links and code."""
    text = re.sub(r"<[^>]+>", " ", section)
    return {
        "numbers": sorted(re.findall(r"[0-9]+", text)),
        "list items": section.count("<li>"),
        "table rows": section.count("<tr>"),
        "examples": section.count("<pre>"),
        "links": sorted(re.findall(r'href="([^"]+)"', section)),
        "code": sorted(re.findall(r"<code>([^<]*)</code>", section)),
    }


def test_the_french_page_keeps_the_english_pages_sections():
    english, french = sections(rendered("en").html), sections(rendered("fr").html)
    assert [(level, id_) for level, id_, _ in french] == [(level, id_) for level, id_, _ in english]
    for (_, id_, said), (_, _, translated) in zip(english, french, strict=True):
        assert contents(translated) == contents(said), f"section {id_} drifted"


def test_a_translation_that_drifts_is_caught(tmp_path, monkeypatch):
    """A list item dropped from one section, or a heading lost, fails the check above."""
    french = PAGES["fr"].read_text(encoding="utf-8")
    shorter = tmp_path / "euchre.fr.md"
    shorter.write_text(french.replace("- Le second tour n’est pas concerné.\n", ""))
    monkeypatch.setitem(PAGES, "fr", shorter)
    rendered.cache_clear()
    try:
        with pytest.raises(AssertionError, match="section canadian-loner drifted"):
            test_the_french_page_keeps_the_english_pages_sections()
        shorter.write_text(french.replace("## Rejouer\n", ""))
        rendered.cache_clear()
        with pytest.raises(ValueError, match="zip"):  # the headings no longer pair up
            rendered("fr")
    finally:
        rendered.cache_clear()


def test_headings_are_named_as_github_names_them():
    assert slug("Farmer's hand") == "farmers-hand"
    assert slug("Bidding: round one") == "bidding-round-one"
    assert slug("The players' seeds") == "the-players-seeds"
    assert slug("Enchères : premier tour") == "enchères--premier-tour"


def test_markup_in_the_file_is_shown_as_text(tmp_path, monkeypatch):
    source = tmp_path / "euchre.md"
    source.write_text("# Rules\n\n<script>alert(1)</script>\n\n<b>bold</b> [x](#rules)\n")
    monkeypatch.setitem(rules_page.PAGES, "en", source)
    rendered.cache_clear()
    try:
        html = rendered().html
    finally:
        rendered.cache_clear()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<b>" not in html
    assert 'href="#/rules/rules"' in html


def test_the_api_serves_the_page(api):
    response = api.http.get("/api/rules")
    assert response.status_code == 200
    body = response.json()
    assert body["source"] == "docs/euchre.md"
    assert body["language"] == "en"
    assert 'id="rule-house-rules"' in body["html"]


@pytest.mark.parametrize(
    ("accept", "code", "source", "heading"),
    [
        ("fr", "fr", "docs/euchre.fr.md", "Règles maison"),
        ("de-DE, fr-CA;q=0.8", "fr", "docs/euchre.fr.md", "Règles maison"),
        ("en-GB, fr;q=0.9", "en", "docs/euchre.md", "House rules"),
        ("de", "en", "docs/euchre.md", "House rules"),
    ],
)
def test_the_api_serves_the_page_in_the_language_asked_for(api, accept, code, source, heading):
    response = api.http.get("/api/rules", headers={"Accept-Language": accept})
    assert response.status_code == 200
    assert response.headers["content-language"] == code
    assert "Accept-Language" in response.headers["vary"]
    body = response.json()
    assert (body["source"], body["language"]) == (source, code)
    assert f'<h2 id="rule-house-rules">{heading}</h2>' in body["html"]
