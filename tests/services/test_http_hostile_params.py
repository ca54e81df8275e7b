"""Every header and query parameter the API reads, sent hostile: each answer is a 4xx problem
(naming the parameter) or the value is ignored; never a 5xx.

Headers go over a raw socket, since an HTTP client won't send control characters or
undecodable bytes; a value the HTTP server itself can't parse is refused by it (400) before
the app sees it, which is fine too: what matters is that nothing answers 5xx.
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import pytest

# Unicode digits (which str.isdigit() takes and int() may refuse), numbers past every integer
# type, negatives, control characters, nothing, a great deal.
HOSTILE = [
    "²",
    "١٢٣",
    "𝟗𝟗",
    "9" * 5_000,
    "9" * 4_301,
    "-1",
    "-9" + "9" * 30,
    str(2**63),
    str(2**64 + 1),
    "1e309",
    "0x10",
    " 7",
    "\x01",
    "\x7f",
    "\u202e",
    "",
    "A" * 7_000,
    "%00",
    "null",
    "http://[",
    "http://[::1",
]


def _raw(
    base_url: str, method: str, path: str, headers: dict[str, str], body: bytes = b""
) -> tuple[int, str]:
    """Status and Content-Type of one request sent byte for byte as given (a stream's
    headers come at once, and only they are read)."""
    where = urlsplit(base_url)
    lines = [f"{method} {path} HTTP/1.1", f"Host: {where.netloc}", "Connection: close"]
    if body:
        lines.append(f"Content-Length: {len(body)}")
    lines += [f"{name}: {value}" for name, value in headers.items()]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
    with socket.create_connection((where.hostname, where.port), timeout=10) as conn:
        conn.sendall(request)
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = conn.recv(65536)
            if not chunk:
                break
            received += chunk
    head = received.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    status = int(head[0].split()[1])
    content_type = next(
        (h.split(":", 1)[1].strip() for h in head[1:] if h.lower().startswith("content-type:")),
        "",
    )
    return status, content_type


def _kept(status: int, content_type: str, what: str) -> None:
    assert status < 500, what
    if status >= 400 and content_type:
        # The app answers problem+json; only the HTTP server refuses bytes it can't parse.
        assert content_type.startswith("application/problem+json") or status == 400, what


@pytest.fixture
def table(api):
    ada = api.player("Hostile")
    code = ada.ok("POST", "/api/tables", json={"code": "HOSTILE"})["code"]
    return ada, code


QUERIES = [
    ("/api/tables", "limit"),
    ("/api/tables", "before"),
    ("/api/leaderboard", "limit"),
    ("/api/leaderboard", "offset"),
    ("/api/transparency/consistency?first=0", "second"),
    ("/api/transparency/consistency?second=0", "first"),
]


@pytest.mark.parametrize(("path", "name"), QUERIES)
def test_hostile_query_parameters_are_refused_by_name(api, path, name):
    for value in HOSTILE:
        response = api.http.get(path, params={name: value})
        what = f"{path} {name}={value[:20]!r}"
        assert response.status_code < 500, what
        if response.status_code >= 400:
            assert response.headers["content-type"].startswith("application/problem+json"), what
            assert response.json().get("field") in (name, None), what


def test_a_page_past_every_lobby_position_is_refused_not_500(api):
    # Past PostgreSQL's bigint: once a 500 from the database refusing the parameter.
    for before in (2**63, 10**30):
        response = api.http.get("/api/tables", params={"before": before})
        assert response.status_code == 422, response.text
        assert response.json()["field"] == "before"


HEADERS = [
    "Last-Event-ID",
    "Idempotency-Key",
    "Authorization",
    "Cookie",
    "Origin",
    "Referer",
    "X-Forwarded-Host",
    "Content-Type",
]


@pytest.mark.parametrize("name", HEADERS)
def test_hostile_headers_never_give_5xx(base_url, table, name):
    ada, code = table
    bearer = {"Authorization": f"Bearer {ada.token}"}
    cookie = {"Cookie": f"euchre_token={ada.token}"}
    targets = [
        ("GET", f"/api/tables/{code}/events", {} if name == "Authorization" else bearer),
        ("HEAD", f"/api/tables/{code}/events", {}),
        ("GET", f"/api/tables/{code}", {}),
        ("POST", "/api/sessions/logout", cookie if name != "Cookie" else {}),
        ("POST", f"/api/tables/{code}/moves", bearer if name != "Authorization" else {}),
    ]
    for value in HOSTILE:
        for method, path, extra in targets:
            headers = {**extra, name: value}
            body = b"{}" if method == "POST" else b""
            if body and name != "Content-Type":
                headers.setdefault("Content-Type", "application/json")
            status, content_type = _raw(base_url, method, path, headers, body)
            _kept(status, content_type, f"{method} {path} {name}: {value[:20]!r} -> {status}")
