"""The `euchre` command as a newcomer meets it: help that explains, one-sentence refusals with
exit code 2 for an operator's mistakes, the embedded servers' addresses shown, a quiet worker."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from infra.embedded import EmbeddedPostgres
from infra.settings import described
from services.cli import parser

EUCHRE = [sys.executable, "-m", "services.cli"]
ROOT = Path(__file__).resolve().parents[2]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EUCHRE_")}
    return {**env, **extra}


def _run(*args: str, timeout: float = 60, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*EUCHRE, *args],
        env=_env(**env),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def data_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="euchre-cli-") as directory:
        yield Path(directory)


def _read_until(process: subprocess.Popen[str], word: str, seconds: float = 60) -> str:
    """What `process` printed up to the first line holding `word` (or its end)."""
    lines = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        lines.append(line)
        if word in line or not line:
            break
    return "".join(lines)


def _serve(data_dir: Path, *options: str) -> subprocess.Popen[str]:
    """`euchre serve` on a port it picks (port 0; `_served_port` reads it back) from
    `data_dir`, its output piped to be read."""
    return subprocess.Popen(
        [*EUCHRE, "serve", "--port", "0", *options],
        env=_env(EUCHRE_DATA_DIR=str(data_dir)),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _served_port(said: str) -> int:
    """The port a server started on port 0 names in its start line: the system picked it as
    the server bound it, so no other process could take it first."""
    named = re.search(r"serving on http://127\.0\.0\.1:(\d+)/ ", said)
    assert named and int(named.group(1)) > 0, said
    return int(named.group(1))


def test_help_describes_every_subcommand_argument_and_variable() -> None:
    top = parser()
    commands = next(a for a in top._actions if a.dest == "command")
    for choice in commands._choices_actions:
        assert choice.help, f"`euchre {choice.dest}` has no description in `euchre --help`"
    for name, sub in commands.choices.items():
        if name == "tournament":  # parses its own arguments
            continue
        assert sub.description, f"`euchre {name} --help` has no description"
        for action in sub._actions:
            assert action.help, (
                f"`euchre {name}`: {action.option_strings or action.dest} has no help"
            )
    shown = _run("--help").stdout
    for variable, _ in described():
        assert variable in shown, f"`euchre --help` doesn't name {variable}"


def test_version_says_which_release() -> None:
    done = _run("--version")
    assert done.returncode == 0 and re.fullmatch(r"euchre \d+\.\d+\.\d+\n", done.stdout), done


def test_the_api_alone_needs_the_service_s_servers_named() -> None:
    done = _run("api")
    assert done.returncode == 2
    assert done.stderr.strip().startswith(
        "euchre api: set EUCHRE_DATABASE_URL and EUCHRE_REDIS_URL"
    )
    assert "Traceback" not in done.stderr


def _api(database_url: str, redis_url: str, data_dir: Path, port: int) -> subprocess.Popen:
    """`euchre api` on `port` over the test's servers, its output piped to the test."""
    return subprocess.Popen(
        [*EUCHRE, "api", "--port", str(port)],
        env=_env(
            EUCHRE_DATABASE_URL=database_url,
            EUCHRE_REDIS_URL=redis_url,
            EUCHRE_DATA_DIR=str(data_dir),
        ),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_the_api_alone_serves_with_no_worker_and_no_embedded_server(
    database_url: str, redis_url: str, data_dir: Path
) -> None:
    """docs/scaling.md's API processes behind a load balancer: `euchre api` serves from the
    service's own servers; the bots are `euchre worker`'s."""
    server = _api(database_url, redis_url, data_dir, 0)
    try:
        said = _read_until(server, "serving on")
        port = _served_port(said)
        assert "embedded" not in said and "worker" not in said, said
        assert httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=10).status_code == 200
        assert _children(server.pid) == [], "nothing started beside the API"
        # Its signing key, made at first start; no embedded server's data.
        assert [p.name for p in data_dir.iterdir()] == ["signing-keys.json"]
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=60)
    assert server.returncode == 0, err
    assert "Traceback" not in err, err


