"""The web table's files are served at `/` beside the API, with no build step: the page, its
styles and ES modules, and the shareable table link. No browser needed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient

from services.api.app import create_app

STATIC = Path(__file__).resolve().parents[2] / "services" / "api" / "static"


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(database_url)) as client:
        yield client


def test_the_page_is_served_at_the_root(client):
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/js/main.js">' in response.text


def test_every_module_and_stylesheet_the_page_names_is_served(client):
    page = client.get("/").text
    names = re.findall(r'(?:href|src)="(/(?:css|js)/[^"]+)"', page)
    imports = set()
    for module in (STATIC / "js").glob("*.js"):
        imports |= {f"/js/{m}" for m in re.findall(r"from '\./([\w-]+\.js)'", module.read_text())}
    assert imports, "the modules import each other"
    for path in [*names, *sorted(imports)]:
        response = client.get(path)
        assert response.status_code == 200, path
        kind = "text/javascript" if path.endswith(".js") else "text/css"
        assert response.headers["content-type"].startswith(kind), path


def test_nothing_is_fetched_from_elsewhere():
    """No CDN, no web fonts, no downloads at run time: every URL in the files is our own."""
    for path in STATIC.rglob("*"):
        if path.suffix in {".html", ".css", ".js"}:
            text = path.read_text()
            assert not re.search(r"https?://(?!www\.w3\.org/)", text), path
            assert "@import" not in text and "@font-face" not in text, path


def test_a_table_link_by_path_forwards_to_the_page(client):
    response = client.get("/t/family-1", follow_redirects=False)
    assert response.status_code in (301, 302, 307, 308)
    assert response.headers["location"] == "/#/t/FAMILY-1"


def test_the_api_and_its_schema_still_answer_beside_the_page(client):
    assert client.get("/api/tables").json() == {"tables": [], "next": None}
    assert client.get("/schema/openapi.json").status_code == 200
    missing = client.get("/api/nothing-here")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
