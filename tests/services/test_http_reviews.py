"""The hands' reviews over HTTP: each scored hand's cards as the reviews follower stored them,
none for a hand not yet scored, and the table's privacy rule as for its log."""

from __future__ import annotations

import asyncio

from rated_kit import append_game, finished_game

from domain import events as ev
from infra.db import create_engine
from infra.eventstore import EventStore
from infra.reviews import Reviews

PEOPLE = [("ada", True), None, ("bo", False), None]


def log_and_review(database_url: str, code: str, events: list[ev.Event]) -> None:
    """Append the events and review what they scored (the test's server runs no worker)."""

    async def go() -> None:
        store = await EventStore.open(database_url, size=2)
        engine = create_engine(database_url, pool_size=1)
        try:
            await append_game(store, code, events)
            await Reviews(engine, store).catch_up()
        finally:
            await store.close()
            await engine.dispose()

    asyncio.run(go())


def test_a_hand_is_reviewed_once_scored_and_not_before(api, database_url):
    events = finished_game("HALF", 7, PEOPLE, "hard")
    scored = [n for n, e in enumerate(events) if isinstance(e, ev.HandScored)]
    log_and_review(database_url, "HALF", events[: scored[1] - 2])  # a card short of hand 2
    answer = api.http.get("/api/tables/half/reviews")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["scored"] == 1 and [h["hand_no"] for h in body["hands"]] == [1]
    first = body["hands"][0]
    assert first["trump"] == events[scored[0]].trump and first["maker"] == events[scored[0]].maker
    played = [e for e in events[: scored[0]] if isinstance(e, ev.CardPlayed)]
    assert [(c["seat"], c["card"]) for c in first["cards"]] == [(e.seat, e.card) for e in played]
    for c in first["cards"]:
        assert set(c) == {"trick", "seat", "card", "before", "after", "better"}
        assert c["after"] <= c["before"] and bool(c["better"]) == (c["after"] < c["before"])


def test_a_finished_games_reviews_cover_every_hand(api, database_url):
    events = finished_game("DONE", 8, PEOPLE, "hard")
    log_and_review(database_url, "DONE", events)
    body = api.http.get("/api/tables/DONE/reviews").json()
    hands = sum(isinstance(e, ev.HandScored) for e in events)
    assert body["scored"] == hands and [h["hand_no"] for h in body["hands"]] == list(
        range(1, hands + 1)
    )


def test_each_review_carries_the_bids_judged_over_likely_deals(api, database_url):
    events = finished_game("BIDS", 9, PEOPLE, "hard")
    log_and_review(database_url, "BIDS", events)
    body = api.http.get("/api/tables/BIDS/reviews").json()
    calls = [b for h in body["hands"] for b in h["bids"] if b["made"]["bid"] != "pass"]
    assert calls, "a game's calls are judged"
    for h in body["hands"]:
        for b in h["bids"]:
            assert set(b) == {"seat", "round", "made", "others", "deals", "costly"}
            assert set(b["made"]) == {"bid", "suit", "alone", "points", "euchred"}
            assert 8 <= b["deals"] <= 20 and 0 <= b["made"]["euchred"] <= b["deals"]
            if b["made"]["bid"] != "pass":
                assert b["seat"] == h["maker"]
            else:
                assert b["costly"] and b["others"][0]["bid"] in ("order", "call")
    schema = api.http.get("/schema/openapi.json").json()["components"]["schemas"]
    assert "BidReview" in schema and "bids" in schema["HandReview"]["properties"]


def test_a_private_tables_reviews_are_its_players_alone(api):
    ada = api.player("Ada")
    ada.ok("POST", "/api/tables", json={"code": "HUSH", "settings": {"spectators": "off"}})
    assert ada.ok("GET", "/api/tables/HUSH/reviews") == {"scored": 0, "hands": []}
    refused = api.player("Eve").request("GET", "/api/tables/HUSH/reviews")
    assert refused.status_code == 403 and "spectators" in refused.json()["detail"]
    assert api.http.get("/api/tables/HUSH/reviews").status_code == 403


def test_a_missing_or_misspelt_table_is_a_problem_not_a_crash(api):
    missing = api.http.get("/api/tables/NOPE/reviews")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
    bad = api.http.get("/api/tables/no%20way/reviews")
    assert bad.status_code == 422 and bad.json()["field"] == "code"
