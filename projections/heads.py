"""Heads a player kept, held against a log (docs/audit.md "Signed heads"): whether the log
still holds each, and, where two heads the service signed can't both be true, the proof that
it showed two histories of one table.

A kept hash says "this log is the one I saw" only if the log still holds it; a log may go on
after it (talk after the game, play again offered, or more of the game), which changes
nothing before it. A signed head is the service's own word, so two of them that fork are a
proof anyone can check with the service's public key and nothing else: no trust in whoever
holds them. Pure; the signature check is passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any

import msgspec

from domain.chain import canonical, link, statement
from projections.log import LINE_FIELDS

PROOF = "euchre-equivocation"
Verify = Callable[[str, bytes, str], bool]  # (key, message, signature) -> genuine


Hex = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]+$")]


class SignedHead(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The service's signature (Ed25519, `key`'s, hex) over the canonical JSON of
    `{"code", "hash", "seq", "statement": "head"}`: its word that table `code`'s log held an
    event `seq` whose hash in the chain is `hash`. Every view, frame and export carries one."""

    code: str
    seq: Annotated[int, msgspec.Meta(ge=1)]
    hash: Annotated[Hex, msgspec.Meta(min_length=64, max_length=64)]
    key: Annotated[Hex, msgspec.Meta(min_length=64, max_length=64)]
    signature: Annotated[Hex, msgspec.Meta(min_length=128, max_length=128)]

    def signed(self, verify: Verify) -> bool:
        return verify(self.key, head_message(self.code, self.seq, self.hash), self.signature)


def head_message(code: str, seq: int, hash_: str) -> bytes:
    """The bytes a head's signature covers (docs/audit.md "Signed heads")."""
    return statement("head", {"code": code, "hash": hash_, "seq": seq})


def sign_head(
    sign: Callable[[bytes], str], key: str, code: str, seq: int, hash_: str
) -> SignedHead:
    """A head signed by `sign`, the service's key `key`'s signer."""
    return SignedHead(code, seq, hash_, key, sign(head_message(code, seq, hash_)))


class Proof(msgspec.Struct, frozen=True):
    """Two heads the service signed for table `code` that no one log can hold: at `heads[0]`'s
    seq the chain that leads to `heads[1]` has hash `logged`, not `heads[0].hash`; `lines`
    are that log's events from the one after it to `heads[1]`'s, whose chain shows it."""

    format: str
    code: str
    heads: list[SignedHead]
    logged: str
    lines: list[dict[str, Any]]


def parse_head(text: str) -> SignedHead | str:
    """A kept head as typed: a signed head's JSON, or a bare hash (64 hex digits)."""
    text = text.strip()
    if text.startswith("{"):
        return msgspec.json.decode(text, type=SignedHead)
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text.lower()):
        raise ValueError("a head is 64 hex digits, or a signed head's JSON")
    return text.lower()


def held(body: Sequence[dict[str, Any]], head: SignedHead | str) -> str | None:
    """None if the log's lines (after the header) hold `head`; else why not. Run on a log
    whose chain has been checked."""
    if isinstance(head, str):
        if any(line.get("hash") == head for line in body):
            return None
        return f"holds no event with the hash {head} kept from the game"
    if head.seq < 1 or head.seq > len(body):
        return f"has no event {head.seq}, which the head kept from the game names"
    logged = body[head.seq - 1].get("hash")
    if logged != head.hash:
        return f"has the hash {logged} at event {head.seq}, where the head kept says {head.hash}"
    return None


def equivocation(
    code: str, body: Sequence[dict[str, Any]], heads: Sequence[SignedHead], verify: Verify
) -> Proof | None:
    """The proof that the service signed two of `heads` that fork, where the log's lines
    (`body`, its chain checked) end at or past the later of them; None if they don't fork."""
    genuine = [h for h in heads if h.code == code and h.signed(verify)]
    for early in genuine:
        for late in genuine:
            if early.seq == late.seq and early.hash != late.hash:
                return Proof(PROOF, code, [early, late], late.hash, [])
            if early.seq < late.seq <= len(body) and held(body, late) is None:
                logged = body[early.seq - 1]["hash"]
                if logged != early.hash:
                    lines = [dict(line) for line in body[early.seq : late.seq]]
                    return Proof(PROOF, code, [early, late], logged, lines)
    return None


def proves(proof: Proof, verify: Verify) -> bool:
    """Whether `proof` shows what it claims, from its own contents and the signatures."""
    early, late = proof.heads
    if proof.format != PROOF or not (early.code == late.code == proof.code):
        return False
    if not (early.signed(verify) and late.signed(verify)):
        return False
    if early.seq == late.seq:
        return early.hash != late.hash
    if early.seq > late.seq or proof.logged == early.hash:
        return False
    try:
        h = bytes.fromhex(proof.logged)
        for n, line in enumerate(proof.lines, start=early.seq + 1):
            if line.get("seq") != n:
                return False
            data = {k: v for k, v in line.items() if k not in LINE_FIELDS}
            h = link(h, canonical(proof.code, n, line["type"], data))
    except (KeyError, TypeError, ValueError):
        return False
    return len(proof.lines) == late.seq - early.seq and h.hex() == late.hash
