"""A table the house closes (docs/euchre.md "A table the house closes"): an operator ends a
table for a reason of the service's, not the game's (abuse, a table left hanging, a fault).

The operator's command says so with `CloseTable`; the rules only check the table is open and
not finished. Once closed, a table allows nothing more: no move, no seat, no talk, no rematch.
Nobody wins a closed game, so it is never rated, and its secrets stay sealed, as an unfinished
game's do (docs/audit.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.errors import Conflict, IllegalMove
from domain.phases import Evolve
from domain.state import State

MAX_REASON = 500


def refuse_if_closed(s: State) -> None:
    """Every command to a closed table is refused, naming the house's reason."""
    if s.closed is not None:
        raise Conflict(f"the table was closed by the house: {s.closed}")


def close_table(s: State, c: cmd.CloseTable) -> list[ev.Event]:
    reason = c.reason.strip()
    if not reason or len(reason) > MAX_REASON or not reason.isprintable():
        raise IllegalMove(
            f"the reason must be 1-{MAX_REASON} printable characters on one line", field="reason"
        )
    if s.status == "over":
        raise Conflict("the game is over already")
    return [ev.TableClosed(reason=reason)]


COMMANDS: dict[type[cmd.Command], Callable[[State, Any], list[ev.Event]]] = {
    cmd.CloseTable: close_table,
}


def _closed(s: State, e: ev.TableClosed) -> State:
    return replace(
        s, seq=s.seq + 1, status="over", closed=e.reason, turn=None, asked=(), held=(None,) * 4
    )


EVOLVE: Evolve = {ev.TableClosed: _closed}
