"""The one way a request body becomes a typed Struct: bounded, strict, and named when wrong.

litestar's own body parsing converts leniently (`"1"` and `1.0` become seat 1) and reports
errors against a parameter called `data`. Every handler's body goes through `StrictBody`
instead: the JSON is checked for depth before it is parsed (a deep one would exhaust the
parser's recursion), strings may not carry control characters (NUL breaks PostgreSQL, the
rest break logs and pages), and types are matched exactly, but for numbers: JSON has one kind,
and JSON Schema counts `1.0` as an integer, so a whole number written with a fraction or an
exponent is taken where an integer is asked for. A refusal names the field by its dotted path
(`settings.alone`) and, where the type says, what is allowed there.
"""

from __future__ import annotations

import functools
import re
import unicodedata
import weakref
from collections.abc import Generator
from typing import Any, ClassVar, get_args

import msgspec
from litestar.dto import AbstractDTO
from litestar.dto.data_structures import DTOFieldDefinition
from litestar.typing import FieldDefinition

from services.api.problems import Problem
from services.api.refusals import join_path, refusal

MAX_DEPTH = 16
MAX_BODY = 64 * 1024  # the app's request_max_body_size: litestar answers 413 beyond it
# One linear pass: an escape pair, a quote or a bracket. (A pattern for whole strings would
# rescan the rest of the body from every quote of an unterminated one: quadratic.)
_MARKS = re.compile(rb'\\.|["\[\]{}]', re.S)


def _too_deep(body: bytes) -> bool:
    """Whether arrays and objects nest deeper than MAX_DEPTH (brackets in strings don't count)."""
    depth = 0
    quoted = False
    for found in _MARKS.finditer(body):
        mark = found.group()
        if mark == b'"':
            quoted = not quoted
        elif quoted or len(mark) == 2:
            continue
        elif mark in (b"[", b"{"):
            depth += 1
            if depth > MAX_DEPTH:
                return True
        else:
            depth -= 1
    return False


def _bad_string(value: str) -> bool:
    """Control characters (C0, DEL, C1) and NUL; tabs and newlines are no use in a name either."""
    return any(unicodedata.category(ch) == "Cc" for ch in value)


def _check_strings(value: Any, path: str = "") -> None:
    if isinstance(value, str):
        if _bad_string(value):
            whole = "the body may not contain control characters"
            raise Problem(
                422, f"{path} may not contain control characters" if path else whole, path or None
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            where = join_path(path, key)
            if _bad_string(key):
                raise Problem(422, "a key may not contain control characters", path or None)
            _check_strings(item, where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_strings(item, join_path(path, i))


def decode(body: bytes, kind: Any) -> Any:
    """`body` as `kind`, or a Problem saying what is wrong with it. An empty body is None
    where `kind` allows it (a body that may be left out)."""
    if not body.strip():
        if type(None) in get_args(kind):
            return None
        raise Problem(400, "the body is empty; send a JSON object")
    if _too_deep(body):
        raise Problem(400, f"the body nests deeper than {MAX_DEPTH} levels")
    try:
        data = msgspec.json.decode(body)
    except msgspec.DecodeError as error:
        raise Problem(400, f"the body is not valid JSON ({error})") from None
    _check_strings(data)
    try:
        return _typed(kind).decode(body)
    except msgspec.ValidationError as error:
        whole, changed = _whole(data)
        if not changed:
            raise refusal(error, kind, data) from None
    try:  # the same, with whole numbers written as floats made ints
        return msgspec.convert(whole, kind, strict=True)
    except msgspec.ValidationError as error:
        raise refusal(error, kind, whole) from None


def _whole(value: Any) -> tuple[Any, bool]:
    """`value` with each float that is exactly a whole number made an int, and whether any
    was. (Beyond 2**53 a float is no longer exactly the number written.)"""
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
        return int(value), True
    if isinstance(value, dict):
        made = {key: _whole(item) for key, item in value.items()}
        return {k: v for k, (v, _) in made.items()}, any(c for _, c in made.values())
    if isinstance(value, list):
        items = [_whole(item) for item in value]
        return [v for v, _ in items], any(c for _, c in items)
    return value, False


@functools.cache
def _typed(kind: Any) -> msgspec.json.Decoder:
    """A decoder for `kind`, made once: `msgspec.convert` works out a union's layout again at
    every call (7 µs for a move's body, against 0.2 µs to parse it again with this)."""
    return msgspec.json.Decoder(kind, strict=True)


class StrictBody(AbstractDTO):
    """Set on the app as its DTO: every handler's `data` is decoded by `decode`, and the
    OpenAPI document shows the handler's own Struct (not a generated transfer model)."""

    _kinds: ClassVar[dict[str, Any]] = {}
    # By the handler itself: its `handler_id` is built from its name and layers at every read.
    _kind_of: ClassVar[weakref.WeakKeyDictionary[Any, Any]] = weakref.WeakKeyDictionary()

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
        handler = self.asgi_connection.route_handler
        kind = self._kind_of.get(handler)
        if kind is None:
            kind = self._kind_of[handler] = self._kinds[handler.handler_id]
        return decode(value, kind)

    def decode_builtins(self, value: dict[str, Any]) -> Any:
        raise Problem(415, "send the body as application/json")
