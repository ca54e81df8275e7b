"""Table talk over HTTP: chat and reactions reach every watcher live and on resume, in log
order with the views; they never make a move stale; the host mutes; bad input is named."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import httpx
import pytest
from http_kit import Player, sse_events

from domain.events import EMOJI
from services.api import stream


def read_stream(
    base_url: str, path: str, headers: dict, until: Callable[[list], bool], out: list
) -> threading.Thread:
    """Read the stream in a thread into `out` until `until(out)`; returns once the first
    message has arrived, so what is sent afterwards is sure to come after it."""
    first = threading.Event()

    def run() -> None:
        with (
            httpx.Client(base_url=base_url, timeout=30) as http,
            http.stream("GET", path, headers=headers) as response,
        ):
            for event in sse_events(response):
                if "comment" in event:
                    continue
                out.append(event)
                first.set()
                if until(out):
                    return

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert first.wait(timeout=30), "the stream sent nothing"
    return thread


def chat(person: Player, code: str, text: str) -> httpx.Response:
    return person.request("POST", f"/api/tables/{code}/chat", json={"text": text})


def react(person: Player, code: str, emoji: str) -> httpx.Response:
    return person.request("POST", f"/api/tables/{code}/reactions", json={"emoji": emoji})


def problem(response: httpx.Response, status: int, field: str | None = None) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body.get("field") == field, body
    return body


@pytest.fixture
def room(api):
    """Ada hosts WORDS and Bo sits in seat 1; nobody has started."""
    ada, bo = api.player("Ada"), api.player("Bo")
    code = ada.ok("POST", "/api/tables", json={"code": "WORDS"})["code"]
    bo.ok("POST", f"/api/tables/{code}/seats/1")
    return ada, bo, code


def test_chat_and_reactions_reach_every_watcher_live_once_encoded(api, base_url, room):
    ada, bo, code = room
    path = f"/api/tables/{code}/events"
    two = lambda got: sum(e["event"] in ("chat", "reaction") for e in got) >= 2  # noqa: E731
    seated: list = []
    watching: list = []
    threads = [
        read_stream(base_url, path, bo.headers, two, seated),
        read_stream(base_url, path, {}, two, watching),
    ]
    assert chat(ada, code, "  <script>alert(1)</script> hi  ").status_code == 204
    kib = api.player("Kib")  # a spectator may talk too
    assert react(kib, code, "🎉").status_code == 204
    for thread in threads:
        thread.join(timeout=30)
        assert not thread.is_alive()
    talk = [e for e in watching if e["event"] != "view"]
    assert [e["event"] for e in talk] == ["chat", "reaction"]
    line, reaction = (json.loads(e["data"]) for e in talk)
    assert set(line) == {"seq", "player", "name", "seat", "text", "at", "head", "signed_head"}
    assert line["signed_head"]["seq"] == line["seq"] and line["signed_head"]["hash"] == line["head"]
    assert line | {"at": None, "head": None, "signed_head": None} == {
        "seq": int(talk[0]["id"]),
        "player": ada.id,
        "name": "Ada",
        "seat": 0,
        "text": "<script>alert(1)</script> hi",
        "at": None,
        "head": None,
        "signed_head": None,
    }
    assert reaction["emoji"] == "🎉" and reaction["seat"] is None and reaction["name"] == "Kib"
    assert int(talk[1]["id"]) == int(talk[0]["id"]) + 1
    # The same bytes for a seated player and a spectator; and no new view for either.
    assert [e["data"] for e in seated if e["event"] != "view"] == [e["data"] for e in talk]
    assert [e["event"] for e in seated] == ["view", "chat", "reaction"]


def test_a_resumed_stream_replays_the_talk_after_its_id_in_log_order(api, base_url, room):
    ada, bo, code = room
    path = f"/api/tables/{code}/events"
    first: list = []
    read_stream(base_url, path, bo.headers, lambda got: True, first).join(timeout=30)
    resume_from = first[0]["id"]
    assert chat(bo, code, "ready when you are").status_code == 204
    ada.ok("PUT", f"/api/tables/{code}/seats/2/bot", json={"level": "easy"})
    assert react(ada, code, "👍").status_code == 204
    last = str(ada.ok("GET", f"/api/tables/{code}")["seq"])
    for headers in ({}, bo.headers):
        rest: list = []
        read_stream(
            base_url,
            path,
            {**headers, "Last-Event-ID": resume_from},
            lambda got: any(e["id"] == last and e["event"] == "view" for e in got),
            rest,
        ).join(timeout=30)
        # The talk it missed, in log order, then the table as it is: not the view between.
        assert [e["event"] for e in rest] == ["chat", "reaction", "view"]
        ids = [int(e["id"]) for e in rest]
        assert ids == sorted(ids) and ids[0] == int(resume_from) + 1 and ids[-1] == int(last)
        assert json.loads(rest[0]["data"])["text"] == "ready when you are"
        assert json.loads(rest[2]["data"])["seats"][2]["bot"] == "easy"


def test_talk_never_makes_a_move_stale(api, room):
    """A move decided on the view from before a chat line, a reaction and a mute is taken;
    one decided before another move is still refused."""
    ada, bo, code = room
    cy, di = api.player("Cy"), api.player("Di")
    cy.ok("POST", f"/api/tables/{code}/seats/2")
    di.ok("POST", f"/api/tables/{code}/seats/3")
    ada.ok("POST", f"/api/tables/{code}/start")
    people = [ada, bo, cy, di]
    views = [p.ok("GET", f"/api/tables/{code}") for p in people]
    seat = next(n for n, v in enumerate(views) if "pass" in v["can"])
    seen = views[seat]["seq"]
    assert chat(people[(seat + 1) % 4], code, "think hard").status_code == 204
    assert react(people[(seat + 2) % 4], code, "🤔").status_code == 204
    ada.ok("POST", f"/api/tables/{code}/mutes", json={"player": api.player("Kib").id})
    moved = people[seat].move(code, {"type": "pass", "seq": seen})
    assert moved.status_code == 200, moved.text
    assert moved.json()["seq"] > seen + 3
    nxt = (seat + 1) % 4
    stale = people[nxt].move(code, {"type": "pass", "seq": seen})
    assert "moved on" in problem(stale, 409)["detail"]


def test_the_host_mutes_and_a_muted_player_is_refused_with_403(api, room):
    ada, bo, code = room
    kib = api.player("Kib")
    muted = ada.ok("POST", f"/api/tables/{code}/mutes", json={"player": kib.id})
    assert muted["muted"] == [kib.id]
    assert bo.ok("GET", f"/api/tables/{code}")["muted"] == [kib.id]
    for refused in (chat(kib, code, "hello?"), react(kib, code, "😂")):
        assert "muted you" in problem(refused, 403)["detail"]
    assert chat(bo, code, "still here").status_code == 204
    again = ada.request("POST", f"/api/tables/{code}/mutes", json={"player": kib.id})
    assert "already muted" in problem(again, 409)["detail"]
    by_guest = bo.request("POST", f"/api/tables/{code}/mutes", json={"player": ada.id})
    assert "only the host" in problem(by_guest, 403)["detail"]
    assert (
        "yourself"
        in problem(
            ada.request("POST", f"/api/tables/{code}/mutes", json={"player": ada.id}), 409, "player"
        )["detail"]
    )
    nobody = ada.request("POST", f"/api/tables/{code}/mutes", json={"player": "f" * 32})
    problem(nobody, 404, "player")
    assert ada.ok("DELETE", f"/api/tables/{code}/mutes/{kib.id}")["muted"] == []
    assert chat(kib, code, "thanks").status_code == 204
    problem(ada.request("DELETE", f"/api/tables/{code}/mutes/{kib.id}"), 409)
    problem(ada.request("DELETE", f"/api/tables/{code}/mutes/{'x' * 65}"), 422, "target")


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"text": ""}, "text", "length >= 1"),
        ({"text": "   "}, "text", "1-500 characters"),
        ({"text": "x" * 501}, "text", "length <= 500"),
        ({"text": "two\nlines"}, "text", "control characters"),
        ({"text": "a\u202eb"}, "text", "U+202E"),
        ({"text": 7}, "text", "str"),
        ({"text": "hi", "html": True}, "html", ""),
        ({}, "text", "required"),
    ],
    ids=["empty", "blank", "too-long", "newline", "override", "number", "unknown", "missing"],
)
def test_a_bad_chat_line_is_422_naming_the_field(room, body, field, words):
    ada, _, code = room
    refused = ada.request("POST", f"/api/tables/{code}/chat", json=body)
    assert words in problem(refused, 422, field)["detail"]


def test_a_reaction_outside_the_set_is_422_listing_the_set(room):
    ada, _, code = room
    body = problem(react(ada, code, "💩"), 422, "emoji")
    assert body["allowed"] == list(EMOJI)


def test_talk_needs_a_player_and_a_table(api, room):
    ada, _, code = room
    api.http.cookies.clear()
    problem(api.http.post(f"/api/tables/{code}/chat", json={"text": "hi"}), 401, "Authorization")
    problem(chat(ada, "NOWHERE", "hi"), 404, "code")
    problem(react(ada, "NOWHERE", "👍"), 404, "code")


def test_the_log_shows_talk_and_mutes_in_order(api, room):
    ada, bo, code = room
    assert chat(bo, code, "hi & <b>bye</b>").status_code == 204
    assert react(ada, code, "👏").status_code == 204
    ada.ok("POST", f"/api/tables/{code}/mutes", json={"player": bo.id})
    ada.ok("DELETE", f"/api/tables/{code}/mutes/{bo.id}")
    log = api.log(code)
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    talk = log[-4:]
    assert [e["type"] for e in talk] == [
        "ChatSaid",
        "ReactionShown",
        "PlayerMuted",
        "PlayerUnmuted",
    ]
    assert talk[0] | {"at": None, "seq": None, "hash": None} == {
        "seq": None,
        "hash": None,
        "type": "ChatSaid",
        "at": None,
        "player": bo.id,
        "seat": 1,
        "name": "Bo",
        "text": "hi & <b>bye</b>",
    }
    assert talk[1]["emoji"] == "👏" and talk[2] | {"at": None, "seq": None, "hash": None} == {
        "seq": None,
        "hash": None,
        "type": "PlayerMuted",
        "at": None,
        "player": bo.id,
        "name": "Bo",
    }


def test_the_schema_lists_the_reactions_and_documents_the_talk_routes(api):
    schema = api.http.get("/schema/openapi.json").json()
    bodies = schema["components"]["schemas"]
    assert bodies["ReactionBody"]["properties"]["emoji"]["enum"] == list(EMOJI)
    assert bodies["ChatBody"]["properties"]["text"]["maxLength"] == 500
    paths = schema["paths"]
    for path in ("/api/tables/{code}/chat", "/api/tables/{code}/reactions"):
        assert {"204", "403", "422", "429"} <= set(paths[path]["post"]["responses"])
    assert "post" in paths["/api/tables/{code}/mutes"]
    assert "delete" in paths["/api/tables/{code}/mutes/{target}"]


def test_a_chat_line_is_encoded_once_for_every_watcher(api, base_url, room, monkeypatch):
    ada, _, code = room
    encoded: list = []
    real = stream._encode

    def counted(said):
        encoded.append(said.seq)
        return real(said)

    monkeypatch.setattr(stream, "_encode", counted)
    done = lambda got: any(e["event"] == "chat" for e in got)  # noqa: E731
    watching = [
        read_stream(base_url, f"/api/tables/{code}/events", {}, done, []) for _ in range(10)
    ]
    assert chat(ada, code, "welcome, all ten of you").status_code == 204
    for thread in watching:
        thread.join(timeout=30)
        assert not thread.is_alive()
    assert len(encoded) == 1
