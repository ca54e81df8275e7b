"""The deal as a pure function of the game's seed and the deal number, and the game's seed as
one of the server's secret seed and the seeds the players gave.

Specified in docs/euchre.md ("The shuffle") closely enough for an auditor to re-implement it:
HMAC-SHA256 keyed by the seed's 32 bytes gives a stream of 32-bit words, rejection sampling
makes each draw unbiased, and a Fisher-Yates shuffle of the deck in index order uses them.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence

from domain.cards import CODES


def seed_bytes(seed: str) -> bytes:
    """A seed is 64 lowercase hex digits (32 bytes)."""
    raw = bytes.fromhex(seed)
    if len(raw) != 32 or raw.hex() != seed:
        raise ValueError("a seed is 64 lowercase hex digits")
    return raw


def seed_hash(seed: str) -> str:
    """Published when the table opens, so the seed revealed at the end can be checked."""
    return hashlib.sha256(seed_bytes(seed)).hexdigest()


def game_seed(seed: str, contributions: Sequence[str | None] | None) -> str:
    """The seed every deal of the game comes from: the server's `seed` alone when no player
    gave one, else HMAC-SHA256 keyed by its bytes over `euchre/players` and, seat by seat,
    0x00 for a seat that gave none or 0x01 and the seat's 32 bytes. The server committed to
    its seed before anyone sat down, so it couldn't choose one to suit the players'."""
    if not contributions or not any(contributions):
        return seed
    message = b"euchre/players" + b"".join(
        b"\x01" + seed_bytes(c) if c else b"\x00" for c in contributions
    )
    return hmac.digest(seed_bytes(seed), message, "sha256").hex()


def _words(key: bytes, label: bytes) -> Iterator[int]:
    block = 0
    while True:
        digest = hmac.digest(key, label + struct.pack(">I", block), "sha256")
        yield from struct.unpack(">8I", digest)
        block += 1


def _below(words: Iterator[int], n: int) -> int:
    """An unbiased draw from 0..n-1: words from the top, uneven remainder, are thrown away."""
    limit = (1 << 32) - (1 << 32) % n
    while True:
        w = next(words)
        if w < limit:
            return w % n


def first_dealer(seed: str) -> int:
    words = _words(seed_bytes(seed), b"euchre/first-dealer")
    return _below(words, 4)


def shuffled(seed: str, deal_no: int) -> list[int]:
    """The deck for deal `deal_no` (1 for the first deal), as card indexes."""
    words = _words(seed_bytes(seed), b"euchre/deal/" + struct.pack(">I", deal_no))
    deck = list(range(len(CODES)))
    for i in range(len(deck) - 1, 0, -1):
        j = _below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def dealt(seed: str, deal_no: int, dealer: int) -> tuple[list[list[int]], int, list[int]]:
    """Hands by seat, the up card and the kitty: five each in turn from the dealer's left,
    the 21st card turned up, the last three face down."""
    deck = shuffled(seed, deal_no)
    hands: list[list[int]] = [[], [], [], []]
    for k in range(4):
        hands[(dealer + 1 + k) % 4] = deck[5 * k : 5 * k + 5]
    return hands, deck[20], deck[21:]
