"""Sign-up refuses passwords that are easy to guess, saying how to pick a better one, and takes
long passphrases of any characters."""

from __future__ import annotations

import pytest
from http_kit import PASSWORD

NAME = "Rosalind Franklin"


@pytest.mark.parametrize("password", ["password", "12345678", "rosalind", "rosalindfranklin"])
def test_an_easy_password_is_refused_saying_how_to_do_better(api, password):
    refused = api.http.post("/api/players", json={"name": NAME, "password": password})
    assert refused.status_code == 422, refused.text
    assert refused.headers["content-type"].startswith("application/problem+json")
    body = refused.json()
    assert body["field"] == "password"
    assert "too easy to guess" in body["detail"]
    assert "Add another word or two" in body["detail"]
    if password.startswith("rosalind"):
        assert "your name" in body["detail"]
    # The name is still free.
    made = api.http.post("/api/players", json={"name": NAME, "password": PASSWORD})
    assert made.status_code == 201, made.text


def test_a_long_passphrase_is_taken_and_signs_in(api):
    passphrase = "the heron waits by the weir while the kettle sings; " * 3
    assert len(passphrase) > 64
    made = api.http.post("/api/players", json={"name": NAME, "password": passphrase})
    assert made.status_code == 201, made.text
    again = api.http.post("/api/sessions", json={"name": NAME, "password": passphrase})
    assert again.status_code == 200, again.text


def test_a_registered_name_is_taken_whatever_the_password(api):
    """Whoever registers a name that is theirs already learns so, and signs in (the lobby
    does), even with an old password that would be refused now."""
    made = api.http.post("/api/players", json={"name": NAME, "password": PASSWORD})
    assert made.status_code == 201, made.text
    again = api.http.post("/api/players", json={"name": NAME, "password": "password"})
    assert again.status_code == 409, again.text
