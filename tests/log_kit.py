"""Reading a table's log as an auditor would, and making one as a store would, for tests in
every folder."""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import msgspec
from msgspec.structs import replace

from domain import deciding
from domain import events as ev
from domain.cards import CODES
from domain.chain import GENESIS, canonical, link
from domain.codec import to_event, to_record
from domain.decider import consequence
from infra.eventstore import RecordedEvent
from projections.log import LINE_FIELDS
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


def recorded(code: str, events) -> list[RecordedEvent]:
    """The events as a store would hand them back, hashes and all."""
    out, h = [], GENESIS
    at = datetime(2026, 12, 1, tzinfo=UTC)
    for seq, e in enumerate(events, start=1):
        kind, data = to_record(e)
        data = msgspec.json.decode(msgspec.json.encode(data))
        h = link(h, canonical(code, seq, kind, data))
        out.append(RecordedEvent(code, seq, seq, kind, data, None, at, 0, h.hex()))
    return out


def chained(code: str, body: list[dict]) -> list[dict]:
    """Exported lines (after the header) renumbered, every hash made again from their contents:
    what a server telling another history, or a forger, would serve."""
    out, h = [], GENESIS
    for n, line in enumerate(body, start=1):
        data = {k: v for k, v in line.items() if k not in LINE_FIELDS}
        h = link(h, canonical(code, n, line["type"], data))
        out.append({**line, "seq": n, "hash": h.hex()})
    return out


def unplayed_scrambled(events: Iterable[ev.Event], rng: random.Random) -> list[ev.Event]:
    """The log with every card the deal keeps hidden changed to anything at all, impossible
    cards too: the hands dealt (a sitting-out seat's among them), the kitty, the dealer's
    buried card and a farmer's swap. The cards played stay, and the up card, which everyone
    saw turned."""
    out: list[ev.Event] = []
    for e in events:
        if isinstance(e, ev.HandDealt):
            e = replace(
                e,
                hands=[rng.sample(CODES, 5) for _ in range(4)],
                kitty=rng.sample(CODES, len(e.kitty)),
            )
        elif isinstance(e, ev.CardBuried):
            e = replace(e, card=rng.choice(CODES))
        elif isinstance(e, ev.FarmerSwapped):
            e = replace(e, gave=rng.sample(CODES, 3), got=rng.sample(CODES, 3))
        out.append(e)
    return out
