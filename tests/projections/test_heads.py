"""Kept heads held against a log, and the proof that the service signed two heads that fork
(projections/heads.py, docs/audit.md "Signed heads")."""

from __future__ import annotations

import copy

import msgspec
import pytest
from log_kit import chained, recorded
from rated_kit import finished_game

from domain.chain import statement
from infra.signing import Signer, verify
from projections.audit import export
from projections.audit import verify as verify_log
from projections.heads import Proof, SignedHead, equivocation, parse_head, proves

SIGNER = Signer.ephemeral()
PEOPLE = [("ada", True), None, ("bo", False), None]


def signed(code: str, seq: int, hash_: str, signer: Signer = SIGNER) -> SignedHead:
    message = statement("head", {"code": code, "hash": hash_, "seq": seq})
    return SignedHead(code, seq, hash_, signer.key, signer.sign(message))


@pytest.fixture(scope="module")
def honest() -> list[dict]:
    game = finished_game("FORK", 3, PEOPLE)
    lines = export("FORK", recorded("FORK", game))
    return msgspec.json.decode(msgspec.json.encode(lines))[1:]


def forked(honest: list[dict], at: int) -> list[dict]:
    """The same game told with a line of talk slipped in at `at` (a live log's lines, as a
    server showing a second history would serve them)."""
    said = {"type": "ChatSaid", "at": honest[0]["at"], "hash": ""}
    line = {**said, "player": "ada", "seat": 0, "name": "Ada", "text": "the other story"}
    return chained("FORK", [*copy.deepcopy(honest[: at - 1]), line, *honest[at - 1 :]])


def test_two_signed_heads_of_one_seq_with_different_hashes_prove_a_fork(honest):
    other = forked(honest, 30)
    mine, theirs = signed("FORK", 40, honest[39]["hash"]), signed("FORK", 40, other[39]["hash"])
    proof = equivocation("FORK", other, [mine, theirs], verify)
    assert proof is not None and proves(proof, verify)
    again = msgspec.json.decode(msgspec.json.encode(proof), type=Proof)
    assert proves(again, verify), "a proof survives being written down and read back"


def test_a_head_kept_early_and_one_signed_later_on_another_history_prove_a_fork(honest):
    """A player kept the head at event 40; the server now serves a log in which something was
    slipped in at event 30, with its own signed head at the end: the lines between the two
    heads show the later one commits to another hash at 40."""
    other = forked(honest, 30)
    kept = signed("FORK", 40, honest[39]["hash"])
    served = signed("FORK", len(other), other[-1]["hash"])
    assert equivocation("FORK", honest, [kept, served], verify) is None  # not this log's head
    proof = equivocation("FORK", other, [kept, served], verify)
    assert proof is not None and proves(proof, verify)
    assert proof.logged == other[39]["hash"] != kept.hash
    assert len(proof.lines) == len(other) - 40
    # Each part of the proof is needed: tampering with any of it is caught.
    for broken in (
        msgspec.structs.replace(proof, logged=kept.hash),
        msgspec.structs.replace(proof, lines=proof.lines[1:]),
        msgspec.structs.replace(proof, lines=[{**proof.lines[0], "text": "x"}, *proof.lines[1:]]),
        msgspec.structs.replace(proof, heads=[kept, signed("FORK", served.seq, "00" * 32)]),
        msgspec.structs.replace(
            proof, heads=[kept, msgspec.structs.replace(served, signature="00" * 64)]
        ),
    ):
        assert not proves(broken, verify)


def test_heads_of_one_history_prove_nothing_and_a_stranger_key_counts_for_nothing(honest):
    early, late = signed("FORK", 20, honest[19]["hash"]), signed("FORK", 90, honest[89]["hash"])
    assert equivocation("FORK", honest, [early, late], verify) is None
    stranger = Signer.ephemeral()
    other = forked(honest, 10)
    fake = signed("FORK", 20, other[19]["hash"], stranger)
    fake = msgspec.structs.replace(fake, key=SIGNER.key)  # claims the service's key
    assert equivocation("FORK", honest, [fake, late], verify) is None


def test_a_kept_head_is_held_by_the_log_that_goes_on_after_it_and_by_no_other(honest):
    header = {"format": "euchre-log", "version": 2, "code": "FORK", "complete": True}
    full = [{**header, "events": len(honest), "head": honest[-1]["hash"]}, *honest]
    kept = signed("FORK", 50, honest[49]["hash"])
    assert verify_log(full, [kept], verify).ok
    assert verify_log(full, [honest[49]["hash"]], verify).ok
    other = forked(honest, 30)
    lied = [{**header, "events": len(other), "head": other[-1]["hash"]}, *other]
    verdict = verify_log(lied, [kept], verify)
    assert not verdict.ok and "where the head kept says" in verdict.summary
    forged = msgspec.structs.replace(kept, signature="ab" * 64)
    assert "signed by no key" in verify_log(full, [forged], verify).summary


def test_a_head_is_typed_as_a_hash_or_as_a_signed_heads_json():
    head = signed("FORK", 3, "ab" * 32)
    assert parse_head(msgspec.json.encode(head).decode()) == head
    assert parse_head("AB" * 32) == "ab" * 32
    for bad in ("ab" * 31, "zz" * 32, '{"code": "X"}'):
        with pytest.raises((ValueError, msgspec.ValidationError)):
            parse_head(bad)
