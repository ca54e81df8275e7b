"""What each line of an exported log may hold (docs/audit.md "Taking a log away"), as a JSON
Schema and as a Markdown page (docs/events.md), both generated from the event types themselves.

An auditor in another language checks "each line is a valid event of its type" against these,
so they are made from `domain/events.py` on every call rather than written down: a field added
to an event changes both, and a test keeps the page in step.
"""

from __future__ import annotations

import inspect
import re
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec

from domain.cards import CODES, RANKS, SUITS
from domain.events import EVENT_TYPES, AnyEvent, Event
from domain.sealing import SECRET_FIELDS

# An exported line's own members, beside the event's fields (docs/audit.md), described as the
# page describes them.
_MEMBERS: dict[str, dict[str, Any]] = {
    "seq": {
        "type": "integer",
        "minimum": 1,
        "description": "Its place in the table's log: 1, 2, 3, ... with no gaps.",
    },
    "at": {
        "type": "string",
        "format": "date-time",
        "description": "When the server logged it (ISO 8601); not covered by the hash.",
    },
    "hash": {
        "type": "string",
        "pattern": "^[0-9a-f]{64}$",
        "description": "Its link in the hash chain, 64 lowercase hex digits.",
    },
}
WHILE_RUNNING = "null while the game runs, so nobody learns it early"
REGENERATE = (
    'uv run python -c "from projections.event_schema import event_fields_markdown as m; '
    "print(m(), end='')\" > docs/events.md"
)
_DEFS = "#/$defs/{name}"
_SIMPLE: dict[Any, tuple[str, str]] = {
    int: ("integer", "integers"),
    str: ("string", "strings"),
    bool: ("true or false", "booleans (true or false)"),
}


def event_schema() -> dict[str, Any]:
    """A JSON Schema (draft 2020-12) of one event line of an export: one of the event types,
    told apart by `type`, each with the line's own members and nothing else."""
    kinds: list[type[Event]] = list(get_args(AnyEvent))
    (union,), components = msgspec.json.schema_components([AnyEvent], ref_template=_DEFS)
    defs = {name: schema for name, schema in components.items() if name not in EVENT_TYPES}
    for kind in kinds:
        defs[kind.__name__] = _line_schema(kind.__name__, components[kind.__name__])
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "An event line of a Euchre table's exported log",
        "description": (
            "Every line of an export after its header (docs/audit.md). Generated from "
            "domain/events.py by projections/event_schema.py."
        ),
        "oneOf": [{"$ref": _DEFS.format(name=kind.__name__)} for kind in kinds],
        "discriminator": union["discriminator"],
        "$defs": defs,
    }


def _line_schema(name: str, event: dict[str, Any]) -> dict[str, Any]:
    """msgspec's schema of the event, made the schema of its line: the line's members added,
    `type` a constant, the secrets nullable, and no member it doesn't list."""
    fields = {k: v for k, v in event["properties"].items() if k != "type"}
    for secret in SECRET_FIELDS.get(name, ()):
        fields[secret] = {
            "anyOf": [fields[secret], {"type": "null"}],
            "description": f"A secret: {WHILE_RUNNING} (docs/audit.md).",
        }
    required = [k for k in event["required"] if k != "type"]
    return {
        **{k: v for k, v in event.items() if k in ("title", "description")},
        "type": "object",
        "properties": {
            "seq": _MEMBERS["seq"],
            "type": {"const": name},
            "at": _MEMBERS["at"],
            "hash": _MEMBERS["hash"],
            **fields,
        },
        "required": ["seq", "type", "at", "hash", *required],
        "additionalProperties": False,
    }


