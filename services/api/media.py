"""Bodies are JSON, said so in `Content-Type`.

Part of the defence against cross-site requests: a form on another site can post
`text/plain` or form data without asking, but not `application/json` (that needs a CORS
preflight, which this service never grants). So refusing every other type of body closes
that door even before the cookie's Origin check (services.api.auth).
"""

from __future__ import annotations

from litestar.types import Scope

from services.api.problems import Problem

JSON = "application/json"
CHANGES = {"POST", "PUT", "PATCH", "DELETE"}


def unlabelled_body(scope: Scope) -> Problem | None:
    """The refusal of a request that changes state and sends a body not declared JSON.

    Asked at the edge (services.api.edge), before routing: a guard costs litestar a copy of
    the route handler at every request, and a foreign form has no business reaching a route.
    """
    if scope["method"] not in CHANGES:
        return None
    first: dict[bytes, bytes] = {}
    for name, value in scope["headers"]:
        first.setdefault(name.lower(), value)
    length = first.get(b"content-length")
    if length is None:
        if b"transfer-encoding" not in first:
            return None
    elif length.strip() in (b"", b"0"):
        return None
    declared = first.get(b"content-type", b"").decode("latin-1")
    if declared.partition(";")[0].strip().lower() == JSON:
        return None
    sent = f"this one is {declared}" if declared else "this one is not labelled"
    return Problem(
        415,
        f"the body must be JSON, sent with 'Content-Type: {JSON}' ({sent})",
        field="Content-Type",
        allowed=[JSON],
    )
