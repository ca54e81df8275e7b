"""The event stream under abuse: caps on the streams a process holds open, a resume that sends
the table as it is (not its history), any Last-Event-ID answered without a 500, and a client
that stops reading dropped rather than held."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import threading
import time

import httpx
import pytest
import uvicorn
from http_kit import Server, sse_events
from test_http_stream import play_moves

from domain import commands as cmd
from domain import deciding, fallback
from infra.eventstore import EventStore
from infra.settings import StreamLimits
from services.api import stream_limits
from services.api.app import create_app
from services.api.problems import Problem
from services.api.stream_limits import OPENING, StreamGate
from services.use_cases import Tables


def _signed_up(url: str, name: str) -> dict:
    """A new player's headers (signed up on a client of its own: its cookie stays there)."""
    with httpx.Client(base_url=url, timeout=30) as http:
        made = http.post("/api/players", json={"name": name}).json()
    return {"Authorization": f"Bearer {made['token']}"}


def _watch(held: contextlib.ExitStack, http: httpx.Client, path: str, headers=None) -> dict:
    """Open a stream held open till `held` closes; its first view."""
    response = held.enter_context(http.stream("GET", path, headers=headers))
    assert response.status_code == 200, response.read()
    events = sse_events(response)
    held.callback(events.close)  # kept till then: a generator let go closes the connection
    for event in events:
        if event.get("event") == "view":
            return json.loads(event["data"])
    raise AssertionError("the stream ended without a view")


def _refused(http: httpx.Client, path: str, headers: dict | None = None) -> httpx.Response:
    """The answer to one stream more, which must be a refusal."""
    with http.stream("GET", path, headers=headers) as response:
        assert response.status_code == 429, "one stream more than the cap was let in"
        response.read()
        assert response.headers["content-type"].startswith("application/problem+json")
        assert int(response.headers["Retry-After"]) > 0
        return response


def test_refusals_spread_their_retry_after_so_a_crowd_refused_together_comes_back_apart():
    gate = StreamGate(StreamLimits(anonymous_per_table=0))
    waits = []
    for n in range(40):
        with pytest.raises(Problem) as refused:
            gate.admit("T", f"127.0.0.{n}", None)
        assert refused.value.status == 429
        wait = int(refused.value.headers["Retry-After"])
        assert f"try again in {wait} seconds" in refused.value.detail
        waits.append(wait)
    assert min(waits) >= stream_limits.RETRY_SECONDS
    assert max(waits) <= 2 * stream_limits.RETRY_SECONDS
    assert len(set(waits)) >= 5, f"40 refusals told {sorted(set(waits))}"


def test_anonymous_streams_beyond_the_tables_cap_get_429_and_a_seated_player_still_watches(
    database_url, redis_url
):
    limits = StreamLimits(anonymous_per_table=3, anonymous=100, per_address=100, per_player=2)
    app = create_app(database_url, redis_url, stream_limits=limits)
    with (
        Server(app) as url,
        httpx.Client(base_url=url, timeout=30) as http,
        contextlib.ExitStack() as held,
    ):
        ada = _signed_up(url, "Ada")
        http.post("/api/tables", json={"code": "FULL"}, headers=ada)
        path = "/api/tables/FULL/events"
        for _ in range(3):
            assert _watch(held, http, path)["you"] is None
        assert "at most 3" in _refused(http, path).json()["detail"]
        # The host, seated at the table the anonymous crowd filled, is let in.
        assert _watch(held, http, path, ada)["you"] == 0
        # Their own cap is per player: a second tab, not a third.
        _watch(held, http, path, ada)
        assert "at most 2" in _refused(http, path, ada).json()["detail"]
    # Every place is given back once the streams close.
    assert app.state.stream_gate._counts == {}


