"""The access log: one line per request as it ends (docs/operations.md "Logs"), with a request
id that the answer carries too (`X-Request-ID`), so a player's report, a proxy's log and ours
meet on one line.

A client's own X-Request-ID is kept when it looks like one (a proxy's, say), else a new one is
made; it, and the table a request is about, are bound for every line logged while the request
is handled (infra/logs.py). An event stream's line comes when the stream ends, with how long
it was open.
"""

from __future__ import annotations

import logging
import re
import time
import uuid

from litestar.types import ASGIApp, Message, Receive, Scope, Send

from infra import logs

log = logging.getLogger("euchre.access")
GIVEN = re.compile(r"[A-Za-z0-9._-]{1,64}")
TABLE = re.compile(r"^/api/tables/([A-Za-z0-9-]{1,32})(?:/|$)")


def access_log(app: ASGIApp) -> ASGIApp:
    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        started = time.perf_counter()
        given = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if GIVEN.fullmatch(given) else uuid.uuid4().hex
        path = scope["path"]
        table = TABLE.match(path)
        logs.forget()
        logs.bind(request_id=request_id, **({"table": table[1]} if table else {}))
        status = 500  # unless an answer starts

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {
                    **message,
                    "headers": [
                        *message.get("headers", []),
                        (b"x-request-id", request_id.encode()),
                    ],
                }
            await send(message)

        try:
            await app(scope, receive, sending)
        finally:
            if log.isEnabledFor(logging.INFO):
                client = scope.get("client")
                log.info(
                    "%s %s %d",
                    scope["method"],
                    path,
                    status,
                    extra={
                        "method": scope["method"],
                        "path": path,
                        "status": status,
                        "ms": round((time.perf_counter() - started) * 1000, 1),
                        "client": client[0] if client else None,
                    },
                )
            logs.forget()

    return middleware
