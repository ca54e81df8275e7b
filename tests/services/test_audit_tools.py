"""The auditor's tools against a real database: `euchre export`, `euchre verify` and
`euchre replay`, `GET /api/tables/{code}/verify`, and the view's head."""

from __future__ import annotations

import asyncio
import hashlib
import json

import msgspec
import psycopg
import pytest
from log_kit import chained
from rated_kit import finished_game, log_game

from domain import events as ev
from infra.db import create_engine
from infra.eventstore import EventStore
from infra.signing import Signer, verify
from infra.transparency import PublicLog
from projections.heads import sign_head
from projections.transparency import Consistency, Inclusion, TreeHead, consistent, included
from services.cli import main

PEOPLE = [("ada", True), ("gus", False), None, None]


@pytest.fixture
def finished(database_url: str) -> str:
    log_game(database_url, "DONE", finished_game("DONE", 8, PEOPLE, "hard", leaver=1))
    return "DONE"


def test_the_verify_route_answers_what_the_cli_says(api, database_url, finished):
    verdict = api.http.get(f"/api/tables/{finished}/verify").json()
    assert verdict["ok"] and verdict["problem"] is None
    assert verdict["summary"].startswith("Verified: table DONE's")
    log = api.log(finished)
    assert verdict["head"] == log[-1]["hash"] == api.http.get("/api/tables/DONE").json()["head"]
    missing = api.http.get("/api/tables/NOPE/verify")
    assert missing.status_code == 404 and "NOPE" in missing.text


def test_a_game_under_way_cant_be_verified_yet(api, database_url):
    log_game(database_url, "LIVE", finished_game("LIVE", 9, PEOPLE)[:60])
    verdict = api.http.get("/api/tables/LIVE/verify").json()
    assert not verdict["ok"] and "isn't over" in verdict["summary"]
    log = api.log("LIVE")
    dealt = next(line for line in log if line["type"] == "HandDealt")
    assert dealt["hands"] is None and dealt["hash"]  # the hash covers what is still blank
    assert api.http.get("/api/tables/LIVE").json()["head"] == log[-1]["hash"]


def test_export_then_verify_and_replay_the_file(
    database_url, redis_url, finished, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("EUCHRE_DATABASE_URL", database_url)
    monkeypatch.setenv("EUCHRE_REDIS_URL", redis_url)
    path = tmp_path / "done.ndjson"
    assert main(["export", finished, "-o", str(path)]) == 0
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["format"] == "euchre-log" and lines[0]["version"] == 2
    assert lines[0]["complete"] and lines[0]["events"] == len(lines) - 1
    assert main(["verify", str(path), "--head", lines[-1]["hash"]]) == 0
    assert "Verified: table DONE's" in capsys.readouterr().out
    assert main(["verify", finished]) == 0  # straight from the database, by its code
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    told = capsys.readouterr().out
    assert "Deal 1:" in told and "Trick 5:" in told and "win the game" in told
    assert told.count("\nDeal ") == sum(line.get("type") == "HandDealt" for line in lines)

    played = next(n for n, line in enumerate(lines) if line.get("type") == "CardPlayed")
    lines[played]["card"] = "AS" if lines[played]["card"] != "AS" else "KS"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["verify", str(path)]) == 1
    said = capsys.readouterr().out
    assert f"event {lines[played]['seq']} was changed" in said
    assert main(["replay", str(path)]) == 1


def test_what_isnt_a_log_is_refused_in_a_sentence(
    database_url, redis_url, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("EUCHRE_DATABASE_URL", database_url)
    monkeypatch.setenv("EUCHRE_REDIS_URL", redis_url)
    junk = tmp_path / "junk.txt"
    junk.write_text("not json\n")
    assert main(["verify", str(junk)]) == 2
    assert "line 1 of" in capsys.readouterr().err
    assert main(["verify", "no such file"]) == 2
    assert "neither a file nor a table's code" in capsys.readouterr().err
    assert main(["export", "NOPE"]) == 2
    assert "there is no table NOPE" in capsys.readouterr().err


def test_verify_all_checks_every_finished_game_and_names_a_bad_one(
    database_url, redis_url, monkeypatch, capsys
):
    monkeypatch.setenv("EUCHRE_DATABASE_URL", database_url)
    monkeypatch.setenv("EUCHRE_REDIS_URL", redis_url)
    said = ev.ChatSaid(player="ada", seat=0, name="Ada", text="good game")
    for n in range(3):
        talk = [said] if n == 2 else []  # talk after the end is still a finished game
        log_game(database_url, f"ALL{n}", finished_game(f"ALL{n}", n, PEOPLE) + talk)
    log_game(database_url, "HALF", finished_game("HALF", 7, PEOPLE)[:30])
    assert main(["verify", "--all"]) == 0
    assert "3 of 3 finished games verified" in capsys.readouterr().out
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE events SET data = jsonb_set(data, '{points}', '3') "
            "WHERE stream = 'ALL1' AND type = 'HandScored'"
        )
    assert main(["verify", "--all"]) == 1
    out = capsys.readouterr().out
    assert "Not verified: table ALL1's event" in out
    assert "2 of 3 finished games verified" in out and "was changed" in out


