"""The public log's Merkle tree: RFC 9162's published vectors, its recursive definitions, and an
auditor's verifiers that accept every honest proof and nothing else."""

from __future__ import annotations

import hashlib
from functools import cache
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import merkle
from domain.merkle import (
    EMPTY_ROOT,
    Tree,
    leaf_hash,
    node_hash,
    verify_consistency,
    verify_inclusion,
)

# The RFC 6962/9162 reference vectors of transparency-dev/merkle (Go): the leaves, the node hashes
# of their complete subtrees and the roots of sizes 0..8 from testonly/constants.go (LeafInputs,
# NodeHashes, RootHashes), and the proofs from proof/verify_test.go (inclusionProofs, whose leaf
# numbers are 1-based there and indexes here, and consistencyProofs; the repository has since
# moved them to testdata/inclusion/*/happy-path.json and testdata/consistency/*/happy-path.json).
LEAF_INPUTS = [
    "",
    "00",
    "10",
    "2021",
    "3031",
    "40414243",
    "5051525354555657",
    "606162636465666768696a6b6c6d6e6f",
]
NODE_HASHES = [
    [
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
        "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        "4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658",
        "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
        "46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1",
    ],
    [
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
    ],
    [
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
    ["5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"],
]
ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
INCLUSION_PROOFS = [  # (index, size, proof)
    (0, 1, []),
    (
        0,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        5,
        8,
        [
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (
        1,
        5,
        [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
]
CONSISTENCY_PROOFS = [  # (old, new, proof)
    (1, 1, []),
    (
        1,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        6,
        8,
        [
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (
        2,
        5,
        [
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
    (
        6,
        7,
        [
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
]


def hexes(values: list[str]) -> list[bytes]:
    return [bytes.fromhex(v) for v in values]


def vector_tree() -> Tree:
    return Tree(leaf_hash(bytes.fromhex(x)) for x in LEAF_INPUTS)


def game_hashes(n: int) -> list[bytes]:
    return [leaf_hash(f"game {i}".encode()) for i in range(n)]


def changed(value: bytes) -> bytes:
    """The hash with one bit flipped."""
    return bytes([value[0] ^ 8]) + value[1:]


def flipped(proof: list[bytes], i: int) -> list[bytes]:
    return [*proof[:i], changed(proof[i]), *proof[i + 1 :]]


# RFC 9162 2.1.1, 2.1.3.1 and 2.1.4.1 as written, recursion and slices, over `LEAVES`: slow and
# obviously right, for the cached tree to be compared with.
LEAVES = tuple(game_hashes(64))


@cache
def mth(start: int, end: int) -> bytes:
    if end - start == 0:
        return hashlib.sha256(b"").digest()
    if end - start == 1:
        return LEAVES[start]
    k = 1 << ((end - start - 1).bit_length() - 1)
    return hashlib.sha256(b"\x01" + mth(start, start + k) + mth(start + k, end)).digest()


def path(m: int, start: int, end: int) -> list[bytes]:
    if end - start == 1:
        return []
    k = 1 << ((end - start - 1).bit_length() - 1)
    if m < k:
        return [*path(m, start, start + k), mth(start + k, end)]
    return [*path(m - k, start + k, end), mth(start, start + k)]


def subproof(m: int, start: int, end: int, whole: bool) -> list[bytes]:
    if m == end - start:
        return [] if whole else [mth(start, end)]
    k = 1 << ((end - start - 1).bit_length() - 1)
    if m <= k:
        return [*subproof(m, start, start + k, whole), mth(start + k, end)]
    return [*subproof(m - k, start + k, end, False), mth(start, start + k)]


def test_leaf_and_node_hashes_match_the_reference_vectors():
    levels = [hexes(level) for level in NODE_HASHES]
    assert [leaf_hash(bytes.fromhex(x)) for x in LEAF_INPUTS] == levels[0]
    for below, above in pairwise(levels):
        assert [node_hash(below[i], below[i + 1]) for i in range(0, len(below), 2)] == above


def test_the_empty_tree_has_the_hash_of_nothing_for_its_root():
    assert EMPTY_ROOT.hex() == ROOTS[0]
    assert Tree().root() == EMPTY_ROOT
    assert Tree().size == 0


def test_roots_match_the_reference_vectors_for_every_size_as_the_tree_grows():
    tree = Tree()
    for size, data in enumerate(LEAF_INPUTS, start=1):
        assert tree.append(leaf_hash(bytes.fromhex(data))) == size - 1
        assert (tree.size, tree.root().hex()) == (size, ROOTS[size])
    assert [tree.root(size).hex() for size in range(9)] == ROOTS


@pytest.mark.parametrize(("index", "size", "proof"), INCLUSION_PROOFS)
def test_inclusion_proofs_match_the_reference_vectors(index, size, proof):
    tree = vector_tree()
    assert tree.inclusion(index, size) == hexes(proof)
    leaf = leaf_hash(bytes.fromhex(LEAF_INPUTS[index]))
    assert verify_inclusion(leaf, index, size, hexes(proof), bytes.fromhex(ROOTS[size]))


@pytest.mark.parametrize(("old", "new", "proof"), CONSISTENCY_PROOFS)
def test_consistency_proofs_match_the_reference_vectors(old, new, proof):
    tree = vector_tree()
    assert tree.consistency(old, new) == hexes(proof)
    old_root, new_root = bytes.fromhex(ROOTS[old]), bytes.fromhex(ROOTS[new])
    assert verify_consistency(old, new, old_root, new_root, hexes(proof))


def test_the_tree_gives_what_the_rfcs_recursive_definitions_give_up_to_64_leaves():
    tree = Tree(LEAVES)
    for new in range(1, 65):
        assert tree.root(new) == mth(0, new)
        assert [tree.inclusion(i, new) for i in range(new)] == [path(i, 0, new) for i in range(new)]
        consistency = [tree.consistency(old, new) for old in range(1, new)]
        assert consistency == [subproof(old, 0, new, True) for old in range(1, new)]


def test_a_tree_grown_leaf_by_leaf_answers_for_its_past_sizes_as_the_trees_it_was():
    grown = Tree()
    for leaf in LEAVES:
        grown.append(leaf)
    for size in range(65):
        past = Tree(LEAVES[:size])
        assert grown.root(size) == past.root()
        assert [grown.inclusion(i, size) for i in range(size)] == [
            past.inclusion(i) for i in range(size)
        ]
        assert [grown.consistency(old, size) for old in range(size + 1)] == [
            past.consistency(old) for old in range(size + 1)
        ]


def test_every_inclusion_proof_up_to_64_leaves_verifies_and_fails_when_tampered_with():
    tree = Tree(LEAVES)
    for size in range(1, 65):
        root = tree.root(size)
        for index in range(size):
            leaf, proof = LEAVES[index], tree.inclusion(index, size)
            assert verify_inclusion(leaf, index, size, proof, root), (index, size)
            tampered = [
                *((leaf, index, size, flipped(proof, i), root) for i in range(len(proof))),
                *((leaf, other, size, proof, root) for other in (index - 1, index + 1, index ^ 2)),
                (leaf, index, size * 2, proof, root),
                (leaf, index, size // 2, proof, root),
                (LEAVES[(index + 1) % 64], index, size, proof, root),
                (leaf, index, size, proof, changed(root)),
                (leaf, index, size, proof, tree.root(size - 1)),
                (leaf, index, size, proof, EMPTY_ROOT),
                (leaf, index, size, [*proof, root], root),
                (leaf, index, size, [root, *proof], root),
            ]
            if proof:
                tampered.append((leaf, index, size, proof[:-1], root))
            for probe in tampered:
                assert not verify_inclusion(*probe), (index, size, probe)


def test_an_inclusion_proof_cannot_go_on_past_the_root_of_the_size_it_claims():
    """Leaf 2 of four is leaf 0 of the right half, so its proof, read as one for a tree of two
    whose root is the four's, would pass if the verifier kept hashing once the size ran out."""
    tree = Tree(LEAVES[:4])
    proof = tree.inclusion(2)
    assert verify_inclusion(LEAVES[2], 2, 4, proof, tree.root())
    assert not verify_inclusion(LEAVES[2], 0, 2, proof, tree.root())


def test_every_consistency_proof_up_to_64_leaves_verifies_and_fails_when_tampered_with():
    tree = Tree(LEAVES)
    for new in range(1, 65):
        new_root = tree.root(new)
        for old in range(1, new + 1):
            old_root, proof = tree.root(old), tree.consistency(old, new)
            assert verify_consistency(old, new, old_root, new_root, proof), (old, new)
            tampered = [
                *((old, new, old_root, new_root, flipped(proof, i)) for i in range(len(proof))),
                (old, new, changed(old_root), new_root, proof),
                (old, new, old_root, changed(new_root), proof),
                (old, new, old_root, EMPTY_ROOT, proof),
                (old, new, old_root, new_root, [*proof, new_root]),
                (old, new, old_root, new_root, [old_root, *proof]),
            ]
            if proof:
                tampered += [
                    (old, new, new_root, old_root, proof),
                    (old - 1, new, old_root, new_root, proof),
                    (old + 1, new, old_root, new_root, proof),
                    (old ^ 2, new, old_root, new_root, proof),
                    (old, new * 2, old_root, new_root, proof),
                    (old, new // 2, old_root, new_root, proof),
                    (old, new, old_root, new_root, proof[:-1]),
                    (old, new, old_root, new_root, []),
                    (old, new, old_root, new_root, [proof[0], *proof]),
                ]
            for probe in tampered:
                assert not verify_consistency(*probe), (old, new, probe)


def test_the_empty_tree_is_consistent_with_every_tree_without_a_proof():
    tree = Tree(LEAVES)
    assert tree.consistency(0, 10) == []
    assert verify_consistency(0, 10, EMPTY_ROOT, tree.root(10), [])
    assert verify_consistency(0, 0, EMPTY_ROOT, EMPTY_ROOT, [])
    assert not verify_consistency(0, 10, tree.root(1), tree.root(10), [])
    assert not verify_consistency(0, 10, EMPTY_ROOT, tree.root(10), [EMPTY_ROOT])
    assert not verify_consistency(0, 0, EMPTY_ROOT, tree.root(1), [])


@pytest.mark.parametrize(
    "ask",
    [
        lambda t: t.inclusion(8),
        lambda t: t.inclusion(-1),
        lambda t: t.inclusion(3, 3),
        lambda t: t.inclusion(0, 0),
        lambda t: t.inclusion(0, 9),
        lambda t: t.inclusion(0, -1),
        lambda t: t.root(9),
        lambda t: t.root(-1),
        lambda t: t.consistency(5, 4),
        lambda t: t.consistency(9),
        lambda t: t.consistency(-1),
        lambda t: t.consistency(0, 9),
        lambda t: t.append(b"\x00" * 31),
        lambda t: t.append(bytes(32).hex()),
        lambda t: Tree([b"game 1"]),
    ],
)
def test_bad_arguments_are_refused_with_a_value_error(ask):
    with pytest.raises(ValueError, match=r"\w+ \w+ \w+"):
        ask(vector_tree())


def test_the_verifiers_return_false_for_garbage_and_never_raise():
    tree = Tree(LEAVES)
    leaf, root, proof = LEAVES[5], tree.root(8), tree.inclusion(5, 8)
    garbage_inclusion = [
        (leaf[:31], 5, 8, proof, root),
        (leaf, 5, 8, proof, root + b"\x00"),
        (leaf, 5, 8, [*proof[:2], proof[2][:16]], root),
        (leaf, 5, 8, [p.hex() for p in proof], root),
        (leaf, 5, 8, b"".join(proof), root),
        (leaf, 5, 8, None, root),
        (leaf, 5, 8, [], root),
        (leaf, 5, 0, [], EMPTY_ROOT),
        (leaf, -1, 8, proof, root),
        (leaf, 8, 8, proof, root),
        (leaf, 5, -8, proof, root),
        (leaf, 2**70, 2**71, proof, root),
        (leaf.hex(), 5, 8, proof, root),
    ]
    for probe in garbage_inclusion:
        assert verify_inclusion(*probe) is False, probe
    old_root, new_root, proof = tree.root(6), tree.root(8), tree.consistency(6, 8)
    garbage_consistency = [
        (6, 8, old_root, new_root, []),
        (6, 8, old_root, new_root, None),
        (6, 8, old_root, new_root, [proof[0][:31], *proof[1:]]),
        (6, 8, old_root, new_root, [*proof, b""]),
        (6, 8, old_root, new_root, b"".join(proof)),
        (6, 8, old_root[:31], new_root, proof),
        (6, 8, old_root, b"", proof),
        (8, 6, new_root, old_root, proof),
        (-6, 8, old_root, new_root, proof),
        (-1, -1, old_root, old_root, []),
        (6, 2**70, old_root, new_root, proof),
        (1, 1, b"root", b"root", []),
        (4, 4, new_root, new_root, [new_root]),
    ]
    for probe in garbage_consistency:
        assert verify_consistency(*probe) is False, probe


def test_requests_hash_a_logarithmic_number_of_nodes_not_the_log(monkeypatch):
    size = (1 << 16) + 12345
    tree = Tree(game_hashes(size))
    calls = 0
    hash_nodes = merkle.node_hash

    def counted(left: bytes, right: bytes) -> bytes:
        nonlocal calls
        calls += 1
        return hash_nodes(left, right)

    monkeypatch.setattr(merkle, "node_hash", counted)
    bound = size.bit_length() ** 2
    for at in (1, 3, 4095, 4097, 40000, size - 1, size):
        for request, args in (
            (tree.root, (at,)),
            (tree.inclusion, (at - 1, size)),
            (tree.inclusion, (at // 2, at)),
            (tree.consistency, (at, size)),
            (tree.consistency, (at // 3, at)),
        ):
            calls = 0
            request(*args)
            assert calls <= bound, (request, args, calls)


@st.composite
def sizes(draw: st.DrawFn) -> tuple[int, int, int, int]:
    """A tree's size, then an old and a new size within it and a leaf within the new."""
    n = draw(st.integers(1, 300))
    new = draw(st.integers(1, n))
    return n, draw(st.integers(0, new)), new, draw(st.integers(0, new - 1))


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(sizes())
def test_proofs_from_any_tree_verify_for_any_sizes(args):
    n, old, new, index = args
    hashes = game_hashes(n)
    tree = Tree(hashes)
    old_root, new_root = tree.root(old), tree.root(new)
    assert verify_consistency(old, new, old_root, new_root, tree.consistency(old, new))
    assert verify_inclusion(hashes[index], index, new, tree.inclusion(index, new), new_root)
    assert (Tree(hashes[:old]).root(), Tree(hashes[:new]).root()) == (old_root, new_root)
