"""The service's public keys as a verifier meets them: served at a well-known address with the
current one first, signatures from the app's signer verifying under them; and `euchre keys`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
from http_kit import Server

from infra.signing import Signer, verify
from services.api.app import create_app

KEYS = "/.well-known/euchre-keys"
MESSAGE = b'{"head":"00","seq":7,"statement":"head","stream":"ABCD"}'
ROOT = Path(__file__).resolve().parents[2]


def test_the_well_known_keys_list_the_signers_key_and_its_signatures_verify(
    database_url: str, redis_url: str
) -> None:
    app = create_app(database_url, redis_url)
    with Server(app) as url:
        response = httpx.get(url + KEYS)
        signer = app.state.services.signer
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    cache = {part.strip() for part in response.headers["cache-control"].split(",")}
    assert cache == {"public", "max-age=300"}
    (listed,) = response.json()["keys"]
    assert listed == {
        "key": signer.key,
        "current": True,
        "since": signer.keys()[0].since,
        "until": None,
    }
    assert verify(listed["key"], MESSAGE, signer.sign(MESSAGE))


def test_retired_keys_are_listed_after_the_current_one(
    database_url: str, redis_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "signing-keys.json"
    old = Signer.load(path)
    signed_before = old.sign(MESSAGE)
    signer = Signer.rotate(path)
    with Server(create_app(database_url, redis_url, signer=signer)) as url:
        keys = httpx.get(url + KEYS).json()["keys"]
        described = httpx.get(url + "/schema/openapi.json").json()
    assert [(k["key"], k["current"]) for k in keys] == [(signer.key, True), (old.key, False)]
    assert keys[1]["until"] is not None
    assert verify(keys[1]["key"], MESSAGE, signed_before)
    assert not verify(keys[0]["key"], MESSAGE, signed_before)
    answer = described["paths"][KEYS]["get"]["responses"]["200"]["content"]["application/json"]
    assert answer["schema"]["$ref"].endswith("/Keys")
    assert {"key", "current", "since", "until"} <= set(
        described["components"]["schemas"]["PublicKey"]["properties"]
    )


def _euchre(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("EUCHRE_")}
    return subprocess.run(
        [sys.executable, "-m", "services.cli", *args],
        env={**clean, **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_euchre_keys_shows_the_file_and_its_key_made_once(tmp_path: Path) -> None:
    first = _euchre("keys", EUCHRE_DATA_DIR=str(tmp_path))
    assert first.returncode == 0, first.stderr
    path = tmp_path / "signing-keys.json"
    key = Signer.load(path).key
    assert str(path) in first.stdout and key in first.stdout
    again = _euchre("keys", EUCHRE_DATA_DIR=str(tmp_path))
    assert again.stdout == first.stdout


def test_euchre_keys_rotate_lists_the_old_key_retired_and_says_to_restart(tmp_path: Path) -> None:
    path = tmp_path / "elsewhere" / "keys.json"
    old = Signer.load(path).key
    rotated = _euchre("keys", "--rotate", EUCHRE_SIGNING_KEYS=str(path))
    assert rotated.returncode == 0, rotated.stderr
    new = Signer.load(path).key
    assert new != old
    lines = rotated.stdout.splitlines()
    current = next(n for n, line in enumerate(lines) if new in line)
    retired = next(n for n, line in enumerate(lines) if old in line)
    assert current < retired and "current" in lines[current] and "retired" in lines[retired]
    assert "Restart every API process" in rotated.stdout


def test_a_damaged_key_file_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "signing-keys.json"
    path.write_text("{")
    for args in (["keys"], ["serve", "--port", "1"]):
        done = _euchre(*args, EUCHRE_DATA_DIR=str(tmp_path))
        assert done.returncode == 2, done
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0], done.stderr
        assert not (tmp_path / "postgres").exists()