def test_port_0_serves_on_a_free_port_that_the_start_line_names(
    database_url: str, redis_url: str, data_dir: Path
) -> None:
    """What the test servers start with (tests/e2e/serve_kit.py): the system picks the port
    as the server binds it, so no other process can take it first."""
    server = _api(database_url, redis_url, data_dir, 0)
    try:
        port = _served_port(_read_until(server, "serving on"))
        health = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=10)
        assert health.status_code == 200
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=60)
    assert server.returncode == 0, err


def test_tournament_help_names_its_levels() -> None:
    shown = _run("tournament", "--help").stdout
    assert "LEVEL_A" in shown and "LEVEL_B" in shown
    assert "easy, medium, hard, expert" in shown


def test_a_taken_port_is_one_sentence_and_exit_2_before_anything_starts(data_dir: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _run("serve", "--port", str(port), EUCHRE_DATA_DIR=str(data_dir))
    assert done.returncode == 2, done
    assert "serving" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(port) in lines[0] and "--port" in lines[0], done.stderr
    assert not (data_dir / "postgres").exists(), "started PostgreSQL for a port it couldn't have"


def test_a_busy_data_directory_is_one_sentence_and_exit_2(data_dir: Path) -> None:
    with EmbeddedPostgres(data_dir):
        done = _run("serve", "--port", "0", EUCHRE_DATA_DIR=str(data_dir))
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "EUCHRE_DATA_DIR" in lines[0] and "Traceback" not in done.stderr


def test_serve_shows_the_embedded_servers_then_stops_cleanly(data_dir: Path) -> None:
    server = _serve(data_dir)
    try:
        shown = _read_until(server, "serving on")
        _served_port(shown)
        assert "postgresql://" in shown and "unix://" in shown, shown
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=60)
    assert server.returncode == 0, err
    assert "Traceback" not in err and "Shutting down" not in out + err


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc to see who holds a connection")
def test_serve_with_two_processes_answers_from_both_and_stops_every_one(data_dir: Path) -> None:
    server = _serve(data_dir, "--processes", "2")
    spawned: list[int] = []
    try:
        said = _read_until(server, "serving on")
        port = _served_port(said)
        # Forked by a fork server, they say who they are as they start.
        spawned = [int(pid) for pid in re.findall(r"(?:worker|api-1) started \(pid (\d+)\)", said)]
        assert len(spawned) == 2, "a bot worker and a second API process"
        answered_by: set[int] = set()
        asked = 0
        # "serving on" is the first API process's word; the second may still be starting, and
        # until it accepts, every connection goes to the first. So ask, a little apart, for
        # a while, not a number of times (200 at once were sometimes all the first's).
        deadline = time.monotonic() + 30
        while len(answered_by) < 2 and time.monotonic() < deadline:
            with socket.create_connection(("127.0.0.1", port)) as connection:
                connection.sendall(b"GET /api/health HTTP/1.1\r\nHost: test\r\n\r\n")
                assert connection.recv(4096).startswith(b"HTTP/1.1 200")
                answered_by.add(_holder(port, connection, [server.pid, *spawned]))
            asked += 1
            time.sleep(0.02)
        assert len(answered_by) == 2, f"only {answered_by} answered {asked} connections in 30 s"
    finally:
        server.send_signal(signal.SIGINT)  # the parent alone: it stops the others
        _, err = server.communicate(timeout=90)
    assert server.returncode == 0, err
    assert "Traceback" not in err and "leaked" not in err, err
    deadline = time.monotonic() + 30
    while any(_running(c) for c in spawned) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [c for c in spawned if _running(c)]


def _holder(port: int, connection: socket.socket, candidates: list[int]) -> int:
    """Which of `candidates` holds the server's end of `connection` to `port`."""
    client_port = connection.getsockname()[1]
    inodes = {
        fields[9]
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]
        if (fields := line.split())
        and int(fields[1].split(":")[1], 16) == port
        and int(fields[2].split(":")[1], 16) == client_port
    }
    for pid in candidates:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd).removeprefix("socket:[").rstrip("]") in inodes:
                    return pid
    raise AssertionError(f"nobody holds the connection from port {client_port}")


