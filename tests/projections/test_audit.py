"""The auditor's check (projections/audit.py): an honest export verifies, and each kind of
tampering is caught and named: an edited event, one deleted, two reordered, a deal swapped, the
revealed seed changed; and, where a forger rebuilt the chain, the rules or the kept head."""

from __future__ import annotations

import contextlib
import copy
import json
import random
from pathlib import Path

import msgspec
import pytest
from log_kit import chained, recorded
from rated_kit import SEED, committed_game, finished_game

from domain import apply, can, deciding, fold, legal, opening, view
from domain import commands as cmd
from domain import events as ev
from domain.bots import choose
from domain.errors import IllegalMove
from domain.events import EVENT_TYPES
from domain.sealing import SECRET_FIELDS, seal
from domain.state import State
from projections.audit import LINE_FIELDS, export, verify
from projections.narrative import narrate

PEOPLE = [("ada", True), ("gus", False), None, None]


@pytest.fixture(scope="module")
def lines() -> list[dict]:
    """A whole game's export, as an auditor's file would decode."""
    game = finished_game("AUDIT", 11, PEOPLE, "medium", leaver=0)
    return msgspec.json.decode(msgspec.json.encode(export("AUDIT", recorded("AUDIT", game))))


def rechained(lines: list[dict]) -> list[dict]:
    """What a forger who edited the log would do next: make every hash fit again."""
    body = chained(lines[0]["code"], lines[1:])
    header = {**lines[0], "head": body[-1]["hash"], "events": len(body)}
    return [header, *body]


def where(lines: list[dict], kind: str, nth: int = 0) -> int:
    """The index in `lines` of the nth event of `kind`."""
    return [i for i, line in enumerate(lines) if line.get("type") == kind][nth]


def test_an_honest_export_verifies(lines):
    verdict = verify(lines)
    assert verdict.ok, verdict.summary
    assert verdict.head == lines[-1]["hash"] == lines[0]["head"]
    assert verdict.summary.startswith("Verified: table AUDIT's")
    assert "hands scored" in verdict.summary
    assert verify(lines, [lines[-1]["hash"]]).ok


def test_every_line_has_the_public_logs_fields_and_its_hash(lines):
    assert lines[0] == {
        "format": "euchre-log",
        "version": 2,
        "code": "AUDIT",
        "complete": True,
        "events": len(lines) - 1,
        "head": lines[-1]["hash"],
    }
    assert all(set(LINE_FIELDS) <= set(line) for line in lines[1:])


def test_an_edited_event_is_named(lines):
    edited = copy.deepcopy(lines)
    n = where(edited, "CardPlayed", 3)
    edited[n]["card"] = "AS" if edited[n]["card"] != "AS" else "KS"
    verdict = verify(edited)
    assert not verdict.ok and verdict.problem.seq == edited[n]["seq"]
    assert "was changed" in verdict.problem.what


def test_a_deleted_event_is_named(lines):
    n = where(lines, "BidPassed", 1)
    cut = lines[:n] + lines[n + 1 :]
    cut[0] = {**cut[0], "events": len(cut) - 1}
    verdict = verify(cut)
    assert not verdict.ok and verdict.problem.seq == lines[n + 1]["seq"]
    assert "missing, added or moved" in verdict.problem.what


def test_two_events_reordered_are_named(lines):
    n = where(lines, "CardPlayed", 5)
    swapped = list(lines)
    swapped[n], swapped[n + 1] = swapped[n + 1], swapped[n]
    verdict = verify(swapped)
    assert not verdict.ok and verdict.problem.seq == lines[n + 1]["seq"]


