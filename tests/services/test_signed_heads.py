"""Signed heads (docs/audit.md "Signed heads"): every view the API answers and every frame its
stream sends carries the head of the logged event it shows, taken with the state it shows
(never a later event's), signed by the key the service publishes."""

from __future__ import annotations

import json
import threading

import httpx
from http_kit import sse_events

from domain.chain import statement
from infra.signing import verify


def next_move(view: dict) -> dict:
    """The plainest move open to the seat: pass, keep, the first card, ready."""
    can = view["can"]
    for kind in ("ready", "pass", "withhold"):
        if kind in can:
            return {"type": kind}
    if "farmer" in can:
        return {"type": "farmer", "cards": []}
    if "defend" in can:
        return {"type": "defend", "alone": False}
    if "call" in can:
        return {"type": "call", "suit": can["call"]["suits"][0], "alone": False}
    kind = "play" if "play" in can else "discard"
    return {"type": kind, "card": can[kind]["cards"][0]}


def check(head: dict | None, code: str, seq: int, hashes: dict[int, str], keys: set[str]) -> None:
    assert head is not None, f"no signed head at seq {seq}"
    assert (head["code"], head["seq"]) == (code, seq)
    assert head["hash"] == hashes[seq], f"the head of seq {seq} isn't the log's"
    signed = statement("head", {"code": code, "hash": head["hash"], "seq": seq})
    assert head["key"] in keys and verify(head["key"], signed, head["signature"])


def test_every_view_and_frame_carries_the_signed_head_of_the_event_it_shows(api, base_url):
    people = [api.player(name) for name in ("Ada", "Bo", "Cy", "Di")]
    code = people[0].ok("POST", "/api/tables", json={"code": "HEADS"})["code"]
    for seat, person in enumerate(people[1:], start=1):
        person.ok("POST", f"/api/tables/{code}/seats/{seat}")
    frames: list[dict] = []
    looked: list[dict] = []
    over = threading.Event()

    def watch() -> None:
        with (
            httpx.Client(base_url=base_url, timeout=None) as http,
            http.stream("GET", f"/api/tables/{code}/events", headers=people[1].headers) as r,
        ):
            for event in sse_events(r):
                if "data" in event and event.get("event") != "presence":  # no fact of the log
                    frames.append({"id": int(event["id"]), **json.loads(event["data"])})
                    if frames[-1].get("status") == "over":
                        return

    def look() -> None:
        """A spectator asking while moves land: each view's head must still be its own."""
        with httpx.Client(base_url=base_url, timeout=30) as http:
            while not over.is_set():
                looked.append(http.get(f"/api/tables/{code}").json())

    threads = [threading.Thread(target=f, daemon=True) for f in (watch, look)]
    for thread in threads:
        thread.start()
    answers = [people[0].ok("POST", f"/api/tables/{code}/start")]
    while True:
        views = [p.ok("GET", f"/api/tables/{code}") for p in people]
        answers += views
        if views[0]["status"] == "over":
            break
        seat = next(n for n, v in enumerate(views) if set(v["can"]) - {"deal"})
        answers.append(
            people[seat].ok("POST", f"/api/tables/{code}/moves", json=next_move(views[seat]))
        )
    said = people[2].request("POST", f"/api/tables/{code}/chat", json={"text": "good game"})
    assert said.status_code == 204
    over.set()
    for thread in threads:
        thread.join(timeout=30)

    keys = {k["key"] for k in api.http.get("/.well-known/euchre-keys").json()["keys"]}
    hashes = {e["seq"]: e["hash"] for e in api.log(code)}
    assert len(answers) > 100 and len(frames) > 50 and len(looked) > 20
    for view in [*answers, *frames, *looked]:
        check(view["signed_head"], code, view["seq"], hashes, keys)
        assert view["head"] == hashes[view["seq"]]
    assert all(frame["id"] == frame["seq"] for frame in frames)


def test_a_line_of_talk_in_the_stream_carries_the_signed_head_of_its_own_event(api, base_url):
    ada = api.player("Ada")
    code = ada.ok("POST", "/api/tables", json={"code": "TALK"})["code"]
    assert ada.request("POST", f"/api/tables/{code}/chat", json={"text": "hi"}).status_code == 204
    with (
        httpx.Client(base_url=base_url, timeout=10) as http,
        http.stream("GET", f"/api/tables/{code}/events", headers={"Last-Event-ID": "1"}) as r,
    ):
        said = next(e for e in sse_events(r) if e.get("event") == "chat")
    line = json.loads(said["data"])
    keys = {k["key"] for k in api.http.get("/.well-known/euchre-keys").json()["keys"]}
    hashes = {e["seq"]: e["hash"] for e in api.log(code)}
    check(line["signed_head"], code, int(said["id"]), hashes, keys)
