"""Does a burst of wrong passwords slow everyone down? `/api/health` latency while 20 clients
keep signing in with a wrong password, beside the same with nobody signing in, in one run.

Starts a real server (a separate uvicorn process) over a fresh database, registers one name,
then alternates quiet and loaded phases (`--rounds`, each `--seconds` long): in both one client
asks /api/health every 20 ms; in the loaded phase 20 more post wrong passwords back to back,
from a process of their own.
Prints p50/p99 health latency for each phase, the sign-in rate, and the ratio of p99s (goal
<= 2), per round and as medians. Rate limits are off by default (`--limits on` measures the
service as deployed, where most bad sign-ins are refused before any hashing).
Run: uv run python bench/auth.py [--rounds 3] [--seconds 8] [--clients 20] [--limits off]
Uses EUCHRE_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test) as the server to
create a scratch database on, and EUCHRE_REDIS_URL (default redis://127.0.0.1:6379/0).
"""

from __future__ import annotations

import argparse
import asyncio
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
NAME, PASSWORD = "Bench", "the-right-password"


async def probe(http: httpx.AsyncClient, until: float) -> list[float]:
    latencies = []
    while time.perf_counter() < until:
        start = time.perf_counter()
        response = await http.get("/api/health")
        latencies.append(time.perf_counter() - start)
        assert response.status_code == 200, response.text
        await asyncio.sleep(PROBE_EVERY)
    return latencies


async def guess(http: httpx.AsyncClient, until: float) -> int:
    tries = 0
    while time.perf_counter() < until:
        body = {"name": NAME, "password": f"wrong-{uuid.uuid4().hex[:8]}"}
        response = await http.post("/api/sessions", json=body)
        assert response.status_code in (401, 429), response.text
        tries += 1
    return tries


async def _guessing(base: str, seconds: float, clients: int) -> int:
    limits = httpx.Limits(max_connections=clients + 1)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as guessers:
        until = time.perf_counter() + seconds
        return sum(await asyncio.gather(*(guess(guessers, until) for _ in range(clients))))


def _guesser(base: str, seconds: float, clients: int, tries) -> None:
    tries.put(asyncio.run(_guessing(base, seconds, clients)))


async def _probing(base: str, seconds: float) -> list[float]:
    async with httpx.AsyncClient(base_url=base, timeout=120) as prober:
        return await probe(prober, time.perf_counter() + seconds)


def phase(base: str, seconds: float, clients: int) -> tuple[list[float], float]:
    """Health latencies over `seconds` with `clients` guessing passwords; and guesses/s.

    The guessers run in a process of their own: sharing the prober's event loop, their
    answers would delay the prober's reading of its own, and that would be counted as the
    server's latency."""
    if not clients:
        return asyncio.run(_probing(base, seconds)), 0.0
    spawn = multiprocessing.get_context("spawn")
    tries = spawn.Queue()
    guessers = spawn.Process(target=_guesser, args=(base, seconds, clients, tries))
    guessers.start()
    latencies = asyncio.run(_probing(base, seconds))
    count = tries.get(timeout=seconds + 120)
    guessers.join()
    return latencies, count / seconds


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
        made = httpx.post(f"{base}/api/players", json={"name": NAME, "password": PASSWORD})
        assert made.status_code == 201, made.text
        for _ in range(args.rounds):
            quiet, _ = phase(base, args.seconds, 0)
            loaded, rate = phase(base, args.seconds, args.clients)
            rows.append((ms(quiet, 50), ms(quiet, 99), ms(loaded, 50), ms(loaded, 99), rate))
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        with psycopg.connect(BASE, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    print(
        f"/api/health latency, alone and beside {args.clients} clients posting wrong passwords "
        f"(limits {args.limits}, {args.seconds:.0f} s a phase)"
    )
    print("  round  alone p50   p99    loaded p50    p99   sign-ins/s  p99 ratio")
    for n, (qp50, qp99, lp50, lp99, rate) in enumerate(rows, start=1):
        print(
            f"  {n:5}  {qp50:7.1f} {qp99:7.1f} ms {lp50:9.1f} {lp99:7.1f} ms "
            f"{rate:9.1f}  {lp99 / qp99:8.2f}x"
        )
    medians = [statistics.median(column) for column in zip(*rows, strict=True)]
    qp50, qp99, lp50, lp99, rate = medians
    print(
        f"  median {qp50:6.1f} {qp99:7.1f} ms {lp50:9.1f} {lp99:7.1f} ms {rate:9.1f}  "
        f"{statistics.median(r[3] / r[1] for r in rows):8.2f}x   (goal <= 2x)"
    )


if __name__ == "__main__":
    main()
