"""The table's log as the public may read it: secrets blanked until the game is over."""

from __future__ import annotations

from typing import Any

from domain.sealing import SECRET_FIELDS

LINE_FIELDS = ("seq", "type", "at", "hash")  # an exported line's own; the rest is the event's


def public_line(record: Any, game_over: bool) -> dict[str, Any]:
    """One NDJSON line: seq, type, at, its hash in the chain (domain/chain.py; the hash covers
    the event as logged, so a line with blanks can't be checked till the game is over), then
    the event's fields, secrets as null while playing."""
    data = dict(record.data)
    if not game_over:
        for name in SECRET_FIELDS.get(record.type, ()):
            if name in data:
                data[name] = None
    line = {"seq": record.seq, "type": record.type, "at": record.at.isoformat()}
    return {**line, "hash": record.hash, **data}
