"""Past one process: two API processes and two bot workers on one PostgreSQL and one Redis. A
person posts to each API, each watches the table through the other one, a spectator watches on
each, bots play the other two seats, and the game is played to the end: every stream stays
live on both, and the log holds one event per decision."""

from __future__ import annotations

import os
import random
import subprocess
import threading
import time
from pathlib import Path

import httpx
import psycopg
from log_kit import answered_decisions
from serve_kit import ROOT, choose, euchre, follow, own_redis, serving, stop


def test_two_api_processes_and_two_workers_play_one_game(
    database_url: str, redis_url: str, tmp_path: Path
):
    redis = own_redis(redis_url)
    env = {
        **os.environ,
        "EUCHRE_DATABASE_URL": database_url,
        "EUCHRE_REDIS_URL": redis,
        "EUCHRE_BOT_DELAY_SCALE": "0.02",
    }
    workers = [
        subprocess.Popen(
            euchre("worker", "--threads", "2"),
            cwd=ROOT,
            env=env,
            stdout=(tmp_path / f"worker{n}.log").open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        for n in range(2)
    ]
    try:
        with (
            serving(database_url, redis, tmp_path, "api1") as one,
            serving(database_url, redis, tmp_path, "api2") as two,
            httpx.Client(base_url=one, timeout=30) as http1,
            httpx.Client(base_url=two, timeout=30) as http2,
        ):
            ada = http1.post("/api/players", json={"name": "Ada"}).json()
            bo = http2.post("/api/players", json={"name": "Bo"}).json()
            http1.cookies.clear()
            http2.cookies.clear()
            as_ada = {"Authorization": f"Bearer {ada['token']}"}
            as_bo = {"Authorization": f"Bearer {bo['token']}"}
            code = http1.post("/api/tables", json={"bots": "medium"}, headers=as_ada).json()["code"]
            assert http2.post(f"/api/tables/{code}/seats/2", headers=as_bo).status_code == 200

            done = threading.Event()
            streams = {
                "Ada on api2": (two, as_ada),
                "Bo on api1": (one, as_bo),
                "spectator on api1": (one, {}),
                "spectator on api2": (two, {}),
            }
            seen: dict[str, list] = {name: [] for name in streams}
            readers = [
                threading.Thread(target=follow, args=(base, code, h, seen[name], done), daemon=True)
                for name, (base, h) in streams.items()
            ]
            for reader in readers:
                reader.start()
            time.sleep(1)
            assert http1.post(f"/api/tables/{code}/start", headers=as_ada).status_code == 200

            rng = random.Random(7)
            people = [(http1, as_ada), (http2, as_bo)]
            deadline = time.monotonic() + 240
            while True:
                views = [http.get(f"/api/tables/{code}", headers=h).json() for http, h in people]
                if views[0]["status"] == "over":
                    break
                assert time.monotonic() < deadline, f"stalled at seq {views[0]['seq']}"
                moved = False
                for (http, headers), view in zip(people, views, strict=True):
                    can = {k: v for k, v in view["can"].items() if k != "deal"}
                    if can:
                        body = {**choose(can, rng), "seq": view["seq"]}
                        r = http.post(f"/api/tables/{code}/moves", json=body, headers=headers)
                        assert r.status_code in (200, 409), r.text  # 409: the table moved on
                        moved = True
                if not moved:
                    time.sleep(0.02)
            final = views[0]["seq"]
            for reader in readers:
                reader.join(timeout=30)
            done.set()
            assert max(views[0]["score"]) >= 10

        for name, got in seen.items():
            assert got and got[-1] == (final, "over"), f"{name} stopped at {got[-1:]}"
            seqs = [seq for seq, _ in got]
            assert seqs == sorted(set(seqs)), f"{name} saw a view twice or out of order"

        with psycopg.connect(database_url) as conn:
            rows = conn.execute(
                "SELECT type, data FROM events WHERE stream = %s ORDER BY seq", [code]
            ).fetchall()
        answered = answered_decisions(Record(t, d) for t, d in rows)
        assert len(answered) == len(set(answered)) > 50, "a decision answered twice"
    finally:
        for worker in workers:
            stop(worker)


class Record:
    def __init__(self, type_: str, data: dict) -> None:
        self.type, self.data = type_, data
