"""Four people play a whole game to 10 through HTTP alone, chatting as they go, and no view,
stream or log leaks; no chat line makes a move stale."""

from __future__ import annotations

import json
import random
import re
import threading
import time

import httpx
from http_kit import sse_events

CARD = re.compile(r"\b[9TJQKA][SHDC]\b")


def choose(view: dict, rng: random.Random) -> dict:
    """A move picked at random from the view's `can`, as a player clicking buttons would
    (claims aside: test_http_claim.py makes them)."""
    can = view["can"]
    kind = rng.choice(sorted(k for k in can if k not in ("deal", "claim")))
    options = can[kind]
    if kind in ("play", "discard"):
        return {"type": kind, "card": rng.choice(options["cards"])}
    if kind == "order":
        alone = options["must_alone"] or (options["alone"] and rng.random() < 0.1)
        return {"type": kind, "alone": alone}
    if kind == "call":
        return {
            "type": kind,
            "suit": rng.choice(options["suits"]),
            "alone": options["alone"] and rng.random() < 0.1,
        }
    if kind == "farmer":
        return {"type": kind, "cards": options["cards"][:3] if rng.random() < 0.5 else []}
    if kind == "defend":
        return {"type": kind, "alone": rng.random() < 0.3}
    return {"type": kind}


def public_cards(view: dict) -> set[str]:
    cards = {p["card"] for p in view["trick"]}
    cards |= {p["card"] for t in view["tricks"] for p in t["cards"]}
    cards |= set(view["claimed"]["cards"] if view["claimed"] else ())
    if view["up"]:
        cards.add(view["up"])
    return cards


def assert_keeps_secrets(view: dict, seat: int | None, seen_public: set[str]) -> None:
    """Every card a view names is the viewer's own, the dealer's own discard, or public."""
    allowed = set(view["hand"]) | seen_public | public_cards(view)
    if view["buried"] is not None:
        assert seat == view["dealer"], "only the dealer sees the buried card"
        allowed.add(view["buried"])
    if seat is None:
        assert view["hand"] == []
    shown = set(CARD.findall(str({k: v for k, v in view.items() if k != "can"})))
    shown |= set(CARD.findall(str(view["can"])))
    leaked = shown - allowed
    assert not leaked, f"seat {seat} sees {leaked}"
    if view["status"] != "over":
        assert view["seed"] is None


def assert_log_keeps_secrets(log: list[dict]) -> None:
    """While the game runs the log names no card but turned-up and played ones, and no seed."""
    public = {e["up"] for e in log if e["type"] == "HandDealt"}
    public |= {e["card"] for e in log if e["type"] == "CardPlayed"}
    public |= {c for e in log if e["type"] == "TricksClaimed" for c in e["cards"]}
    for e in log:
        if e["type"] == "TableOpened":
            assert e["seed"] is None and e["seed_hash"]
        if e["type"] == "HandDealt":
            assert e["hands"] is None and e["kitty"] is None
        if e["type"] == "CardBuried":
            assert e["card"] is None
        if e["type"] == "FarmerSwapped":
            assert e["gave"] is None and e["got"] is None
    named = set(CARD.findall(json.dumps(log)))
    assert named <= public, f"the log names {named - public}"


def test_four_people_play_a_whole_game_to_ten_over_http(api, base_url):
    rng = random.Random(7)
    people = [api.player(name) for name in ("Ada", "Bo", "Cy", "Di")]
    host = people[0]
    settings = {"defend_alone": "on", "farmers": "on", "canadian": "on"}
    view = host.ok("POST", "/api/tables", json={"code": "family-1", "settings": settings})
    code = view["code"]
    assert code == "FAMILY-1" and view["you"] == 0
    for seat, person in enumerate(people[1:], start=1):
        person.ok("POST", f"/api/tables/{code}/seats/{seat}")

    # A spectator's stream runs the whole game; every view it gets is checked afterwards.
    streamed: list[dict] = []
    talk: list[dict] = []
    stop = threading.Event()

    def watch() -> None:
        with (
            httpx.Client(base_url=base_url, timeout=None) as http,
            http.stream("GET", f"/api/tables/{code}/events") as response,
        ):
            assert response.headers["content-type"].startswith("text/event-stream")
            for event in sse_events(response):
                if event.get("event") == "presence":
                    continue  # who is disconnected: no fact of the log (the four use no stream)
                if event.get("event") in ("chat", "reaction"):
                    talk.append({"id": int(event["id"]), **json.loads(event["data"])})
                elif "data" in event:
                    streamed.append({"id": int(event["id"]), **json.loads(event["data"])})
                    if streamed[-1]["status"] == "over" or stop.is_set():
                        return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    host.ok("POST", f"/api/tables/{code}/start")

    seen_public: set[str] = set()
    moves = 0
    while True:
        views = [p.ok("GET", f"/api/tables/{code}") for p in people]
        api.http.cookies.clear()
        spectator = api.http.get(f"/api/tables/{code}").json()
        for seat, v in enumerate(views):
            assert v["you"] == seat
            assert_keeps_secrets(v, seat, seen_public)
        assert_keeps_secrets(spectator, None, seen_public)
        seen_public |= public_cards(views[0])
        if views[0]["status"] == "over":
            break
        movers = [seat for seat, v in enumerate(views) if set(v["can"]) - {"deal"}]
        assert movers, "someone must have something to do"
        if moves % 40 == 0:
            assert_log_keeps_secrets(api.log(code))
        seat = rng.choice(movers)
        body = choose(views[seat], rng) | {"seq": views[seat]["seq"]}
        if moves % 30 == 0:  # talk between the view and the move it decides
            speaker = people[(moves // 30) % 4]
            said = speaker.request("POST", f"/api/tables/{code}/chat", json={"text": "nice one"})
            shown = speaker.request("POST", f"/api/tables/{code}/reactions", json={"emoji": "👏"})
            assert said.status_code == shown.status_code == 204
        answer = people[seat].move(code, body)
        while answer.status_code == 429:  # faster than a person: wait as told, like a client
            time.sleep(float(answer.headers["retry-after"]))
            answer = people[seat].move(code, body)
        assert answer.status_code == 200, answer.text
        assert answer.json()["seq"] > views[seat]["seq"]
        moves += 1
        assert moves < 5000

    final = views[0]
    assert max(final["score"]) >= 10 and final["winner"] == (0 if final["score"][0] >= 10 else 1)
    assert final["seed"] is not None and len(final["hands"]) == final["hand_no"] - 1

    watcher.join(timeout=30)
    stop.set()
    assert streamed and streamed[-1]["status"] == "over"
    ids = [v["id"] for v in streamed]
    assert ids == sorted(set(ids)), "the stream sends each state once, in order"
    for v in streamed:
        assert v["you"] is None and v["hand"] == []
        assert v["id"] == v["seq"]
    assert not set(ids) & {t["id"] for t in talk}

    # After the game the whole log is public, and it replays to the same final score.
    log = api.log(code)
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    logged = [e["seq"] for e in log if e["type"] in ("ChatSaid", "ReactionShown")]
    assert len(logged) == 2 * ((moves - 1) // 30 + 1)
    # The stream may have opened after the first line: it sends every one after its start.
    assert [t["id"] for t in talk] == [seq for seq in logged if seq > ids[0]]
    assert len(talk) >= len(logged) - 2
    assert log[0]["seed"] == final["seed"]
    assert log[-1]["type"] == "GameWon" and log[-1]["score"] == final["score"]
