"""`euchre serve` under faults, on its own embedded servers: every process it started is killed
(-9) in turn, twice, while bots play, and the table moves again within 10 s each time with
nothing started by hand; then `serve` itself is killed, leaves nothing running, and the next
`serve` on the same data directory starts."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from proc_kit import alive, family
from serve_kit import ROOT, _answering, euchre, stop

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc to find processes")

MOVES_AGAIN_WITHIN = 10.0
# Moves after the kill that tell play resumed from one still in flight when it came.
MOVES = 8


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """Outside pytest's private temp root, which PostgreSQL's user could not reach as root."""
    with tempfile.TemporaryDirectory(prefix="euchre-serve-") as directory:
        yield Path(directory)


class Serve:
    """`euchre serve --processes 2` on the embedded servers in `data_dir`."""

    def __init__(self, data_dir: Path, output: Path) -> None:
        self.data_dir = data_dir
        self.output = output
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("EUCHRE_DATABASE_URL", "EUCHRE_REDIS_URL", "EUCHRE_BROKER_URL")
        }
        env |= {
            "EUCHRE_DATA_DIR": str(data_dir),
            "EUCHRE_BOT_DELAY_SCALE": "0.05",
            "EUCHRE_PORT": "0",  # serve binds a free port, keeps it for every process, names it
            "EUCHRE_HOST": "127.0.0.1",
        }
        self.process = subprocess.Popen(
            euchre("serve", "--processes", "2"),
            cwd=ROOT,
            env=env,
            stdout=output.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.base = _answering(self.process, output)
        self.wait_until(lambda: answers(f"{self.base}/api/health/ready"), 120, "serve to answer")

    def wait_until(self, condition, seconds: float, what: str) -> None:
        deadline = time.monotonic() + seconds
        while not condition():
            assert self.process.poll() is None, f"serve exited:\n{self.output.read_text()}"
            assert time.monotonic() < deadline, f"waited {seconds} s for {what}:\n{self.log()}"
            time.sleep(0.1)

    def log(self) -> str:
        return self.output.read_text()[-4000:]

    def pid_of(self, name: str) -> int:
        """A process `serve` started, by the lines it prints (the last one named wins)."""
        if name == "PostgreSQL":
            return int((self.data_dir / "postgres" / "postmaster.pid").read_text().split()[0])
        if name == "Valkey":
            return int((self.data_dir / "valkey" / "valkey.pid").read_text())
        text = self.output.read_text()
        found = re.findall(rf"^.*\b{name} (?:re)?started \(pid (\d+)\)", text, re.M)
        assert found, f"no pid for {name}:\n{self.log()}"
        return int(found[-1])

    def serving(self) -> int:
        """The `euchre serve` process under `uv run`."""
        children = [pid for pid in family(self.process.pid) if pid != self.process.pid]
        python = [pid for pid in children if "serve" in cmdline(pid) and "uv" not in cmdline(pid)]
        return min(python)


def test_serve_brings_back_whatever_dies_and_dies_whole(data_dir: Path, tmp_path: Path):
    serve = Serve(data_dir, tmp_path / "serve.log")
    try:
        with httpx.Client(base_url=serve.base, timeout=10) as http:
            table = BotTable(http)
            for name in ["worker", "api-1", "PostgreSQL", "Valkey"] * 2:
                table.ensure_playing()
                pid = serve.pid_of(name)
                before = table.seq()
                os.kill(pid, signal.SIGKILL)
                killed = time.monotonic()
                serve.wait_until(
                    lambda before=before: table.seq(default=before) > before + MOVES,
                    MOVES_AGAIN_WITHIN + 20,
                    f"the table to move after {name} was killed",
                )
                took = time.monotonic() - killed
                print(f"{name} killed: the table moved again {took:.1f} s later")
                assert took < MOVES_AGAIN_WITHIN, f"{name}: {took:.1f} s\n{serve.log()}"
            serve.wait_until(lambda: workers(http) == 1, 30, "health to count one worker")
        assert serve.output.read_text().count("was killed by SIGKILL; restarting it in") == 8

        serving = serve.serving()
        started = family(serving) - {serving}
        assert len(started) > 5, "PostgreSQL and its helpers, Valkey, the worker, api-1"
        os.kill(serving, signal.SIGKILL)
        serve.process.wait(30)
        deadline = time.monotonic() + 30
        while [pid for pid in started if alive(pid)] and time.monotonic() < deadline:
            time.sleep(0.1)
        left = {pid: cmdline(pid) for pid in started if alive(pid)}
        assert not left, f"still running after serve was killed: {left}"
    finally:
        stop(serve.process)

    again = Serve(data_dir, tmp_path / "again.log")
    try:
        with httpx.Client(base_url=again.base, timeout=10) as http:
            assert http.get("/api/health/ready").json()["status"] == "ready"
            again.wait_until(lambda: workers(http) == 1, 30, "the worker")
    finally:
        stop(again.process)
    assert "is in use" not in again.log()


class BotTable:
    """A table of four bots: its host starts it and leaves, and a bot covers the seat."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        self.code = ""
        self.ensure_playing()

    def ensure_playing(self) -> None:
        if self.code and self.status() == "playing":
            return
        host = self.http.post("/api/players", json={"name": "Host"}).json()
        self.http.cookies.clear()
        auth = {"Authorization": f"Bearer {host['token']}"}
        self.code = self.http.post("/api/tables", json={}, headers=auth).json()["code"]
        assert self.http.post(f"/api/tables/{self.code}/start", headers=auth).status_code == 200
        assert self.http.delete(f"/api/tables/{self.code}/seats/0", headers=auth).status_code == 200
        start = self.seq()
        deadline = time.monotonic() + 30
        while self.seq(default=start) <= start + 2:
            assert time.monotonic() < deadline, "the bots never moved"
            time.sleep(0.1)

    def status(self) -> str:
        return self.http.get(f"/api/tables/{self.code}").json()["status"]

    def seq(self, default: int | None = None) -> int:
        """The table's last seq; `default` while the service can't say (a server restarting)."""
        try:
            response = self.http.get(f"/api/tables/{self.code}")
            response.raise_for_status()
            return response.json()["seq"]
        except httpx.HTTPError:
            if default is None:
                raise
            return default


def workers(http: httpx.Client) -> int | None:
    try:
        return http.get("/api/health").json().get("workers")
    except (httpx.HTTPError, ValueError):
        return None


def answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
