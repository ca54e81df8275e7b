"""Raw single-event append rate and latency, for N concurrent writers on separate streams.

Runs in a scratch database created on the server at EUCHRE_DATABASE_URL (else
EUCHRE_TEST_DATABASE_URL, else the local test server) and dropped afterwards, so it never
writes into a real event log. Usage: uv run python bench/append.py [--writers 1 4 16] [--seconds 3]
"""

import argparse
import asyncio
import os
import statistics
import time
from uuid import uuid4

import psycopg
from sqlalchemy import make_url

from infra.db import create_engine, migrate
from infra.eventstore import EventStore, NewEvent

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"


async def run(url: str, writers: int, seconds: float) -> list[float]:
    """Each writer owns a stream, so every append succeeds: this measures the store, not races."""
    engine = create_engine(url, pool_size=writers)
    store = EventStore(engine)
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def writer(stream: str) -> None:
        seq = 0
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            await store.append(stream, seq, [NewEvent("Benched", {"seq": seq + 1})])
            latencies.append(time.perf_counter() - started)
            seq += 1

    await asyncio.gather(*(writer(f"B{writers}-{n}") for n in range(writers)))
    await engine.dispose()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()

    server = os.environ.get("EUCHRE_DATABASE_URL") or os.environ.get(
        "EUCHRE_TEST_DATABASE_URL", DEFAULT_URL
    )
    name = f"bench_{uuid4().hex}"
    url = make_url(server).set(database=name).render_as_string(hide_password=False)
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        migrate(url)
        for writers in args.writers:
            latencies = asyncio.run(run(url, writers, args.seconds))
            print(
                f"writers={writers:<3} appends/s={len(latencies) / args.seconds:8.0f}"
                f"  median={statistics.median(latencies) * 1000:6.2f} ms"
                f"  p99={statistics.quantiles(latencies, n=100)[98] * 1000:6.2f} ms"
            )
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
