"""What the OpenAPI document says beyond the handlers' types: who may call, and every error.

Each route lists the statuses it can answer with, all as `application/problem+json` in the one
`ProblemBody` shape, so a client written from `/schema` handles every answer it can get.
litestar can't attach response headers to an extra response, say that a Struct refuses
unknown fields, describe a stream's frames or link operations, and it drops what an optional
field's type says about the value, so `finish` adds, once the document is built:
`Retry-After` to every 429 and 503, `WWW-Authenticate` to every 401, `additionalProperties:
false` to every body that refuses unknown fields, the schemas of the view's `can` and of each
`event:` of `/events`, the patterns of a name, a chat line, an `Idempotency-Key` and of every
other string the server reads (no control characters), that a seed and a commitment don't go
together, that a body which may be left out is optional, and links from the operations that
make a table or a player to those that use its code or id.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from typing import Any

import msgspec
from litestar import Litestar
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import (
    Components,
    Link,
    OpenAPIHeader,
    OpenAPIMediaType,
    Reference,
    Schema,
    SecurityScheme,
)
from litestar.openapi.spec.enums import OpenAPIType

from domain import talk
from infra import names
from services.api.auth import COOKIE
from services.api.bodies import CODE_PATTERN, FRAMES, MOVE_BODIES, Can
from services.api.problems import MEDIA_TYPE, ProblemBody
from services.api.retries import HEADER, KEY

WHY = {
    400: "The request can't be read: not JSON, too deep, empty, or control characters in it.",
    401: "No valid token: send `Authorization: Bearer <token>` (or the browser's cookie).",
    403: "Not the caller's to do: not seated here, not the host, locked out or banned.",
    404: "No such table or player.",
    409: "Clashes with the table as it is: the seat or code is taken, the game has started or "
    "not, or it isn't your turn.",
    413: "The body is larger than the service accepts.",
    415: "The body must be sent as `application/json`.",
    422: "A field is wrong; `field` names it, `allowed` lists what it may be.",
    429: "Too many requests; try again after `Retry-After` seconds.",
    500: "Our fault; `request_id` names the log entry to quote when reporting it.",
    503: "The database or broker is not answering; try again shortly.",
}
ALWAYS = (400, 500, 503)
# 403 on reads too: a player banned from the site is refused whatever they ask.
READ = (*ALWAYS, 401, 403, 404, 422)
WRITE = (*READ, 409, 413, 415)

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


def problems(*statuses: int, why: dict[int, str] | None = None) -> dict[int, ResponseSpec]:
    """The error answers a route can give, each with what it means there: `why`'s word for
    this route where it has one, else the meaning it has everywhere."""
    said = {**WHY, **(why or {})}
    return {
        status: ResponseSpec(
            data_container=ProblemBody,
            media_type=MEDIA_TYPE,
            description=said[status],
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


def _ranges(keep: Any, escape: bool = False) -> str:
    """A regex class of every code point `keep` takes, as ranges of literal characters, or
    with `escape` as `\\uXXXX` escapes (characters of the BMP only), for those that are
    invisible or control characters themselves."""
    spans: list[list[int]] = []
    for point in range(sys.maxunicode + 1):
        if keep(chr(point)):
            if spans and spans[-1][1] == point - 1:
                spans[-1][1] = point
            else:
                spans.append([point, point])

    def one(point: int) -> str:
        if escape:  # `\\uXXXX` is as far as JSON Schema's regexes go: the BMP
            return f"\\u{point:04x}"
        return re.escape(chr(point)) if chr(point) in "\\]^-[" else chr(point)

    return "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in spans)


@functools.cache
def name_pattern() -> str:
    """`infra.names.clean`'s rule as far as a pattern can say it, for clients and fuzzers to
    build names from: at most 24 letters and spaces, each letter with at most 3 accents."""

    def letter(ch: str) -> bool:
        kind = unicodedata.category(ch)
        return kind not in names.REFUSED and kind[0] not in "MZ" and ch not in names.BLANK

    def accent(ch: str) -> bool:
        return unicodedata.category(ch)[0] == "M" and ch not in names.BLANK

    unit = f"[{_ranges(letter)}][{_ranges(accent)}]{{0,{names.MAX_MARKS}}}"
    return f"^ {{0,{names.MAX_VISIBLE}}}{unit}(?:{unit}| ){{0,{names.MAX_VISIBLE - 1}}}$"


@functools.cache
def chat_pattern() -> str:
    """`domain.talk.chat_text`'s rule as a pattern: one line with something besides spaces,
    no control characters, line or paragraph separators or direction overrides."""

    def refused(ch: str) -> bool:  # a lone surrogate can't be sent: JSON text is UTF-8
        kind = unicodedata.category(ch)
        return (kind in talk.REFUSED and kind != "Cs") or ch in talk.BIDI

    def blank(ch: str) -> bool:
        return ch.isspace() and not refused(ch)

    never, spaces = _ranges(refused, escape=True), _ranges(blank, escape=True)
    return f"^[^{never}]*[^{never}{spaces}][^{never}]*$"


# What every string the server reads may hold: no control characters (C0, DEL, C1), which
# services.api.decoding refuses in a body and services.api.edge in a path.
NO_CONTROL = r"^[^\x00-\x1f\x7f-\x9f]*$"


def _parts(schema: Any, schemas: dict[str, Any], seen: set[str]) -> Any:
    """Every schema within `schema`, following references into `schemas` once each."""
    if isinstance(schema, Reference):
        name = schema.ref.rsplit("/", 1)[-1]
        if name not in seen and isinstance(schemas.get(name), Schema):
            seen.add(name)
            yield from _parts(schemas[name], schemas, seen)
        return
    if not isinstance(schema, Schema):
        return
    yield schema
    inner = [*(schema.properties or {}).values()]
    if schema.pattern is None:  # litestar puts an optional string's pattern beside its oneOf
        inner.extend([*(schema.one_of or []), *(schema.any_of or [])])
    if isinstance(schema.items, Schema | Reference):
        inner.append(schema.items)
    for part in inner:
        yield from _parts(part, schemas, seen)


def _free_strings(document: Any) -> None:
    """The no-control pattern on each string of a request (body, path or header) that has
    no pattern or fixed values of its own; a body that may be left out is optional."""
    schemas = document.components.schemas or {}
    found: list[Any] = []
    for item in (document.paths or {}).values():
        for method in ("get", "put", "post", "delete", "patch"):
            operation = getattr(item, method, None)
            if operation is None:
                continue
            for parameter in operation.parameters or []:
                if parameter.param_in in ("path", "header"):
                    found.extend(_parts(parameter.schema, schemas, set()))
            body = operation.request_body
            for media in (body.content if body else {}).values():
                found.extend(_parts(media.schema, schemas, set()))
                choices = media.schema.one_of if isinstance(media.schema, Schema) else None
                if any(isinstance(c, Schema) and c.type == OpenAPIType.NULL for c in choices or []):
                    body.required = False  # type: ignore[union-attr]
    for schema in found:
        if (
            _is_string(schema)
            and schema.pattern is None
            and schema.enum is None
            and schema.const is None
        ):
            schema.pattern = NO_CONTROL


def _is_string(schema: Schema) -> bool:
    kinds = schema.type if isinstance(schema.type, list) else [schema.type]
    return OpenAPIType.STRING in kinds


def _strict() -> set[str]:
    """The names of every Struct that refuses unknown fields."""
    found: set[str] = set()
    todo = list(msgspec.Struct.__subclasses__())
    while todo:
        kind = todo.pop()
        todo.extend(kind.__subclasses__())
        if kind.__struct_config__.forbid_unknown_fields:
            found.add(kind.__name__)
    return found


# Operations that make a table (its code in the answer) or a player (its id), and the
# operations that use them: links a stateful client (or fuzzer) follows.
_MAKES = {
    ("/api/tables", "post"): "code",
    ("/api/tables/{code}/again", "post"): "code",
    ("/api/players", "post"): "id",
    ("/api/sessions", "post"): "id",
}
_USES = {"code": "code", "id": "player_id"}


def _link(target: Any, name: str, field: str) -> Link:
    return Link(
        operation_id=target.operation_id,
        parameters={name: f"$response.body#/{field}"},
        description=f"`{name}` is the answer's `{field}`",
    )


def _links(paths: dict[str, Any]) -> None:
    operations = [
        (path, method, getattr(item, method))
        for path, item in paths.items()
        for method in ("get", "put", "post", "delete", "patch")
        if getattr(item, method, None) is not None
    ]
    for (path, method), field in _MAKES.items():
        made = getattr(paths[path], method).responses
        answer = next(r for status, r in made.items() if status.startswith("2"))
        name = _USES[field]
        answer.links = {
            target.operation_id: _link(target, name, field)
            for target_path, _, target in operations
            if "{" + name + "}" in target_path and not target_path.endswith("/events")
        }
        if path == "/api/players":
            sign_in = paths["/api/sessions"].post
            answer.links[sign_in.operation_id] = Link(
                operation_id=sign_in.operation_id,
                request_body={
                    "name": "$response.body#/name",
                    "password": "$request.body#/password",
                },
                description="a registered player signs in with the name and password",
            )


def _frames(document: Any) -> None:
    """Components for the view's `can` and each frame of the event stream, referred to from
    the views and from `/events`' `text/event-stream` answer."""
    _, made = msgspec.json.schema_components(
        (Can, *FRAMES), ref_template="#/components/schemas/{name}"
    )
    schemas = document.components.schemas
    for name, schema in made.items():
        schemas.setdefault(name, schema)  # the views' own parts are litestar's already
    for name in ("View", "SignedView", "ShownView"):
        view = schemas.get(name)
        if view is not None and view.properties and "can" in view.properties:
            view.properties["can"] = Reference(ref="#/components/schemas/Can")
    for path, item in (document.paths or {}).items():
        if path.endswith("/events") and item.get is not None:
            item.get.responses["200"].content = {
                "text/event-stream": OpenAPIMediaType(
                    schema=Schema(
                        description="Server-sent events: each frame's `event:` names its "
                        "`data`'s schema (one JSON object on one `data:` line), `id:` its seq; "
                        "a comment line keeps the connection open",
                        one_of=[
                            Reference(ref=f"#/components/schemas/{f.__name__}") for f in FRAMES
                        ],
                    )
                )
            }


