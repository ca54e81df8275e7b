"""Live tables under load: G tables, each with four seated people and one spectator holding
their streams open, moving at a person's pace or flat out.

Starts `euchre serve` as a child process with its own embedded PostgreSQL and Valkey (so the
server's whole process tree is ours to measure) and rate limits off, seats the tables, then for
`--seconds` measures: moves/s, POST latency p50/p99, move-to-every-watcher latency p50/p99 (from
sending a move to each of the table's five streams showing its result), errors, and the CPU the
server's process tree (app, PostgreSQL, Valkey) spent per move, read from /proc, so this
client's own CPU doesn't count.

    uv run python bench/load.py --tables 500 --pace human --seconds 60
    uv run python bench/load.py --tables 20 --pace flat --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from api import choose, free_port

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
MOVING: set[asyncio.Task] = set()  # moves under way (the loop keeps only weak references)


def tree_cpu(root: int) -> float:
    """CPU seconds (user + system) of `root` and every process below it, from /proc."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / TICKS
    total, stack = 0.0, [root]
    while stack:
        pid = stack.pop()
        total += times.get(pid, 0.0)
        stack.extend(child for child, parent in parents.items() if parent == pid)
    return total


@dataclass
class Figures:
    measuring: bool = False
    posts: list[float] = field(default_factory=list)
    moves: list[tuple[float, str, int]] = field(default_factory=list)  # (sent, code, seq after)
    seen: dict[tuple[str, int], list[tuple[int, float]]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    conflicts: int = 0


class Seat:
    def __init__(self, table: Table, n: int, token: str) -> None:
        self.table, self.n = table, n
        self.headers = {"Authorization": f"Bearer {token}"}
        self.rng = random.Random(f"{table.code}/{n}")
        self.acted_on = -1


class Table:
    def __init__(self, code: str) -> None:
        self.code = code
        self.seats: list[Seat] = []


async def watch(
    http: httpx.AsyncClient,
    table: Table,
    who: str,
    headers: dict,
    seat: Seat | None,
    args,
    figures: Figures,
    stop: asyncio.Event,
) -> None:
    """One open stream: records when each view arrives; a seat also moves when it may."""
    arrivals = figures.seen.setdefault((table.code, who), [])
    async with http.stream("GET", f"/api/tables/{table.code}/events", headers=headers) as r:
        data = None
        async for line in r.aiter_lines():
            if stop.is_set():
                return
            if line.startswith("data:"):
                data = line[5:].strip()
            elif line == "" and data:
                view = json.loads(data)
                data = None
                arrivals.append((view["seq"], time.perf_counter()))
                if seat is not None and view["status"] == "playing":
                    mine = {k: v for k, v in view["can"].items() if k != "deal"}
                    if mine and seat.acted_on < view["seq"]:
                        seat.acted_on = view["seq"]
                        task = asyncio.create_task(move(http, seat, view, mine, args, figures))
                        MOVING.add(task)
                        task.add_done_callback(MOVING.discard)


async def move(http, seat: Seat, view: dict, can: dict, args, figures: Figures) -> None:
    if args.pace == "human":
        await asyncio.sleep(seat.rng.uniform(1.0, 3.0))
    body = choose(view, seat.rng)
    if body["type"] != "ready":  # everyone says ready at once: no seq, or three would be stale
        body["seq"] = view["seq"]
    sent = time.perf_counter()
    try:
        r = await http.post(f"/api/tables/{seat.table.code}/moves", json=body, headers=seat.headers)
    except httpx.HTTPError as error:
        figures.errors.append(f"POST: {type(error).__name__}")
        return
    took = time.perf_counter() - sent
    if r.status_code == 409:
        figures.conflicts += 1
        return
    if r.status_code != 200:
        figures.errors.append(f"{r.status_code} {r.text[:120]}")
        return
    if figures.measuring:
        figures.posts.append(took)
        figures.moves.append((sent, seat.table.code, r.json()["seq"]))


async def seat_table(http: httpx.AsyncClient, n: int) -> Table:
    tokens = []
    for s in range(4):
        r = await http.post("/api/players", json={"name": f"Load{n}x{s}"})
        r.raise_for_status()
        tokens.append(r.json()["token"])
    code = f"LOAD{n}-{uuid.uuid4().hex[:4]}".upper()
    host = {"Authorization": f"Bearer {tokens[0]}"}
    r = await http.post("/api/tables", json={"code": code}, headers=host)
    r.raise_for_status()
    table = Table(code)
    for s in range(1, 4):
        r = await http.post(
            f"/api/tables/{code}/seats/{s}", headers={"Authorization": f"Bearer {tokens[s]}"}
        )
        r.raise_for_status()
    table.seats = [Seat(table, s, tokens[s]) for s in range(4)]
    return table


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else float("nan")


def watcher_latencies(figures: Figures) -> list[float]:
    """For each move, the delay until each stream of its table showed a view at or past it."""
    by_table: dict[str, list[list[tuple[int, float]]]] = {}
    for (code, _), arrivals in figures.seen.items():
        by_table.setdefault(code, []).append(arrivals)
    out = []
    for sent, code, seq in figures.moves:
        for arrivals in by_table.get(code, []):
            at = next((t for s, t in arrivals if s >= seq), None)
            if at is not None:
                out.append(max(0.0, at - sent))
    return out


async def run(base: str, args, server_pid: int) -> None:
    figures = Figures()
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=400)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        http.cookies.clear()
        tables: list[Table] = []
        for start in range(0, args.tables, 25):
            batch = range(start, min(start + 25, args.tables))
            tables += await asyncio.gather(*(seat_table(http, n) for n in batch))
        print(f"seated {len(tables)} tables", flush=True)
        streams = []
        for table in tables:
            for seat in table.seats:
                streams.append(
                    watch(http, table, f"s{seat.n}", seat.headers, seat, args, figures, stop)
                )
            streams.append(watch(http, table, "spectator", {}, None, args, figures, stop))
        tasks = [asyncio.create_task(s) for s in streams]
        await asyncio.sleep(2)  # every stream open before the games start
        for table in tables:
            r = await http.post(f"/api/tables/{table.code}/start", headers=table.seats[0].headers)
            r.raise_for_status()
        await asyncio.sleep(args.warmup)
        cpu0, t0 = tree_cpu(server_pid), time.perf_counter()
        figures.measuring = True
        await asyncio.sleep(args.seconds)
        figures.measuring = False
        cpu1, t1 = tree_cpu(server_pid), time.perf_counter()
        await asyncio.sleep(1)  # let the last views arrive
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    moves = len(figures.moves)
    watchers = watcher_latencies(figures)
    print(
        f"tables={args.tables} pace={args.pace} seconds={t1 - t0:.0f}\n"
        f"moves/s={moves / (t1 - t0):.1f}  POST p50={pct(figures.posts, 50) * 1000:.1f} ms"
        f"  p99={pct(figures.posts, 99) * 1000:.1f} ms\n"
        f"move-to-every-watcher p50={pct(watchers, 50) * 1000:.1f} ms"
        f"  p99={pct(watchers, 99) * 1000:.1f} ms  ({len(watchers)} deliveries)\n"
        f"server CPU per move={(cpu1 - cpu0) / max(moves, 1) * 1000:.2f} ms"
        f"  (server tree used {(cpu1 - cpu0) / (t1 - t0):.2f} cores)\n"
        f"errors={len(figures.errors)}  stale 409s={figures.conflicts}",
        flush=True,
    )
    for error in sorted(set(figures.errors))[:5]:
        print("  error:", error)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--pace", choices=["human", "flat"], default="flat")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--warmup", type=float, default=5)
    args = parser.parse_args()

    port = free_port()
    with tempfile.TemporaryDirectory(prefix="euchre-load-") as data:
        env = {k: v for k, v in os.environ.items() if not k.startswith("EUCHRE_")}
        env.update(EUCHRE_DATA_DIR=data, EUCHRE_RATE_LIMITS="off", EUCHRE_BOT_DELAY_SCALE="0")
        server = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "serve", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            for line in server.stdout:
                if "serving on" in line:
                    break
            else:
                raise SystemExit("the server did not start")
            asyncio.run(run(f"http://127.0.0.1:{port}", args, server.pid))
        finally:
            server.terminate()
            server.wait(timeout=60)


if __name__ == "__main__":
    main()
