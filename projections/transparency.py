"""The public log of finished games (docs/audit.md "The public log"): each game's final head as
a leaf of one Merkle tree (RFC 9162, domain/merkle.py), the tree's signed heads, and the
checks an auditor runs on what the service answers.

A signed head of one table proves what the service said of that table; it can't show that
the service keeps one story for everyone. Every finished game's final head goes into a single
append-only tree whose signed roots anyone can compare: a game's inclusion proof ties its
head to a root, a consistency proof ties an older root to a newer, so a game can't be dropped
or rewritten after it is in the tree without every holder of a later root seeing it.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.chain import statement
from domain.merkle import leaf_hash, verify_consistency, verify_inclusion
from projections.heads import Hex, Verify

Hash = Annotated[Hex, msgspec.Meta(min_length=64, max_length=64)]


def game_leaf(code: str, seq: int, hash_: str) -> bytes:
    """A finished game's leaf: the canonical statement of its final head (the GameWon event's
    seq and hash in its table's chain)."""
    return statement("game", {"code": code, "hash": hash_, "seq": seq})


def tree_message(size: int, root: str) -> bytes:
    return statement("tree", {"root": root, "size": size})


class TreeHead(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The root of the first `size` games' tree, signed (Ed25519, `key`'s) over the canonical
    JSON of `{"root", "size", "statement": "tree"}`."""

    size: Annotated[int, msgspec.Meta(ge=0)]
    root: Hash
    key: Hash
    signature: Annotated[Hex, msgspec.Meta(min_length=128, max_length=128)]

    def signed(self, verify: Verify) -> bool:
        return verify(self.key, tree_message(self.size, self.root), self.signature)


class Inclusion(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Table `code`'s final head is leaf `index` of the tree `tree` signs: `proof` is its
    audit path (RFC 9162 2.1.3), each hash hex."""

    code: str
    seq: int
    hash: Hash
    index: int
    tree: TreeHead
    proof: list[Hash]


class Consistency(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The tree `first` signs is where the tree `second` signs began: `proof` is the
    consistency proof between them (RFC 9162 2.1.4), each hash hex."""

    first: TreeHead
    second: TreeHead
    proof: list[Hash]


def included(inclusion: Inclusion, verify: Verify) -> bool:
    """Whether `inclusion` shows what it says: its tree head signed, its path leading from
    the game's leaf to that root."""
    tree = inclusion.tree
    leaf = leaf_hash(game_leaf(inclusion.code, inclusion.seq, inclusion.hash))
    path = [bytes.fromhex(h) for h in inclusion.proof]
    return tree.signed(verify) and verify_inclusion(
        leaf, inclusion.index, tree.size, path, bytes.fromhex(tree.root)
    )


def consistent(consistency: Consistency, verify: Verify) -> bool:
    """Whether the older signed tree is a beginning of the newer one."""
    first, second = consistency.first, consistency.second
    path = [bytes.fromhex(h) for h in consistency.proof]
    return (
        first.signed(verify)
        and second.signed(verify)
        and verify_consistency(
            first.size, second.size, bytes.fromhex(first.root), bytes.fromhex(second.root), path
        )
    )