def test_people_give_seeds_of_their_own_as_they_sit_down(api):
    ada, bo, cy = api.player("Ada"), api.player("Bo"), api.player("Cy")
    mine, his = "ab" * 32, "cd" * 32
    opened = ada.ok("POST", "/api/tables", json={"code": "SEEDS", "seed": mine})
    assert opened["seats"][0]["seed"] == mine
    assert bo.ok("POST", "/api/tables/SEEDS/seats/1", json={"seed": his})["seats"][1]["seed"] == his
    assert cy.ok("POST", "/api/tables/SEEDS/seats/2")["seats"][2]["seed"] is None  # none given
    for bad in ("AB" * 32, "ab" * 31, "xy" * 32, 7):
        refused = cy.request("POST", "/api/tables/SEEDS/seats/3", json={"seed": bad})
        assert refused.status_code == 422, refused.text
        assert refused.json()["field"] == "seed"
    assert cy.request("POST", "/api/tables/SEEDS/seats/3", json={"seat": 1}).status_code == 422
    ada.ok("POST", "/api/tables/SEEDS/start")
    (started,) = [e for e in api.log("SEEDS") if e["type"] == "GameStarted"]
    assert started["contributions"] == [mine, his, None, None]


def test_people_commit_to_seeds_as_they_sit_and_reveal_them_at_the_start(api):
    """docs/audit.md "The seed": only a commitment goes with the seat; the start asks for the
    seeds, and one withheld is left out and logged."""
    ada, bo, cy = api.player("Ada"), api.player("Bo"), api.player("Cy")
    mine, his = "ab" * 32, "cd" * 32
    pledge = {s: hashlib.sha256(bytes.fromhex(s)).hexdigest() for s in (mine, his)}
    opened = ada.ok("POST", "/api/tables", json={"code": "SEALS", "commitment": pledge[mine]})
    assert opened["seats"][0]["commitment"] == pledge[mine] and opened["seats"][0]["seed"] is None
    for body in ({"commitment": "AB" * 32}, {"commitment": pledge[his], "seed": his}):
        refused = bo.request("POST", "/api/tables/SEALS/seats/1", json=body)
        assert refused.status_code == 422 and refused.json()["field"] == "commitment", refused.text
    bo.ok("POST", "/api/tables/SEALS/seats/1", json={"commitment": pledge[his]})
    cy.ok("POST", "/api/tables/SEALS/seats/2")
    assert mine not in str(api.log("SEALS")) and his not in str(api.log("SEALS"))
    asked = ada.ok("POST", "/api/tables/SEALS/start")
    assert (asked["phase"], asked["can"]) == (
        "reveal",
        {"reveal": {"commitment": pledge[mine]}, "withhold": {}},
    )
    wrong = ada.request("POST", "/api/tables/SEALS/moves", json={"type": "reveal", "seed": his})
    assert wrong.status_code == 422 and wrong.json()["field"] == "seed", wrong.text
    assert (
        cy.request("POST", "/api/tables/SEALS/moves", json={"type": "withhold"}).status_code == 409
    )
    ada.ok("POST", "/api/tables/SEALS/moves", json={"type": "reveal", "seed": mine})
    after = bo.ok("POST", "/api/tables/SEALS/moves", json={"type": "withhold"})
    assert after["phase"] in ("bid1", "farmer")
    log = api.log("SEALS")
    assert [e["type"] for e in log if e["type"].startswith("Seed")] == [
        "SeedRevealed",
        "SeedWithheld",
    ]
    (started,) = [e for e in log if e["type"] == "GameStarted"]
    assert started["contributions"] == [mine, None, None, None]


def test_a_private_tables_log_is_its_players_alone(api):
    """House rule `spectators` off: the log, the export and the check answer as the view does."""
    ada, eve = api.player("Ada"), api.player("Eve")
    ada.ok("POST", "/api/tables", json={"code": "QUIET", "settings": {"spectators": "off"}})
    for path in ("log", "export", "verify"):
        assert ada.request("GET", f"/api/tables/QUIET/{path}").status_code == 200, path
        refused = eve.request("GET", f"/api/tables/QUIET/{path}")
        assert refused.status_code == 403, path
        assert "spectators" in refused.json()["detail"]
        assert api.http.get(f"/api/tables/QUIET/{path}").status_code == 403  # nobody signed in
    assert api.http.get("/api/tables/NONE/export").status_code == 404


