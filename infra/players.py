"""Players: guests and registered names, with hashed passwords and hashed bearer tokens.

A token is 32 random bytes shown once; only its SHA-256 is stored, so a leaked table can't be
replayed as logins (tokens are random, so a fast hash is enough). Passwords use Argon2id.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid

import msgspec
from argon2 import PasswordHasher
from argon2.exceptions import VerificationError
from sqlalchemy import Column, DateTime, ForeignKey, MetaData, Table, Text, func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

metadata = MetaData()
players = Table(
    "players",
    metadata,
    Column("id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("login", Text),
    Column("password_hash", Text),
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
        self._known: dict[str, Player] = {}

    async def create(self, name: str, password: str | None = None) -> tuple[Player, str]:
        """A new player and their first token; with a password the name is registered."""
        player_id = uuid.uuid4().hex
        login = name.casefold() if password is not None else None
        pw_hash = _hasher.hash(password) if password is not None else None
        try:
            async with self._engine.begin() as conn:
                await conn.execute(
                    insert(players).values(
                        id=player_id, name=name, login=login, password_hash=pw_hash
                    )
                )
                token = await self._issue(conn, player_id)
        except IntegrityError as error:
            raise NameTaken(name) from error
        return Player(id=player_id, name=name, registered=login is not None), token

    async def login(self, name: str, password: str) -> tuple[Player, str]:
        async with self._engine.begin() as conn:
            row = (
                await conn.execute(select(players).where(players.c.login == name.casefold()))
            ).first()
            if row is None:
                _hasher.hash(password)  # the same work as a wrong password, so timing says nothing
                raise BadLogin(name)
            try:
                _hasher.verify(row.password_hash, password)
            except VerificationError as error:
                raise BadLogin(name) from error
            token = await self._issue(conn, row.id)
        return Player(id=row.id, name=row.name, registered=True), token

    async def by_token(self, token: str) -> Player | None:
        """Tokens never change hands, so a found one is remembered for the process's life."""
        digest = _token_hash(token)
        known = self._known.get(digest)
        if known is not None:
            return known
        query = (
            select(players)
            .join(tokens, tokens.c.player_id == players.c.id)
            .where(tokens.c.token_hash == digest)
        )
        async with self._engine.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            return None
        if len(self._known) >= KNOWN_TOKENS:
            self._known.clear()
        player = self._known[digest] = Player(row.id, row.name, row.login is not None)
        return player

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
