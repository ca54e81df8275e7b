"""Reading an exported log strictly (docs/audit.md "Taking a log away"): its NDJSON text into
lines, and each event line checked against its event's type.

A lenient reader is a forger's friend: JSON lets an object repeat a key, and most parsers keep
the last value, so a line could show one card to a reader that keeps the first and another to
one that keeps the last. Every line is therefore parsed refusing repeated keys at any depth,
and checked for exactly its type's fields, each of exactly its type.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any

import msgspec

from domain.events import EVENT_TYPES, Event
from domain.sealing import SECRET_FIELDS
from projections.event_schema import WHILE_RUNNING, type_words

# What the line's own members hold (docs/audit.md), in words and as types.
_MEMBERS: dict[str, tuple[str, Any]] = {
    "seq": ("integer from 1 up", Annotated[int, msgspec.Meta(ge=1)]),
    "at": (
        "date and time with its UTC offset (ISO 8601)",
        Annotated[datetime, msgspec.Meta(tz=True)],
    ),
    "hash": (
        "string of 64 lowercase hex digits",
        Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")],
    ),
}


class LineError(ValueError):
    """A line of an export that can't be read: `line` is its number, from 1."""

    def __init__(self, line: int, what: str) -> None:
        super().__init__(f"Line {line} {what}.")
        self.line = line
        self.what = what


class RepeatedKey(LineError):
    """A line that is JSON, but gives a key twice: readers disagree on what it says, so it is
    a log that fails the check, not a file that isn't one."""


class _Repeated(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members, refusing a key given twice (the common case costs one dict)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Repeated(key)
            seen.add(key)
    return obj


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON value")


_decoder = json.JSONDecoder(object_pairs_hook=_unique, parse_constant=_not_json)


def parse_ndjson(text: bytes | str) -> list[dict[str, Any]]:
    """An export's lines as JSON objects, blank lines skipped; the first line that isn't one
    JSON object with each key once, at every depth, raises LineError."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise LineError(error.object.count(b"\n", 0, error.start) + 1, "isn't UTF-8") from None
    out: list[dict[str, Any]] = []
    # Lines end at "\n" alone: str.splitlines would also split inside a string at U+2028.
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip(" \t\r"):
            continue
        try:
            value = _decoder.decode(line)
        except _Repeated as repeated:
            key = json.dumps(repeated.key, ensure_ascii=False)
            raise RepeatedKey(n, f"has the key {key} twice in one object") from None
        except json.JSONDecodeError as error:
            raise LineError(n, f"isn't JSON ({error.msg} at column {error.colno})") from None
        except ValueError as error:
            raise LineError(n, f"isn't JSON ({error})") from None
        if not isinstance(value, dict):
            raise LineError(n, "isn't a JSON object")
        out.append(value)
    return out


class _Shape(msgspec.Struct, frozen=True):
    """An event type as its lines must be: the line's members, the event's fields (a secret
    one may be null), each of its own type, and nothing else."""

    line_type: type[msgspec.Struct]
    fields: dict[str, tuple[str, Any]]  # every member a line may hold: (its words, its type)
    required: frozenset[str]


def _shape(cls: type[Event]) -> _Shape:
    secret = SECRET_FIELDS.get(cls.__name__, ())
    members: list[tuple[Any, ...]] = [(name, t) for name, (_, t) in _MEMBERS.items()]
    fields = {**_MEMBERS}
    for f in msgspec.structs.fields(cls):
        words, t = type_words(f.type), f.type
        if f.name in secret:
            words, t = f"{words}, or {WHILE_RUNNING}", t | None
        fields[f.name] = (words, t)
        if f.required:
            members.append((f.name, t))
        elif f.default is msgspec.NODEFAULT:
            members.append((f.name, t, msgspec.field(default_factory=f.default_factory)))
        else:
            members.append((f.name, t, f.default))
    # Converted with a Struct of its own, msgspec keeps one decoding plan per type (a plain
    # union's is worked out again on every call).
    line_type = msgspec.defstruct(
        f"{cls.__name__}Line",
        members,
        tag_field="type",
        tag=cls.__name__,
        kw_only=True,
        forbid_unknown_fields=True,
    )
    required = {*_MEMBERS, *(f.name for f in msgspec.structs.fields(cls) if f.required)}
    return _Shape(line_type, fields, frozenset(required))


_SHAPES = {name: _shape(cls) for name, cls in EVENT_TYPES.items()}


def check_line(line: dict[str, Any]) -> str | None:
    """None if `line` (an event line, not the header) is a valid event of its type, else a
    sentence naming the field and what it may hold."""
    kind = line.get("type")
    if not isinstance(kind, str) or kind not in _SHAPES:
        return f"{json.dumps(kind)} is no event type (docs/events.md lists them)"
    shape = _SHAPES[kind]
    try:
        msgspec.convert(line, shape.line_type, strict=True)
    except msgspec.ValidationError as error:
        return _why(kind, shape, line, error)
    return None


def _why(kind: str, shape: _Shape, line: dict[str, Any], error: msgspec.ValidationError) -> str:
    """What is wrong with a line its shape refused: the first stranger, absentee or misfit,
    found field by field only now, as valid lines are the many."""
    for name in line:
        if name != "type" and name not in shape.fields:
            allowed = ", ".join(n for n in shape.fields if n not in _MEMBERS) or "none"
            stranger = json.dumps(name, ensure_ascii=False)
            return f"{kind} has no field {stranger}; its fields are {allowed}"
    for name in shape.fields:
        if name in shape.required and name not in line:
            return f"{kind} lacks its field `{name}`: it is required"
    for name, (words, t) in shape.fields.items():
        if name in line:
            try:
                msgspec.convert(line[name], t, strict=True)
            except msgspec.ValidationError as wrong:
                got = str(wrong).replace("`$", f"`{name}")
                return f"{kind}'s `{name}` must be {_a(words)}: {got[0].lower()}{got[1:]}"
    return f"{kind} isn't valid: {error}"


def _a(words: str) -> str:
    """'integer' -> 'an integer'; a choice ("one of ...", "null or ...") takes no article."""
    if words.startswith(("one of ", "null or ", "true or false")):
        return words
    return f"{'an' if words[0] in 'aeiou' else 'a'} {words}"
