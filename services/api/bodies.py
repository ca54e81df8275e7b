"""Request bodies, checked at the edge: a bad field is named, with what it may be."""

from __future__ import annotations

import re
from typing import Annotated, Any

import msgspec

from domain.cards import CODES, SUITS
from domain.commands import MOVE_TYPES, Command
from services.api.problems import Problem

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
Password = Annotated[str, msgspec.Meta(min_length=8, max_length=200)]
CODE = re.compile(r"^[A-Z0-9-]{4,32}$")


class NewPlayer(msgspec.Struct, forbid_unknown_fields=True):
    name: Name
    password: Password | None = None


class Login(msgspec.Struct, forbid_unknown_fields=True):
    name: Name
    password: Password


class NewTable(msgspec.Struct, forbid_unknown_fields=True):
    code: str | None = None
    settings: dict[str, Any] | None = None
    bots: str = "medium"
    seat: int = 0


class BotLevel(msgspec.Struct, forbid_unknown_fields=True):
    level: str


def table_code(raw: str) -> str:
    """Codes are upper-cased; anything else outside A-Z, 0-9 and dashes is refused."""
    code = raw.upper()
    if not CODE.match(code):
        raise Problem(422, "a table code is 4-32 characters: A-Z, 0-9 and dashes", field="code")
    return code


_ALLOWED = {
    "card": list(CODES),
    "cards": list(CODES),
    "suit": list(SUITS),
    "alone": [True, False],
    "seq": None,
}


def _path_field(error: msgspec.ValidationError) -> str | None:
    match = re.search(r"at `\$\.([A-Za-z_]+)", str(error))
    return match.group(1) if match else None


def move_command(body: Any, seat: int) -> tuple[Command, int | None]:
    """The domain command for a `moves` body, and the `seq` it was decided on, if sent."""
    if not isinstance(body, dict):
        raise Problem(422, "a move is a JSON object with a type", field="type")
    kind = body.get("type")
    if kind not in MOVE_TYPES:
        raise Problem(
            422,
            f"type must be one of {', '.join(MOVE_TYPES)}",
            field="type",
            allowed=list(MOVE_TYPES),
        )
    seq = body.get("seq")
    if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool) or seq < 0):
        raise Problem(422, "seq must be the view's seq, a whole number", field="seq")
    cls = MOVE_TYPES[kind]
    fields = set(cls.__struct_fields__) - {"seat"}
    extra = set(body) - fields - {"type", "seq"}
    if extra:
        name = sorted(extra)[0]
        raise Problem(
            422,
            f"a {kind} move has no field {name!r}; it takes {', '.join(sorted(fields)) or 'none'}",
            field=name,
            allowed=sorted(fields),
        )
    data = {k: v for k, v in body.items() if k in fields}
    try:
        command = msgspec.convert({**data, "type": kind, "seat": seat}, cls)
    except msgspec.ValidationError as error:
        field = _path_field(error)
        raise Problem(
            422, f"{kind}: {error}", field=field, allowed=_ALLOWED.get(field or "")
        ) from None
    return command, seq
