"""The signed head every view carries (docs/audit.md "Signed heads"): the table's code, the seq
and hash of the logged event the view shows, and the service's signature over them.

A head alone proves nothing the server can't deny: it could tell different people different
heads. Signed, a head is the server's word about its log at that moment, which a player can
keep; two signed heads that can't both be true (one table, two histories) prove the server
changed its log. Each is signed once per process and shared by every view of that state.
"""

from __future__ import annotations

from collections import OrderedDict

import msgspec

from domain.state import State
from infra.signing import Signer
from projections.heads import SignedHead, sign_head

KEPT = 4096  # signed heads a process keeps, so each state's is signed once


class Heads:
    """`signer` None signs nothing: views then carry their head unsigned (the setting
    EUCHRE_SIGNED_HEADS=off, for measuring what signing costs)."""

    def __init__(self, signer: Signer | None) -> None:
        self._signer = signer
        self._signed: OrderedDict[tuple[str, int, str], tuple[SignedHead | None, bytes]] = (
            OrderedDict()
        )

    def of(self, state: State) -> tuple[str, SignedHead | None, bytes] | None:
        """`state`'s head: its hash, signed, and the signed head's JSON; None if `state`
        doesn't know its own head (then the caller reads it from the log rather than show
        another event's)."""
        seq, hash_ = state.head
        if seq != state.seq or not hash_:
            return None
        return (hash_, *self.signed(state.code, seq, hash_))

    def signed(self, code: str, seq: int, hash_: str) -> tuple[SignedHead | None, bytes]:
        """The head of table `code`'s event `seq`, whose hash is `hash_`, signed, and its
        JSON."""
        key = (code, seq, hash_)
        made = self._signed.get(key)
        if made is None:
            signer = self._signer
            head = None if signer is None else sign_head(signer.sign, signer.key, *key)
            made = head, msgspec.json.encode(head)
            self._signed[key] = made
            if len(self._signed) > KEPT:
                self._signed.popitem(last=False)
        return made

    def spliced(self, view: bytes, state: State) -> bytes:
        """A JSON object (a view, or what a table's views share) with `head` (the hash) and
        `signed_head` added at its end."""
        made = self.of(state)
        if made is None:
            return view[:-1] + b',"head":"","signed_head":null}'
        hash_, _, encoded = made
        return b'%b,"head":"%b","signed_head":%b}' % (view[:-1], hash_.encode(), encoded)
