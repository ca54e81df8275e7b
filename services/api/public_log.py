"""The public log of finished games over HTTP (docs/audit.md "The public log"): its signed tree
head, a game's inclusion proof and the consistency proof between two sizes of the tree."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.di import NamedDependency
from litestar.params import FromPath, Parameter

from domain.merkle import Tree
from infra.signing import Signer
from infra.transparency import PublicLog
from projections.transparency import Consistency, Inclusion, TreeHead, tree_message
from services.api.bodies import Code, table_code
from services.api.contract import problems
from services.api.problems import Problem

Size = Annotated[int, Parameter(ge=0, description="a size of the tree: how many games it held")]


def tree_head(signer: Signer, tree: Tree, size: int) -> TreeHead:
    root = tree.root(size).hex()
    return TreeHead(size, root, signer.key, signer.sign(tree_message(size, root)))


class TransparencyController(Controller):
    path = "/api/transparency"
    tags = ["audit"]

    @get("/tree", responses=problems(400, 500))
    async def tree(
        self, public_log: NamedDependency[PublicLog], signer: NamedDependency[Signer]
    ) -> TreeHead:
        """The tree of every finished game in the public log now, its root signed."""
        tree = await public_log.tree()
        return tree_head(signer, tree, tree.size)

    @get(
        "/games/{code:str}",
        responses=problems(
            400,
            404,
            422,
            500,
            why={
                404: "The game isn't in the public log: no such table, not won yet, or won "
                "a moment ago and not added yet.",
                422: "`code` isn't a table code.",
            },
        ),
    )
    async def game(
        self,
        code: FromPath[Code],
        public_log: NamedDependency[PublicLog],
        signer: NamedDependency[Signer],
    ) -> Inclusion:
        """Table `code`'s final head, its place in the public log, and the proof that the
        signed tree head given with it includes it. A game is added a moment after it is won:
        until then, 404."""
        code = table_code(code)
        found = await public_log.game(code)
        tree = await public_log.tree()
        if found is None or found[0] >= tree.size:
            raise Problem(404, f"table {code}'s game isn't in the public log (yet)", field="code")
        index, seq, hash_ = found
        proof = [h.hex() for h in tree.inclusion(index, tree.size)]
        head = tree_head(signer, tree, tree.size)
        return Inclusion(code, seq, hash_, index, head, proof)

    @get(
        "/consistency",
        responses=problems(
            400,
            422,
            500,
            why={
                422: "Not `first` <= `second` <= the games in the log now (`field` names the "
                "one out of line), or a size isn't a whole number.",
            },
        ),
    )
    async def consistency(
        self,
        first: Size,
        second: Size,
        public_log: NamedDependency[PublicLog],
        signer: NamedDependency[Signer],
    ) -> Consistency:
        """That the tree of the first `first` games is where the tree of `second` began: both
        signed, and the proof between them."""
        tree = await public_log.tree()
        if not first <= second <= tree.size:
            raise Problem(
                422,
                f"need first <= second <= {tree.size}, the games in the log now",
                field="second" if first <= second else "first",
            )
        proof = [h.hex() for h in tree.consistency(first, second)]
        return Consistency(tree_head(signer, tree, first), tree_head(signer, tree, second), proof)
