"""Does a burst of wrong passwords slow everyone down? `/api/health` latency, and a person's
own sign-in, while 20 clients keep signing in with a wrong password, beside the same with
nobody signing in, in one run.

Starts a real server (a separate uvicorn process) over a fresh database, registers one name,
then alternates quiet and loaded phases (`--rounds`, each `--seconds` long): in both one client
asks /api/health every 20 ms, and a person signs in with the right password every half second,
each time from an address not seen before; in the loaded phase `--clients` more post wrong
passwords (each at a name of its own) back to back, from a process of their own, spread over
`--addresses` source addresses (127.0.0.10 on; the person's are 127.1.x.y).
Prints p50/p99 health latency and the person's sign-in p50/p99 for each phase, the guesses
answered per second (and how many were refused with 429), and the ratio of health p99s (goal
<= 2), per round and as medians. Rate limits are off by default (`--limits on` measures the
service as deployed, where most bad sign-ins are refused before any hashing).
Run: uv run python bench/auth.py [--rounds 3] [--seconds 8] [--clients 20] [--addresses 1]
[--limits off]
Uses EUCHRE_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test) as the server to
create a scratch database on, and EUCHRE_REDIS_URL (default redis://127.0.0.1:6379/0).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import multiprocessing
import statistics
import subprocess
import sys
import time
import uuid

import httpx
import psycopg
from api import BASE, REDIS, free_port, ms
from sqlalchemy import make_url

from infra.db import migrate

PROBE_EVERY = 0.02
SIGN_IN_EVERY = 0.5
# The person's password is a passphrase, as sign-up asks for; the guessers' are wrong anyway.
NAME, PASSWORD = "Bench", "lantern quarry biscuit vole"
# Each of the person's sign-ins comes from an address the server hasn't seen: 127.1.0.1 on.
FRESH = (f"127.1.{n // 250}.{n % 250 + 1}" for n in itertools.count())


def flood_address(n: int) -> str:
    return f"127.0.{n // 250}.{n % 250 + 10}"


async def probe(http: httpx.AsyncClient, until: float) -> list[float]:
    latencies = []
    while time.perf_counter() < until:
        start = time.perf_counter()
        response = await http.get("/api/health")
        latencies.append(time.perf_counter() - start)
        assert response.status_code == 200, response.text
        await asyncio.sleep(PROBE_EVERY)
    return latencies


async def sign_in(base: str, until: float) -> list[float]:
    """The person signing in, from a new address each time; seconds each took, 429s too."""
    latencies = []
    while time.perf_counter() < until:
        transport = httpx.AsyncHTTPTransport(local_address=next(FRESH))
        async with httpx.AsyncClient(base_url=base, timeout=120, transport=transport) as http:
            start = time.perf_counter()
            response = await http.post("/api/sessions", json={"name": NAME, "password": PASSWORD})
            latencies.append(time.perf_counter() - start)
        assert response.status_code in (200, 429), response.text
        await asyncio.sleep(SIGN_IN_EVERY)
    return latencies


async def guess(http: httpx.AsyncClient, name: str, until: float) -> tuple[int, int]:
    tries = refused = 0
    while time.perf_counter() < until:
        body = {"name": name, "password": f"wrong-{uuid.uuid4().hex[:8]}"}
        response = await http.post("/api/sessions", json=body)
        assert response.status_code in (401, 429), response.text
        tries += 1
        refused += response.status_code == 429
    return tries, refused


async def _guessing(base: str, seconds: float, clients: int, addresses: int) -> tuple[int, int]:
    per = -(-clients // addresses)
    https = [
        httpx.AsyncClient(
            base_url=base,
            timeout=120,
            transport=httpx.AsyncHTTPTransport(
                local_address=flood_address(n), limits=httpx.Limits(max_connections=per)
            ),
        )
        for n in range(addresses)
    ]
    until = time.perf_counter() + seconds
    try:
        counts = await asyncio.gather(
            *(guess(https[n % addresses], f"Guesser {n}", until) for n in range(clients))
        )
    finally:
        for http in https:
            await http.aclose()
    return sum(t for t, _ in counts), sum(r for _, r in counts)


def _guesser(base: str, seconds: float, clients: int, addresses: int, tries) -> None:
    tries.put(asyncio.run(_guessing(base, seconds, clients, addresses)))


async def _probing(base: str, seconds: float) -> tuple[list[float], list[float]]:
    async with httpx.AsyncClient(base_url=base, timeout=120) as prober:
        until = time.perf_counter() + seconds
        health, person = await asyncio.gather(probe(prober, until), sign_in(base, until))
        return health, person


def phase(
    base: str, seconds: float, clients: int, addresses: int
) -> tuple[list[float], list[float], float, float]:
    """Health latencies and the person's sign-in times over `seconds` with `clients` guessing
    passwords; and guesses answered per second, and the share of them refused.

    The guessers run in a process of their own: sharing the prober's event loop, their
    answers would delay the prober's reading of its own, and that would be counted as the
    server's latency."""
    if not clients:
        return *asyncio.run(_probing(base, seconds)), 0.0, 0.0
    spawn = multiprocessing.get_context("spawn")
    tries = spawn.Queue()
    guessers = spawn.Process(target=_guesser, args=(base, seconds, clients, addresses, tries))
    guessers.start()
    time.sleep(1.0)  # let the flood build up before the person comes
    health, person = asyncio.run(_probing(base, seconds - 1.0))
    count, refused = tries.get(timeout=seconds + 120)
    guessers.join()
    return health, person, count / seconds, refused / max(count, 1)


