"""A msgspec validation error, told as a problem that names the field and what it may be.

msgspec says where (`$.settings.alone`) and what went wrong; the body's type says what would
have been accepted there: a Literal's values, a tagged union's tags, or, for a field the
object doesn't have, the fields it does. Walking the Python annotations (not msgspec's
inspection, which sorts literals) keeps `allowed` in the order the domain lists them.
"""

from __future__ import annotations

import re
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec

from services.api.problems import Problem

_AT = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)
_NAMED = re.compile(r"field `(?P<name>[^`]+)`")


def join_path(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


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
        path = join_path(path, named.group("name")) if path else named.group("name")
    parts = [int(p) if p.isdigit() else p for p in _split(path)]
    field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")
    unknown = message.startswith("Object contains unknown field")
    allowed = _allowed(kind, [str(p) for p in parts], data, unknown)
    if message.startswith("Object missing required field"):
        detail = f"{field} is required"
    elif unknown:
        detail = f"there is no field {field}"
    else:
        said = f"{message[0].lower()}{message[1:]}"
        detail = f"{field}: {said}" if field else f"the body: {said}"
    if allowed:
        shown = (v if isinstance(v, str) else msgspec.json.encode(v).decode() for v in allowed)
        detail = f"{detail}; allowed: {', '.join(shown)}"
    return Problem(422, detail, field=field or None, allowed=allowed)
