"""What an operator reads (docs/operations.md "Logs"): with EUCHRE_LOG_LEVEL=info, one JSON
object a line (the output is a file, not a terminal) from every logger, an access line per
request with its status, time and the table it was about, and the request id the answer
carries; a client's own X-Request-ID is kept."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx
from serve_kit import json_lines, own_redis, serving


def test_each_request_is_one_json_access_line_with_its_id_and_table(
    database_url: str, redis_url: str, tmp_path: Path
) -> None:
    settings = {"EUCHRE_LOG_LEVEL": "info"}
    with (
        serving(database_url, own_redis(redis_url), tmp_path, settings=settings) as base,
        httpx.Client(base_url=base, timeout=10) as http,
    ):
        ada = http.post("/api/players", json={"name": "Ada Logs"}).json()
        http.cookies.clear()
        opened = http.post(
            "/api/tables", json={}, headers={"Authorization": f"Bearer {ada['token']}"}
        )
        code = opened.json()["code"]
        shown = http.get(f"/api/tables/{code}", headers={"X-Request-ID": "from-the-proxy-42"})
        assert shown.headers["x-request-id"] == "from-the-proxy-42"
        made = opened.headers["x-request-id"]
        assert len(made) == 32
        missing = http.get("/api/tables/NO-SUCH-TABLE")
        assert missing.status_code == 404
        deadline = time.monotonic() + 10
        while True:
            lines = json_lines(tmp_path / "serve.log")
            access = [line for line in lines if line.get("logger") == "euchre.access"]
            if any(a["status"] == 404 for a in access) or time.monotonic() > deadline:
                break  # the last request's line: the others' came before it
            time.sleep(0.2)
    by_id = {line["request_id"]: line for line in access}
    line = by_id["from-the-proxy-42"]
    assert (line["method"], line["path"], line["status"]) == ("GET", f"/api/tables/{code}", 200)
    assert line["table"] == code and line["level"] == "info" and line["ms"] >= 0
    assert line["process"] == "serve" and "timestamp" in line
    assert by_id[made]["status"] == 201 and by_id[made]["path"] == "/api/tables"
    assert "table" not in by_id[made]  # opened, it had no code in its path yet
    assert any(a["status"] == 404 and a["table"] == "NO-SUCH-TABLE" for a in access)
    # Not ours alone: every logger's lines are JSON objects (uvicorn's start, here).
    assert any(line.get("logger", "").startswith("uvicorn") for line in lines)


# How long a server stays out of reach in the tests below.
DOWN_SECONDS = 8


class Late:
    """A free port where nothing listens (every connection refused) till `open()`, and from
    then every connection to it passed on to `to` (host and port, or a Unix socket's path),
    both ways: a server that comes up late."""

    def __init__(self, to: tuple[str, int] | str) -> None:
        self.to = to
        with socket.socket() as free:
            free.bind(("127.0.0.1", 0))
            self.port = free.getsockname()[1]
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def open(self) -> None:
        listening = asyncio.start_server(self._passed_on, "127.0.0.1", self.port)
        asyncio.run_coroutine_threadsafe(listening, self._loop).result(10)

    def close(self) -> None:
        async def end() -> None:
            tasks = asyncio.all_tasks() - {asyncio.current_task()}
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(end(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    async def _passed_on(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if isinstance(self.to, str):
            far_reader, far_writer = await asyncio.open_unix_connection(self.to)
        else:
            far_reader, far_writer = await asyncio.open_connection(*self.to)
        await asyncio.gather(self._pipe(reader, far_writer), self._pipe(far_reader, writer))

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()


@contextlib.contextmanager
def late(to: tuple[str, int] | str) -> Iterator[Late]:
    server = Late(to)
    try:
        yield server
    finally:
        server.close()


def about(lines: list[dict], dependency: str) -> list[str]:
    """What the lines say about a server out of reach (infra/outages.py)."""
    return [line["event"] for line in lines if line.get("dependency") == dependency]


def tracebacks(log: Path, naming: str) -> list[str]:
    """Tracebacks in the log (printed, or a JSON line's) that name `naming`. Only those: the
    test's Redis database is shared, and a bot turn another test left there fails loudly
    here, its table unknown to this test's database."""
    printed = [line for line in log.read_text().splitlines() if not line.startswith("{")]
    found = [line.get("exception", "") for line in json_lines(log)] + ["\n".join(printed)]
    return [t for t in found if "Traceback" in t and naming in t]


def wait_for(log: Path, enough: Callable[[list[dict]], bool], seconds: float = 30) -> list[dict]:
    deadline = time.monotonic() + seconds
    while True:
        lines = json_lines(log) if log.exists() else []  # `serving` makes it as it starts
        if enough(lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.2)


def test_a_database_out_of_reach_at_start_is_one_line_then_one_when_it_answers(
    empty_database_url: str, redis_url: str, tmp_path: Path
) -> None:
    parts = urlsplit(empty_database_url)
    if parts.hostname:
        far: tuple[str, int] | str = (parts.hostname, parts.port or 5432)
    else:  # the embedded server's socket: `?host=<directory>&port=<n>`
        query = dict(parse_qsl(parts.query))
        far = f"{query['host']}/.s.PGSQL.{query.get('port', 5432)}"
    log = tmp_path / "serve.log"
    with late(far) as database:
        url = urlunsplit(
            parts._replace(netloc=f"{parts.username}@127.0.0.1:{database.port}", query="")
        )

        # `serving` returns once the service answers, which it can't till the database does.
        def answer_later() -> None:
            wait_for(log, lambda lines: bool(about(lines, "database")), seconds=90)
            time.sleep(DOWN_SECONDS)
            database.open()

        threading.Thread(target=answer_later, daemon=True).start()
        with serving(url, own_redis(redis_url), tmp_path):
            lines = wait_for(log, lambda lines: len(about(lines, "database")) >= 2)
    assert not tracebacks(log, "psycopg")
    said = about(lines, "database")
    assert len(said) == 2, said
    assert said[0].startswith(f"database at 127.0.0.1:{database.port} unreachable: Operational")
    assert "Connection refused" in said[0]
    assert said[1] == "database reachable again"


def test_a_broker_out_of_reach_is_one_line_in_the_worker_then_one_when_it_answers(
    database_url: str, redis_url: str, rabbitmq_url: str, tmp_path: Path
) -> None:
    parts = urlsplit(rabbitmq_url)
    log = tmp_path / "serve.log"
    with late((parts.hostname or "127.0.0.1", parts.port or 5672)) as rabbit:
        netloc = f"{parts.username}:{parts.password}@127.0.0.1:{rabbit.port}"
        settings = {"EUCHRE_BROKER_URL": urlunsplit(parts._replace(netloc=netloc))}
        with serving(database_url, own_redis(redis_url), tmp_path, settings=settings):
            wait_for(log, lambda lines: len(about(lines, "broker")) >= 1)
            time.sleep(DOWN_SECONDS)  # Dramatiq's six consumers each retry every 3 s
            down = [
                line["event"]
                for line in json_lines(log)
                if line.get("logger", "").startswith(("pika", "dramatiq"))
            ]
            rabbit.open()
            lines = wait_for(log, lambda lines: len(about(lines, "broker")) >= 2)
    assert not tracebacks(log, "pika")
    said = about(lines, "broker")
    assert said == [
        f"broker at 127.0.0.1:{rabbit.port} unreachable: "
        "ConnectionRefusedError: [Errno 111] Connection refused",
        "broker reachable again",
    ]
    assert down == said[:1]  # of all pika's and Dramatiq's lines while it was down
