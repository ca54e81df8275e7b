"""Followers' checkpoints: where each read model's follower got to in the log, written in the
same transaction as the rows it folded, so a crash never applies an event twice or skips one."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from infra.eventstore.records import START, Cursor


async def checkpoint(conn: AsyncConnection, name: str) -> Cursor:
    """Where follower `name` got to (START before it starts).

    A plain read, which takes no transaction id: a follower reads it under its advisory lock,
    which already keeps every other copy of it waiting, in the transaction that then writes
    the read model's rows and the new checkpoint together.
    """
    query = text(
        "SELECT CAST(CAST(xid AS text) AS bigint) xid, position FROM checkpoints WHERE name = :name"
    )
    row = (await conn.execute(query, {"name": name})).first()
    return START if row is None else Cursor(row.xid, row.position)


async def save_checkpoint(conn: AsyncConnection, name: str, at: Cursor) -> None:
    """Record follower `name`'s progress inside the caller's transaction, atomic with its rows."""
    await conn.execute(
        text(
            "INSERT INTO checkpoints (name, xid, position) "
            "VALUES (:name, CAST(CAST(:xid AS text) AS xid8), :position) "
            "ON CONFLICT (name) DO UPDATE SET xid = excluded.xid, position = excluded.position"
        ),
        {"name": name, "xid": at.xid, "position": at.position},
    )


async def forget_checkpoint(conn: AsyncConnection, name: str) -> None:
    """Start follower `name` again from the log's beginning, with the caller's transaction."""
    await conn.execute(text("DELETE FROM checkpoints WHERE name = :name"), {"name": name})