def type_words(annotation: Any, plural: bool = False) -> str:
    """A field's type as an auditor reads it, in any language: "integer", "list of card codes",
    "one of easy, medium, hard, expert", "null or string". A type it has no words for is an
    error, so a new kind of field can't reach the page undescribed."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:  # its words for the schema (a house rule's) are not the type's
        return type_words(args[0], plural)
    if annotation is None or annotation is type(None):
        return "nulls" if plural else "null"
    if origin in (Union, types.UnionType):
        options = sorted(args, key=lambda a: a is not type(None))  # null first, then the rest
        return " or ".join(type_words(a, plural) for a in options)
    if origin is list:
        return f"{'lists' if plural else 'list'} of {type_words(args[0], plural=True)}"
    if origin is Literal:
        if set(args) == set(CODES):
            return "card codes" if plural else "card code"
        listed = f"one of {', '.join(str(a) for a in args)}"
        return f"values, each {listed}" if plural else listed
    if annotation in _SIMPLE:
        return _SIMPLE[annotation][plural]
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return f"{annotation.__name__} object{'s' if plural else ''}"
    raise TypeError(f"no words for the type {annotation!r}: teach type_words them")


def event_fields_markdown() -> str:
    """docs/events.md: every event type in `AnyEvent`'s order, what it means and its fields,
    then the objects found inside events."""
    kinds: list[type[Event]] = list(get_args(AnyEvent))
    out = [
        "# Events",
        "",
        "This page is generated from the event types in `domain/events.py`; don't edit it by",
        "hand. After changing an event, regenerate it from the repository's root with:",
        "",
        f"    {REGENERATE}",
        "",
        "Each line of an export after the header ([audit.md](audit.md)) is one event: the",
        "members `seq`, `type`, `at` and `hash`, then the fields of its `type` below, and no",
        "others. A required field is on every line of its type; any other may be absent, and",
        "then has its default. The same types give a JSON Schema of a line",
        "(`projections/event_schema.py`, `event_schema()`).",
        "",
        f"A card code is a rank ({', '.join(RANKS)}) then a suit ({', '.join(SUITS)}):",
        '"JS" is the jack of spades, "TH" the ten of hearts.',
    ]
    for kind in kinds:
        out += ["", *_section(kind, SECRET_FIELDS.get(kind.__name__, ()))]
    for inner in _inner_structs(kinds):
        out += ["", *_section(inner, ())]
    return "\n".join(out) + "\n"


def _section(kind: type[msgspec.Struct], secrets: tuple[str, ...]) -> list[str]:
    doc = _doc(kind)
    lead = [doc.split("\n\n")[0].replace("\n", " "), ""] if doc else []
    fields = msgspec.structs.fields(kind)
    if not fields:
        return [f"## {kind.__name__}", "", *lead, "No fields of its own."]
    rows = ["| field | type | required | meaning |", "|---|---|---|---|"]
    for field in fields:
        words = type_words(field.type)
        if field.name in secrets:
            words += f"; {WHILE_RUNNING}"
        cells = (f"`{field.name}`", words, _required(field), _meaning(doc, field.name))
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return [f"## {kind.__name__}", "", *lead, *rows]


def _doc(kind: type) -> str:
    """A class's own docstring, never its base's, dedented."""
    return inspect.cleandoc(kind.__dict__.get("__doc__") or "")


def _required(field: msgspec.structs.FieldInfo) -> str:
    if field.required:
        return "yes"
    default = field.default_factory() if field.default is msgspec.NODEFAULT else field.default
    return f"no (default {msgspec.json.encode(default).decode()})"


def _meaning(doc: str, name: str) -> str:
    """The docstring's sentences that name the field in backquotes (`seats[0]` names `seats`);
    empty where none does: better a blank than a guess."""
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z`])", doc.replace("\n", " "))
    named = re.compile(rf"`{re.escape(name)}(?![A-Za-z0-9_])[^`]*`")
    return " ".join(s for s in sentences if named.search(s))


def _inner_structs(kinds: list[type[Event]]) -> list[type[msgspec.Struct]]:
    """The Struct types used inside events' fields, first use first."""
    found: list[type[msgspec.Struct]] = []

    def walk(annotation: Any) -> None:
        struct = isinstance(annotation, type) and issubclass(annotation, msgspec.Struct)
        if struct and annotation not in found:
            found.append(annotation)
            for field in msgspec.structs.fields(annotation):
                walk(field.type)
        for arg in get_args(annotation):
            walk(arg)

    for kind in kinds:
        for field in msgspec.structs.fields(kind):
            walk(field.type)
    return found
