"""The service's signing keys: one file made once, however many processes start at once, read
back the same, rotated without losing the keys signed with before; signatures that verify."""

from __future__ import annotations

import json
import multiprocessing
import re
import stat
from pathlib import Path

import pytest

from infra.settings import Settings
from infra.signing import KeyFileError, Signer, verify

MESSAGE = b'{"head":"00","seq":7,"statement":"head","stream":"ABCD"}'


def test_a_key_file_is_made_once_and_read_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "var" / "signing-keys.json"
    made = Signer.load(path)
    again = Signer.load(path)
    assert path.is_file()
    assert re.fullmatch("[0-9a-f]{64}", made.key)
    assert again.key == made.key and again.keys() == made.keys()
    assert verify(made.key, MESSAGE, again.sign(MESSAGE))
    assert [p.name for p in path.parent.iterdir()] == [path.name], "a temporary file was left"


def _load_at_once(paths: list[Path], barrier, keys) -> None:
    for path in paths:
        barrier.wait()
        keys.put((path.name, Signer.load(path).key))


def test_processes_making_the_file_at_once_all_end_with_one_key(tmp_path: Path) -> None:
    spawn = multiprocessing.get_context("spawn")
    processes, rounds = 4, 20
    paths = [tmp_path / f"keys-{n}.json" for n in range(rounds)]
    barrier, keys = spawn.Barrier(processes), spawn.Queue()
    started = [
        spawn.Process(target=_load_at_once, args=(paths, barrier, keys)) for _ in range(processes)
    ]
    for process in started:
        process.start()
    seen: dict[str, set[str]] = {}
    for _ in range(processes * rounds):
        name, key = keys.get(timeout=60)
        seen.setdefault(name, set()).add(key)
    for process in started:
        process.join(timeout=60)
        assert process.exitcode == 0
    for path in paths:
        assert seen[path.name] == {Signer.load(path).key}, path.name
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)


def test_the_key_file_is_readable_by_its_owner_alone(tmp_path: Path) -> None:
    path = tmp_path / "signing-keys.json"
    Signer.load(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    Signer.rotate(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_rotation_signs_with_a_new_key_and_keeps_the_old_ones_public_half(tmp_path: Path) -> None:
    path = tmp_path / "signing-keys.json"
    old = Signer.load(path)
    signed_before = old.sign(MESSAGE)
    new = Signer.rotate(path)
    assert new.key != old.key
    current, retired = new.keys()
    assert (current.key, current.current, current.until) == (new.key, True, None)
    assert (retired.key, retired.current, retired.since) == (old.key, False, old.keys()[0].since)
    assert retired.until is not None and retired.until >= retired.since
    assert verify(retired.key, MESSAGE, signed_before)
    assert verify(new.key, MESSAGE, new.sign(MESSAGE))
    assert not verify(old.key, MESSAGE, new.sign(MESSAGE))
    assert Signer.load(path).keys() == new.keys()

    newest = Signer.rotate(path)
    listed = newest.keys()
    assert [k.key for k in listed] == [newest.key, new.key, old.key]
    assert listed[2] == retired, "an earlier retirement changed"


def test_a_retired_keys_private_half_leaves_the_file(tmp_path: Path) -> None:
    path = tmp_path / "signing-keys.json"
    Signer.load(path)
    private = json.loads(path.read_text())["current"]["private"]
    Signer.rotate(path)
    assert private not in path.read_text()


def test_verify_accepts_a_signature_and_refuses_anything_changed() -> None:
    signer, other = Signer.ephemeral(), Signer.ephemeral()
    signature = signer.sign(MESSAGE)
    assert re.fullmatch("[0-9a-f]{128}", signature)
    assert verify(signer.key, MESSAGE, signature)
    assert not verify(signer.key, MESSAGE + b" ", signature)
    assert not verify(signer.key, MESSAGE.replace(b"7", b"8"), signature)
    flipped = f"{int(signature[0], 16) ^ 1:x}" + signature[1:]
    assert not verify(signer.key, MESSAGE, flipped)
    assert not verify(other.key, MESSAGE, signature)
    # One spelling only: the same bytes in capitals, or with spaces, are not a signature.
    assert not verify(signer.key.upper(), MESSAGE, signature)
    assert not verify(signer.key, MESSAGE, signature.upper())
    assert not verify(signer.key, MESSAGE, " ".join([signature[:64], signature[64:]]))


@pytest.mark.parametrize(
    ("key", "message", "signature"),
    [
        ("", MESSAGE, ""),
        ("zz" * 32, MESSAGE, "00" * 64),
        ("00" * 31, MESSAGE, "00" * 64),
        ("00" * 32, MESSAGE, "00" * 63),
        (None, MESSAGE, None),
        ("00" * 32, "a str, not bytes", "00" * 64),
        ("00" * 32, None, "00" * 64),
        (b"\x00" * 32, MESSAGE, b"\x00" * 64),
    ],
)
def test_verify_says_false_to_garbage_rather_than_raising(key, message, signature) -> None:
    assert verify(key, message, signature) is False


@pytest.mark.parametrize(
    "contents",
    [
        "",
        "not json",
        "[]",
        '{"retired": []}',
        '{"current": {"private": "XYZ", "since": "2026-01-01T00:00:00+00:00"}}',
        '{"current": {"private": "' + "AB" * 32 + '", "since": "2026-01-01T00:00:00+00:00"}}',
        '{"current": {"private": "' + "ab" * 32 + '", "since": "2026"}, "retired": [{}]}',
        '{"current": {"private": "' + "ab" * 32 + '", "since": "2026", "public": "x"}}',
    ],
)
def test_a_damaged_file_is_an_error_naming_its_path(tmp_path: Path, contents: str) -> None:
    path = tmp_path / "signing-keys.json"
    path.write_text(contents)
    with pytest.raises(KeyFileError, match=re.escape(str(path))):
        Signer.load(path)
    assert path.read_text() == contents, "a damaged file was replaced"


def test_an_unreadable_file_is_an_error_naming_its_path(tmp_path: Path) -> None:
    path = tmp_path / "signing-keys.json"
    path.mkdir()
    with pytest.raises(KeyFileError, match=re.escape(str(path))):
        Signer.load(path)
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "nowhere" / "keys.json")
    with pytest.raises(KeyFileError, match=re.escape(str(dangling))):
        Signer.load(dangling)


def test_an_ephemeral_key_is_fresh_and_written_nowhere(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    one, two = Signer.ephemeral(), Signer.ephemeral()
    assert one.key != two.key
    (listed,) = one.keys()
    assert listed.key == one.key and listed.current and listed.until is None
    assert list(tmp_path.iterdir()) == []


def test_the_key_file_is_in_the_data_directory_unless_named(tmp_path: Path) -> None:
    settings = Settings.from_env({"EUCHRE_DATA_DIR": str(tmp_path)})
    assert settings.signing_keys_path() == tmp_path / "signing-keys.json"
    named = Settings.from_env({"EUCHRE_SIGNING_KEYS": "keys/euchre.json"})
    assert named.signing_keys_path() == Path.cwd() / "keys" / "euchre.json"