def test_anonymous_streams_are_capped_per_address_and_in_all(database_url, redis_url):
    limits = StreamLimits(anonymous_per_table=100, anonymous=3, per_address=2)
    app = create_app(database_url, redis_url, stream_limits=limits)
    with Server(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        ada = _signed_up(url, "Ada")
        for code in ("ALPHA", "BRAVO"):
            http.post("/api/tables", json={"code": code}, headers=ada)
        with contextlib.ExitStack() as held:
            for _ in range(2):
                _watch(held, http, "/api/tables/ALPHA/events")
            refused = _refused(http, "/api/tables/BRAVO/events")
            assert "your address" in refused.json()["detail"]
        app.state.stream_gate.limits = StreamLimits(anonymous_per_table=100, anonymous=3)
        with contextlib.ExitStack() as held:
            for code in ("ALPHA", "BRAVO", "ALPHA"):
                _watch(held, http, f"/api/tables/{code}/events")
            refused = _refused(http, "/api/tables/BRAVO/events")
            assert "on this server (at most 3)" in refused.json()["detail"]


async def _play_out(database_url: str, code: str) -> int:
    """A whole game at `code`, four bots' worth of the rules' fallback moves; its last seq."""
    store = await EventStore.open(database_url, size=2)
    tables = Tables(store)
    try:
        await tables.execute(code, cmd.OpenTable(code=code, host="h0", name="H0", seed="5a" * 32))
        for n in range(1, 4):
            await tables.execute(code, cmd.TakeSeat(player=f"h{n}", name=f"H{n}", seat=n))
        state = await tables.execute(code, cmd.StartGame(player="h0"))
        said = await tables.execute(code, cmd.Say(player="h1", name="H1", text="gl"))
        assert said.seq > 1
        while state.status == "playing":
            state = await tables.execute(code, fallback(state, deciding(state)[0].seat))
        await tables.execute(code, cmd.Say(player="h2", name="H2", text="gg"))
        return state.seq + 1
    finally:
        await store.close()


def _until_keep_alive(url: str, headers: dict) -> tuple[bytes, list[dict]]:
    """What a stream sends before its first keep-alive: its bytes, and its events."""
    got = b""
    with (
        httpx.Client(base_url=url, timeout=30) as http,
        http.stream("GET", "/api/tables/LONG/events", headers=headers) as response,
    ):
        assert response.status_code == 200, response.read()
        for chunk in response.iter_bytes():
            got += chunk
            if b": keep-alive" in got:
                break
    head = got[: got.index(b": keep-alive")]
    events = []
    for block in head.decode().split("\r\n\r\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\r\n") if line)
        if fields:
            events.append(fields)
    return head, events


def test_a_resume_on_a_long_game_sends_the_table_now_and_the_talk_not_the_history(
    database_url, redis_url
):
    last = asyncio.run(_play_out(database_url, "LONG"))
    app = create_app(database_url, redis_url, keep_alive=0.5)
    with Server(app) as url:
        fresh, _ = _until_keep_alive(url, {})
        resumed, events = _until_keep_alive(url, {"Last-Event-ID": "1"})
    print(f"a fresh stream: {len(fresh)} bytes; resumed from 1: {len(resumed)} bytes")
    # The old resume sent every stable state of the game's ~350 events: some 200 views.
    assert len(resumed) < 2 * len(fresh)
    kinds = [(e["event"], int(e["id"])) for e in events]
    assert [k for k, _ in kinds] == ["chat", "chat", "view"]
    assert [seq for _, seq in kinds] == sorted(seq for _, seq in kinds)
    assert kinds[-1] == ("view", last)
    assert [json.loads(e["data"])["text"] for e in events[:2]] == ["gl", "gg"]


@pytest.mark.parametrize(
    "last_id",
    [b"\xb2", "9" * 5000, "99999999999999999999", "-1", "1e3", "12345678"],
    ids=["unicode-digit", "5000-digits", "beyond-any-seq", "negative", "exponent", "ahead"],
)
def test_any_last_event_id_opens_the_stream_afresh(api, last_id):
    ada = api.player("Ada")
    ada.ok("POST", "/api/tables", json={"code": "ODDID"})
    with contextlib.ExitStack() as held:
        headers = {"Last-Event-ID": last_id}
        assert _watch(held, api.http, "/api/tables/ODDID/events", headers)["code"] == "ODDID"


