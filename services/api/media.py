"""Bodies are JSON, said so in `Content-Type`.

Part of the defence against cross-site requests: a form on another site can post
`text/plain` or form data without asking, but not `application/json` (that needs a CORS
preflight, which this service never grants). So refusing every other type of body closes
that door even before the cookie's Origin check (services.api.auth).
"""

from __future__ import annotations

from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler

from services.api.problems import Problem

JSON = "application/json"
CHANGES = {"POST", "PUT", "PATCH", "DELETE"}


def _has_body(connection: ASGIConnection) -> bool:
    length = connection.headers.get("content-length")
    if length is not None:
        return length.strip() not in ("", "0")
    return "transfer-encoding" in connection.headers


async def json_bodies(connection: ASGIConnection, _: BaseRouteHandler) -> None:
    """An app-wide guard: a request that changes state and has a body must declare it JSON.

    Async though it never waits: litestar runs a plain function guard on a worker thread, a
    thread hop on every request for a check of one header.
    """
    if connection.scope.get("method") not in CHANGES or not _has_body(connection):
        return
    declared = connection.headers.get("content-type", "")
    if declared.partition(";")[0].strip().lower() != JSON:
        raise Problem(
            415,
            f"the body must be JSON, sent with 'Content-Type: {JSON}' "
            f"(this one is {declared or 'not labelled'})",
            field="Content-Type",
            allowed=[JSON],
        )
