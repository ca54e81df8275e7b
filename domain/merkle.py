"""The public log's Merkle tree as Certificate Transparency defines it (RFC 9162, section 2.1).

An auditor must be able to check that a finished game is in the log and that today's log only
extends yesterday's, without trusting the server; RFC 9162's tree proves both in O(log n) hashes,
and following it to the byte lets auditors use verifiers and test vectors we did not write.

The server keeps the tree between requests and caches the hash of every complete power-of-two
subtree: in an append-only log those never change, so any root or proof, for any past size, costs
O(log² n) hashes at most, never a pass over the log.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

_HASH_SIZE = 32


def leaf_hash(data: bytes) -> bytes:
    """The 0x00 prefix keeps a leaf from ever hashing like an interior node (a second preimage)."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The 0x01 prefix is the other half of the separation `leaf_hash` begins."""
    return hashlib.sha256(b"\x01" + left + right).digest()


EMPTY_ROOT = hashlib.sha256(b"").digest()


def _split(n: int) -> int:
    """RFC 9162's k for n > 1 leaves: the largest power of two smaller than n."""
    return 1 << ((n - 1).bit_length() - 1)


def _is_hash(value: object) -> bool:
    return isinstance(value, bytes) and len(value) == _HASH_SIZE


class Tree:
    """An append-only tree over leaf hashes, which holds about two hashes per leaf.

    The log itself stores the leaves; this is rebuilt from their hashes when a server starts.
    """

    def __init__(self, hashes: Iterable[bytes] = ()) -> None:
        # _levels[h] is the concatenated hashes of the complete subtrees of 2**h leaves, in order.
        self._levels = [bytearray()]
        for h in hashes:
            self.append(h)

    @property
    def size(self) -> int:
        return len(self._levels[0]) // _HASH_SIZE

    def append(self, leaf_hash: bytes) -> int:
        """Each append completes one subtree on every level where its count becomes even."""
        if not _is_hash(leaf_hash):
            raise ValueError("a leaf hash is 32 bytes (SHA-256)")
        index = self.size
        nodes, count = [leaf_hash], index + 1
        while count % 2 == 0:
            left = bytes(self._levels[len(nodes) - 1][-_HASH_SIZE:])
            nodes.append(node_hash(left, nodes[-1]))
            count //= 2
        if len(nodes) > len(self._levels):
            self._levels.append(bytearray())
        # Top down, so that `size` grows last: a reader never meets a size whose nodes are missing.
        for level in reversed(range(len(nodes))):
            self._levels[level] += nodes[level]
        return index

    def root(self, size: int | None = None) -> bytes:
        """The root the log had at `size` leaves, so an old signed root can still be checked."""
        return self._hash(0, self._size(size))

    def inclusion(self, index: int, size: int | None = None) -> list[bytes]:
        """RFC 9162 PATH(index, D[:size]), the sibling hashes from the leaf up to the root."""
        size = self._size(size)
        if not 0 <= index < size:
            raise ValueError(f"leaf {index} is not in a tree of {size} leaves")
        path = []
        start, end = 0, size
        while end - start > 1:
            k = _split(end - start)
            if index < start + k:
                path.append(self._hash(start + k, end))
                end = start + k
            else:
                path.append(self._hash(start, start + k))
                start += k
        return path[::-1]

    def consistency(self, old: int, new: int | None = None) -> list[bytes]:
        """RFC 9162 PROOF(old, D[:new]): empty when `old` is 0 or `new`, which need no proof."""
        new = self._size(new)
        if not 0 <= old <= new:
            raise ValueError(f"a tree of {old} leaves cannot be a prefix of one of {new}")
        if old in (0, new):
            return []
        proof = []
        start, end, whole = 0, new, True
        while old != end:
            k = _split(end - start)
            if old - start <= k:
                proof.append(self._hash(start + k, end))
                end = start + k
            else:
                proof.append(self._hash(start, start + k))
                start += k
                whole = False
        if not whole:
            # The old root is not this subtree's, so the verifier needs the subtree both share.
            proof.append(self._hash(start, end))
        return proof[::-1]

    def _size(self, size: int | None) -> int:
        if size is None:
            return self.size
        if not 0 <= size <= self.size:
            raise ValueError(f"the tree has {self.size} leaves, not {size}")
        return size

    def _hash(self, start: int, end: int) -> bytes:
        """MTH(D[start:end]) for the ranges RFC 9162's recursion visits: their start is a multiple
        of every power of two that fits in them, so they split into cached complete subtrees."""
        if start == end:
            return EMPTY_ROOT
        parts = []
        while start < end:
            height = (end - start).bit_length() - 1
            at = (start >> height) * _HASH_SIZE
            parts.append(bytes(self._levels[height][at : at + _HASH_SIZE]))
            start += 1 << height
        result = parts.pop()
        while parts:
            result = node_hash(parts.pop(), result)
        return result


def verify_inclusion(
    leaf_hash: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes
) -> bool:
    """RFC 9162 2.1.3.2: whether `proof` puts `leaf_hash` at `index` of the tree with `root`.

    An auditor feeds it whatever a server sent, so anything malformed is False, never an error.
    """
    if not (_is_hash(leaf_hash) and _is_hash(root) and _are_hashes(proof)):
        return False
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf_hash
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while fn and not fn & 1:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def verify_consistency(
    old: int, new: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """RFC 9162 2.1.4.2: whether the tree of `old` leaves with `old_root` is a prefix of the tree
    of `new` leaves with `new_root`. Equal sizes need equal roots and an empty tree the empty
    root, both with an empty proof. Anything malformed is False, never an error."""
    if not (_is_hash(old_root) and _is_hash(new_root) and _are_hashes(proof)):
        return False
    if not 0 <= old <= new:
        return False
    if old == 0:
        return not proof and old_root == EMPTY_ROOT and (new > 0 or new_root == EMPTY_ROOT)
    if old == new:
        return not proof and old_root == new_root
    if not proof:
        return False
    path = list(proof)
    if old & (old - 1) == 0:
        # The old tree is a complete subtree of the new one, so the server leaves its root out.
        path.insert(0, old_root)
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while fn and not fn & 1:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and fr == old_root and sr == new_root


def _are_hashes(proof: object) -> bool:
    return isinstance(proof, Sequence) and all(_is_hash(p) for p in proof)
