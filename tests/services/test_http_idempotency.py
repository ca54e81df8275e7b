"""`Idempotency-Key` on moves: a retry gets the first answer, from any API process."""

from __future__ import annotations

import httpx
import pytest
from http_kit import Api, Server
from test_http_refusals import assert_problem

from services.api.app import create_app


@pytest.fixture
def second(database_url: str, redis_url: str):
    """Another API process's worth of server over the same database."""
    with (
        Server(create_app(database_url, redis_url)) as url,
        httpx.Client(base_url=url, timeout=30) as http,
    ):
        yield Api(http)


@pytest.fixture
def started(api):
    people = [api.player(name) for name in ("Ada", "Bo", "Cy", "Di")]
    code = people[0].ok("POST", "/api/tables", json={"code": "AGAIN"})["code"]
    for seat, person in enumerate(people[1:], start=1):
        person.ok("POST", f"/api/tables/{code}/seats/{seat}")
    view = people[0].ok("POST", f"/api/tables/{code}/start")
    return people, code, view


def test_a_retried_move_gets_the_first_answer_from_any_process(api, second, started):
    people, code, view = started
    mover = people[view["turn"]]
    keyed = {**mover.headers, "Idempotency-Key": "move-1"}
    body = {"type": "pass", "seq": view["seq"]}
    first = api.http.post(f"/api/tables/{code}/moves", json=body, headers=keyed)
    assert first.status_code == 200, first.text
    events = len(api.log(code))

    again = api.http.post(f"/api/tables/{code}/moves", json=body, headers=keyed)
    elsewhere = second.http.post(f"/api/tables/{code}/moves", json=body, headers=keyed)
    for retry in (again, elsewhere):
        assert retry.status_code == 200, retry.text
        assert retry.content == first.content
        assert retry.headers["idempotent-replayed"] == "true"
    assert len(api.log(code)) == events

    # Without the key the same body is a second move, decided on a table that moved on.
    assert_problem(mover.move(code, body), 409)


def test_a_refusal_is_replayed_too_and_keys_are_per_player(api, started):
    people, code, view = started
    mover = people[view["turn"]]
    keyed = {**mover.headers, "Idempotency-Key": "k"}
    body = {"type": "play", "card": "9S"}
    first = api.http.post(f"/api/tables/{code}/moves", json=body, headers=keyed)
    assert_problem(first, 422)
    again = api.http.post(f"/api/tables/{code}/moves", json=body, headers=keyed)
    assert again.status_code == 422 and again.content == first.content

    # Another player's identical key is theirs alone: a move of their own, decided afresh.
    other = people[(view["turn"] + 1) % 4]
    theirs = api.http.post(
        f"/api/tables/{code}/moves",
        json={"type": "pass"},
        headers={**other.headers, "Idempotency-Key": "k"},
    )
    assert_problem(theirs, 409)


def test_the_same_key_on_a_different_move_is_refused(api, started):
    people, code, view = started
    mover = people[view["turn"]]
    keyed = {**mover.headers, "Idempotency-Key": "once"}
    url = f"/api/tables/{code}/moves"
    assert api.http.post(url, json={"type": "pass"}, headers=keyed).status_code == 200
    events = len(api.log(code))
    other = api.http.post(url, json={"type": "order", "alone": False}, headers=keyed)
    body = assert_problem(other, 422, "Idempotency-Key")
    assert "different request" in body["detail"]
    assert_problem(
        api.http.post(url, json={"type": "pass"}, headers={**keyed, "Idempotency-Key": "k" * 300}),
        422,
        "Idempotency-Key",
    )
    assert len(api.log(code)) == events
