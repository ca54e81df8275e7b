"""The activity read model: each unfinished table and when its log last grew.

The bots' sweeper reads it to find tables that may be waiting on a bot whose turn message was
lost. A follower keeps it from the log (infra/follower.py), so it survives restarts and a
flushed Redis, and it can be rebuilt from the log. Talk (domain/talk.py) is not activity: a
chatty table whose bot turn was lost must still look quiet to the sweeper, and a finished
table's after-game chat must not bring its row back. A host's lock, unlock or ban moves the
row's seq but not its time: the turn limit and the stall limit time a person's decision, and a
host holding the game must not restart their clock with a lock every few minutes.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Column,
    DateTime,
    Integer,
    MetaData,
    Table,
    Text,
    bindparam,
    delete,
    select,
    text,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from domain.events import GameWon, PlayerBanned, TableClosed, TableLocked, TableUnlocked
from domain.talk import ASIDE_TYPES
from infra.eventstore import Notifications, RecordedEvent, Recorder
from infra.follower import Follower, put_rows

# A table is finished once its game is won, or the house closed it: nothing is due at it.
ENDS = frozenset(kind.__struct_config__.tag for kind in (GameWon, TableClosed))
UNTIMED = frozenset(
    kind.__struct_config__.tag for kind in (TableLocked, TableUnlocked, PlayerBanned)
)
metadata = MetaData()
activity = Table(
    "activity",
    metadata,
    Column("code", Text, primary_key=True),
    Column("seq", Integer, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)


async def waited(store: Recorder, code: str) -> float | None:
    """The seconds since table `code` last moved, as the turn limit counts them (the
    activity row's `at`: talk and a host's lock, unlock or ban don't count), read from the log
    itself, since the row may be a sweep behind and a page opened just after a move must not
    time the decision from the move before. None for a table with no log."""
    return await store.quiet_for(code, ASIDE_TYPES | UNTIMED)


class Activity:
    def __init__(self, engine: AsyncEngine, store: Notifications) -> None:
        self._engine = engine
        # Only where each table's log has got to matters here, never what an event says. The
        # sweeper catches up on the bots' event loop: a batch is decoded and applied in one go,
        # and 2,000 at a time stalled the loop up to 174 ms at 1,000 tables; 500, 82-125 ms
        # (docs/scaling.md).
        self.follower = Follower(
            "activity", engine, store, self._apply, self._clear, batch=500, data_of=frozenset()
        )
        self.catch_up = self.follower.catch_up

    async def quiet_since(self, seconds: float) -> list[tuple[str, float]]:
        """Unfinished tables whose log hasn't grown for `seconds`, with how long it's been."""
        query = select(
            activity.c.code, text("extract(epoch from now() - activity.at) AS idle")
        ).where(activity.c.at < text("now() - make_interval(secs => :s)"))
        async with self._engine.connect() as conn:
            rows = await conn.execute(query, {"s": seconds})
            return [(row.code, float(row.idle)) for row in rows]

    async def unfinished(self) -> list[tuple[str, int]]:
        """Every table whose game isn't over (waiting, or playing), with the seq of its last
        event that isn't talk."""
        async with self._engine.connect() as conn:
            rows = await conn.execute(select(activity.c.code, activity.c.seq))
            return [(row.code, row.seq) for row in rows]

    @staticmethod
    async def _apply(conn: AsyncConnection, records: list[RecordedEvent]) -> None:
        last: dict[str, tuple[int, datetime | None] | None] = {}
        for r in records:
            if r.type in ASIDE_TYPES:
                continue
            if r.type in ENDS:
                last[r.stream] = None
            elif r.type in UNTIMED and r.stream in last:
                seen = last[r.stream]  # a row this batch sets, or one it deleted
                last[r.stream] = (r.seq, seen[1] if seen else r.at)
            else:
                last[r.stream] = (r.seq, None if r.type in UNTIMED else r.at)
        # A table whose batch held only host actions keeps the time its row had (a table opens
        # with TableOpened, which is timed, so the row is there).
        moved = {code: seen[0] for code, seen in last.items() if seen and seen[1] is None}
        if moved:
            await conn.execute(
                update(activity)
                .where(activity.c.code == bindparam("b_code"))
                .values(seq=bindparam("b_seq")),
                [{"b_code": code, "b_seq": seq} for code, seq in moved.items()],
            )
        await put_rows(
            conn,
            activity,
            {
                code: None if seen is None else {"seq": seen[0], "at": seen[1]}
                for code, seen in last.items()
                if code not in moved
            },
        )

    @staticmethod
    async def _clear(conn: AsyncConnection) -> None:
        await conn.execute(delete(activity))
