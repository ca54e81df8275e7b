"""Bad, illegal, out-of-turn and stale requests get the right problem+json and append nothing."""

from __future__ import annotations

import pytest
from http_kit import PASSWORD


@pytest.fixture
def table(api):
    """Four people seated at a started table; returns (people, code, views by seat)."""
    people = [api.player(name) for name in ("Ada", "Bo", "Cy", "Di")]
    code = people[0].ok("POST", "/api/tables", json={"code": "REFUSE"})["code"]
    for seat, person in enumerate(people[1:], start=1):
        person.ok("POST", f"/api/tables/{code}/seats/{seat}")
    people[0].ok("POST", f"/api/tables/{code}/start")
    return people, code


def assert_problem(response, status: int, field: str | None = None) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status and body["title"] and body["detail"]
    if field is not None:
        assert body.get("field") == field, body
    return body


def log_length(api, code: str) -> int:
    return len(api.log(code))


def test_moves_that_break_the_rules_or_come_out_of_turn_change_nothing(api, table):
    people, code = table
    view = people[0].ok("GET", f"/api/tables/{code}")
    turn = view["turn"]
    other = (turn + 1) % 4
    before = log_length(api, code)

    assert_problem(people[other].move(code, {"type": "pass"}), 409)
    body = assert_problem(people[turn].move(code, {"type": "play", "card": "9S"}), 422)
    assert "order it up or pass" in body["detail"]
    assert_problem(people[turn].move(code, {"type": "call", "suit": "S"}), 422)
    stale = people[turn].move(code, {"type": "pass", "seq": view["seq"] - 1})
    assert_problem(stale, 409)
    assert log_length(api, code) == before

    # The same move with the current seq is accepted: exactly one pass more in the log.
    people[turn].ok("POST", f"/api/tables/{code}/moves", json={"type": "pass", "seq": view["seq"]})
    assert log_length(api, code) == before + 1
    assert api.log(code)[-1]["type"] == "BidPassed"


def test_malformed_moves_name_the_field_and_what_is_allowed(api, table):
    people, code = table
    turn = people[0].ok("GET", f"/api/tables/{code}")["turn"]
    mover = people[turn]
    before = log_length(api, code)

    body = assert_problem(mover.move(code, {"type": "dance"}), 422, "type")
    assert "pass" in body["allowed"] and "play" in body["allowed"]
    body = assert_problem(mover.move(code, {"type": "play", "card": "1S"}), 422, "card")
    assert "JS" in body["allowed"]
    body = assert_problem(mover.move(code, {"type": "call", "suit": "X"}), 422, "suit")
    assert body["allowed"] == ["S", "H", "D", "C"]
    assert_problem(mover.move(code, {"type": "order", "alone": "yes"}), 422, "alone")
    assert_problem(mover.move(code, {"type": "pass", "seq": "five"}), 422, "seq")
    assert_problem(mover.move(code, {"type": "pass", "card": "JS"}), 422, "card")
    api.http.cookies.clear()
    response = api.http.post(
        f"/api/tables/{code}/moves",
        content=b"{not json",
        headers={**mover.headers, "content-type": "application/json"},
    )
    assert_problem(response, 400)
    assert log_length(api, code) == before


def test_who_may_do_what(api, table):
    people, code = table
    stranger = api.player("Eve")
    api.http.cookies.clear()
    assert_problem(api.http.post(f"/api/tables/{code}/moves", json={"type": "pass"}), 401)
    bad = {"Authorization": "Bearer not-a-token"}
    assert_problem(
        api.http.post(f"/api/tables/{code}/moves", json={"type": "pass"}, headers=bad), 401
    )
    assert_problem(stranger.move(code, {"type": "pass"}), 403)
    assert_problem(stranger.request("POST", f"/api/tables/{code}/start"), 403)
    assert_problem(stranger.request("POST", f"/api/tables/{code}/seats/1"), 409)
    assert_problem(stranger.request("GET", "/api/tables/NO-SUCH"), 404)
    assert_problem(stranger.request("GET", "/api/tables/x"), 422, "code")
    assert_problem(people[1].request("PATCH", f"/api/tables/{code}/settings", json={}), 403)


def test_table_creation_checks_its_fields(api):
    ada = api.player("Ada")
    body = assert_problem(
        ada.request("POST", "/api/tables", json={"settings": {"alone": "maybe"}}),
        422,
        "settings.alone",
    )
    assert body["allowed"] == ["on", "off"]
    assert_problem(ada.request("POST", "/api/tables", json={"code": "no spaces"}), 422, "code")
    assert_problem(ada.request("POST", "/api/tables", json={"bots": "genius"}), 422, "bots")
    assert_problem(ada.request("POST", "/api/tables", json={"seat": 7}), 422, "seat")
    assert_problem(ada.request("POST", "/api/tables", json={"colour": "red"}), 422)
    ada.ok("POST", "/api/tables", json={"code": "taken"})
    assert_problem(ada.request("POST", "/api/tables", json={"code": "TAKEN"}), 409, "code")
    assert_problem(api.http.post("/api/players", json={"name": ""}), 422, "name")
    assert_problem(
        api.http.post("/api/players", json={"name": "Zed", "password": "short"}), 422, "password"
    )


def test_registered_names_sign_in_and_are_unique(api):
    created = api.http.post("/api/players", json={"name": "Grace", "password": "hopper-1906"})
    assert created.status_code == 201 and "euchre_token" in created.headers["set-cookie"]
    assert "httponly" in created.headers["set-cookie"].lower()
    again = api.http.post("/api/players", json={"name": "GRACE", "password": PASSWORD})
    assert_problem(again, 409, "name")
    wrong = api.http.post("/api/sessions", json={"name": "grace", "password": "wrong-pass"})
    assert_problem(wrong, 401)
    right = api.http.post("/api/sessions", json={"name": "grace", "password": "hopper-1906"})
    assert right.status_code == 200 and right.json()["id"] == created.json()["id"]
    shown = api.http.get(f"/api/players/{created.json()['id']}").json()
    who = {k: shown[k] for k in ("id", "name", "registered")}
    assert who == {"id": created.json()["id"], "name": "Grace", "registered": True}
    mine = {**who, "house_rules": None}  # no table hosted yet
    assert api.http.get("/api/players/me").json() == mine  # by the cookie, as a browser does
    api.http.cookies.clear()
    assert_problem(api.http.get("/api/players/me"), 401)
    token = {"Authorization": f"Bearer {right.json()['token']}"}
    assert api.http.get("/api/players/me", headers=token).json() == mine


def test_health_and_schema(api):
    health = api.http.get("/api/health").json()
    assert health["database"] == "ok" and health["broker"] == "ok"
    schema = api.http.get("/schema/openapi.json")
    assert schema.status_code == 200 and "/api/tables/{code}/moves" in schema.json()["paths"]
