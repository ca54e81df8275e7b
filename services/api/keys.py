"""The service's public keys at a well-known address, for anyone checking a head it signed."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Controller, get
from litestar.datastructures import CacheControlHeader
from litestar.di import NamedDependency

from infra.signing import PublicKey, Signer
from services.api.contract import problems


class Keys(msgspec.Struct, frozen=True):
    keys: Annotated[
        list[PublicKey],
        msgspec.Meta(
            description="Every key the service has signed with, the current one first. A "
            "signature verifies under any of them, retired ones included: a head signed "
            "before a rotation stays provable."
        ),
    ]


class KeysController(Controller):
    path = "/.well-known"
    tags = ["keys"]

    @get(
        "/euchre-keys",
        responses=problems(400, 500),
        # A rotation is seen within minutes; a verifier or cache needn't ask on every check.
        cache_control=CacheControlHeader(public=True, max_age=300),
    )
    async def keys(self, signer: NamedDependency[Signer]) -> Keys:
        """The Ed25519 public keys (RFC 8032, raw 32 bytes in lowercase hex) that the service's
        signatures verify under; no sign-in needed."""
        return Keys(keys=signer.keys())
