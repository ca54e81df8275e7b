"""The web table in a real browser: the machine's Chromium, driven by Playwright, against the
service started the way a newcomer starts it (`uv run euchre serve`) on a database of its own.

Without a Chromium the browser tests skip, saying so; with `EUCHRE_TEST_REQUIRE_BROWSER=1` (CI sets
it) a missing browser fails them instead, so CI can't pass without ever opening the page.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_kit import own_redis, serving

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "e2e"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CANDIDATES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test here is `slow`: a quick run while working leaves them out."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.slow)


def _chromium() -> str | None:
    named = os.environ.get("EUCHRE_TEST_CHROMIUM")
    if named:
        return named if Path(named).exists() else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _no_browser(reason: str) -> None:
    if os.environ.get("EUCHRE_TEST_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (EUCHRE_TEST_REQUIRE_BROWSER=1: browser tests must run here)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """The machine's Chromium. Module-scoped: sync Playwright keeps an event loop running in
    this thread while it is open, which later async tests (and asyncio.run) can't share."""
    path = _chromium()
    if path is None:
        _no_browser(
            "no Chromium on this machine (install it: apt-get install chromium, or set "
            "EUCHRE_TEST_CHROMIUM to its path)"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _no_browser("Playwright for Python is not installed (uv sync installs the dev group)")
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        except Exception as error:  # a broken install: say what failed
            _no_browser(f"Chromium at {path} would not start: {error}")
        yield browser
        browser.close()


@pytest.fixture(autouse=True)
def _close_pages(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test's pages close when it ends. The browser lives as long as its module, and a
    page left open keeps its renderer busy (a stream reconnecting to a stopped server, glows
    that pulse forever): 39 of them at once in test_web_table.py took the CPU the tests
    after them needed, on 2 cores."""
    browser = request.getfixturevalue("browser") if "browser" in request.fixturenames else None
    yield
    if browser is not None:
        for context in browser.contexts:
            context.close()


@pytest.fixture
def server(database_url: str, redis_url: str, tmp_path: Path) -> Iterator[str]:
    """`euchre serve` on a free port over this test's own database; its base URL."""
    with serving(database_url, own_redis(redis_url), tmp_path) as base:
        yield base


@pytest.fixture
def paced_server(database_url: str, redis_url: str, tmp_path: Path) -> Iterator[str]:
    """The same, with bots thinking for as long as they do for real: for what the table shows
    at the pace people see it."""
    with serving(database_url, own_redis(redis_url), tmp_path, bot_scale=1) as base:
        yield base


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Path:
    """artifacts/e2e/<test name>/, emptied first: where a test writes its screenshots."""
    folder = ARTIFACTS / re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    return folder
