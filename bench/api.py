"""Moves per second through the HTTP API, beside the raw event-store append rate, in one run.

Starts a real server (a separate process) over a fresh database, plays N concurrent games with
four HTTP clients each (every seat its own player and token), and prints moves/s, p50/p99 move
latency, the raw single-event append rate of the same database at the same concurrency, and
the ratio. Run: uv run python bench/api.py [--games 8] [--seconds 20]
Uses EUCHRE_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test) as the server to
create a scratch database on, and EUCHRE_REDIS_URL (default redis://127.0.0.1:6379/0).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterable, AsyncIterator
from pathlib import Path

import httpx
import psycopg
from sqlalchemy import make_url

from infra.db import migrate
from infra.eventstore import EventStore, NewEvent

BASE = os.environ.get("EUCHRE_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("EUCHRE_REDIS_URL", "redis://127.0.0.1:6379/0")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def frames(lines: AsyncIterable[bytes]) -> AsyncIterator[tuple[int, bytes | None]]:
    """An event stream's events, each as its id and its data (None if it had none), as the
    blank line that ends it comes."""
    seq, data = None, None
    async for line in lines:
        if line.startswith(b"id:"):
            seq = int(line[3:])
        elif line.startswith(b"data:"):
            data = line[5:]
        elif line in (b"\n", b"\r\n") and seq is not None:
            yield seq, data
            seq, data = None, None


def choose(view: dict, rng: random.Random) -> dict:
    can = view["can"]
    kind = sorted(k for k in can if k not in ("deal", "claim"))[0]
    body: dict = {"type": kind}
    if kind in ("play", "discard"):
        body["card"] = rng.choice(can[kind]["cards"])
    elif kind == "call":
        body["suit"] = rng.choice(can["call"]["suits"])
    elif kind == "order" and can["order"]["must_alone"]:
        body["alone"] = True
    elif kind == "farmer":
        body["cards"] = []  # keep the hand
    return body


async def game(http: httpx.AsyncClient, n: int, deadline: float, latencies: list[float]) -> int:
    rng = random.Random(n)
    tokens = []
    for seat in range(4):
        r = await http.post("/api/players", json={"name": f"P{n}-{seat}"})
        tokens.append({"Authorization": f"Bearer {r.json()['token']}"})
    code = f"BENCH-{n}-{uuid.uuid4().hex[:6]}".upper()
    await http.post("/api/tables", json={"code": code}, headers=tokens[0])
    for seat in range(1, 4):
        await http.post(f"/api/tables/{code}/seats/{seat}", headers=tokens[seat])
    view = (await http.post(f"/api/tables/{code}/start", headers=tokens[0])).json()
    moves = 0
    while time.perf_counter() < deadline:
        if view["status"] == "over":
            return moves
        seat = (
            view["turn"]
            if view["turn"] is not None
            else next(s for s, ready in enumerate(view["ready"]) if not ready)
        )
        mine = (await http.get(f"/api/tables/{code}", headers=tokens[seat])).json()
        start = time.perf_counter()
        r = await http.post(
            f"/api/tables/{code}/moves", json=choose(mine, rng), headers=tokens[seat]
        )
        latencies.append(time.perf_counter() - start)
        assert r.status_code == 200, r.text
        view = r.json()
        moves += 1
    return moves


async def http_rate(url: str, games: int, seconds: float) -> tuple[float, list[float]]:
    latencies: list[float] = []
    limits = httpx.Limits(max_connections=games * 4)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        start = time.perf_counter()
        deadline = start + seconds
        total = 0
        while time.perf_counter() < deadline:
            done = await asyncio.gather(*(game(http, n, deadline, latencies) for n in range(games)))
            total += sum(done)
        return total / (time.perf_counter() - start), latencies


async def append_rate(url: str, writers: int, seconds: float) -> tuple[float, list[float]]:
    store = await EventStore.open(url, size=writers)
    latencies: list[float] = []

    async def writer(n: int, deadline: float) -> int:
        stream, seq = f"raw-{n}-{uuid.uuid4().hex[:6]}", 0
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            await store.append(stream, seq, [NewEvent("BidPassed", {"seat": 0, "round": 1})])
            latencies.append(time.perf_counter() - start)
            seq += 1
        return seq

    start = time.perf_counter()
    counts = await asyncio.gather(*(writer(n, start + seconds) for n in range(writers)))
    rate = sum(counts) / (time.perf_counter() - start)
    await store.close()
    return rate, latencies


def cpu_seconds(pid: int) -> float:
    """The CPU a process has used (user and system), from /proc: a figure the other loads on a
    shared machine disturb far less than the rate."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ms(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1000 if len(values) > 1 else 0.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=8, help="concurrent games (4 clients each)")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument(
        "--server",
        choices=["uvicorn", "edge"],
        default="edge",
        help="uvicorn as it comes, or with the edge's timeouts and caps (as `euchre serve`)",
    )
    args = parser.parse_args()
    name = f"bench_{uuid.uuid4().hex[:8]}"
    url = make_url(BASE).set(database=name).render_as_string(hide_password=False)
    with psycopg.connect(BASE, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    port = free_port()
    server = None
    try:
        migrate(url)
        app = f"create_app({url!r}, {REDIS!r}, rate_limits=None)"
        code = (
            "import uvicorn; from services.api.app import create_app; "
            f"uvicorn.run({app}, host='127.0.0.1', port={port}, log_level='warning')"
        )
        if args.server == "edge":  # as `euchre serve` serves it: services/api/server.py
            code = (
                "import uvicorn; from services.api.app import create_app; "
                "from services.api.server import config; from infra.settings import Settings; "
                f"c = config({app}, Settings()); c.host, c.port = '127.0.0.1', {port}; "
                "uvicorn.Server(c).run()"
            )
        server = subprocess.Popen([sys.executable, "-c", code])
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                httpx.get(f"{base}/api/health", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        clients = args.games * 4
        raw, raw_lat = asyncio.run(append_rate(url, clients, args.seconds / 2))
        if os.environ.get("BENCH_PROFILE"):  # a py-spy profile of the server under HTTP load
            subprocess.Popen(
                [
                    "uvx",
                    "py-spy",
                    "record",
                    "-d",
                    str(int(args.seconds)),
                    "-o",
                    os.environ["BENCH_PROFILE"],
                    "-f",
                    "speedscope",
                    "-p",
                    str(server.pid),
                ]
            )
        spent = cpu_seconds(server.pid)
        moves, lat = asyncio.run(http_rate(base, args.games, args.seconds))
        spent = cpu_seconds(server.pid) - spent
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        with psycopg.connect(BASE, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    print(
        f"{args.games} concurrent games, {clients} HTTP clients, {args.seconds:.0f} s, "
        f"{args.server} server"
    )
    print(
        f"  HTTP moves/s             {moves:8.0f}   latency p50 {ms(lat, 50):6.1f} ms  "
        f"p99 {ms(lat, 99):6.1f} ms"
    )
    print(f"  server CPU per move      {spent * 1000 / (moves * args.seconds):8.2f} ms")
    print(
        f"  raw appends/s ({clients} writers) {raw:8.0f}   latency p50 {ms(raw_lat, 50):6.1f} ms  "
        f"p99 {ms(raw_lat, 99):6.1f} ms"
    )
    print(f"  ratio moves/appends      {moves / raw:8.2f}   (goal >= 0.20)")


if __name__ == "__main__":
    main()
