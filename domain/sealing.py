"""Secrets in the log (docs/audit.md "Secrets and seals"): which fields stay hidden until the game
is over, the seal that binds each hidden value from the moment it is logged, and the form of an
event the hash chain covers.

A hash of a low-entropy secret is the secret: a buried card has 24 candidates, so publishing
SHA-256 of it, or a chain hash over it, tells it to anyone who tries them all. From format
version 2 the chain covers each event as the public sees it while the game runs (its secrets
null), and the secrets are bound instead by a seal: SHA-256 over a 32-byte nonce and the
values. The nonce is HMAC-SHA256 keyed by the table's server seed over the event's seq, so it
is unknown to everyone but the server until the seed is revealed at the end, and then anyone
can derive it; no nonce needs keeping anywhere, and the rules can re-derive every seal.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import msgspec

from domain.shuffle import seed_bytes
from domain.state import State

# The log format this server writes (docs/audit.md "Versions"): 1 had no seals, and its chain
# covered the secrets themselves.
VERSION = 2
# Fields that would show a card or the seed that someone at the table must not see yet. The up
# card is public (it was turned face up), so HandDealt keeps it.
SECRET_FIELDS: dict[str, tuple[str, ...]] = {
    "TableOpened": ("seed",),
    "HandDealt": ("hands", "kitty"),
    "FarmerSwapped": ("gave", "got"),
    "CardBuried": ("card",),
}
_canonical = msgspec.json.Encoder(order="sorted")


def nonce(seed: str, seq: int) -> bytes:
    """The nonce of the seal on event `seq` of a table whose server seed is `seed`."""
    return hmac.digest(seed_bytes(seed), b"euchre/seal/%d" % seq, "sha256")


def seal(seed: str, seq: int, secret: dict[str, Any]) -> str:
    """SHA-256 of the nonce and the canonical JSON of the event's secret fields, by name."""
    return hashlib.sha256(nonce(seed, seq) + _canonical.encode(secret)).hexdigest()


def next_seal(s: State, secret: dict[str, Any]) -> str | None:
    """The seal for the secrets of the event logged next after `s`; none in a version 1 log,
    whose events have to be made again as they were for its check."""
    return seal(s.seed, s.seq + 1, secret) if s.version >= 2 else None


def sealed(type_: str, data: dict[str, Any]) -> bool:
    """Whether a logged event is of format version 2 or later with secrets: its chain hash
    covers its public form. A TableOpened says its version; the others carry their seal."""
    if type_ == "TableOpened":
        version: int = data.get("version", 1)
        return version >= 2
    return type_ in SECRET_FIELDS and "seal" in data


def public(type_: str, data: dict[str, Any]) -> dict[str, Any]:
    """The event's data with its secret fields null, as the log shows it while the game runs."""
    hidden = SECRET_FIELDS.get(type_, ())
    return {k: None if k in hidden else v for k, v in data.items()}
