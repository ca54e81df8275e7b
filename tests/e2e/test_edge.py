"""The HTTP edge of `euchre serve` on its own, with no proxy in front, against slow and idle
clients over real sockets: half-sent requests are closed, one address can't hold every
connection, a full server makes room for a newcomer, and only a trusted proxy chooses the
address the rate limits count.

On Linux any 127.x.y.z is this machine, so a test plays several clients by binding the source
address of its connections.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from serve_kit import own_redis, serving

SMALL = {"EUCHRE_CONNECTIONS_PER_ADDRESS": "50", "EUCHRE_MAX_CONNECTIONS": "200"}


@contextlib.contextmanager
def served(database_url: str, redis_url: str, folder: Path, **settings: str) -> Iterator[str]:
    with serving(database_url, own_redis(redis_url), folder, settings=settings) as base:
        yield base


def connect(base: str, source: str) -> socket.socket:
    parts = urlsplit(base)
    return socket.create_connection(
        (parts.hostname, parts.port), timeout=5, source_address=(source, 0)
    )


def until_closed(sock: socket.socket, seconds: float) -> bytes | None:
    """All the server sent before closing `sock`, or None if it is still open after `seconds`."""
    got = b""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        if not select.select([sock], [], [], left)[0]:
            break
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return got
        if not chunk:
            return got
        got += chunk
    return None


def still_open(sock: socket.socket) -> bool:
    """Nothing to read: neither an answer nor the close."""
    return not select.select([sock], [], [], 0)[0]


def problem(answer: bytes) -> tuple[int, dict]:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert b"content-type: application/problem+json" in head.lower(), answer
    return int(head.split()[1]), json.loads(body)


def test_half_sent_requests_are_closed_within_the_header_and_body_timeouts(
    database_url: str, redis_url: str, tmp_path: Path
) -> None:
    settings = {**SMALL, "EUCHRE_HEADER_TIMEOUT": "2", "EUCHRE_BODY_TIMEOUT": "2"}
    with served(database_url, redis_url, tmp_path, **settings) as base:
        silent = connect(base, "127.0.0.1")
        half = connect(base, "127.0.0.1")
        half.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        bodiless = connect(base, "127.0.0.1")
        bodiless.sendall(
            b"POST /api/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 40\r\n\r\n{"
        )
        # Keep-alive: a first request answered, then the next one's headers only begun.
        again = connect(base, "127.0.0.1")
        again.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert again.recv(65536).startswith(b"HTTP/1.1 200")
        again.sendall(b"GET /api/health HTTP/1.1\r\n")
        start = time.monotonic()
        # Held forever before: the bound allows 2 s of timeout and a wide margin.
        answers = [until_closed(s, 15) for s in (silent, half, bodiless, again)]
        took = time.monotonic() - start
        assert all(a is not None for a in answers), answers
        assert took < 10, took
        assert answers[0] == b""  # nothing asked, nothing answered
        for answer in answers[1:]:
            assert answer is not None
            status, body = problem(answer)
            assert status == 408 and "in time" in body["detail"], body
        assert httpx.get(f"{base}/api/health").status_code == 200


def test_one_address_is_capped_and_another_is_still_served(
    database_url: str, redis_url: str, tmp_path: Path
) -> None:
    with served(database_url, redis_url, tmp_path, **SMALL, EUCHRE_HEADER_TIMEOUT="60") as base:
        held = [connect(base, "127.0.0.2") for _ in range(60)]
        assert httpx.get(f"{base}/api/health", timeout=5).status_code == 200
        refused = [a for a in (until_closed(s, 0.5) for s in held) if a is not None]
        assert len(refused) == 10, f"{len(refused)} of 60 refused, cap 50"
        for answer in refused:
            status, body = problem(answer)
            assert status == 429 and "at most 50" in body["detail"], body
        assert sum(still_open(s) for s in held) == 50
        for s in held:
            s.close()


def test_a_full_server_closes_the_oldest_half_sent_connection_for_a_newcomer(
    database_url: str, redis_url: str, tmp_path: Path
) -> None:
    with served(database_url, redis_url, tmp_path, **SMALL, EUCHRE_HEADER_TIMEOUT="60") as base:
        held = []
        for n in range(4):  # 200 half-sent requests spread over four addresses fill the server
            for _ in range(50):
                s = connect(base, f"127.0.1.{n + 1}")
                s.sendall(b"GET / HTTP/1.1\r\n")
                held.append(s)
        assert all(still_open(s) for s in held)
        for _ in range(3):
            assert httpx.get(f"{base}/api/health", timeout=5).status_code == 200
        # The first newcomer made room by closing the oldest one; a later one took the place
        # its closed predecessor left, or (if that close wasn't seen yet) the next oldest.
        time.sleep(0.5)
        closed = [n for n, s in enumerate(held) if not still_open(s)]
        assert closed in ([0], [0, 1], [0, 1, 2]), closed
        assert until_closed(held[0], 1) == b""
        for s in held:
            s.close()


def sign_up(base: str, source: str, name: str, forwarded: str) -> int:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(base_url=base, transport=transport) as http:
        response = http.post(
            "/api/players", json={"name": name}, headers={"X-Forwarded-For": forwarded}
        )
        return response.status_code


def test_only_a_trusted_proxy_chooses_the_address_the_rate_limits_count(
    database_url: str, redis_url: str, tmp_path: Path
) -> None:
    settings = {
        "EUCHRE_LIMIT_SIGN_UPS_PER_ADDRESS": "2/minute",
        "EUCHRE_TRUSTED_PROXIES": "127.0.0.3",
    }
    with served(database_url, redis_url, tmp_path, **settings) as base:
        # From an untrusted peer (127.0.0.1 was trusted by default) a new X-Forwarded-For
        # each time changes nothing: the peer's own address is what is counted.
        spoofed = [sign_up(base, "127.0.0.1", f"Spoof {n}", f"203.0.113.{n}") for n in range(3)]
        assert spoofed == [201, 201, 429], spoofed
        # From the trusted proxy each client is counted by the address it forwards.
        proxied = [sign_up(base, "127.0.0.3", f"Proxied {n}", f"198.51.100.{n}") for n in range(3)]
        assert proxied == [201, 201, 201], proxied
        again = [sign_up(base, "127.0.0.3", f"Again {n}", "198.51.100.0") for n in range(2)]
        assert again == [201, 429], again
