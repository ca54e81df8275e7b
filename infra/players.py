"""Players: guests and registered names, with hashed passwords and hashed bearer tokens.

A token is 32 random bytes shown once; only its SHA-256 is stored, so a leaked table can't be
replayed as logins (tokens are random, so a fast hash is enough). Passwords use Argon2id,
which takes a good fraction of a second of CPU by design: it runs on low-priority threads, never
on the event loop, so a burst of sign-ins delays other sign-ins and nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import secrets
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import msgspec
from argon2 import PasswordHasher
from argon2.exceptions import VerificationError
from sqlalchemy import (
    Column,
    DateTime,
    ForeignKey,
    MetaData,
    Table,
    Text,
    delete,
    func,
    insert,
    select,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from infra import names

metadata = MetaData()
players = Table(
    "players",
    metadata,
    Column("id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("login", Text),
    Column("password_hash", Text),
    Column("name_key", Text),
    Column("created_at", DateTime(timezone=True), server_default=func.now()),
)
tokens = Table(
    "tokens",
    metadata,
    Column("token_hash", Text, primary_key=True),
    Column("player_id", Text, ForeignKey("players.id"), nullable=False),
    Column("created_at", DateTime(timezone=True), server_default=func.now()),
)
_hasher = PasswordHasher()
KNOWN_TOKENS = 100_000
KNOWN_FOR = 30.0  # seconds a token found is trusted without asking the database again
# Each Argon2 hash already runs its four lanes on threads of its own: one hash at a time per
# four cores keeps the CPU for everything else.
HASH_THREADS = max(1, (os.cpu_count() or 1) // 4)
HASH_NICENESS = 10


def _lower_priority() -> None:
    """Hashing threads get only the CPU nothing else wants (SCHED_IDLE, and nice where that is
    refused); Argon2's own lane threads inherit both. On Linux these are per thread, so the
    event loop keeps its normal priority: sign-ins wait for the CPU, not everyone else."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASH_NICENESS)
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(threading.get_native_id(), os.SCHED_IDLE, os.sched_param(0))


_hashing = ThreadPoolExecutor(HASH_THREADS, "argon2", initializer=_lower_priority)


async def _off_loop(fn, *args):
    return await asyncio.get_running_loop().run_in_executor(_hashing, fn, *args)


def _verify(password_hash: str | None, password: str) -> bool:
    """Whether `password` is the one hashed; with no hash (an unknown name) the same work is
    done anyway, so timing says nothing about which names exist."""
    if password_hash is None:
        _hasher.hash(password)
        return False
    try:
        return _hasher.verify(password_hash, password)
    except VerificationError:
        return False


class Player(msgspec.Struct, frozen=True):
    id: str
    name: str
    registered: bool


class NameTaken(Exception):
    pass


class BadLogin(Exception):
    pass


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Players:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._known: dict[str, tuple[Player, float]] = {}

    async def create(self, name: str, password: str | None = None) -> tuple[Player, str]:
        """A new player and their first token; with a password the name is registered.

        The name is cleaned first (`infra.names.clean`, BadName if it can't be used). A guest
        may share a name with other guests but not pass for a registered player: a name whose
        `names.key` a registered player holds is NameTaken, as is registering one.
        """
        name = names.clean(name)
        name_key = names.key(name)
        player_id = uuid.uuid4().hex
        login = name.casefold() if password is not None else None
        pw_hash = await _off_loop(_hasher.hash, password) if password is not None else None
        try:
            async with self._engine.begin() as conn:
                if login is None:
                    held = select(players.c.id).where(players.c.name_key == name_key)
                    if (await conn.execute(held)).first() is not None:
                        raise NameTaken(name)
                await conn.execute(
                    insert(players).values(
                        id=player_id,
                        name=name,
                        login=login,
                        password_hash=pw_hash,
                        name_key=name_key if login is not None else None,
                    )
                )
                token = await self._issue(conn, player_id)
        except IntegrityError as error:
            raise NameTaken(name) from error
        return Player(id=player_id, name=name, registered=login is not None), token

    async def login(self, name: str, password: str) -> tuple[Player, str]:
        login = names.normal(name).casefold()
        async with self._engine.connect() as conn:
            row = (await conn.execute(select(players).where(players.c.login == login))).first()
        if not await _off_loop(_verify, None if row is None else row.password_hash, password):
            raise BadLogin(name)
        async with self._engine.begin() as conn:
            token = await self._issue(conn, row.id)
        return Player(id=row.id, name=row.name, registered=True), token

    async def by_token(self, token: str) -> Player | None:
        """A found token is remembered for a little while: most requests then need no query,
        and a token revoked by another process stops working here within KNOWN_FOR seconds."""
        digest = _token_hash(token)
        known = self._known.get(digest)
        if known is not None and time.monotonic() < known[1]:
            return known[0]
        query = (
            select(players)
            .join(tokens, tokens.c.player_id == players.c.id)
            .where(tokens.c.token_hash == digest)
        )
        async with self._engine.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            self._known.pop(digest, None)
            return None
        if len(self._known) >= KNOWN_TOKENS:
            self._known.clear()
        player = Player(row.id, row.name, row.login is not None)
        self._known[digest] = (player, time.monotonic() + KNOWN_FOR)
        return player

    async def revoke(self, token: str) -> None:
        """Sign out: the token stops working at once here, and everywhere once forgotten."""
        digest = _token_hash(token)
        self._known.pop(digest, None)
        async with self._engine.begin() as conn:
            await conn.execute(delete(tokens).where(tokens.c.token_hash == digest))

    async def get(self, player_id: str) -> Player | None:
        async with self._engine.connect() as conn:
            row = (await conn.execute(select(players).where(players.c.id == player_id))).first()
        return None if row is None else Player(row.id, row.name, row.login is not None)

    @staticmethod
    async def _issue(conn, player_id: str) -> str:
        token = secrets.token_urlsafe(32)
        await conn.execute(
            insert(tokens).values(token_hash=_token_hash(token), player_id=player_id)
        )
        return token