def test_a_swapped_deal_is_caught_by_its_seal_and_with_a_new_seal_by_the_seed(lines):
    """The chain covers the deal's seal, not its cards: cards changed are caught by the seal;
    a seal made anew for them (the seed is public once the game is over) by the chain; and
    with the chain rebuilt too, by the seed's shuffle."""
    forged = copy.deepcopy(lines)
    n = where(forged, "HandDealt", 1)
    hands = forged[n]["hands"]
    hands[0], hands[1] = hands[1], hands[0]
    verdict = verify(forged)
    assert not verdict.ok and verdict.problem.seq == forged[n]["seq"]
    assert "don't match the seal" in verdict.problem.what
    secret = {"hands": hands, "kitty": forged[n]["kitty"]}
    forged[n]["seal"] = seal(forged[1]["seed"], forged[n]["seq"], secret)
    verdict = verify(forged)
    assert not verdict.ok and "was changed" in verdict.problem.what
    verdict = verify(rechained(forged))
    assert not verdict.ok and verdict.problem.seq == forged[n]["seq"]
    assert verdict.problem.what.startswith("should be HandDealt(")


def test_a_secret_stripped_of_its_seal_or_a_card_buried_otherwise_is_caught(lines):
    n = where(lines, "CardBuried")
    stripped = copy.deepcopy(lines)
    del stripped[n]["seal"]
    verdict = verify(stripped)
    assert not verdict.ok and "was changed" in verdict.problem.what
    verdict = verify(rechained(stripped))
    assert not verdict.ok and verdict.problem.seq == stripped[n]["seq"]
    other = copy.deepcopy(lines)
    other[n]["card"] = "9S" if other[n]["card"] != "9S" else "9H"
    verdict = verify(other)
    assert not verdict.ok and "don't match the seal" in verdict.problem.what


def test_a_changed_seed_is_caught(lines):
    forged = copy.deepcopy(lines)
    forged[1]["seed"] = "00" * 32
    verdict = verify(rechained(forged))
    assert not verdict.ok and verdict.problem.seq == 1
    assert "doesn't hash to the seed_hash" in verdict.problem.what


def test_a_forged_score_is_caught_by_the_rules(lines):
    forged = copy.deepcopy(lines)
    n = where(forged, "HandScored")
    forged[n]["points"] += 1
    verdict = verify(rechained(forged))
    assert not verdict.ok and verdict.problem.seq == forged[n]["seq"]
    assert verdict.problem.what.startswith("should be HandScored(")


def test_an_illegal_card_is_caught_by_the_rules(lines):
    """The first card of the game swapped for one the player doesn't hold."""
    forged = copy.deepcopy(lines)
    n = where(forged, "CardPlayed")
    dealt = forged[where(forged, "HandDealt")]
    held = {c for hand in dealt["hands"] for c in hand}
    forged[n]["card"] = next(c for c in dealt["kitty"] if c not in held)
    verdict = verify(rechained(forged))
    assert not verdict.ok and verdict.problem.seq == forged[n]["seq"]
    assert "not a legal move" in verdict.problem.what


def test_a_rebuilt_chain_doesnt_hold_the_kept_head_but_talk_after_the_end_does(lines):
    """A chat line slipped in, seals and chain rebuilt (the seed is public at the end): the
    rules can't object to talk, but the head a player kept from the game isn't in the log. A
    chat line after the end, chain untouched before it, keeps the head where it was."""
    said = {"type": "ChatSaid", "at": lines[2]["at"], "hash": ""}
    line = {**said, "player": "ada", "seat": 0, "name": "Ada", "text": "I never!"}
    kept = lines[-1]["hash"]
    forged = copy.deepcopy(lines)
    forged.insert(3, line)
    rebuilt = rechained(resealed(forged))
    assert verify(rebuilt).ok
    verdict = verify(rebuilt, [kept])
    assert not verdict.ok and "kept from the game" in verdict.summary
    after = rechained([*copy.deepcopy(lines), line])
    assert after[-2]["hash"] == kept and verify(after, [kept]).ok