def _children(pid: int) -> list[int]:
    return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc to find the worker processes")
def test_a_sigterm_to_a_multi_process_worker_stops_every_process(
    database_url: str, redis_url: str
) -> None:
    worker = _start_worker(database_url, redis_url, "--processes", "2", "--threads", "1")
    workers: list[int] = []
    try:
        _read_until(worker, "ready")
        _read_until(worker, "ready")
        workers += [c for c in _children(worker.pid) if "spawn_main" in _cmdline(c)]
        assert len(workers) == 2
        worker.send_signal(signal.SIGTERM)  # the parent alone, as a supervisor stops it
        worker.communicate(timeout=60)
        deadline = time.monotonic() + 30
        while any(_running(c) for c in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [c for c in workers if _running(c)]
    finally:
        for pid in workers:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
        worker.kill()
        worker.communicate()


@pytest.mark.skipif(sys.platform != "linux", reason="signals one thread, found in /proc, by tgkill")
def test_a_sigterm_that_lands_on_another_thread_still_stops_the_worker(
    database_url: str, redis_url: str
) -> None:
    """The kernel hands a process's signal to any of its threads that takes it: the worker's
    main thread, asleep until told to stop, must hear of one taken by another."""
    worker = _start_worker(database_url, redis_url, "--threads", "1")
    try:
        _read_until(worker, "ready")
        others = [int(t.name) for t in Path(f"/proc/{worker.pid}/task").iterdir()]
        others.remove(worker.pid)
        assert ctypes.CDLL(None, use_errno=True).tgkill(worker.pid, others[0], signal.SIGTERM) == 0
        worker.communicate(timeout=60)
        assert worker.returncode == 0
    finally:
        if worker.poll() is None:
            worker.kill()
        worker.communicate()


def _start_worker(database_url: str, redis_url: str, *options: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*EUCHRE, "worker", *options],
        env=_env(EUCHRE_DATABASE_URL=database_url, EUCHRE_REDIS_URL=redis_url),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")


def test_the_worker_says_ready_without_migration_noise(database_url: str, redis_url: str) -> None:
    worker = _start_worker(database_url, redis_url, "--threads", "1")
    try:
        shown = _read_until(worker, "ready")
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # cleanup only: this test is about what it printed
            worker.kill()
            worker.communicate()
    assert "worker ready" in shown, shown
    assert "alembic" not in shown.lower() and "upgrade" not in shown.lower(), shown


def test_export_beside_a_running_serve_reads_its_database_and_signs_with_its_key(
    data_dir: Path,
) -> None:
    """No URLs set: the export finds the PostgreSQL `serve` runs in the data directory (it
    used to refuse: "data directory in use"), and signs its header's head with the key whose
    public half the service publishes."""
    server = _serve(data_dir)
    try:
        port = _served_port(_read_until(server, "serving on"))
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            token = http.post("/api/players", json={"name": "Ada"}).json()["token"]
            http.headers["Authorization"] = f"Bearer {token}"
            view = http.post("/api/tables", json={"code": "BESIDE"}).json()
            http.cookies.clear()
            keys = [k["key"] for k in http.get("/.well-known/euchre-keys").json()["keys"]]
        done = _run("export", "BESIDE", EUCHRE_DATA_DIR=str(data_dir))
        assert done.returncode == 0, done.stderr
        header = json.loads(done.stdout.splitlines()[0])
        assert header["signed_head"]["key"] == keys[0] == view["signed_head"]["key"]
        assert header["signed_head"]["hash"] == header["head"] == view["head"]
        checked = _run("verify", "BESIDE", EUCHRE_DATA_DIR=str(data_dir))
        assert checked.returncode == 1 and "isn't over" in checked.stdout, checked
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=60)
    assert server.returncode == 0, err
