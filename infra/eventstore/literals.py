"""PostgreSQL array literals written by hand for the hot statements.

psycopg's own dumping inspects every list it is given afresh, and was a quarter of the
client's time an append (docs/event-store.md). Every element is quoted, so no text can end one
early or make another; PostgreSQL's text has no NUL, which the appender refuses before
anything is sent.
"""

from __future__ import annotations

from collections.abc import Sequence


def texts(items: Sequence[str | None]) -> str:
    return "{" + ",".join("NULL" if item is None else _quoted(item) for item in items) + "}"


def _quoted(item: str) -> str:
    return '"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"'


def numbers(items: Sequence[int]) -> str:
    return "{" + ",".join(map(str, items)) + "}"


def byteas(items: Sequence[bytes]) -> str:
    return "{" + ",".join(f'"\\\\x{item.hex()}"' for item in items) + "}"
