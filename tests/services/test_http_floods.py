"""The floods that were found, against the service with its default limits: each is cut off
with 429 long before it hurts anyone else."""

from __future__ import annotations


def test_a_flood_of_guest_sign_ups_from_one_address_is_cut_off(api):
    answers = []
    for n in range(40):
        api.http.cookies.clear()
        answers.append(api.http.post("/api/players", json={"name": f"Bot {n}"}).status_code)
    assert set(answers[:20]) == {201}
    assert set(answers[20:]) == {429}


def test_a_flood_of_tables_from_one_player_is_cut_off(api):
    ada = api.player("Ada")
    answers = [ada.request("POST", "/api/tables", json={}).status_code for _ in range(15)]
    assert answers == [201] * 10 + [429] * 5
    refused = ada.request("POST", "/api/tables", json={})
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert int(refused.headers["retry-after"]) >= 1


def test_a_flood_of_password_guesses_at_one_name_is_cut_off(api):
    made = api.http.post("/api/players", json={"name": "Grace", "password": "hopper-1906"})
    assert made.status_code == 201
    answers = [
        api.http.post("/api/sessions", json={"name": "grace", "password": f"guess-{n:04}"})
        for n in range(12)
    ]
    assert [a.status_code for a in answers] == [401] * 10 + [429] * 2
    assert answers[-1].json()["field"] == "name"
