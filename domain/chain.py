"""The log's hash chain (docs/audit.md "The hash chain"): each event's hash covers the one
before it, so whoever kept a table's last hash (its head) can tell whether the stored log was
edited since, and anyone can check every link of an exported log.

An event's canonical bytes are the UTF-8 JSON of {"data", "seq", "stream", "type"} with keys in
code point order at every depth, no whitespace and only the escapes JSON requires; its hash is
SHA-256 over the previous event's hash (32 zero bytes before the first) and those bytes. From
format version 2 `data` is the event's public form, its secrets null (domain/sealing.py), so
anyone can check the chain of a game still running and no hash in it tells a hidden card.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

import msgspec

from domain.sealing import public, sealed

GENESIS = bytes(32)
_canonical = msgspec.json.Encoder(order="sorted")


def canonical(stream: str, seq: int, type: str, data: dict[str, Any]) -> bytes:
    covered = public(type, data) if sealed(type, data) else data
    return _canonical.encode({"data": covered, "seq": seq, "stream": stream, "type": type})


def link(previous: bytes, canonical_bytes: bytes) -> bytes:
    return hashlib.sha256(previous + canonical_bytes).digest()


def statement(kind: str, fields: dict[str, Any]) -> bytes:
    """What the service signs (docs/audit.md "Signed heads"): the canonical JSON of `fields`
    with a `statement` member naming its kind ("head", "tree"), so a signature over one kind
    of statement can never be passed off as another."""
    return _canonical.encode({**fields, "statement": kind})


def head(events: Iterable[tuple[str, int, str, dict[str, Any]]], start: bytes = GENESIS) -> bytes:
    """The hash of the last of `events` ((stream, seq, type, data) each), chained from `start`."""
    h = start
    for stream, seq, kind, data in events:
        h = link(h, canonical(stream, seq, kind, data))
    return h
