"""The event codec: a domain event as the log stores it, a `type` name and its fields as JSON
data, and back. The write path encodes with it and every reader decodes with it, so a log
that doesn't decode is an error, never a silent skip."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.events import AnyEvent, Event


def to_event(type_: str, data: dict[str, Any]) -> Event:
    """The domain event for a logged (type, data) pair."""
    event: Event = msgspec.convert({**data, "type": type_}, AnyEvent)
    return event


def to_record(event: Event) -> tuple[str, dict[str, Any]]:
    """(type, data) for the log: the event's fields without the tag."""
    data: dict[str, Any] = msgspec.to_builtins(event)
    return data.pop("type"), data