def test_a_game_still_running_or_a_strange_file_is_refused(lines):
    running = finished_game("LIVE", 3, PEOPLE)[:50]
    live = msgspec.json.decode(msgspec.json.encode(export("LIVE", recorded("LIVE", running))))
    verdict = verify(live)
    assert not verdict.ok and "isn't over" in verdict.summary
    assert not verify([]).ok
    assert not verify([{"format": "euchre-log", "version": 2}]).ok
    assert not verify([{**lines[0], "version": 3}, *lines[1:]]).ok
    assert "its header says 1" in verify([{**lines[0], "version": 1}, *lines[1:]]).summary
    cut = [{**lines[0], "events": len(lines) - 41}, *lines[1:-40]]
    assert "isn't over" in verify(rechained(cut)).problem.what


def test_no_event_has_a_field_an_exported_line_keeps_for_itself():
    """docs/audit.md: an event's data is its line without seq, type, at and hash."""
    for kind in EVENT_TYPES.values():
        assert not set(kind.__struct_fields__) & set(LINE_FIELDS), kind.__name__


def test_a_players_seed_left_out_of_the_start_is_caught(lines):
    """The server can't drop a player's seed to deal from its own alone."""
    forged = copy.deepcopy(lines)
    n = where(forged, "GameStarted")
    assert forged[n]["contributions"][0] is not None  # Ada gave one
    forged[n]["contributions"][0] = None
    verdict = verify(rechained(forged))
    assert not verdict.ok and verdict.problem.seq == forged[n]["seq"]
    assert "names the seats' seeds" in verdict.problem.what


@pytest.mark.parametrize("name", ["all_on", "people"])
def test_a_version_1_log_verifies_as_it_was_written_and_an_edit_is_still_caught(name):
    """tests/projections/v1: games the server logged before seals; their chains cover the
    cards themselves, and a version 1 "deal now" is the deal alone."""
    text = (Path(__file__).parent / "v1" / f"{name}.ndjson").read_text()
    old = [json.loads(line) for line in text.splitlines()]
    verdict = verify(old)
    assert verdict.ok and old[0]["version"] == 1, verdict.summary
    assert "seal" not in verdict.summary
    edited = copy.deepcopy(old)
    n = where(edited, "CardBuried")
    edited[n]["card"] = "9S" if edited[n]["card"] != "9S" else "9H"
    verdict = verify(edited)
    assert not verdict.ok and "was changed" in verdict.problem.what
    sealed = copy.deepcopy(old)
    sealed[n]["seal"] = "00" * 32
    assert "a version 1 log has nowhere" in verify(rechained(sealed)).problem.what


def resealed(lines: list[dict]) -> list[dict]:
    """What a forger who moved events would do before rebuilding the chain: seal each secret
    again at its new seq (the seed is public once the game is over)."""
    out = copy.deepcopy(lines)
    for n, line in enumerate(out[1:], start=1):
        if "seal" in line:
            secret = {k: line[k] for k in SECRET_FIELDS[line["type"]]}
            line["seal"] = seal(out[1]["seed"], n, secret)
    return out


def committed_export() -> list[dict]:
    events = committed_game("SEALED", 5, {"ada": "a1" * 32, "bo": "b0" * 32}, reveal={"ada"})
    lines = export("SEALED", recorded("SEALED", events))
    return msgspec.json.decode(msgspec.json.encode(lines))