def serve(url: str, port: int, limits: bool) -> subprocess.Popen:
    code = (
        "import inspect, uvicorn; from services.api.app import create_app\n"
        f"kw = {{}} if {limits} or 'rate_limits' not in inspect.signature(create_app).parameters"
        " else {'rate_limits': None}\n"
        f"uvicorn.run(create_app({url!r}, {REDIS!r}, **kw), host='127.0.0.1', port={port}, "
        "log_level='warning')"
    )
    return subprocess.Popen([sys.executable, "-c", code])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--addresses", type=int, default=1)
    parser.add_argument("--limits", choices=["on", "off"], default="off")
    args = parser.parse_args()
    name = f"bench_{uuid.uuid4().hex[:8]}"
    url = make_url(BASE).set(database=name).render_as_string(hide_password=False)
    with psycopg.connect(BASE, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = None
    rows = []
    try:
        migrate(url)
        server = serve(url, port, args.limits == "on")
        for _ in range(100):
            try:
                httpx.get(f"{base}/api/health", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        body = {"name": NAME, "password": PASSWORD}
        made = httpx.post(f"{base}/api/players", json=body, timeout=60)
        assert made.status_code == 201, made.text
        for _ in range(args.rounds):
            quiet, alone, _, _ = phase(base, args.seconds, 0, 1)
            loaded, flooded, rate, refused = phase(base, args.seconds, args.clients, args.addresses)
            rows.append(
                (
                    ms(quiet, 50),
                    ms(quiet, 99),
                    ms(loaded, 50),
                    ms(loaded, 99),
                    ms(alone, 50),
                    ms(alone, 99),
                    ms(flooded, 50),
                    ms(flooded, 99),
                    rate,
                    refused * 100,
                )
            )
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        with psycopg.connect(BASE, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    print(
        f"/api/health latency and a person's sign-in, alone and beside {args.clients} clients "
        f"from {args.addresses} address(es) posting wrong passwords (limits {args.limits}, "
        f"{args.seconds:.0f} s a phase)"
    )
    print(
        "  round   health alone p50/p99 ms  loaded p50/p99 ms   sign-in alone p50/p99 ms"
        "  flooded p50/p99 ms  guesses/s  429 %  health p99 ratio"
    )
    for n, row in enumerate([*rows, [statistics.median(c) for c in zip(*rows, strict=True)]]):
        hq50, hq99, hl50, hl99, sq50, sq99, sl50, sl99, rate, refused = row
        print(
            f"  {n + 1 if n < len(rows) else 'median':>6}  {hq50:8.1f} {hq99:8.1f}       "
            f"{hl50:8.1f} {hl99:8.1f}        {sq50:8.1f} {sq99:8.1f}         {sl50:8.1f} "
            f"{sl99:8.1f}  {rate:9.1f}  {refused:5.1f}  {hl99 / hq99:8.2f}x"
        )


if __name__ == "__main__":
    main()
