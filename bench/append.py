"""The event store's append rate beside PostgreSQL's own: single-event appends by N concurrent
writers on separate streams, and pgbench's one-row INSERT + COMMIT on the same database with
the same N clients, in one run, with the ratio; and that one-row insert from the same Python
client harness, which is as fast as any Python client on the box can go. The client processes
run on uvloop, as the API's do.

Runs in a scratch database created on the server at EUCHRE_DATABASE_URL (else
EUCHRE_TEST_DATABASE_URL, else the local test server) and dropped afterwards, so it never
writes into a real event log. pgbench ships with PostgreSQL; where it is missing the store is
measured alone, saying so.
Usage: uv run python bench/append.py [--clients 1 8 32] [--seconds 5] [--processes 2]
"""

import argparse
import asyncio
import multiprocessing
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from uuid import uuid4

import psycopg
import uvloop
from psycopg_pool import AsyncConnectionPool
from scratch import scratch_database

from infra.db import conninfo
from infra.eventstore import EventStore, NewEvent

# What an append writes, give or take: one row with a small JSON document, then a commit.
PGBENCH_SCRIPT = (
    "INSERT INTO pgbench_rows (stream, data) VALUES ('p' || :client_id, '{\"n\": 1}');\n"
)
PLAIN_INSERT = "INSERT INTO pgbench_rows (stream, data) VALUES (%s, '{\"n\": 1}')"


async def _writers(url: str, prefix: str, writers: int, seconds: float, plain: bool) -> list[float]:
    """Each writer owns a stream, so every append succeeds: this measures the store, not races.
    `plain` writes pgbench's row instead, through the same pool: what a Python client on this
    box can do at best, whatever the store does."""
    store = await EventStore.open(url, size=writers)
    pool = AsyncConnectionPool(
        conninfo(url), min_size=writers, kwargs={"autocommit": True}, open=False
    )
    await pool.open(wait=True)
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def writer(stream: str) -> None:
        seq = 0
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            if plain:
                async with pool.connection() as conn:
                    await conn.execute(PLAIN_INSERT, (stream,), prepare=True)
            else:
                await store.append(stream, seq, [NewEvent("Benched", {"seq": seq + 1})])
            latencies.append(time.perf_counter() - started)
            seq += 1

    await asyncio.gather(*(writer(f"{prefix}-{n}") for n in range(writers)))
    await pool.close()
    await store.close()
    return latencies


def _process(args: tuple[str, str, int, float, bool]) -> list[float]:
    """On uvloop, as the API's processes run (uvicorn picks it where it is installed)."""
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(_writers(*args))


def store_rate(
    url: str, clients: int, seconds: float, processes: int, plain: bool = False
) -> tuple[float, list[float]]:
    """Appends/s with `clients` writers spread over `processes` client processes (as several
    API processes would write), and every append's latency."""
    processes = max(1, min(processes, clients))
    shares = [clients // processes + (n < clients % processes) for n in range(processes)]
    jobs = [
        (url, f"B{clients}-{uuid4().hex[:6]}-{n}", share, seconds, plain)
        for n, share in enumerate(shares)
    ]
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        latencies = [lat for part in pool.map(_process, jobs) for lat in part]
    return len(latencies) / seconds, latencies


def pgbench_rate(url: str, clients: int, seconds: float) -> float | None:
    pgbench = shutil.which("pgbench")
    if pgbench is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".sql") as script:
        script.write(PGBENCH_SCRIPT)
        script.flush()
        done = subprocess.run(
            [
                pgbench,
                "-n",
                "-M",
                "prepared",
                "-f",
                script.name,
                "-c",
                str(clients),
                "-j",
                str(min(clients, 2)),
                "-T",
                str(int(seconds)),
                url,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    return float(re.search(r"tps = ([\d.]+)", done.stdout).group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--processes", type=int, default=2, help="client processes for the store")
    args = parser.parse_args()

    with scratch_database() as url:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                "CREATE TABLE pgbench_rows (id bigserial PRIMARY KEY, stream text, data jsonb)"
            )
        if shutil.which("pgbench") is None:
            print("pgbench not found (it ships with PostgreSQL): measuring the store alone")
        for clients in args.clients:
            reference = pgbench_rate(url, clients, args.seconds)
            rate, latencies = store_rate(url, clients, args.seconds, args.processes)
            ceiling, _ = store_rate(url, clients, args.seconds, args.processes, plain=True)
            line = (
                f"clients={clients:<3} appends/s={rate:8.0f}"
                f"  median={statistics.median(latencies) * 1000:6.2f} ms"
                f"  p99={statistics.quantiles(latencies, n=100)[98] * 1000:6.2f} ms"
            )
            line += f"  python one-row inserts/s={ceiling:8.0f}"
            if reference is not None:
                line += (
                    f"  pgbench tps={reference:8.0f}  ratio={rate / reference:5.2f}"
                    f"  (python inserts {ceiling / reference:4.2f})"
                )
            print(line, flush=True)


if __name__ == "__main__":
    main()
