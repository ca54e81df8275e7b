"""Reading a table's log as an auditor would, for tests in every folder."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain import deciding
from domain.codec import to_event
from domain.decider import consequence
from projections.replay import fold_records


def answered_decisions(records: Iterable[Any]) -> list[str]:
    """The key of the decision each move in the log answered, in order.

    A move is an event with a seat, at a stable state, from a seat that had a decision
    pending; derived events (a trick taken, a hand scored) come while a fact is still due and
    are not counted. A duplicated or raced move shows up as a key answered twice.
    """
    state = fold_records([])
    answered: list[str] = []
    for r in records:
        pending = {d.seat: d.key for d in deciding(state)}
        seat = getattr(to_event(r.type, r.data), "seat", None)
        if consequence(state) is None and state.status == "playing" and seat in pending:
            answered.append(pending[seat])
        state = fold_records([r], state)
    return answered
