"""The log's event types as a JSON Schema, served so an auditor's own verifier can check each
line of an export against the types the server writes (docs/audit.md, docs/events.md)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Response, get
from litestar.datastructures import CacheControlHeader

from projections.event_schema import event_schema
from services.api.contract import problems

# The types change only with the code, so the document is made once per process.
_DOCUMENT = msgspec.json.encode(event_schema())


@get(
    "/api/events/schema",
    tags=["audit"],
    responses=problems(400, 500),
    media_type="application/schema+json",
    cache_control=CacheControlHeader(public=True, max_age=300),
)
async def events_schema() -> Response[Any]:
    """A JSON Schema (draft 2020-12) of one line of a table's log: a `oneOf` over the event
    types by `type`, each with exactly its fields; no sign-in needed."""
    return Response(_DOCUMENT, media_type="application/schema+json")
