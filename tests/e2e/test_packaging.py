"""The packaging under infra/deploy/ (docs/operations.md "Packaging"), each file checked by its
own tool where the machine has one: the systemd units by `systemd-analyze verify`, the HAProxy
example by `haproxy -c` and then by serving through it, over TLS, a running service's event
stream. No image builder runs here, so the Containerfile is checked for what can be seen
without building it."""

from __future__ import annotations

import contextlib
import json
import re
import shlex
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serve_kit import ROOT, own_redis, serving

from services.api.app import create_app
from services.api.server import DRAIN_SECONDS
from services.cli import parser

DEPLOY = ROOT / "infra" / "deploy"
UNITS = ["euchre-api.service", "euchre-worker.service"]
INSTALLED = "/opt/euchre/.venv/bin/euchre"  # where the units expect the command
CERTIFICATE = "/etc/haproxy/certs/euchre.pem"


def tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is missing: .ci/run installs it (apt-get install)")
    return found


def directives(unit: str, key: str) -> list[str]:
    text = (DEPLOY / unit).read_text()
    return re.findall(rf"^{key}=(.*)$", text, flags=re.MULTILINE)


@pytest.mark.parametrize("unit", UNITS)
def test_each_unit_passes_systemd_analyze_and_runs_a_real_command(
    unit: str, tmp_path: Path
) -> None:
    # verify wants the command to exist: this checkout's, where the unit says /opt/euchre's.
    here = Path(sys.prefix) / "bin" / "euchre"
    assert here.exists(), here
    copy = tmp_path / unit
    copy.write_text((DEPLOY / unit).read_text().replace(INSTALLED, str(here)))
    verified = subprocess.run(
        [tool("systemd-analyze"), "verify", "--man=no", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert verified.returncode == 0 and not verified.stderr.strip(), verified.stderr
    (start,) = directives(unit, "ExecStart")
    command = shlex.split(start)
    assert command[0] == INSTALLED
    parser().parse_args(command[1:])  # the CLI takes it as it stands (exits 2 if not)
    assert command[1] == unit.removeprefix("euchre-").removesuffix(".service")
    assert directives(unit, "Restart") == ["always"]
    assert directives(unit, "NoNewPrivileges") == ["yes"]


def test_the_api_unit_waits_for_both_drains_before_a_kill() -> None:
    """The unit's first process drains in DRAIN_SECONDS, then the further ones of --processes
    in as long again; a TimeoutStopSec shorter would kill a drain under way."""
    (stop,) = directives("euchre-api.service", "TimeoutStopSec")
    assert int(stop) == 2 * DRAIN_SECONDS + 5


def test_the_container_image_definition_holds_together(database_url: str) -> None:
    lines = (DEPLOY / "Containerfile").read_text().replace("\\\n", " ").splitlines()
    instructions = [line.split(None, 1) for line in lines if line and not line.startswith("#")]
    by = {}
    for word, rest in instructions:
        by.setdefault(word, []).append(rest)
    assert by["FROM"][0].startswith("python:3.") and by["FROM"][0].endswith("-slim")
    for copy in by["COPY"]:
        *sources, _ = copy.split()
        if sources[0].startswith("--from="):
            continue  # from another image
        for source in sources:
            assert (ROOT / source).exists(), f"COPY {source}: not in the checkout"
    assert any("uv sync --frozen --no-dev" in run for run in by["RUN"])
    (user,) = by["USER"]
    assert user not in ("root", "0")
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    (entry,) = by["ENTRYPOINT"]
    assert json.loads(entry)[0] in scripts  # an exec-form list, one word: the command
    (cmd,) = by["CMD"]
    parser().parse_args(json.loads(cmd))
    (port,) = by["EXPOSE"]
    assert f"EUCHRE_PORT={port}" in " ".join(by["ENV"])
    (check,) = by["HEALTHCHECK"]
    (path,) = re.findall(r"/api/health[\w/]*", check)
    app = create_app(database_url)
    assert path in {route.path for route in app.routes}, f"HEALTHCHECK asks {path}, not a route"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def certificate(folder: Path) -> Path:
    """A self-signed certificate for 127.0.0.1 and its key, in one PEM file as HAProxy takes."""
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        [
            tool("openssl"),
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    both = folder / "euchre.pem"
    both.write_text(cert.read_text() + key.read_text())
    return both


def configured(folder: Path, https: int, http: int, api: int) -> Path:
    """The example as it stands but for what only a machine can say: the certificate's path,
    the ports it listens on and the API it sends to."""
    text = (DEPLOY / "haproxy.cfg").read_text()
    text = text.replace(CERTIFICATE, str(certificate(folder)))
    text = text.replace("bind :443 ", f"bind 127.0.0.1:{https} ")
    text = text.replace("bind :80\n", f"bind 127.0.0.1:{http}\n")
    servers = re.findall(r"^    server .*\n", text, flags=re.MULTILINE)
    assert servers, "no server in the backend"
    text = text.replace("".join(servers), f"    server api-1 127.0.0.1:{api} check\n")
    path = folder / "haproxy.cfg"
    path.write_text(text)
    return path


def test_the_haproxy_example_is_valid(tmp_path: Path) -> None:
    config = configured(tmp_path, free_port(), free_port(), 8000)
    checked = subprocess.run(
        [tool("haproxy"), "-c", "-f", str(config)], capture_output=True, text=True, timeout=60
    )
    said = checked.stdout + checked.stderr
    assert checked.returncode == 0 and "WARNING" not in said and "ALERT" not in said, said


@contextlib.contextmanager
def haproxy(config: Path) -> Iterator[Path]:
    """HAProxy in the foreground on `config`; the file it logs to."""
    log = config.with_suffix(".log")
    with log.open("w") as output:
        process = subprocess.Popen(
            [tool("haproxy"), "-db", "-f", str(config)], stdout=output, stderr=subprocess.STDOUT
        )
        try:
            yield log
        finally:
            process.terminate()
            process.wait(timeout=10)


def test_an_event_stream_comes_through_haproxy_over_tls_as_it_happens(
    database_url: str, redis_url: str, tmp_path: Path
) -> None:
    https, http = free_port(), free_port()
    with serving(database_url, own_redis(redis_url), tmp_path) as base:
        config = configured(tmp_path, https, http, int(base.rsplit(":", 1)[1]))
        cert = ssl.create_default_context(cafile=tmp_path / "cert.pem")
        with (
            haproxy(config) as log,
            httpx.Client(base_url=f"https://127.0.0.1:{https}", verify=cert, timeout=10) as web,
        ):
            deadline = time.monotonic() + 30
            while True:  # till HAProxy's own check has found the API ready
                with contextlib.suppress(httpx.HTTPError):
                    if web.get("/api/health/ready").status_code == 200:
                        break
                assert time.monotonic() < deadline, f"nothing came through:\n{log.read_text()}"
                time.sleep(0.2)
            plain = httpx.get(f"http://127.0.0.1:{http}/api/health")
            assert plain.status_code == 301
            assert plain.headers["location"] == f"https://127.0.0.1:{http}/api/health"
            ada = web.post("/api/players", json={"name": "Ada Proxied"}).json()
            web.cookies.clear()
            as_ada = {"Authorization": f"Bearer {ada['token']}"}
            code = web.post("/api/tables", json={"bots": "medium"}, headers=as_ada).json()["code"]
            frames: list[float] = []  # when each frame came
            started = threading.Event()
            before = 0

            def read() -> None:
                stream = ("GET", f"/api/tables/{code}/events")
                with web.stream(*stream, headers={**as_ada, "Accept": "text/event-stream"}) as r:
                    assert r.headers["content-type"].startswith("text/event-stream")
                    for line in r.iter_lines():
                        if line.startswith("id:"):
                            frames.append(time.monotonic())
                        # The deal and the first bids: then it may be Ada's turn, and quiet.
                        if started.is_set() and len(frames) >= before + 3:
                            return

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            time.sleep(2)
            before = len(frames)
            at = time.monotonic()
            started.set()
            with httpx.Client(base_url=f"https://127.0.0.1:{https}", verify=cert) as other:
                assert other.post(f"/api/tables/{code}/start", headers=as_ada).status_code == 200
            reader.join(timeout=30)
    assert before >= 1, "the stream's first frame, the table as it is, never came through"
    after = frames[before:]
    assert len(after) >= 3, f"{len(after)} frames came through once the game started"
    # Each frame as it happens, not held back in a buffer till many are there.
    assert after[0] - at < 2.0, f"the game's first frame came {after[0] - at:.1f} s late"
