"""Cross-site requests: bodies must be JSON, a cookie only acts for our own page, sign-out
forgets the token (on every server), the cookie is Secure over HTTPS, and every response
carries security headers."""

from __future__ import annotations

import re
import time

import httpx
import pytest
from http_kit import Server

from services.api.app import create_app


def problem(response: httpx.Response, status: int, field: str | None = None) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    if field is not None:
        assert body.get("field") == field, body
    return body


@pytest.fixture
def browser(api):
    """An httpx client holding a fresh guest's cookie, as a browser would; (client, player)."""
    made = api.http.post("/api/players", json={"name": "Ada"})
    assert made.status_code == 201
    assert api.http.cookies.get("euchre_token") == made.json()["token"]
    return api.http, made.json()


def own_page(http: httpx.Client) -> dict:
    return {"Origin": str(http.base_url).rstrip("/")}


def test_bodies_that_are_not_json_are_refused(api):
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; b=x"):
        response = api.http.post(
            "/api/players", content=b'{"name": "Ada"}', headers={"content-type": kind}
        )
        body = problem(response, 415, "Content-Type")
        assert body["allowed"] == ["application/json"]
    no_type = api.http.post("/api/players", content=b'{"name": "Ada"}')
    problem(no_type, 415, "Content-Type")


def test_a_cross_site_form_cant_move_for_a_cookie(api, browser):
    http, _ = browser
    code = http.post("/api/tables", json={}, headers=own_page(http)).json()["code"]
    form = http.post(
        f"/api/tables/{code}/moves",
        content=b'{"type": "pass"}',
        headers={"content-type": "text/plain", **own_page(http)},
    )
    problem(form, 415)
    for other in ({"Origin": "https://evil.example"}, {"Origin": "null"}, {}):
        response = http.post(f"/api/tables/{code}/start", headers=other)
        problem(response, 403, "Origin")
        response = http.post(f"/api/tables/{code}/moves", json={"type": "pass"}, headers=other)
        problem(response, 403, "Origin")
    assert len(api.log(code)) == 2  # opened and sat; nothing else
    referer = {"Referer": f"{own_page(http)['Origin']}/#/t/{code}"}
    assert http.post(f"/api/tables/{code}/start", headers=referer).status_code == 200


def test_behind_a_proxy_that_rewrites_host_the_forwarded_host_counts(browser):
    http, _ = browser
    public = {"Origin": "https://euchre.example", "X-Forwarded-Host": "euchre.example"}
    assert http.post("/api/tables", json={}, headers=public).status_code == 201
    forged = {"Origin": "https://evil.example", "X-Forwarded-Host": "euchre.example"}
    problem(http.post("/api/tables", json={}, headers=forged), 403, "Origin")


def test_the_schema_viewers_keep_framing_rules_without_the_csp(api):
    viewer = api.http.get("/schema")
    assert viewer.headers["x-frame-options"] == "DENY"
    assert "content-security-policy" not in viewer.headers


def test_a_bearer_token_needs_no_origin(api):
    ada = api.player("Ada")
    assert ada.request("POST", "/api/tables", json={}).status_code == 201


def test_reading_by_cookie_needs_no_origin(browser):
    http, me = browser
    assert http.get("/api/players/me").json()["id"] == me["id"]


def test_signing_out_revokes_the_token_and_clears_the_cookie(browser):
    http, me = browser
    assert http.get("/api/players/me").status_code == 200  # the server now remembers it
    problem(http.post("/api/sessions/logout"), 403, "Origin")
    out = http.post("/api/sessions/logout", headers=own_page(http))
    assert out.status_code == 204
    cleared = out.headers["set-cookie"].lower()
    assert "euchre_token=" in cleared and "max-age=0" in cleared
    assert "euchre_token" not in http.cookies
    bearer = {"Authorization": f"Bearer {me['token']}"}
    problem(http.get("/api/players/me", headers=bearer), 401)
    http.cookies.set("euchre_token", me["token"])
    problem(http.get("/api/players/me"), 401)


def test_signing_out_on_one_server_signs_out_on_every_other_at_once(
    api, database_url: str, redis_url: str
):
    me = api.http.post("/api/players", json={"name": "Ada"}).json()
    api.http.cookies.clear()
    bearer = {"Authorization": f"Bearer {me['token']}"}
    with (
        Server(create_app(database_url, redis_url)) as other,
        httpx.Client(base_url=other, timeout=30) as there,
    ):
        assert there.get("/api/players/me", headers=bearer).status_code == 200  # remembered
        assert api.http.post("/api/sessions/logout", headers=bearer).status_code == 204
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if there.get("/api/players/me", headers=bearer).status_code == 401:
                break
            time.sleep(0.05)
        problem(there.get("/api/players/me", headers=bearer), 401)


def test_the_cookie_is_secure_behind_https(api):
    plain = api.http.post("/api/players", json={"name": "Ada"})
    assert "secure" not in plain.headers["set-cookie"].lower()
    # The test server trusts 127.0.0.1 as its proxy, as uvicorn does by default.
    https = api.http.post(
        "/api/players", json={"name": "Bo"}, headers={"X-Forwarded-Proto": "https"}
    )
    assert "secure" in https.headers["set-cookie"].lower()


@pytest.mark.parametrize("path", ["/", "/js/api.js", "/api/health", "/api/tables/NOPE"])
def test_security_headers_on_the_page_and_the_api(api, path):
    response = api.http.get(path)
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp


def test_the_page_has_no_inline_scripts_styles_or_handlers(api):
    page = api.http.get("/").text
    assert "style=" not in page and "<style" not in page
    assert not re.search(r"\son[a-z]+\s*=", page)  # no onclick= and friends
    assert not re.search(r"<script(?![^>]*\ssrc=)", page)
