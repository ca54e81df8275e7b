"""The service's signing keys: the Ed25519 key it signs its heads with, and the public halves of
the keys it signed with before, so a player holding a signed head can prove what it was told."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey


class KeyFileError(Exception):
    """The key file can't be read, parsed or written; the message names it."""


class PublicKey(msgspec.Struct, frozen=True, kw_only=True):
    """A key the service has signed with: `until` is null for the current one, and for a
    retired one says when it was rotated out (processes started before then sign with it until
    they restart)."""

    key: Annotated[
        str,
        msgspec.Meta(pattern="^[0-9a-f]{64}$", description="the raw 32 bytes, in lowercase hex"),
    ]
    current: Annotated[bool, msgspec.Meta(description="whether new signatures use it")]
    since: Annotated[str, msgspec.Meta(description="when it became current (ISO 8601, UTC)")]
    until: Annotated[
        str | None, msgspec.Meta(description="when it was retired; null while it is current")
    ]


_Hex32 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class _Current(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    private: _Hex32  # the 32-byte seed the key is derived from (RFC 8032)
    since: str


class _Retired(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    public: _Hex32
    since: str
    until: str


class _KeyFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    current: _Current
    retired: list[_Retired] = []


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _raw(text: object, size: int) -> bytes:
    """`size` bytes from their lowercase hex, and nothing else: a key or signature has exactly
    one spelling, so two texts of one signature can't both pass."""
    if not isinstance(text, str) or not re.fullmatch(f"[0-9a-f]{{{2 * size}}}", text):
        raise ValueError(f"expected {2 * size} lowercase hex digits")
    return bytes.fromhex(text)


def verify(key: str, message: bytes, signature: str) -> bool:
    """Whether `signature` is `key`'s over `message`. What it is given comes from whoever
    claims a signature, so anything malformed is simply not one, never an error."""
    try:
        Ed25519PublicKey.from_public_bytes(_raw(key, 32)).verify(_raw(signature, 64), message)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True


class Signer:
    """Signs with the current key and lists every key signed with.

    The private half of a retired key is dropped at rotation: what it signed still verifies
    against its listed public half, and nothing new can be signed with it, should the file leak
    later."""

    def __init__(self, private: Ed25519PrivateKey, since: str, retired: list[PublicKey]) -> None:
        self._private = private
        self._since = since
        self._retired = retired
        self.key = private.public_key().public_bytes_raw().hex()

    def sign(self, message: bytes) -> str:
        return self._private.sign(message).hex()

    def keys(self) -> list[PublicKey]:
        current = PublicKey(key=self.key, current=True, since=self._since, until=None)
        return [current, *self._retired]

    @classmethod
    def ephemeral(cls) -> Signer:
        """A key in memory only, gone with the process: for tests, and for an app given no
        file, which publishes its key only while it runs."""
        return cls(Ed25519PrivateKey.generate(), _now(), [])

    @classmethod
    def load(cls, path: Path) -> Signer:
        """The signer of the key file at `path`, made with a fresh key if there is none.

        Several processes may start at once on one file: each makes a complete file under a
        name of its own and links it to `path`, which only the first link gets, and every
        process then reads the one that won."""
        contents = _contents(path, missing_ok=True)
        if contents is None:
            _publish(path, _fresh([]), replace=False)
            contents = _contents(path, missing_ok=False)
        return _signer(path, contents)

    @classmethod
    def rotate(cls, path: Path) -> Signer:
        """A fresh current key for the file at `path`, the old one listed as retired by its
        public half. Processes that loaded the old key sign with it until they restart."""
        listed, now = cls.load(path).keys(), _now()
        retired = [_Retired(k.key, k.since, k.until or now) for k in listed]
        _publish(path, _fresh(retired, now), replace=True)
        return _signer(path, _contents(path, missing_ok=False))


def _fresh(retired: list[_Retired], since: str | None = None) -> bytes:
    seed = Ed25519PrivateKey.generate().private_bytes_raw().hex()
    current = _Current(private=seed, since=since or _now())
    return msgspec.json.format(msgspec.json.encode(_KeyFile(current, retired))) + b"\n"


def _contents(path: Path, missing_ok: bool) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        if missing_ok:
            return None
        raise KeyFileError(
            f"can't read the signing key file {path}: it is gone (a broken symbolic link?)"
        ) from None
    except OSError as error:
        raise KeyFileError(
            f"can't read the signing key file {path}: {error.strerror or error}"
        ) from None


def _signer(path: Path, contents: bytes) -> Signer:
    try:
        file = msgspec.json.decode(contents, type=_KeyFile)
    except msgspec.DecodeError as error:
        raise KeyFileError(
            f"the signing key file {path} is damaged ({error}); restore it from a backup, or "
            "move it aside to start a new key (what the old one signed then no longer verifies "
            "against the published keys)"
        ) from None
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(file.current.private))
    retired = [
        PublicKey(key=k.public, current=False, since=k.since, until=k.until) for k in file.retired
    ]
    return Signer(private, file.current.since, retired)


def _publish(path: Path, contents: bytes, replace: bool) -> None:
    """Put `contents` at `path` whole, readable by this user alone, or not at all: written to a
    temporary file beside it, then linked to `path` (left alone if it appeared meanwhile) or,
    to `replace` it, renamed over it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as error:
        raise KeyFileError(
            f"can't make the signing key file {path}: {error.strerror or error}"
        ) from None
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(contents)
            out.flush()
            os.fsync(out.fileno())
        if replace:
            os.replace(temporary, path)
        else:
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)
        _sync_directory(path.parent)
    except OSError as error:
        raise KeyFileError(
            f"can't write the signing key file {path}: {error.strerror or error}"
        ) from None
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)


def _sync_directory(directory: Path) -> None:
    """The new name survives a power cut: a key lost after it signed heads can't be got back."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
