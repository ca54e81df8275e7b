"""Hints over HTTP (POST /api/tables/{code}/hint): a person alone with bots gets, on their turn,
the expert's move for their own seat and why; it is logged as HintGiven with the seat and no
card, and it leaves the move they decided on current. Anyone else is refused with
problem+json: a spectator (403), a table with another person, the wrong turn, no game (409)."""

from __future__ import annotations

import httpx
from http_kit import Player

HINTED = {"order", "call", "discard", "defend", "play"}


def hint(person: Player, code: str) -> httpx.Response:
    return person.request("POST", f"/api/tables/{code}/hint")


def refused(response: httpx.Response, status: int, says: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert says in response.json()["detail"], response.json()


def solo(person: Player) -> tuple[str, dict]:
    """A table of `person` and three bots, started: its code and their view."""
    code = person.ok("POST", "/api/tables", json={"bots": "easy"})["code"]
    person.ok("POST", f"/api/tables/{code}/start")
    return code, person.ok("GET", f"/api/tables/{code}")


def test_a_person_alone_with_bots_gets_the_experts_move_on_their_turn(api):
    """The first decision is whoever sits left of the dealer, and the deal is the server's:
    tables are opened until one starts on its person's turn and one on a bot's (the test's
    server runs no bots, so a bot's turn stays). A person may open 10 tables a minute, and
    10 deals miss one kind about one time in 18: six people open them in turn."""
    people, kib = [api.player(f"Ada{n}") for n in range(6)], api.player("Kib")
    mine = theirs = None
    for n in range(60):
        person = people[n % len(people)]
        code, v = solo(person)
        if HINTED & set(v["can"]):
            mine = mine or (person, code, v)
        else:
            theirs = theirs or (person, code)
        if mine and theirs:
            break
    assert mine and theirs, "sixty deals and never both: the first turns aren't random"

    refused(hint(*theirs), 409, "your own turn")
    ada, code, v = mine
    refused(hint(kib, code), 403, "seated")
    answer = hint(ada, code)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["seq"] == v["seq"] + 1
    assert body["move"]["type"] in v["can"] and "seat" not in body["move"]
    if body["card"] is not None:
        assert body["card"] in v["hand"] and body["move"]["card"] == body["card"]
    words = body["words"]
    assert words[0].isupper() and words.endswith(".") and "seat" not in words
    again = hint(ada, code).json()  # seeded by the table and the decision, as a bot's move is
    assert (again["move"], again["words"]) == (body["move"], words)
    # Logged with the seat alone: the advice (the seat's own cards) stays out of the log.
    given = [e for e in api.log(code) if e["type"] == "HintGiven"]
    assert len(given) == 2 and set(given[0]) == {"seq", "type", "at", "hash", "seat"}
    assert given[0]["seat"] == v["you"]
    # The hint changes no decision: the move, decided on the view before it, is still current.
    moved = ada.move(code, {**body["move"], "seq": v["seq"]})
    assert moved.status_code == 200, moved.text


def test_no_hints_at_a_table_with_another_person_or_before_the_game(api):
    ada, bo = api.player("Ada"), api.player("Bo")
    code = ada.ok("POST", "/api/tables", json={})["code"]
    refused(hint(ada, code), 409, "isn't under way")
    bo.ok("POST", f"/api/tables/{code}/seats/2")
    ada.ok("POST", f"/api/tables/{code}/start")
    for person in (ada, bo):
        refused(hint(person, code), 409, "another person")
    assert not [e for e in api.log(code) if e["type"] == "HintGiven"]
    refused(hint(ada, "NO-SUCH-TABLE"), 404, "")
    nobody = api.http.post(f"/api/tables/{code}/hint")
    assert nobody.status_code == 401