def test_a_kept_signed_head_against_a_rewritten_log_gives_a_proof_anyone_can_check(
    database_url, redis_url, finished, tmp_path, monkeypatch, capsys
):
    """docs/audit.md "Signed heads": a player kept the signed head of event 40; the service
    later exports a log with a line slipped in before it, its header's head signed too.
    `euchre verify --head` names the fork and prints the proof; `--proof` checks it."""
    keys = tmp_path / "keys.json"
    signer = Signer.load(keys)
    monkeypatch.setenv("EUCHRE_DATABASE_URL", database_url)
    monkeypatch.setenv("EUCHRE_REDIS_URL", redis_url)
    monkeypatch.setenv("EUCHRE_SIGNING_KEYS", str(keys))
    path = tmp_path / "done.ndjson"
    assert main(["export", finished, "-o", str(path)]) == 0
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["signed_head"]["key"] == signer.key
    kept = sign_head(signer.sign, signer.key, finished, 40, lines[40]["hash"])
    kept_file = tmp_path / "kept.json"
    kept_file.write_bytes(msgspec.json.encode(kept))
    assert main(["verify", str(path), "--head", str(kept_file)]) == 0
    capsys.readouterr()

    said = {"type": "ChatSaid", "at": lines[1]["at"], "player": "ada", "seat": 0}
    body = [*lines[1:30], {**said, "name": "Ada", "text": "another story"}, *lines[30:]]
    rewritten = chained(finished, body)
    last = rewritten[-1]
    served = sign_head(signer.sign, signer.key, finished, last["seq"], last["hash"])
    header = {**lines[0], "events": len(rewritten), "head": last["hash"]}
    header["signed_head"] = msgspec.to_builtins(served)
    forged = tmp_path / "forged.ndjson"
    forged.write_text("".join(json.dumps(line) + "\n" for line in [header, *rewritten]))
    assert main(["verify", str(forged), "--head", msgspec.json.encode(kept).decode()]) == 1
    out = capsys.readouterr().out
    said = " ".join(out.split())
    assert "where the head kept says" in said and "signed two heads" in said
    proof_file = tmp_path / "proof.json"
    proof_file.write_text(out.strip().splitlines()[-1])
    assert main(["verify", "--proof", str(proof_file)]) == 0
    assert "Proved" in capsys.readouterr().out
    proof = json.loads(proof_file.read_text())
    proof["lines"][0]["text"] = "edited"
    proof_file.write_text(json.dumps(proof))
    assert main(["verify", "--proof", str(proof_file)]) == 1


def test_a_line_giving_a_key_twice_fails_the_check(
    finished, database_url, tmp_path, monkeypatch, capsys
):
    """A forged card before the real one: one reader would see it, another not."""
    monkeypatch.setenv("EUCHRE_DATABASE_URL", database_url)
    path = tmp_path / "done.ndjson"
    assert main(["export", finished, "-o", str(path)]) == 0
    text = path.read_text().splitlines()
    n = next(i for i, line in enumerate(text) if '"type":"CardPlayed"' in line)
    text[n] = text[n].replace('"card":', '"card":"AS","card":', 1)
    path.write_text("\n".join(text) + "\n")
    assert main(["verify", str(path)]) == 1
    assert 'has the key "card" twice' in capsys.readouterr().out


def follow_public_log(database_url: str) -> None:
    async def go() -> None:
        engine = create_engine(database_url)
        store = await EventStore.open(database_url, size=1)
        try:
            await PublicLog(engine, store).catch_up()
        finally:
            await store.close()
            await engine.dispose()

    asyncio.run(go())


def test_the_public_log_proves_each_games_inclusion_and_its_own_growth(
    api, database_url, finished, tmp_path, monkeypatch, capsys
):
    """docs/audit.md "The public log": the signed tree head, a game's inclusion proof and a
    consistency proof, each checked as an auditor would; `euchre verify --inclusion`."""
    follow_public_log(database_url)
    first = msgspec.convert(api.http.get("/api/transparency/tree").json(), TreeHead)
    assert first.size == 1 and first.signed(verify)
    answer = api.http.get("/api/transparency/games/DONE")
    inclusion = msgspec.convert(answer.json(), Inclusion)
    assert inclusion.tree == first and included(inclusion, verify)
    won = next(e for e in api.log("DONE") if e["type"] == "GameWon")
    assert (inclusion.seq, inclusion.hash) == (won["seq"], won["hash"])

    log_game(database_url, "MORE", finished_game("MORE", 4, PEOPLE))
    assert api.http.get("/api/transparency/games/MORE").status_code == 404  # not followed yet
    follow_public_log(database_url)
    grown = api.http.get("/api/transparency/consistency", params={"first": 1, "second": 2})
    consistency = msgspec.convert(grown.json(), Consistency)
    assert consistency.first == first and consistent(consistency, verify)
    for params in ({"first": 2, "second": 1}, {"first": 0, "second": 3}):
        refused = api.http.get("/api/transparency/consistency", params=params)
        assert refused.status_code == 422 and refused.json()["field"], refused.text

    monkeypatch.setenv("EUCHRE_DATABASE_URL", database_url)
    path, proof = tmp_path / "done.ndjson", tmp_path / "included.json"
    assert main(["export", "DONE", "-o", str(path)]) == 0
    proof.write_text(answer.text)
    assert main(["verify", str(path), "--inclusion", str(proof)]) == 0
    assert "Included: table DONE's final head" in capsys.readouterr().out
    moved = answer.json()
    moved["index"] = 1
    proof.write_text(json.dumps(moved))
    assert main(["verify", str(path), "--inclusion", str(proof)]) == 1
    assert "Not included" in capsys.readouterr().out
