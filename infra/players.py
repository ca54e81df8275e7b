"""Players: guests and registered names, with hashed passwords and hashed bearer tokens.

A token is 32 random bytes shown once; only its SHA-256 is stored, so a leaked table can't be
replayed as logins (tokens are random, so a fast hash is enough). Passwords use Argon2id,
which takes a good fraction of a second of CPU by design: it runs in a low-priority process,
never on the event loop, so a burst of sign-ins delays other sign-ins and nothing else; and the
turns at it are shared out by address (`infra.fairness`), so a flood of them delays the flood.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import time
import uuid
from datetime import datetime

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
    update,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from infra import background, names, passwords
from infra.fairness import FairQueue

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
    Column("house_rules", JSONB),  # a registered host's last, for their next table
    # An operator's site-wide ban (`euchre players ban`): while set, no token of theirs works
    # and they can't sign in; the reason is what they are told.
    Column("banned_reason", Text),
    Column("banned_at", DateTime(timezone=True)),
)
tokens = Table(
    "tokens",
    metadata,
    Column("token_hash", Text, primary_key=True),
    Column("player_id", Text, ForeignKey("players.id"), nullable=False),
    Column("created_at", DateTime(timezone=True), server_default=func.now()),
    # Set when a process looks the token up rather than remembering it: within KNOWN_FOR.
    Column("last_used_at", DateTime(timezone=True)),
)
# The library's memory and time costs (64 MiB, 3 passes: RFC 9106's second recommendation, and
# over three times the work of OWASP's least for Argon2id, 19 MiB and 2 passes), on one lane:
# four lanes make one hash finish sooner but take every core at once, and whatever else runs
# then waits (bench/auth.py measures it). A hash took 0.17 s of a core here.
_hasher = PasswordHasher(parallelism=1)
KNOWN_TOKENS = 100_000
# Seconds a token found is trusted without asking the database again. A token's player never
# changes, and a sign-out anywhere reaches every API process at once (REVOKED, through each
# one's doorbell), so this only bounds a token deleted by hand. At 30 s, 2,500 people's tokens
# were looked up again 80 times a second at 500 tables, in waves (docs/scaling.md).
KNOWN_FOR = 600.0
REVOKED = "euchre_tokens_revoked"  # the channel a sign-out notifies, with the token's hash
# One hash at a time per four cores keeps the CPU for everything else.
HASH_PROCESSES = max(1, (os.cpu_count() or 1) // 4)
# Niceness 10 weighs a tenth of a normal process: a sign-in on a saturated box is slower but
# sure, where the lowest priorities wait out any busy spell (figures in docs/operations.md).
HASH_NICENESS = 10
# Hashes one address, or one name, may have waiting or running at once; and how many may wait
# in all, per hashing process: at about 0.2 s a hash, a few seconds' work. More is refused at
# once, with 429 (figures in docs/operations.md).
HASH_PER_ADDRESS = 2
HASH_PER_NAME = 2
HASH_WAITING = 8 * HASH_PROCESSES


_hashing = background.Pool(HASH_PROCESSES, HASH_NICENESS)
_off_loop = _hashing.run


def _hash(password: str, name: str) -> str:
    """The hash of a password good enough for `name` (WeakPassword if not): judging it costs
    milliseconds of CPU too, so it is done here, off the event loop, in the same turn."""
    passwords.check(password, name)
    return _hasher.hash(password)


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


class Banned(Exception):
    """The player is banned from the whole site, for `reason` (an operator's words)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class TokenInfo(msgspec.Struct, frozen=True):
    """A token as an operator sees it: never the secret, nor even its whole hash. `id` is
    the hash's first TOKEN_ID_LENGTH hex digits, enough to name one among a player's."""

    id: str
    created_at: datetime
    last_used_at: datetime | None


TOKEN_ID_LENGTH = 12


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Players:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._known: dict[str, tuple[Player, float]] = {}
        self._forgets = 0  # revocations heard, so a lookup they overtook isn't remembered
        self._turns = FairQueue(HASH_PROCESSES, HASH_PER_ADDRESS, HASH_PER_NAME, HASH_WAITING)

    async def create(
        self, name: str, password: str | None = None, address: str | None = None
    ) -> tuple[Player, str]:
        """A new player and their first token; with a password the name is registered.

        The name is cleaned first (`infra.names.clean`, BadName if it can't be used). A guest
        may share a name with other guests but not pass for a registered player: a name whose
        `names.key` a registered player holds is NameTaken, as is registering one. That is
        checked before the password, so whoever tries to register a name that is theirs learns
        it is taken (and signs in) whatever the password. The password must be hard to guess
        (WeakPassword); hashing it waits for a turn of `address`'s (Busy if it can't have one).
        """
        name = names.clean(name)
        name_key = names.key(name)
        player_id = uuid.uuid4().hex
        login = name.casefold() if password is not None else None
        held = select(players.c.id).where(players.c.name_key == name_key)
        async with self._engine.connect() as conn:
            if (await conn.execute(held)).first() is not None:
                raise NameTaken(name)
        pw_hash = None
        if password is not None and login is not None:
            async with self._turns.turn(address, login):
                pw_hash = await _off_loop(_hash, password, name)
        try:
            async with self._engine.begin() as conn:
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

    async def login(
        self, name: str, password: str, address: str | None = None
    ) -> tuple[Player, str]:
        """The registered player and a new token (BadLogin if the password isn't theirs).
        Checking it waits for a turn of `address`'s (Busy at once if it can't have one)."""
        login = names.normal(name).casefold()
        async with self._turns.turn(address, login):
            async with self._engine.connect() as conn:
                query = select(players).where(players.c.login == login)
                row = (await conn.execute(query)).first()
            found = None if row is None else row.password_hash
            if not await _off_loop(_verify, found, password):
                raise BadLogin(name)
        if row.banned_reason is not None:  # told only to whoever knows the password
            raise Banned(row.banned_reason)
        async with self._engine.begin() as conn:
            token = await self._issue(conn, row.id)
        return Player(id=row.id, name=row.name, registered=True), token

    async def by_token(self, token: str) -> Player | None:
        """A found token is remembered for KNOWN_FOR seconds, or until it is revoked
        (`forget`): most requests then need no query. The query that finds it notes it used.
        A banned player's token is Banned, and never remembered: a ban notifies REVOKED for
        each of their tokens, so every process asks again and finds the ban."""
        digest = token_hash(token)
        known = self._known.get(digest)
        if known is not None and time.monotonic() < known[1]:
            return known[0]
        used = (
            update(tokens)
            .where(tokens.c.token_hash == digest)
            .values(last_used_at=func.now())
            .returning(tokens.c.player_id)
            .cte("used")
        )
        query = select(players).join(used, used.c.player_id == players.c.id)
        forgets = self._forgets
        async with self._engine.begin() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            self._known.pop(digest, None)
            return None
        if row.banned_reason is not None:
            self._known.pop(digest, None)
            raise Banned(row.banned_reason)
        player = Player(row.id, row.name, row.login is not None)
        # A sign-out heard while the query ran may be this token's, read just before it was
        # deleted: remembered now, it would work on here for KNOWN_FOR.
        if self._forgets == forgets:
            if len(self._known) >= KNOWN_TOKENS:
                self._known.clear()
            self._known[digest] = (player, time.monotonic() + KNOWN_FOR)
        return player

    async def revoke(self, token: str) -> None:
        """Sign out: the token stops working at once here, and in every process that hears
        REVOKED (sent as the deletion commits) as soon as it does."""
        digest = token_hash(token)
        self._known.pop(digest, None)
        async with self._engine.begin() as conn:
            await conn.execute(delete(tokens).where(tokens.c.token_hash == digest))
            await conn.execute(select(func.pg_notify(REVOKED, digest)))

    def forget(self, digest: str | None) -> None:
        """REVOKED's notice: a token's hash revoked elsewhere, or None where notices may
        have been missed (after the doorbell reconnects), when every token is forgotten."""
        self._forgets += 1
        if digest is None:
            self._known.clear()
        else:
            self._known.pop(digest, None)

    async def get(self, player_id: str) -> Player | None:
        async with self._engine.connect() as conn:
            row = (await conn.execute(select(players).where(players.c.id == player_id))).first()
        return None if row is None else Player(row.id, row.name, row.login is not None)

    async def house_rules(self, player_id: str) -> dict[str, str | int] | None:
        """The house rules this registered player last hosted with, if any."""
        query = select(players.c.house_rules).where(players.c.id == player_id)
        async with self._engine.connect() as conn:
            return await conn.scalar(query)

    async def keep_house_rules(self, player_id: str, rules: dict[str, str | int]) -> None:
        """Remember a registered host's house rules; a guest's are not kept."""
        async with self._engine.begin() as conn:
            await conn.execute(
                update(players)
                .where(players.c.id == player_id, players.c.login.is_not(None))
                .values(house_rules=rules)
            )

    async def named(self, name: str) -> list[Player]:
        """The players an operator means by `name`: the registered one whose name it is, else
        the player with that id, else every guest going by it (maybe several)."""
        login = names.normal(name).casefold()
        async with self._engine.connect() as conn:
            for where in (
                players.c.login == login,
                players.c.id == name,
                (players.c.login.is_(None)) & (players.c.name == names.normal(name)),
            ):
                rows = (await conn.execute(select(players).where(where))).all()
                if rows:
                    return [Player(r.id, r.name, r.login is not None) for r in rows]
        return []

    async def banned(self, player_id: str) -> str | None:
        """Why the player is banned from the site, or None."""
        query = select(players.c.banned_reason).where(players.c.id == player_id)
        async with self._engine.connect() as conn:
            return await conn.scalar(query)

    async def ban(self, player_id: str, reason: str | None) -> None:
        """Ban the player site-wide for `reason` (None lifts the ban). Every process forgets
        their tokens at once (REVOKED), so the next request of theirs anywhere finds the ban."""
        stamp = None if reason is None else func.now()
        async with self._engine.begin() as conn:
            await conn.execute(
                update(players)
                .where(players.c.id == player_id)
                .values(banned_reason=reason, banned_at=stamp)
            )
            await self._revoked(conn, player_id, None)

    async def tokens_of(self, player_id: str) -> list[TokenInfo]:
        query = (
            select(tokens.c.token_hash, tokens.c.created_at, tokens.c.last_used_at)
            .where(tokens.c.player_id == player_id)
            .order_by(tokens.c.created_at, tokens.c.token_hash)
        )
        async with self._engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            TokenInfo(r.token_hash[:TOKEN_ID_LENGTH], r.created_at, r.last_used_at) for r in rows
        ]

    async def revoke_tokens(self, player_id: str, token_id: str | None = None) -> list[str]:
        """Delete the player's tokens whose id begins `token_id`, or all of them (None); the
        ids of those that went. Every process forgets them at once, as at a sign-out."""
        async with self._engine.begin() as conn:
            return await self._revoked(conn, player_id, token_id, delete_them=True)

    @staticmethod
    async def _revoked(
        conn, player_id: str, token_id: str | None, delete_them: bool = False
    ) -> list[str]:
        """Notify REVOKED for the player's tokens (those `token_id` begins, or all),
        deleting them first if asked; their ids."""
        where = tokens.c.player_id == player_id
        if token_id is not None:
            where = where & tokens.c.token_hash.startswith(token_id, autoescape=True)
        if delete_them:
            found = await conn.execute(delete(tokens).where(where).returning(tokens.c.token_hash))
        else:
            found = await conn.execute(select(tokens.c.token_hash).where(where))
        digests = [row.token_hash for row in found]
        for digest in digests:
            await conn.execute(select(func.pg_notify(REVOKED, digest)))
        return [digest[:TOKEN_ID_LENGTH] for digest in digests]

    @staticmethod
    async def _issue(conn, player_id: str) -> str:
        token = secrets.token_urlsafe(32)
        await conn.execute(insert(tokens).values(token_hash=token_hash(token), player_id=player_id))
        return token