def _rules(document: Any) -> None:
    """What litestar's schemas of the bodies and headers leave out: a move's `seq` is never
    negative, an `Idempotency-Key` is printable ASCII, and a seat's seed and a commitment to
    one are given one or the other, not both (domain.lifecycle)."""
    schemas = document.components.schemas
    for body in MOVE_BODIES:
        seq = schemas[body.__name__].properties["seq"]
        seq.one_of = [Schema(type=OpenAPIType.INTEGER, minimum=0), Schema(type=OpenAPIType.NULL)]
    both = Schema(
        required=["seed", "commitment"],
        properties={
            "seed": Schema(type=OpenAPIType.STRING),
            "commitment": Schema(type=OpenAPIType.STRING),
        },
    )
    for name in ("NewTable", "SitBody"):
        schemas[name].schema_not = both
    for item in (document.paths or {}).values():
        for method in ("get", "put", "post", "delete", "patch"):
            operation = getattr(item, method, None)
            for parameter in (operation and operation.parameters) or []:
                if parameter.name == HEADER and parameter.param_in == "header":
                    parameter.schema = Schema(
                        type=OpenAPIType.STRING,
                        pattern=KEY.pattern,
                        description=parameter.description,
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
            for parameter in (operation and operation.parameters) or []:
                if parameter.name == "code" and parameter.param_in == "path":
                    parameter.schema = Schema(type=OpenAPIType.STRING, pattern=CODE_PATTERN)
    schemas = document.components.schemas or {}
    for name in _strict() & set(schemas):
        schemas[name].additional_properties = False
    schemas["NewPlayer"].properties["name"].pattern = name_pattern()
    schemas["ChatBody"].properties["text"].pattern = chat_pattern()
    _rules(document)
    _free_strings(document)
    _frames(document)
    schemas["ProblemBody"].properties["legal"] = Schema(
        one_of=[Reference(ref="#/components/schemas/Can"), Schema(type=OpenAPIType.NULL)],
        description="refusing an illegal move: the moves open to you now, as the view's `can`",
    )
    _links(document.paths or {})
    for name in ("View", "SignedView", "ShownView"):
        view = schemas.get(name)
        if view is not None and view.properties and "seed_hash" in view.properties:
            view.properties["seed_hash"].description = SEED_HASH
