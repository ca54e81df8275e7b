"""Ratings over HTTP: a player's rating, counts, records and rated games; the leaderboard; and
each seat's rating change on a finished table's view, `pending` until the worker rated it."""

from __future__ import annotations

import asyncio

import pytest
from http_kit import PASSWORD
from rated_kit import append_game, finished_game

from domain import events as ev
from infra.db import create_engine
from infra.eventstore import EventStore
from infra.ratings import Ratings


def register(api, name: str) -> dict:
    made = api.http.post("/api/players", json={"name": name, "password": PASSWORD})
    assert made.status_code == 201, made.text
    return made.json()


def log_games(database_url: str, games: list[tuple[str, list]], rate: bool = True) -> None:
    """Append finished games to the log, and rate them unless `rate` is False (the test's
    server runs no worker)."""

    async def go() -> None:
        store = await EventStore.open(database_url, size=2)
        engine = create_engine(database_url, pool_size=1)
        try:
            for code, events in games:
                await append_game(store, code, events)
            if rate:
                await Ratings(engine, store).catch_up()
        finally:
            await store.close()
            await engine.dispose()

    asyncio.run(go())


def test_a_players_rating_counts_records_and_games(api, database_url):
    ada, guest = register(api, "Ada"), api.player("Gus")
    games = [
        (f"ADA{n}", finished_game(f"ADA{n}", n, [(ada["id"], True), None, None, None], "easy"))
        for n in range(3)
    ]
    log_games(database_url, games)
    body = api.http.get(f"/api/players/{ada['id']}").json()
    assert body["registered"] and body["name"] == "Ada"
    rating = body["rating"]
    assert rating["display"] == round(rating["mu"] - 3 * rating["sigma"])
    assert rating["sigma"] < 350
    stats = body["stats"]
    assert stats["games"] == 3 and stats["won"] + stats["lost"] == 3
    assert body["records"]["easy"]["won"] == stats["won"]
    assert [g["code"] for g in body["recent"]] == ["ADA2", "ADA1", "ADA0"]
    assert body["recent"][0]["log"] == "/api/tables/ADA2/log"
    assert body["recent"][0]["after"] == rating
    assert [p["display"] for p in body["history"]][-1] == rating["display"]
    assert len(body["history"]) == 3
    guest_body = api.http.get(f"/api/players/{guest.id}").json()
    assert guest_body["rating"] is None and guest_body["stats"]["games"] == 0
    newcomer = api.http.get(f"/api/players/{register(api, 'Cy')['id']}").json()
    assert newcomer["rating"] == {"mu": 1500.0, "sigma": 350.0, "display": 450}
    assert newcomer["recent"] == [] and newcomer["records"] == {}


def test_the_leaderboard_lists_players_with_five_rated_games_best_first(api, database_url):
    ids = {name: register(api, name)["id"] for name in ("Ada", "Bo", "Cy")}
    games = []
    for n in range(6):
        people = [(ids["Ada"], True), None, (ids["Bo"], True), None]
        games.append((f"AB{n}", finished_game(f"AB{n}", n, people, "medium")))
    games.append(("CY0", finished_game("CY0", 9, [(ids["Cy"], True), None, None, None])))
    log_games(database_url, games)
    board = api.http.get("/api/leaderboard").json()
    listed = [p["id"] for p in board["players"]]
    assert set(listed) == {ids["Ada"], ids["Bo"]}  # Cy has one rated game
    displays = [p["rating"]["display"] for p in board["players"]]
    assert displays == sorted(displays, reverse=True)
    assert [p["rank"] for p in board["players"]] == [1, 2] and board["next"] is None
    first = api.http.get("/api/leaderboard", params={"limit": 1}).json()
    assert [p["id"] for p in first["players"]] == listed[:1] and first["next"] == 1
    second = api.http.get("/api/leaderboard", params={"limit": 1, "offset": 1}).json()
    assert [p["id"] for p in second["players"]] == listed[1:] and second["players"][0]["rank"] == 2
    assert second["next"] is None


