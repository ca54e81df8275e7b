"""Serving the app as a newcomer does (`uv run euchre serve`) for tests: a process of its own
over a test's database, found by its health check, stopped with everything it started."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
import redis

ROOT = Path(__file__).resolve().parents[2]


def _our_databases() -> Iterator[int]:
    """Redis databases 10-15, shared out among the test processes (pytest-xdist's workers, by
    the number each is given): no two processes ever use the same one."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    k, n = int(worker.removeprefix("gw")), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    ours = range(10 + k, 16, n)
    assert ours, f"Redis has 6 databases for served tests: too few for {n} test processes"
    return itertools.cycle(ours)


REDIS_DBS = _our_databases()


def own_redis(redis_url: str) -> str:
    """A Redis database of the test's own on the test server (the bots' queues live there),
    emptied first: the last test that had it has stopped everything it started, and what it
    left (a bot turn still due, say) must not reach this test's server."""
    url = _redis_db(redis_url, next(REDIS_DBS))
    with contextlib.closing(redis.Redis.from_url(url)) as client:
        client.flushdb()
    return url


def euchre(*args: str) -> list[str]:
    """The `euchre` command as the README runs it (through uv, when it is on the PATH)."""
    uv = shutil.which("uv")
    if uv:
        return [uv, "run", "euchre", *args]
    return [sys.executable, "-m", "services.cli", *args]


def _redis_db(url: str, db: int) -> str:
    """The same server, database `db`: in the path for redis://, as ?db= for unix sockets."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        query = [(k, v) for k, v in parse_qsl(parts.query) if k != "db"] + [("db", str(db))]
        return f"unix://{parts.path}?{urlencode(query)}"
    return urlunsplit(parts._replace(path=f"/{db}"))


@contextlib.contextmanager
def serving(
    database_url: str,
    redis_url: str,
    folder: Path,
    name: str = "serve",
    bot_scale: float = 0.02,
    settings: Mapping[str, str] | None = None,
    options: tuple[str, ...] = (),
) -> Iterator[str]:
    """`euchre serve` on a port the system picks (`--port 0`) over `database_url`, logging to
    `folder/<name>.log`; its base URL once it answers, and stopped (with everything it started)
    afterwards. Bots think for `bot_scale` of their real time (docs/bots.md "Pacing");
    `settings` are more EUCHRE_ variables; `options` more of the command's own."""
    env = {
        **os.environ,
        "EUCHRE_DATABASE_URL": database_url,
        "EUCHRE_REDIS_URL": redis_url,
        "EUCHRE_BOT_DELAY_SCALE": str(bot_scale),
        "EUCHRE_DATA_DIR": str(folder / "var"),
        **(settings or {}),
    }
    for variable in ("EUCHRE_HOST", "EUCHRE_PORT"):
        env.pop(variable, None)
    output = folder / f"{name}.log"
    log = output.open("w")
    process = subprocess.Popen(
        euchre("serve", "--port", "0", *options),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: uv and the server it runs stop together
    )
    try:
        base = _answering(process, output)
        yield base
    finally:
        stop(process)
        log.close()


SERVING = re.compile(r"is serving on (http://\S+?)/? ")


def _answering(process: subprocess.Popen, output: Path) -> str:
    """The base URL the server says it serves on, once /api/health answers there: the port
    is the one it bound, so no other process can have raced it for the port."""
    deadline = time.monotonic() + 90
    base = None
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"euchre serve exited:\n{output.read_text()}")
        if base is None:
            said = SERVING.search(output.read_text())
            base = said and said.group(1)
        if base is not None:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                    return base
        if time.monotonic() > deadline:
            raise RuntimeError(f"euchre serve didn't answer:\n{output.read_text()}")
        time.sleep(0.2)


def json_lines(log: Path) -> list[dict]:
    """The JSON lines of a served process's log (infra/logs.py)."""
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]


def stop(process: subprocess.Popen) -> None:
    """Ctrl-C to the server's own process group; a kill for whatever is still there after 20 s."""
    group = process.pid
    try:
        os.killpg(group, signal.SIGINT)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        process.poll()
        try:
            os.killpg(group, 0)  # anyone left in the group?
        except ProcessLookupError:
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)
    process.wait(timeout=10)


def choose(can: dict, rng: random.Random) -> dict:
    """A move's body from what a person `can` do (a view's `can`, less dealing)."""
    kind = sorted(k for k in can if k not in ("deal", "claim"))[0]
    body: dict = {"type": kind}
    if kind in ("play", "discard"):
        body["card"] = rng.choice(can[kind]["cards"])
    elif kind == "call":
        body["suit"] = can["call"]["suits"][0]
    elif kind == "order":
        body["alone"] = bool(can["order"].get("must_alone"))
    return body


def follow(base: str, code: str, headers: dict, seen: list, done: threading.Event) -> None:
    """Read the table's stream into `seen` (its views' seq and status) until `done`."""
    with (
        httpx.Client(base_url=base, timeout=60) as http,
        http.stream("GET", f"/api/tables/{code}/events", headers=headers) as response,
    ):
        for line in response.iter_lines():
            if line.startswith("data:"):
                view = json.loads(line[5:])
                seen.append((view["seq"], view["status"]))
                if view["status"] == "over" or done.is_set():
                    return
