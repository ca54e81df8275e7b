"""The one way a request body becomes a typed Struct: bounded, strict, and named when wrong.

litestar's own body parsing converts leniently (`"1"` and `1.0` become seat 1) and reports
errors against a parameter called `data`. Every handler's body goes through `StrictBody`
instead: the JSON is checked for depth before it is parsed (a deep one would exhaust the
parser's recursion), strings may not carry control characters (NUL breaks PostgreSQL, the
rest break logs and pages), and types are matched exactly. A refusal names the field by its
dotted path (`settings.alone`) and, where the type says, what is allowed there.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Generator
from types import UnionType
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_origin

import msgspec
from litestar.dto import AbstractDTO
from litestar.dto.data_structures import DTOFieldDefinition
from litestar.typing import FieldDefinition

from services.api.problems import Problem

MAX_DEPTH = 16
MAX_BODY = 64 * 1024  # the app's request_max_body_size: litestar answers 413 beyond it
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]')
_AT = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)
_NAMED = re.compile(r"field `(?P<name>[^`]+)`")


def _depth(body: bytes) -> int:
    depth = deepest = 0
    for token in _TOKENS.finditer(body):
        mark = token.group()
        if mark in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif mark in (b"]", b"}"):
            depth -= 1
    return deepest


def _join(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def _bad_string(value: str) -> bool:
    """Control characters (C0, DEL, C1) and NUL; tabs and newlines are no use in a name either."""
    return any(unicodedata.category(ch) == "Cc" for ch in value)


def _check_strings(value: Any, path: str = "") -> None:
    if isinstance(value, str):
        if _bad_string(value):
            raise Problem(422, f"{path or 'the body'} may not contain control characters", path)
    elif isinstance(value, dict):
        for key, item in value.items():
            where = _join(path, key)
            if _bad_string(key):
                raise Problem(422, "a key may not contain control characters", where)
            _check_strings(item, where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_strings(item, _join(path, i))


def _members(kind: Any) -> list[Any]:
    """The plain types `kind` may be: metadata stripped, unions flattened, None left out."""
    if get_origin(kind) is Annotated:
        return _members(get_args(kind)[0])
    if get_origin(kind) in (Union, UnionType):
        return [m for arg in get_args(kind) for m in _members(arg)]
    return [] if kind is type(None) else [kind]


def _struct(kind: Any, data: Any) -> Any:
    """Of the Structs `kind` may be, the one `data` is meant as (by its tag, if tagged)."""
    structs = [m for m in _members(kind) if isinstance(m, type) and issubclass(m, msgspec.Struct)]
    if isinstance(data, dict):
        tagged = [
            s
            for s in structs
            if s.__struct_config__.tag_field
            and data.get(s.__struct_config__.tag_field) == s.__struct_config__.tag
        ]
        structs = tagged or structs
    return structs[0] if structs else None


def _step(kind: Any, key: str, data: Any) -> Any:
    """The type one step down `kind` at `key`."""
    struct = _struct(kind, data)
    if struct is not None:
        fields = msgspec.structs.fields(struct)
        return next((f.type for f in fields if f.encode_name == key), None)
    for member in _members(kind):
        if get_origin(member) is list:
            return get_args(member)[0]
        if get_origin(member) is dict:
            return get_args(member)[1]
    return None


def _allowed(root: Any, parts: list[str], data: Any, unknown: bool) -> list[Any] | None:
    """What the type allows at `parts`: its literal values, a union's tags, or (for an unknown
    field) the field names of the object holding it."""
    if not parts:
        return None
    parent, holder = root, data
    for part in parts[:-1]:
        parent = _step(parent, part, holder)
        holder = holder.get(part) if isinstance(holder, dict) else None
    if unknown:
        struct = _struct(parent, holder)
        if struct is None:
            return None
        tag = struct.__struct_config__.tag_field
        return sorted([*struct.__struct_fields__, *([tag] if tag else [])])
    structs = [m for m in _members(parent) if isinstance(m, type) and issubclass(m, msgspec.Struct)]
    tags = [s.__struct_config__.tag for s in structs if s.__struct_config__.tag_field == parts[-1]]
    if tags:
        return tags
    allowed: list[Any] = []
    for member in _members(_step(parent, parts[-1], holder)):
        if get_origin(member) is Literal:
            allowed.extend(get_args(member))
        elif member is bool:
            allowed.extend([True, False])
    return allowed or None


def _split(path: str) -> list[str]:
    return [p for p in re.split(r"\.|\[(\d+)\]", path) if p]


def refusal(error: msgspec.ValidationError, kind: Any, data: Any) -> Problem:
    """A msgspec validation error as a problem naming the field and what is allowed there."""
    match = _AT.match(str(error))
    message, path = match.group("message"), (match.group("path") or "").lstrip(".")
    named = _NAMED.search(message)
    if named:  # a missing or unknown field: the field is that name, under the path
        path = _join(path, named.group("name")) if path else named.group("name")
    parts = [int(p) if p.isdigit() else p for p in _split(path)]
    field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")
    unknown = message.startswith("Object contains unknown field")
    allowed = _allowed(kind, [str(p) for p in parts], data, unknown)
    if message.startswith("Object missing required field"):
        detail = f"{field} is required"
    elif unknown:
        detail = f"there is no field {field}"
    else:
        detail = f"{field or 'the body'}: {message[0].lower()}{message[1:]}"
    if allowed:
        shown = (v if isinstance(v, str) else msgspec.json.encode(v).decode() for v in allowed)
        detail += f"; allowed: {', '.join(shown)}"
    return Problem(422, detail, field=field or None, allowed=allowed)


def decode(body: bytes, kind: Any) -> Any:
    """`body` as `kind`, or a Problem saying what is wrong with it."""
    if not body.strip():
        raise Problem(400, "the body is empty; send a JSON object")
    if _depth(body) > MAX_DEPTH:
        raise Problem(400, f"the body nests deeper than {MAX_DEPTH} levels")
    try:
        data = msgspec.json.decode(body)
    except msgspec.DecodeError as error:
        raise Problem(400, f"the body is not valid JSON ({error})") from None
    _check_strings(data)
    try:
        return msgspec.convert(data, kind, strict=True)
    except msgspec.ValidationError as error:
        raise refusal(error, kind, data) from None


class StrictBody(AbstractDTO):
    """Set on the app as its DTO: every handler's `data` is decoded by `decode`, and the
    OpenAPI document shows the handler's own Struct (not a generated transfer model)."""

    _kinds: ClassVar[dict[str, Any]] = {}

    @classmethod
    def generate_field_definitions(
        cls, model_type: type[Any]
    ) -> Generator[DTOFieldDefinition, None, None]:
        yield from ()

    @classmethod
    def detect_nested_field(cls, field_definition: FieldDefinition) -> bool:
        return False

    @classmethod
    def create_for_field_definition(
        cls, field_definition: FieldDefinition, handler_id: str, backend_cls: Any = None
    ) -> None:
        cls._kinds[handler_id] = field_definition.annotation

    @classmethod
    def create_openapi_schema(
        cls, field_definition: FieldDefinition, handler_id: str, schema_creator: Any
    ) -> Any:
        return schema_creator.for_field_definition(field_definition)

    def decode_bytes(self, value: bytes) -> Any:
        return decode(value, self._kinds[self.asgi_connection.route_handler.handler_id])

    def decode_builtins(self, value: dict[str, Any]) -> Any:
        raise Problem(415, "send the body as application/json")
