"""The public log of finished games (infra/transparency.py): each game won becomes the next
leaf, its final head as the log has it; the tree proves each inclusion and each growth; a
rebuild makes the same tree."""

from __future__ import annotations

import pytest
from rated_kit import append_game, finished_game

from domain.merkle import leaf_hash, verify_consistency, verify_inclusion
from infra.follower import rebuild
from infra.transparency import PublicLog
from projections.transparency import game_leaf

PEOPLE = [("ada", True), None, ("bo", False), None]
pytestmark = pytest.mark.anyio


async def final_head(store, code: str) -> tuple[int, str]:
    won = [r for r in await store.read(code) if r.type == "GameWon"]
    return won[0].seq, won[0].hash


async def test_each_game_won_is_the_next_leaf_and_its_inclusion_and_growth_are_proved(
    engine, store
):
    public = PublicLog(engine, store)
    for n in range(5):
        await append_game(store, f"G{n}", finished_game(f"G{n}", n, PEOPLE))
    await append_game(store, "HALF", finished_game("HALF", 9, PEOPLE)[:40])  # not over
    await public.catch_up()
    tree = await public.tree()
    assert tree.size == 5 and await public.game("HALF") is None
    old_root = tree.root()
    for n in range(5):
        index, seq, hash_ = await public.game(f"G{n}")
        assert index == n and (seq, hash_) == await final_head(store, f"G{n}")
        leaf = leaf_hash(game_leaf(f"G{n}", seq, hash_))
        assert verify_inclusion(leaf, index, 5, tree.inclusion(index), old_root)
        assert not verify_inclusion(leaf, (index + 1) % 5, 5, tree.inclusion(index), old_root)

    for n in range(5, 8):
        await append_game(store, f"G{n}", finished_game(f"G{n}", n, PEOPLE))
    await public.catch_up()
    tree = await public.tree()
    assert tree.size == 8
    proof = tree.consistency(5, 8)
    assert verify_consistency(5, 8, old_root, tree.root(), proof)
    assert not verify_consistency(5, 8, bytes(32), tree.root(), proof)

    # Another process's tree, read afresh, and one after a rebuild from the log: the same.
    assert (await PublicLog(engine, store).tree()).root() == tree.root()
    await rebuild([public.follower])
    assert (await PublicLog(engine, store).tree()).root() == tree.root()
