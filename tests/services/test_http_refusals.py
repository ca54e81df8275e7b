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
    assert body["allowed"] == ["S", "H", "D", "C", "N"]  # "N": no trump, where it is on
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


POINTS = [5, 7, 10, 11, 15]


def test_the_points_to_win_are_chosen_shown_and_refused_when_not_one_of_the_five(api):
    """docs/euchre.md "House rules": `points` is a number, 5, 7, 10, 11 or 15; the view, the
    lobby and the log say it; anything else is a 422 naming settings.points, changing nothing."""
    ada, bo = api.player("Ada"), api.player("Bo")
    view = ada.ok("POST", "/api/tables", json={"code": "SEVEN", "settings": {"points": 7}})
    assert view["settings"]["points"] == 7
    assert bo.ok("GET", "/api/tables/SEVEN")["settings"]["points"] == 7
    assert api.lobby_until(["SEVEN"])[0]["settings"]["points"] == 7
    assert bo.ok("POST", "/api/tables", json={"code": "TENS"})["settings"]["points"] == 10
    changed = ada.ok("PATCH", "/api/tables/SEVEN/settings", json={"points": 15})
    assert changed["settings"]["points"] == 15 and changed["settings"]["farmers"] == "off"
    (opened,) = [line for line in api.log("SEVEN") if line.get("type") == "TableOpened"]
    assert opened["settings"]["points"] == 7

    for bad in (9, 0, -5, "10", 10.5, True, [7], 10**30):
        for response, field in (
            (
                ada.request(
                    "POST", "/api/tables", json={"code": "BADS", "settings": {"points": bad}}
                ),
                "settings.points",
            ),
            # the PATCH body is the settings themselves
            (ada.request("PATCH", "/api/tables/SEVEN/settings", json={"points": bad}), "points"),
        ):
            body = assert_problem(response, 422, field)
            assert body["allowed"] == POINTS, body
    assert_problem(ada.request("GET", "/api/tables/BADS"), 404)
    assert bo.ok("GET", "/api/tables/SEVEN")["settings"]["points"] == 15
    # JSON has one kind of number: 11.0 is 11, as the schema's enum counts it
    assert ada.ok("PATCH", "/api/tables/SEVEN/settings", json={"points": 11.0})["settings"] == {
        **changed["settings"],
        "points": 11,
    }


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


def _to_round_two(people, code: str) -> dict:
    """Everyone passes round one (a person may always pass it): the view once round two is on."""
    view = people[0].ok("GET", f"/api/tables/{code}")
    while view["phase"] == "bid1":
        people[view["turn"]].ok("POST", f"/api/tables/{code}/moves", json={"type": "pass"})
        view = people[0].ok("GET", f"/api/tables/{code}")
    assert view["phase"] == "bid2"
    return view


def test_no_trump_is_called_over_http_only_where_the_host_turned_it_on(api):
    """docs/euchre.md "No trump": with the house rule on, round two offers "N" and the call is
    taken (the views say "N"); off, the same call is a 422 naming the rule, changing nothing;
    a value other than on or off is a 422 naming settings.no_trump."""
    people = [api.player(name) for name in ("Ada", "Bo", "Cy", "Di")]
    for code, rule in (("NOTRUMP", "on"), ("SUITSONLY", None)):
        settings = {"no_trump": rule} if rule else {}
        view = people[0].ok("POST", "/api/tables", json={"code": code, "settings": settings})
        assert view["settings"]["no_trump"] == (rule or "off")
        for seat, person in enumerate(people[1:], start=1):
            person.ok("POST", f"/api/tables/{code}/seats/{seat}")
        people[0].ok("POST", f"/api/tables/{code}/start")
        view = _to_round_two(people, code)
        caller = people[view["turn"]]
        mine = caller.ok("GET", f"/api/tables/{code}")
        before = log_length(api, code)
        if rule == "on":
            assert "N" in mine["can"]["call"]["suits"]
            caller.ok("POST", f"/api/tables/{code}/moves", json={"type": "call", "suit": "N"})
            assert api.log(code)[-1]["type"] == "TrumpCalled" and api.log(code)[-1]["suit"] == "N"
            after = people[(view["turn"] + 1) % 4].ok("GET", f"/api/tables/{code}")
            assert after["trump"] == "N" and after["phase"] == "play"
        else:
            assert "N" not in mine["can"]["call"]["suits"]
            body = assert_problem(caller.move(code, {"type": "call", "suit": "N"}), 422, "suit")
            assert "no trump is off" in body["detail"] and "N" not in body["allowed"]
            assert log_length(api, code) == before
    body = assert_problem(
        people[0].request(
            "POST", "/api/tables", json={"code": "BADNT", "settings": {"no_trump": "yes"}}
        ),
        422,
        "settings.no_trump",
    )
    assert body["allowed"] == ["on", "off"]
