"""Password checks take turns by address: a flood of sign-ins from many addresses keeps its own
place and doesn't put a person from another address behind it; past its share, a flood is
refused at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import httpx
import pytest
from http_kit import PASSWORD, Server

from services.api.app import create_app

pytestmark = pytest.mark.anyio
FLOOD_ADDRESSES = 12


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def base_url(database_url: str, redis_url: str) -> Iterator[str]:
    """The service without its rate limits: the turns are what is tested."""
    with Server(create_app(database_url, redis_url, rate_limits=None)) as url:
        yield url


def from_address(base_url: str, address: str) -> httpx.AsyncClient:
    """A client whose connections come from `address` (a loopback one: 127.x.y.z)."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=base_url, timeout=120, transport=transport)


async def test_a_person_is_served_next_during_a_flood_from_many_addresses(base_url):
    """One queue in arrival order put a person behind every guess waiting (20 clients: 8.3 s)."""
    async with from_address(base_url, "127.0.0.2") as person:
        made = await person.post("/api/players", json={"name": "Grace", "password": PASSWORD})
        assert made.status_code == 201, made.text
    floods = [from_address(base_url, f"127.0.0.{10 + n}") for n in range(FLOOD_ADDRESSES)]
    answered: list[tuple[int, float]] = []
    checked: set[int] = set()  # the flood's addresses that have had a guess checked
    stop = asyncio.Event()

    async def guess(n: int) -> None:
        while not stop.is_set():
            body = {"name": f"Guesser {n}", "password": "a wrong guess"}
            response = await floods[n].post("/api/sessions", json=body)
            assert response.status_code in (401, 429), response.text
            answered.append((response.status_code, time.monotonic()))
            if response.status_code == 401:
                checked.add(n)
            else:
                await asyncio.sleep(0.5)

    guessers = [asyncio.create_task(guess(n)) for n in range(FLOOD_ADDRESSES) for _ in range(2)]
    try:
        while len(checked) < FLOOD_ADDRESSES:
            await asyncio.sleep(0.05)
        stop.set()  # no new guesses: those waiting are the flood's queue, to drain
        async with from_address(base_url, "127.0.0.3") as person:
            body = {"name": "Grace", "password": PASSWORD}
            signed_in = await person.post("/api/sessions", json=body)
            done = time.monotonic()
        await asyncio.gather(*guessers)
    finally:
        for http in floods:
            await http.aclose()
    assert signed_in.status_code == 200, signed_in.text
    checked_after = sum(status == 401 and at > done for status, at in answered)
    # Served next: only the guesses being checked as the person came went before them.
    assert checked_after >= 3, (checked_after, answered[-12:])


async def test_a_flood_past_its_share_is_refused_at_once(base_url):
    async def sign_in(http: httpx.AsyncClient, name: str) -> tuple[httpx.Response, float]:
        response = await http.post(
            "/api/sessions", json={"name": name, "password": "a wrong guess"}
        )
        return response, time.monotonic()

    async with from_address(base_url, "127.0.0.4") as flood:
        answers = await asyncio.gather(*(sign_in(flood, f"Guesser {n}") for n in range(12)))
    refused = [(r, at) for r, at in answers if r.status_code == 429]
    checked = [(r, at) for r, at in answers if r.status_code == 401]
    assert len(refused) + len(checked) == 12
    assert len(refused) >= 6, [r.status_code for r, _ in answers]
    # At once: before the checks that were let in were done, not after waiting for a turn.
    assert max(at for _, at in refused) < max(at for _, at in checked)
    for response, _ in refused:
        assert response.headers["content-type"].startswith("application/problem+json")
        assert 1 <= int(response.headers["retry-after"]) <= 60
        body = response.json()
        assert body["status"] == 429 and "try again in" in body["detail"]
        assert "from your address" in body["detail"]

    # One name's share, from addresses of their own.
    addresses = [from_address(base_url, f"127.0.0.{50 + n}") for n in range(6)]
    try:
        answers = await asyncio.gather(*(sign_in(http, "Grace") for http in addresses))
    finally:
        for http in addresses:
            await http.aclose()
    for_the_name = [r.json() for r, _ in answers if r.status_code == 429]
    assert for_the_name, [r.status_code for r, _ in answers]
    assert all(body["field"] == "name" for body in for_the_name)