def test_seeds_revealed_and_withheld_at_the_start_verify_and_a_forged_start_is_caught():
    lines = committed_export()
    verdict = verify(lines)
    assert verdict.ok, verdict.summary
    assert [line["type"] for line in lines[1:10]] == [
        "TableOpened",
        "SeatTaken",
        "SeatTaken",
        "BotSeated",
        "BotSeated",
        "StartCalled",
        "SeedRevealed",
        "SeedWithheld",
        "GameStarted",
    ]
    started = lines[where(lines, "GameStarted")]
    assert started["contributions"] == ["a1" * 32, None, None, None]
    # A seed revealed that isn't the one committed to.
    forged = copy.deepcopy(lines)
    n = where(forged, "SeedRevealed")
    forged[n]["seed"] = "a2" * 32
    verdict = verify(rechained(forged))
    assert not verdict.ok and verdict.problem.seq == forged[n]["seq"]
    # The seats asked for their seeds changed.
    forged = copy.deepcopy(lines)
    forged[where(forged, "StartCalled")]["asked"] = [0]
    verdict = verify(rechained(forged))
    assert not verdict.ok and "should be StartCalled(asked=[0, 1])" in verdict.problem.what
    # Started without asking: the reveals and the withholding cut out.
    cut = [
        line
        for line in lines
        if line.get("type") not in ("StartCalled", "SeedRevealed", "SeedWithheld")
    ]
    cut[0] = {**cut[0], "events": len(cut) - 1}
    verdict = verify(rechained(resealed(cut)))
    assert not verdict.ok and "should be StartCalled" in verdict.problem.what


def stalled_export(seat: int | None = None) -> list[dict]:
    """Ada's game, ended as stalled while it was her turn; or, with `seat`, a forger's claim
    that another seat stalled it then."""
    state, events = apply(State(), cmd.OpenTable(code="STALL", host="ada", name="Ada", seed=SEED))
    state, more = apply(state, cmd.StartGame(player="ada"))
    events += more
    while all(d.seat != 0 for d in deciding(state)):
        state, more = apply(state, legal(state, deciding(state)[0].seat)[0])
        events += more
    state, more = apply(state, cmd.EndStalled(seat=0))
    events += more
    if seat is not None:
        events[-2] = ev.GameAbandoned(seat=seat, player="bot")
        events[-1] = ev.GameWon(team=1 - seat % 2, score=list(state.score))
    return msgspec.json.decode(msgspec.json.encode(export("STALL", recorded("STALL", events))))


def test_a_game_ended_as_stalled_verifies_and_a_forged_staller_is_caught():
    verdict = verify(stalled_export())
    assert verdict.ok, verdict.summary
    assert "seat 0 having stalled it" in verdict.summary
    forged = stalled_export(seat=1)  # a bot's seat, never a person's stall
    verdict = verify(forged)
    assert not verdict.ok and verdict.problem.seq == where(forged, "GameAbandoned")


def test_a_game_with_claims_verifies_and_a_claim_the_rules_refuse_is_caught():
    """Hard bots play, and each seat claims the rest on its lead whenever the rules take it;
    the auditor judges each claim again (a claim is no move `legal` lists), so one made where
    it wasn't certain is named."""
    state = fold(opening(SEED))
    game = opening(SEED)
    while state.status == "playing":
        seat = deciding(state)[0].seat
        move = choose(view(state, seat), "hard", random.Random(state.seq))
        if "claim" in can(state, seat):
            with contextlib.suppress(IllegalMove):
                apply(state, cmd.Claim(seat=seat))
                move = cmd.Claim(seat=seat)
        state, events = apply(state, move)
        game.extend(events)
    lines = msgspec.json.decode(msgspec.json.encode(export("CLAIM", recorded("CLAIM", game))))
    assert where(lines, "TricksClaimed") and verify(lines).ok
    assert any(" and claims the last " in line for line in narrate(game))
    # A card led instead made a claim: the same cards shown, before anything was certain.
    forged = copy.deepcopy(lines)
    n = where(forged, "CardPlayed")
    played = forged[n]
    hands = forged[where(forged, "HandDealt")]["hands"]
    forged[n] = {**played, "type": "TricksClaimed", "cards": hands[played["seat"]], "tricks": 5}
    del forged[n]["card"]
    verdict = verify(rechained(forged))
    assert not verdict.ok and verdict.problem.seq == played["seq"]
    assert "TricksClaimed" in verdict.problem.what and "not a legal move" in verdict.problem.what
