"""Security headers on every response: the page may only run our own scripts and styles, may
not be framed by another site, and no response is sniffed into another type.

The OpenAPI viewers under /schema load their scripts from a CDN, so they get every header but
the Content-Security-Policy; the document itself (/schema/openapi.json) is data either way.
"""

from __future__ import annotations

from litestar.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
ALWAYS = [
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
]
STRICT = [*ALWAYS, (b"content-security-policy", CSP.encode())]


def security_headers(app: ASGIApp) -> ASGIApp:
    """Middleware adding the headers to each HTTP response that doesn't set them itself."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        extra = ALWAYS if scope["path"].startswith("/schema") else STRICT

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in extra if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, sending)

    return middleware
