"""The edge of the service, in front of litestar's router: paths it must refuse, HEAD, Allow.

- A path with a control character (`/%00`) is refused with 400 before anything tries to open
  a file or query the database with it.
- `HEAD` is answered wherever `GET` is, as the GET's headers without its body (RFC 9110); a
  stream (`/events`) ends right after its headers.
- A request that changes state with a body not declared JSON is refused with 415
  (services.api.media says why).
- `OPTIONS` lists every method the path serves. litestar's own OPTIONS answer lists only the
  methods of the first handler registered at a path (`GET /api/tables` was missing), while its
  router's 405 lists them all; so OPTIONS asks the router with a method no route has, and
  answers 204 with the `Allow` of that 405.
"""

from __future__ import annotations

import unicodedata

import msgspec
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from services.api.media import unlabelled_body
from services.api.problems import Problem, said

PROBE = "X-ALLOW-PROBE"  # no route serves it, so the router answers 405 with the full Allow


def _bad_path(path: str) -> bool:
    return any(unicodedata.category(ch) == "Cc" for ch in path)


def _with_head(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    out = []
    for name, value in headers:
        listed = [m.strip() for m in value.split(b",")]
        if name.lower() == b"allow" and b"GET" in listed and b"HEAD" not in listed:
            value = b", ".join([*listed, b"HEAD"])
        out.append((name, value))
    return out


async def _refuse(scope: Scope, send: Send, problem: Problem) -> None:
    """The problem in the language the request asks for, as the app's own refusals are."""
    accept = next((v for n, v in scope["headers"] if n.lower() == b"accept-language"), b"")
    content, extra = said(problem, accept.decode("latin-1"))
    body = msgspec.json.encode(content)
    headers = [
        (b"content-type", b"application/problem+json"),
        (b"content-length", b"%d" % len(body)),
        *((name.lower().encode(), value.encode("latin-1")) for name, value in extra.items()),
    ]
    await send({"type": "http.response.start", "status": problem.status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def _options(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    answer: list[Message] = []

    async def keep(message: Message) -> None:
        answer.append(message)

    await app({**scope, "method": PROBE}, receive, keep)
    start = answer[0] if answer else {"status": 500, "headers": []}
    if start["status"] != 405:  # no such path (404), or a path refused: the router's answer
        for message in answer:
            await send(message)
        return
    allow = [(n, v) for n, v in _with_head(list(start["headers"])) if n.lower() == b"allow"]
    headers = [*allow, (b"content-length", b"0")]
    await send({"type": "http.response.start", "status": 204, "headers": headers})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def edge(app: ASGIApp) -> ASGIApp:
    async def gate(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        if _bad_path(scope["path"]):
            await _refuse(scope, send, Problem(400, "the path may not contain control characters"))
            return
        if scope["method"] == "OPTIONS":
            await _options(app, scope, receive, send)
            return
        unlabelled = unlabelled_body(scope)
        if unlabelled is not None:
            await _refuse(scope, send, unlabelled)
            return
        head = scope["method"] == "HEAD"
        if head:
            scope = {**scope, "method": "GET"}
        done = False

        async def quiet_receive() -> Message:
            if done:
                return {"type": "http.disconnect"}
            return await receive()

        async def reply(message: Message) -> None:
            nonlocal done
            if done:
                return
            if message["type"] == "http.response.start":
                message = {**message, "headers": _with_head(list(message.get("headers", [])))}
            elif head and message["type"] == "http.response.body":
                message = {"type": "http.response.body", "body": b"", "more_body": False}
                done = True
            await send(message)

        await app(scope, quiet_receive if head else receive, reply)

    return gate
