"""A real Prometheus (Debian's package) scrapes a running `euchre serve` of two API processes
and its worker while a person plays a game with three bots and a spectator watches; its query
API then holds the key series with values that make sense, summed over the processes."""

from __future__ import annotations

import contextlib
import os
import random
import re
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest
from serve_kit import ROOT, euchre, own_redis, serving, stop
from test_two_processes import choose, follow

SCRAPE_EVERY = "1s"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prometheus_binary() -> str:
    found = shutil.which("prometheus")
    if found is None:
        if os.environ.get("EUCHRE_TEST_REQUIRE_PROMETHEUS") == "1":
            pytest.fail("prometheus is missing: apt-get install prometheus")
        pytest.skip("no prometheus: apt-get install prometheus (CI does)")
    return found


class Prometheus:
    """The binary alone, not the service: a config of the test's own, its data in tmp, a free
    port, scraping `target` every second."""

    def __init__(self, target: str, folder: Path) -> None:
        self.folder = folder
        config = folder / "prometheus.yml"
        config.write_text(
            "global:\n"
            f"  scrape_interval: {SCRAPE_EVERY}\n"
            f"  scrape_timeout: {SCRAPE_EVERY}\n"
            "scrape_configs:\n"
            "  - job_name: euchre\n"
            "    static_configs:\n"
            f"      - targets: ['{target}']\n"
        )
        self.port = _free_port()
        self.log = (folder / "prometheus.log").open("w")
        self.process = subprocess.Popen(
            [
                prometheus_binary(),
                f"--config.file={config}",
                f"--storage.tsdb.path={folder / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Prometheus:
        deadline = time.monotonic() + 60
        while True:
            assert self.process.poll() is None, (self.folder / "prometheus.log").read_text()
            try:
                if httpx.get(f"{self.url}/-/ready", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "prometheus didn't get ready"
            time.sleep(0.2)

    def __exit__(self, *exc) -> None:
        stop(self.process)
        self.log.close()

    def query(self, expr: str) -> dict[tuple, float]:
        """An instant query's samples, by their labels (sorted pairs)."""
        answer = httpx.get(f"{self.url}/api/v1/query", params={"query": expr}, timeout=10)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["status"] == "success", body
        return {
            tuple(sorted(s["metric"].items())): float(s["value"][1]) for s in body["data"]["result"]
        }

    def one(self, expr: str) -> float:
        found = self.query(expr)
        assert len(found) == 1, (expr, found)
        return next(iter(found.values()))

    def scraped_since(self, moment: float) -> None:
        """Wait for a scrape that began after `moment` (time.time())."""
        deadline = time.monotonic() + 30
        while max(self.query('timestamp(up{job="euchre"})').values(), default=0) <= moment:
            assert time.monotonic() < deadline, "no scrape came"
            time.sleep(0.3)

    def eventually(self, expr: str, seconds: float = 30) -> float:
        """The one sample of `expr` once there is one (a worker's follower may be a moment
        behind the game's end)."""
        deadline = time.monotonic() + seconds
        while not (found := self.query(expr)):
            assert time.monotonic() < deadline, f"nothing for {expr}"
            time.sleep(0.5)
        assert len(found) == 1, (expr, found)
        return next(iter(found.values()))


def test_prometheus_scrapes_a_game_with_bots(database_url: str, redis_url: str, tmp_path: Path):
    with (
        serving(database_url, own_redis(redis_url), tmp_path, options=("--processes", "2")) as base,
        Prometheus(base.removeprefix("http://"), tmp_path) as prometheus,
        httpx.Client(base_url=base, timeout=30) as http,
    ):
        ada = http.post("/api/players", json={"name": "Ada"}).json()
        http.cookies.clear()
        as_ada = {"Authorization": f"Bearer {ada['token']}"}
        code = http.post("/api/tables", json={"bots": "medium"}, headers=as_ada).json()["code"]
        seen: list = []
        done = threading.Event()
        spectator = threading.Thread(target=follow, args=(base, code, {}, seen, done), daemon=True)
        spectator.start()
        while not seen:
            time.sleep(0.05)
        prometheus.scraped_since(time.time())
        assert prometheus.one("sum(euchre_sse_streams_open)") >= 1
        assert http.post(f"/api/tables/{code}/start", headers=as_ada).status_code == 200

        rng = random.Random(3)
        deadline = time.monotonic() + 240
        while (view := http.get(f"/api/tables/{code}", headers=as_ada).json())["status"] != "over":
            assert time.monotonic() < deadline, f"stalled at seq {view['seq']}"
            can = {k: v for k, v in view["can"].items() if k != "deal"}
            if not can:
                time.sleep(0.02)
                continue
            body = {**choose(can, rng), "seq": view["seq"]}
            moved = http.post(f"/api/tables/{code}/moves", json=body, headers=as_ada)
            assert moved.status_code in (200, 409), moved.text  # 409: a bot moved first
        # A watcher back after a dropped connection: it resumes where it was.
        with http.stream(
            "GET", f"/api/tables/{code}/events", headers={"Last-Event-ID": str(view["seq"] - 5)}
        ) as resumed:
            next(resumed.iter_lines())
        spectator.join(timeout=30)
        done.set()

        prometheus.scraped_since(time.time() + 1)
        assert prometheus.one('up{job="euchre"}') == 1
        # Moves: the person's and the bots', summed over both API processes and the worker.
        accepted = prometheus.query("sum by (kind) (euchre_moves_accepted_total)")
        kinds = {dict(labels)["kind"]: n for labels, n in accepted.items()}
        assert kinds.get("play", 0) >= 20, kinds  # a game is at least five hands of tricks
        assert kinds.get("open") == 1, kinds
        assert prometheus.one("sum(euchre_event_append_latency_seconds_count)") > 50
        p99 = "histogram_quantile(0.99, sum by (le) (euchre_event_append_latency_seconds_bucket))"
        assert 0 < prometheus.one(p99) < 5
        # Every move reached the watchers' streams, quickly.
        assert prometheus.one("sum(euchre_move_view_latency_seconds_count)") > 20
        view_p50 = "histogram_quantile(0.5, sum by (le) (euchre_move_view_latency_seconds_bucket))"
        assert 0 < prometheus.one(view_p50) < 1
        assert prometheus.one('sum(euchre_sse_streams_opened_total{start="resumed"})') >= 1
        assert prometheus.one("max_over_time(sum(euchre_sse_streams_open)[5m:1s])") >= 1
        # The bots, by level: their decisions and how late their moves were.
        decided = prometheus.query("sum by (level) (euchre_bot_decision_seconds_count)")
        assert {dict(labels)["level"] for labels in decided} == {"medium"}
        assert next(iter(decided.values())) > 20
        lateness = "histogram_quantile(0.5, sum by (le) (euchre_bot_lateness_seconds_bucket))"
        assert 0 <= prometheus.one(lateness) < 1
        # Read from the service at each scrape: the worker is alive, the queues are there.
        assert prometheus.one("euchre_workers_alive") >= 1
        queues = prometheus.query("euchre_queue_messages")
        assert {dict(labels)["queue"] for labels in queues} == {"bots", "ratings", "reviews"}
        lags = prometheus.query("euchre_follower_lag_seconds")
        assert {dict(labels)["follower"] for labels in lags} >= {"ratings", "reviews"}
        assert all(0 <= lag < 60 for lag in lags.values()), lags
        assert prometheus.query("euchre_metrics_source_up == 0") == {}
        # The game won was rated: the ratings follower applied it.
        rated = 'euchre_follower_apply_lag_seconds_count{follower="ratings"} > 0'
        assert prometheus.eventually(f"sum({rated})") >= 1
        assert prometheus.query("euchre_chain_verification_failures_total > 0") == {}


def test_a_worker_serves_its_processes_metrics_on_its_own_port(
    database_url: str, redis_url: str, tmp_path: Path
):
    """`euchre worker --processes 2` with EUCHRE_WORKER_METRICS_PORT: one endpoint for both
    processes (tests/services/test_http_metrics.py sums processes' values and keeps out addresses
    not allowed), in the same format as the API's."""
    env = {
        **os.environ,
        "EUCHRE_DATABASE_URL": database_url,
        "EUCHRE_REDIS_URL": own_redis(redis_url),
        "EUCHRE_WORKER_METRICS_PORT": "0",  # the worker binds a free one and names it
    }
    log = (tmp_path / "worker.log").open("w")
    worker = subprocess.Popen(
        euchre("worker", "--processes", "2", "--threads", "1"),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    said = tmp_path / "worker.log"
    try:
        deadline = time.monotonic() + 90
        while not (named := re.search(r"metrics on http://[^:]+:(\d+)/metrics", said.read_text())):
            assert worker.poll() is None, said.read_text()
            assert time.monotonic() < deadline, "the worker never named its metrics port"
            time.sleep(0.1)
        port = int(named.group(1))
        while True:
            assert worker.poll() is None, said.read_text()
            with contextlib.suppress(httpx.HTTPError):
                answer = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5)
                # A process's append latency is there from its start, at a count of 0.
                if "euchre_event_append_latency_seconds_count" in answer.text:
                    break
            assert time.monotonic() < deadline, "the worker's metrics never came"
            time.sleep(0.3)
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
        assert httpx.get(f"http://127.0.0.1:{port}/other", timeout=5).status_code == 404
    finally:
        stop(worker)
        log.close()
