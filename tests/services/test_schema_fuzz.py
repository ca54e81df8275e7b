"""The OpenAPI document against the server: schemathesis, as docs/api.md runs it, with every
check it has, stateless (what `/schema` allows, what it doesn't, and the edges between) and
stateful (following the document's links: a table made, then used by its code; a player
signed up, then looked up and signed in with the same password).

A real server on the test's own database, rate limits off so the requests reach the handlers
(the limits have tests of their own); a signed-in player who hosts a real table, so paths reach
real resources rather than stopping at 401 and 404. That player's token can't be revoked by
the run: signing out is fuzzed on its own, with a token made for it. Bounded and seeded, so it
fits CI and fails the same way twice; the endless `/events` stream is left out.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from http_kit import Api, Server

from services.api.app import create_app

ROOT = Path(__file__).resolve().parents[2]  # where schemathesis.toml is
SEED = 20261201
EXAMPLES = 8  # per operation and phase
LOGOUT = "/api/sessions/logout"


@pytest.fixture
def served(database_url: str, redis_url: str) -> Iterator[str]:
    app = create_app(database_url, redis_url, stream_poll=1.0, rate_limits=None)
    with Server(app) as url:
        yield url


def _schemathesis(base_url: str, token: str, *selection: str) -> tuple[int, str, float]:
    """One run of the documented command; its exit status, what it printed, its seconds."""
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "run",
        f"{base_url}/schema/openapi.json",
        "--checks",
        "all",
        "-H",
        f"Authorization: Bearer {token}",
        "--seed",
        str(SEED),
        "--max-examples",
        str(EXAMPLES),
        "--no-color",
        *selection,
    ]
    began = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout + done.stderr, time.monotonic() - began


def test_the_server_keeps_to_its_schema(served: str, record_property) -> None:
    with httpx.Client(base_url=served, timeout=30) as http:
        api = Api(http)
        ada = api.player("Fuzzy")
        ada.ok("POST", "/api/tables", json={"code": "FUZZ"})
        leaving = api.player("Leaving")

    status, said, seconds = _schemathesis(
        served, ada.token, "--exclude-path-regex", "/events$", "--exclude-path", LOGOUT
    )
    record_property("fuzz_seconds", round(seconds, 1))
    print(f"\nschemathesis, every operation but {LOGOUT} and /events: {seconds:.0f} s")
    assert status == 0, said
    links = re.search(r"API Links: +(\d+) covered", said)
    assert links and int(links[1]) >= 3, said  # the stateful phase followed the links
    with httpx.Client(base_url=served, timeout=30) as http:
        mine = http.get("/api/players/me", headers={"Authorization": f"Bearer {ada.token}"})
    assert mine.status_code == 200, "the run signed the player out"

    # No links lead to signing out: the stateless phases only.
    phases = ("--phases", "examples,coverage,fuzzing")
    status, said, seconds = _schemathesis(served, leaving.token, "--include-path", LOGOUT, *phases)
    record_property("fuzz_logout_seconds", round(seconds, 1))
    print(f"schemathesis, {LOGOUT} with a token of its own: {seconds:.0f} s")
    assert status == 0, said
    with httpx.Client(base_url=served, timeout=30) as http:
        gone = http.get("/api/players/me", headers={"Authorization": f"Bearer {leaving.token}"})
    assert gone.status_code == 401, "the run never signed its player out"