class _SmallBuffers(Server):
    """The test server listening on a socket whose connections buffer little, so a client that
    stops reading fills them within a few views."""

    def __enter__(self) -> str:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        self.sock.bind(("127.0.0.1", 0))
        run = self.server.run
        self.thread = threading.Thread(target=lambda: run(sockets=[self.sock]), daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive()
            time.sleep(0.02)
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"


def test_a_client_that_stops_reading_is_dropped(database_url, redis_url):
    limits = StreamLimits(stall_seconds=1.0)
    # Four people moving flat out would meet the moves' rate limit (25 a second) before long.
    app = create_app(
        database_url,
        redis_url,
        stream_poll=1.0,
        keep_alive=0.5,
        stream_limits=limits,
        rate_limits=None,
    )
    server = _SmallBuffers(app)
    server.server.config = uvicorn.Config(app, log_level="critical", lifespan="on")
    with server as url, httpx.Client(base_url=url, timeout=30) as http:
        people = [_signed_up(url, name) for name in ("Ada", "Bo", "Cy", "Di")]
        http.post("/api/tables", json={"code": "STALL"}, headers=people[0])
        for seat, headers in enumerate(people[1:], start=1):
            http.post(f"/api/tables/STALL/seats/{seat}", headers=headers)
        http.post("/api/tables/STALL/start", headers=people[0])

        silent = socket.socket()
        silent.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        silent.connect(("127.0.0.1", int(url.rsplit(":", 1)[1])))
        silent.sendall(b"GET /api/tables/STALL/events HTTP/1.1\r\nHost: t\r\n\r\n")
        feeds = app.state.services.feeds
        deadline = time.monotonic() + 30
        while not feeds.watching("STALL"):
            assert time.monotonic() < deadline, "the stream never opened"
            time.sleep(0.05)

        class Seated:
            def __init__(self, headers: dict) -> None:
                self.headers = headers

            def ok(self, method: str, path: str, **kw) -> dict:
                answer = http.request(method, path, headers=self.headers, **kw)
                assert answer.status_code == 200, answer.text
                return answer.json()

        rng = random.Random(7)
        seated = [Seated(h) for h in people]
        # The stream's writes wait only once the client's buffers and the server's (the
        # transport's 64 KB among them) are full, and a short game's views may not fill them:
        # once it is over, the table's talk goes on filling them, 500 characters a line.
        said = 0
        while feeds.watching("STALL"):
            assert time.monotonic() < deadline + 60, (
                f"a client that reads nothing still held after a game and {said} chat lines"
            )
            if seated[0].ok("GET", "/api/tables/STALL")["status"] == "playing":
                play_moves(seated, "STALL", 1, rng)
            else:
                line = {"text": "x" * 500}
                said_it = http.post("/api/tables/STALL/chat", json=line, headers=people[said % 4])
                assert said_it.status_code == 204, said_it.text
                said += 1
        silent.close()
    assert app.state.stream_gate._counts == {}


@pytest.mark.anyio
async def test_streams_open_a_few_at_a_time_and_a_refused_one_gives_its_turn_back():
    """Seen: 200 resumes refused together came back together when their Retry-After ran out,
    and queued a second of work ahead of a player's moves. Openings take turns."""
    gate = StreamGate(StreamLimits(anonymous_per_table=100, per_address=100))
    tickets = [gate.admit("TURNS", f"10.0.0.{n}", None) for n in range(OPENING + 2)]
    for ticket in tickets[:OPENING]:
        await ticket.wait_turn()
    waiting = asyncio.create_task(tickets[OPENING].wait_turn())
    await asyncio.sleep(0.05)
    assert not waiting.done()  # every turn is taken
    tickets[0].opened()  # its first frames went out
    await asyncio.wait_for(waiting, 1)
    late = asyncio.create_task(tickets[OPENING + 1].wait_turn())
    await asyncio.sleep(0.05)
    assert not late.done()
    tickets[1].release()  # a stream that ended before its first frames
    tickets[1].release()
    await asyncio.wait_for(late, 1)
    assert gate._turns._value == 0  # released once each, not twice
