"""A thin test client for the HTTP contract: players, tables, moves, the stream and the log."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import uvicorn


class Player:
    def __init__(self, api: Api, name: str) -> None:
        response = api.http.post("/api/players", json={"name": name})
        assert response.status_code == 201, response.text
        body = response.json()
        self.id, self.name, self.token = body["id"], body["name"], body["token"]
        self.api = api
        self.headers = {"Authorization": f"Bearer {self.token}"}

    def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        # Cookies are for browsers; tests identify players by their bearer token only.
        self.api.http.cookies.clear()
        headers = {**self.headers, **kw.pop("headers", {})}
        return self.api.http.request(method, path, headers=headers, **kw)

    def ok(self, method: str, path: str, **kw: Any) -> dict:
        response = self.request(method, path, **kw)
        assert response.status_code in (200, 201), (response.status_code, response.text)
        return response.json()

    def move(self, code: str, body: dict) -> httpx.Response:
        return self.request("POST", f"/api/tables/{code}/moves", json=body)


class Api:
    def __init__(self, http: httpx.Client) -> None:
        self.http = http

    def player(self, name: str) -> Player:
        return Player(self, name)

    def lobby_until(self, codes: list[str], seconds: float = 10) -> list[dict]:
        """The lobby once it lists exactly `codes`: it follows the log about a second behind."""
        deadline = time.monotonic() + seconds
        while True:
            tables = self.http.get("/api/tables").json()["tables"]
            if [t["code"] for t in tables] == codes or time.monotonic() > deadline:
                assert [t["code"] for t in tables] == codes
                return tables
            time.sleep(0.1)

    def log(self, code: str) -> list[dict]:
        response = self.http.get(f"/api/tables/{code}/log")
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("application/x-ndjson")
        return [json.loads(line) for line in response.text.splitlines()]


def sse_events(response: httpx.Response) -> Iterator[dict]:
    """Parse a text/event-stream into {event, id, data, comment} dicts as they arrive."""
    event: dict[str, Any] = {}
    for line in response.iter_lines():
        if line == "":
            if event:
                yield event
            event = {}
            continue
        if line.startswith(":"):
            yield {"comment": line[1:].strip()}
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            event["data"] = event.get("data", "") + value
        else:
            event[field] = value


class Server:
    def __init__(self, app) -> None:
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=0,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=1,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


# A password good enough to register a name with: sign-up refuses easy ones (infra/passwords.py).
PASSWORD = "lantern quarry biscuit vole"
