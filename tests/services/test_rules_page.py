"""The rules page the web table shows is docs/euchre.md itself: every section can be linked
to, every link of the page's own lands on a section, and nothing in the file runs as markup."""

from __future__ import annotations

import re

from services.api import rules_page
from services.api.rules_page import rendered, slug

HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)


def test_every_heading_has_the_id_the_pages_own_links_use():
    html = rendered().html
    headings = HEADING.findall(rules_page.SOURCE.read_text(encoding="utf-8"))
    assert len(headings) > 20
    ids = set(re.findall(r'id="rule-([^"]+)"', html))
    assert ids == {slug(h) for h in headings}
    links = re.findall(r'href="#/rules/([^"]+)"', html)
    assert len(links) > 20, "the page links between its sections"
    assert set(links) <= ids, f"links to no section: {set(links) - ids}"
    assert 'href="#' not in html.replace('href="#/rules/', ""), "a bare #id would be a route"


def test_headings_are_named_as_github_names_them():
    assert slug("Farmer's hand") == "farmers-hand"
    assert slug("Bidding: round one") == "bidding-round-one"
    assert slug("The players' seeds") == "the-players-seeds"


def test_markup_in_the_file_is_shown_as_text(tmp_path, monkeypatch):
    source = tmp_path / "euchre.md"
    source.write_text("# Rules\n\n<script>alert(1)</script>\n\n<b>bold</b> [x](#rules)\n")
    monkeypatch.setattr(rules_page, "SOURCE", source)
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
    assert 'id="rule-house-rules"' in body["html"]
