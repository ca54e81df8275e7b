"""The web table in a real browser: the machine's Chromium, driven by Playwright, against the
service started the way a newcomer starts it (`uv run euchre serve`) on a database of its own.

Without a Chromium the browser tests skip, saying so; with `EUCHRE_REQUIRE_BROWSER=1` (CI sets
it) a missing browser fails them instead, so CI can't pass without ever opening the page.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
import pytest

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
# Each served test gets a Redis database of its own (the bots' queues live there), so a test's
# leftover bot turns never reach another test's server. Nothing is flushed.
REDIS_DBS = itertools.cycle(range(10, 16))


def _chromium() -> str | None:
    named = os.environ.get("EUCHRE_CHROMIUM")
    if named:
        return named if Path(named).exists() else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _no_browser(reason: str) -> None:
    if os.environ.get("EUCHRE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (EUCHRE_REQUIRE_BROWSER=1: browser tests must run here)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """The machine's Chromium. Module-scoped: sync Playwright keeps an event loop running in
    this thread while it is open, which later async tests (and asyncio.run) can't share."""
    path = _chromium()
    if path is None:
        _no_browser(
            "no Chromium on this machine (install it: apt-get install chromium, or set "
            "EUCHRE_CHROMIUM to its path)"
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve_command(port: int) -> list[str]:
    uv = shutil.which("uv")
    if uv:
        return [uv, "run", "euchre", "serve", "--port", str(port)]
    return [sys.executable, "-m", "services.cli", "serve", "--port", str(port)]


def _redis_db(url: str, db: int) -> str:
    """The same server, database `db`: in the path for redis://, as ?db= for unix sockets."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        query = [(k, v) for k, v in parse_qsl(parts.query) if k != "db"] + [("db", str(db))]
        return f"unix://{parts.path}?{urlencode(query)}"
    return urlunsplit(parts._replace(path=f"/{db}"))


@pytest.fixture
def server(database_url: str, redis_url: str, tmp_path: Path) -> Iterator[str]:
    """`euchre serve` on a free port over this test's own database; its base URL."""
    port = _free_port()
    redis = _redis_db(redis_url, next(REDIS_DBS))
    env = {
        **os.environ,
        "EUCHRE_DATABASE_URL": database_url,
        "EUCHRE_REDIS_URL": redis,
        "EUCHRE_BOT_DELAY_SCALE": "0.02",
        "EUCHRE_DATA_DIR": str(tmp_path / "var"),
    }
    for name in ("EUCHRE_HOST", "EUCHRE_PORT"):
        env.pop(name, None)
    log = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen(
        _serve_command(port),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: uv and the server it runs stop together
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            output = tmp_path / "serve.log"
            if process.poll() is not None:
                raise RuntimeError(f"euchre serve exited:\n{output.read_text()}")
            try:
                if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"euchre serve didn't answer:\n{output.read_text()}")
            time.sleep(0.2)
        yield base
    finally:
        _stop(process)
        log.close()


def _stop(process: subprocess.Popen) -> None:
    """Ctrl-C to the server's own process group; a kill for whatever is still there after 20 s."""
    group = process.pid
    try:
        os.killpg(group, signal.SIGINT)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        process.poll()
        try:
            os.killpg(group, 0)  # anyone left in the group?
        except ProcessLookupError:
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)
    process.wait(timeout=10)


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Path:
    """artifacts/e2e/<test name>/, emptied first: where a test writes its screenshots."""
    folder = ARTIFACTS / re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    return folder