@pytest.mark.parametrize("query", [{"limit": 0}, {"limit": 101}, {"offset": -1}, {"limit": "x"}])
def test_a_bad_page_is_refused_naming_the_field(api, query):
    response = api.http.get("/api/leaderboard", params=query)
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    assert next(iter(query)) in response.text


def test_a_finished_tables_view_carries_each_seats_rating_change(api, database_url):
    ada = register(api, "Ada")
    people = [(ada["id"], True), ("gus", False), None, None]
    log_games(database_url, [("DONE", finished_game("DONE", 4, people, "hard"))])
    log_games(database_url, [("LATER", finished_game("LATER", 5, people, "hard"))], rate=False)
    view = api.http.get("/api/tables/DONE").json()
    assert view["status"] == "over"
    ratings = view["ratings"]
    assert ratings["status"] == "rated"
    assert [s["status"] for s in ratings["seats"]] == ["rated", "guest", "bot", "bot"]
    mine = ratings["seats"][0]
    assert mine["player"] == ada["id"] and mine["after"] != mine["before"]
    assert ratings["seats"][1]["after"] is None
    assert ratings["seats"][1]["before"] == {"mu": 1500.0, "sigma": 350.0, "display": 450}
    assert api.http.get("/api/tables/LATER").json()["ratings"] == {"status": "pending", "seats": []}


def test_a_game_under_way_has_no_ratings_yet(api):
    host = api.player("Host")
    host.ok("POST", "/api/tables", json={"code": "WAIT"})
    assert host.ok("GET", "/api/tables/WAIT")["ratings"] is None


def test_a_hinted_win_is_not_credited_and_a_hinted_loss_counts(api, database_url):
    """docs/ratings.md "Integrity": Ada, alone with bots, took a hint in two games; the worker
    credits neither win but charges the loss, and her finished table says why."""
    ada = register(api, "Ada")
    people = [(ada["id"], True), None, None, None]
    found: dict[bool, tuple[str, list]] = {}
    for n in range(100):  # random play: a game Ada's side wins and one it loses
        events = finished_game(f"HINT{n}", n, people, "easy")
        won = next(e for e in events if isinstance(e, ev.GameWon)).team == 0
        found.setdefault(won, (f"HINT{n}", events))
        if len(found) == 2:
            break
    games = []
    for code, events in found.values():
        dealt = next(n for n, e in enumerate(events) if isinstance(e, ev.HandDealt))
        games.append((code, [*events[: dealt + 1], ev.HintGiven(seat=0), *events[dealt + 1 :]]))
    log_games(database_url, games)
    stats = api.http.get(f"/api/players/{ada['id']}").json()["stats"]
    assert (stats["games"], stats["won"], stats["lost"]) == (1, 0, 1)
    shown = api.http.get(f"/api/tables/{found[True][0]}").json()["ratings"]
    assert shown["status"] == "rated"
    assert shown["seats"][0]["status"] == "hinted" and shown["seats"][0]["after"] is None
    lost = api.http.get(f"/api/tables/{found[False][0]}").json()["ratings"]["seats"][0]
    assert lost["status"] == "rated" and lost["after"]["mu"] < lost["before"]["mu"]


def test_a_game_to_5_points_is_kept_but_not_rated(api, database_url):
    """docs/ratings.md "Who is rated": the worker keeps a short game seat by seat, rating
    nobody, and the finished table says why."""
    ada = register(api, "Ada")
    people = [(ada["id"], True), None, None, None]
    events = finished_game("SHORT", 1, people, "easy", settings={"points": 5})
    won = next(e for e in events if isinstance(e, ev.GameWon))
    assert won.score[won.team] >= 5 > won.score[1 - won.team]
    log_games(database_url, [("SHORT", events)])
    body = api.http.get(f"/api/players/{ada['id']}").json()
    assert body["stats"]["games"] == 0 and body["recent"] == []
    assert body["rating"] == {"mu": 1500.0, "sigma": 350.0, "display": 450}
    seats = api.http.get("/api/tables/SHORT").json()["ratings"]["seats"]
    assert seats[0]["status"] == "short" and seats[0]["after"] is None
