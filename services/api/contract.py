"""What the OpenAPI document says beyond the handlers' types: who may call, and every error.

Each route lists the statuses it can answer with, all as `application/problem+json` in the one
`ProblemBody` shape, so a client written from `/schema` handles every answer it can get.
litestar can't attach response headers to an extra response, nor say that a Struct refuses
unknown fields, so `finish` adds `Retry-After` to every 429 and 503, `WWW-Authenticate` to every 401
and `additionalProperties: false` to the strict bodies once the document is built.
"""

from __future__ import annotations

from litestar import Litestar
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Components, OpenAPIHeader, Schema, SecurityScheme
from litestar.openapi.spec.enums import OpenAPIType

from services.api.auth import COOKIE
from services.api.bodies import STRICT_BODIES
from services.api.problems import MEDIA_TYPE, ProblemBody

WHY = {
    400: "The request can't be read: not JSON, too deep, empty, or control characters in it.",
    401: "No valid token: send `Authorization: Bearer <token>` (or the browser's cookie).",
    403: "Not the caller's to do: not seated here, not the host, locked out or banned.",
    404: "No such table or player.",
    409: "Clashes with the table as it is: taken, not your turn, or a stale `seq`.",
    413: "The body is larger than the service accepts.",
    415: "The body must be sent as `application/json`.",
    422: "A field is wrong or the rules forbid it; `field` names it, `allowed` lists choices.",
    429: "Too many requests; try again after `Retry-After` seconds.",
    500: "Our fault; `request_id` names the log entry to quote when reporting it.",
    503: "The database or broker is not answering; try again shortly.",
}
ALWAYS = (400, 500, 503)
READ = (*ALWAYS, 401, 404, 422)
WRITE = (*READ, 403, 409, 413, 415)

SECURITY_SCHEMES = Components(
    security_schemes={
        "bearer": SecurityScheme(
            type="http", scheme="bearer", description="the token from POST /api/players"
        ),
        "cookie": SecurityScheme(
            type="apiKey",
            name=COOKIE,
            security_scheme_in="cookie",
            description="the same token, set as an HttpOnly cookie for browsers",
        ),
    }
)
SIGNED_IN = [{"bearer": []}, {"cookie": []}]
OPTIONAL = [*SIGNED_IN, {}]


def problems(*statuses: int) -> dict[int, ResponseSpec]:
    return {
        status: ResponseSpec(
            data_container=ProblemBody,
            media_type=MEDIA_TYPE,
            description=WHY[status],
            generate_examples=False,
        )
        for status in sorted(set(statuses))
    }


_HEADERS = {
    "429": {
        "Retry-After": OpenAPIHeader(
            schema=Schema(type=OpenAPIType.INTEGER, minimum=0),
            description="seconds until the limit lets this request through",
            required=True,
        )
    },
    "401": {
        "WWW-Authenticate": OpenAPIHeader(schema=Schema(type=OpenAPIType.STRING)),
    },
    "500": {
        "X-Request-ID": OpenAPIHeader(schema=Schema(type=OpenAPIType.STRING)),
    },
    "503": {
        "Retry-After": OpenAPIHeader(
            schema=Schema(type=OpenAPIType.INTEGER, minimum=0),
            description="seconds to wait before trying again",
        )
    },
}
SEED_HASH = (
    "SHA-256, in hex, of the 32 bytes of the server's seed (the bytes, not their 64-character "
    "hex text): once `seed` is shown, `sha256(bytes.fromhex(seed))` must equal this."
)


def finish(app: Litestar) -> None:
    """Add what litestar's generator can't express to the document `/schema` serves."""
    document = app.openapi_schema
    for item in (document.paths or {}).values():
        for method in ("get", "put", "post", "delete", "patch"):
            operation = getattr(item, method, None)
            for status, response in ((operation and operation.responses) or {}).items():
                if status in _HEADERS:
                    response.headers = _HEADERS[status]
    schemas = document.components.schemas or {}
    for body in STRICT_BODIES:
        if body.__name__ in schemas:
            schemas[body.__name__].additional_properties = False
    for name in ("View", "SignedView", "ShownView"):
        view = schemas.get(name)
        if view is not None and view.properties and "seed_hash" in view.properties:
            view.properties["seed_hash"].description = SEED_HASH
