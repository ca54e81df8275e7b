"""Names over HTTP: cleaned, refused with a 422 that names the field and says what is allowed,
never passing for a registered player's, and the view tells guests from registered players."""

from __future__ import annotations

import pytest
from http_kit import PASSWORD


def refused_name(response) -> dict:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["field"] == "name", body
    # Control characters are refused for every string by the body decoder, in its words.
    assert "1-24 visible characters" in body["detail"] or "control" in body["detail"]
    return body


@pytest.mark.parametrize(
    "name",
    [
        "   ",
        "\u0000",
        "Ada\u0007",
        "A\u202eda",  # right-to-left override
        "Ad\u200ba",  # zero-width space
        "\u2066Ada\u2069",  # bidi isolates
        "\u3164",  # Hangul filler: a letter that draws nothing
        "\ue000",  # private use
        "Ada\nLovelace",
        "x" * 25,
    ],
)
def test_names_that_hide_or_fake_what_they_are_are_refused(api, name):
    api.http.cookies.clear()
    refused_name(api.http.post("/api/players", json={"name": name}))
    refused_name(api.http.post("/api/players", json={"name": name, "password": PASSWORD}))


def test_names_are_trimmed_and_normalised(api):
    made = api.http.post("/api/players", json={"name": "  Jose\u0301   Ramos  "})
    assert made.status_code == 201, made.text
    assert made.json()["name"] == "Jos\u00e9 Ramos"
    assert api.http.post("/api/players", json={"name": "x" * 24}).status_code == 201


def test_a_guest_cant_take_a_registered_name(api):
    made = api.http.post("/api/players", json={"name": "Grace", "password": "hopper-1906"})
    assert made.status_code == 201
    for lookalike in ("Grace", "grace", " GRACE ", "Gr\u0430ce"):  # the last with a Cyrillic а
        taken = api.http.post("/api/players", json={"name": lookalike})
        assert taken.status_code == 409, taken.text
        assert taken.json()["field"] == "name"


def test_the_view_tells_guests_from_registered_players(api):
    host = api.player("Bo")
    made = api.http.post("/api/players", json={"name": "Grace", "password": "hopper-1906"})
    grace_headers = {"Authorization": f"Bearer {made.json()['token']}"}
    code = host.ok("POST", "/api/tables", json={})["code"]
    api.http.cookies.clear()
    sat = api.http.post(f"/api/tables/{code}/seats/1", headers=grace_headers)
    assert sat.status_code == 200, sat.text
    seats = sat.json()["seats"]
    assert [(s["name"], s["registered"]) for s in seats[:2]] == [("Bo", False), ("Grace", True)]
    assert seats[2]["registered"] is False  # an empty seat
