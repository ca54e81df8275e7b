"""The operator's commands (services/ops.py) against the real servers: tables listed and
closed through the rules, players banned site-wide, tokens listed and revoked, the database
backed up and restored (and `verify --all` passing on the copy), the queues and the workers
seen; each with its `--json`, and each refusal a sentence with exit code 2."""

from __future__ import annotations

import json
import threading
import time

import httpx
import psycopg
import pytest
import redis
from http_kit import Api, sse_events
from rated_kit import finished_game, log_game

from infra import heartbeat, keyvalue
from infra.broker import BOT_QUEUE, make_broker, send_bot_turns
from infra.db import migrate
from services.cli import main
from services.ops import Refused, _tool

PEOPLE = [("ada", True), ("gus", False), None, None]
PASSWORD = "correct horse battery staple 7"


@pytest.fixture
def env(database_url, redis_url, monkeypatch):
    """`euchre` in this process sees the test's own database and Redis."""
    monkeypatch.setenv("EUCHRE_DATABASE_URL", database_url)
    monkeypatch.setenv("EUCHRE_REDIS_URL", redis_url)
    monkeypatch.delenv("EUCHRE_BROKER_URL", raising=False)


def run_json(capsys, *argv: str) -> dict:
    """What `euchre ARGV --json` answers, having exited 0."""
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def refused(capsys, *argv: str) -> str:
    """The sentence `euchre ARGV` refuses with, having exited 2."""
    capsys.readouterr()
    assert main(list(argv)) == 2
    said = capsys.readouterr().err
    assert said.startswith(f"euchre {argv[0]}: ") and said.count("\n") == 1, said
    return said


def playing_table(api: Api, code: str) -> list:
    """Four people at table `code`, the game started; seat 0 opened it."""
    people = [api.player(name) for name in ("Ada", "Bo", "Cy", "Di")]
    people[0].ok("POST", "/api/tables", json={"code": code})
    for seat, person in enumerate(people[1:], start=1):
        person.ok("POST", f"/api/tables/{code}/seats/{seat}")
    people[0].ok("POST", f"/api/tables/{code}/start")
    return people


def test_tables_are_listed_by_status_with_json_and_as_a_table(env, api, database_url, capsys):
    log_game(database_url, "DONE", finished_game("DONE", 1, PEOPLE))
    log_game(database_url, "HALF", finished_game("HALF", 2, PEOPLE)[:40])
    api.player("Wes").ok("POST", "/api/tables", json={"code": "WAIT"})

    listed = run_json(capsys, "tables", "list")
    rows = {row["code"]: row for row in listed["tables"]}
    assert {code: row["status"] for code, row in rows.items()} == {
        "DONE": "over",
        "HALF": "playing",
        "WAIT": "waiting",
    }
    assert rows["HALF"]["events"] == 40 and rows["HALF"]["closed"] is None
    assert set(rows["DONE"]) == {"code", "status", "closed", "events", "opened_at", "last_event_at"}
    assert listed["tables"][0]["code"] == "WAIT"  # the newest activity first
    only = run_json(capsys, "tables", "list", "--status", "playing")
    assert [row["code"] for row in only["tables"]] == ["HALF"]
    assert len(run_json(capsys, "tables", "list", "--limit", "2")["tables"]) == 2

    assert main(["tables", "list", "--status", "waiting"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["code", "status", "closed", "events", "opened_at", "last_event_at"]
    assert lines[1].split()[:4] == ["WAIT", "waiting", "-", "2"] and len(lines) == 2

    with pytest.raises(SystemExit) as exit_:
        main(["tables", "list", "--status", "finished"])
    assert exit_.value.code == 2
    assert "invalid choice: 'finished'" in capsys.readouterr().err
    assert "--limit must be 1 or more" in refused(capsys, "tables", "list", "--limit", "0")


def test_a_closed_table_refuses_moves_and_every_view_and_stream_says_so(
    env, api, base_url, database_url, capsys
):
    people = playing_table(api, "SHUT")
    seen: list[dict] = []
    streaming = threading.Event()

    def watch() -> None:
        with (
            httpx.Client(base_url=base_url, timeout=30) as http,
            http.stream("GET", "/api/tables/SHUT/events") as response,
        ):
            streaming.set()
            for event in sse_events(response):
                if "data" in event and event.get("event") not in ("presence", "chat"):
                    seen.append(json.loads(event["data"]))
                    if seen[-1]["status"] == "over":
                        return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    assert streaming.wait(10)
    views = [p.ok("GET", "/api/tables/SHUT") for p in people]
    mover = next(n for n, v in enumerate(views) if set(v["can"]) - {"deal"})
    kind = sorted(set(views[mover]["can"]) - {"deal"})[0]

    closed = run_json(capsys, "tables", "close", "SHUT", "--reason", "closed for the night")
    assert closed == {
        "code": "SHUT",
        "status": "over",
        "closed": "closed for the night",
        "seq": views[0]["seq"] + 1,
    }
    watcher.join(10)
    assert seen and seen[-1]["closed"] == "closed for the night"
    view = people[0].ok("GET", "/api/tables/SHUT")
    assert view["status"] == "over" and view["closed"] == "closed for the night"
    assert view["can"] == {} and view["winner"] is None and view["seed"] is None
    answer = people[mover].move("SHUT", {"type": kind})
    assert answer.status_code == 409
    assert "closed by the house: closed for the night" in answer.json()["detail"]
    said = people[1].request("POST", "/api/tables/SHUT/chat", json={"text": "hello?"})
    assert said.status_code == 409
    log = api.log("SHUT")
    assert log[-1]["type"] == "TableClosed" and log[-1]["reason"] == "closed for the night"
    listed = run_json(capsys, "tables", "list", "--status", "over")["tables"]
    assert [(t["code"], t["closed"]) for t in listed] == [("SHUT", "closed for the night")]

    assert "closed by the house" in refused(capsys, "tables", "close", "SHUT", "--reason", "x")
    assert "there is no table NOPE" in refused(capsys, "tables", "close", "NOPE", "--reason", "x")
    log_game(database_url, "DONE", finished_game("DONE", 1, PEOPLE))
    assert "over already" in refused(capsys, "tables", "close", "DONE", "--reason", "x")
    assert "can't be closed: the reason" in refused(
        capsys, "tables", "close", "DONE", "--reason", " "
    )


def test_a_waiting_table_closed_leaves_the_lobby(env, api, capsys):
    api.player("Wes").ok("POST", "/api/tables", json={"code": "LOBBY"})
    api.lobby_until(["LOBBY"])
    run_json(capsys, "tables", "close", "LOBBY", "--reason", "spam")
    api.lobby_until([])


def _registered(api: Api, name: str) -> tuple[str, str]:
    """A registered player's id and token."""
    answer = api.http.post("/api/players", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return answer.json()["id"], answer.json()["token"]


def _me(api: Api, token: str) -> httpx.Response:
    api.http.cookies.clear()
    return api.http.get("/api/players/me", headers={"Authorization": f"Bearer {token}"})


def _until(check, seconds: float = 5.0):
    """`check()` once it is truthy; a revocation reaches the API by a notice, not at once."""
    deadline = time.monotonic() + seconds
    while not (found := check()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def test_a_banned_player_is_refused_everywhere_until_unbanned(env, api, base_url, capsys):
    player_id, token = _registered(api, "Mallory")
    assert _me(api, token).status_code == 200  # remembered by the API process now
    bearer = {"Authorization": f"Bearer {token}"}
    api.http.cookies.clear()
    opened = api.http.post("/api/tables", json={"code": "MINE"}, headers=bearer)
    assert opened.status_code == 201, opened.text
    frames: list[dict] = []
    streaming = threading.Event()

    def watch() -> None:
        with (
            httpx.Client(base_url=base_url, timeout=30) as http,
            http.stream("GET", "/api/tables/MINE/events", headers=bearer) as response,
        ):
            for frame in sse_events(response):
                frames.append(frame)
                if frame.get("event") == "view":  # the table's first: the feed has the stream
                    streaming.set()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    assert streaming.wait(10)

    banned = run_json(capsys, "players", "ban", "mallory", "--reason", "cheating at cards")
    assert banned == {
        "id": player_id,
        "name": "Mallory",
        "registered": True,
        "banned": "cheating at cards",
    }
    refusal = _until(lambda: (r := _me(api, token)).status_code == 403 and r)
    assert refusal, "the ban didn't reach the API process"
    assert refusal.headers["content-type"].startswith("application/problem+json")
    assert "banned from this site: cheating at cards" in refusal.json()["detail"]
    watcher.join(10)
    assert not watcher.is_alive(), "the banned player's stream is still open"
    assert frames[-1] == {"retry": "1000"}  # asked to come back, and refused when it does
    assert api.http.get("/api/tables/MINE/events", headers=bearer).status_code == 403
    assert api.http.post("/api/tables", json={}, headers=bearer).status_code == 403
    sign_in = api.http.post("/api/sessions", json={"name": "Mallory", "password": PASSWORD})
    assert sign_in.status_code == 403 and "cheating at cards" in sign_in.json()["detail"]
    wrong = api.http.post("/api/sessions", json={"name": "Mallory", "password": PASSWORD + "x"})
    assert wrong.status_code == 401  # the reason is told only to whoever has the password

    assert main(["players", "unban", player_id]) == 0  # by id too
    assert capsys.readouterr().out == f"Mallory ({player_id}) is no longer banned\n"
    assert _until(lambda: _me(api, token).status_code == 200)
    again = api.http.post("/api/sessions", json={"name": "Mallory", "password": PASSWORD})
    assert again.status_code == 200

    assert "there is no player 'nobody'" in refused(
        capsys, "players", "ban", "nobody", "--reason", "x"
    )
    api.player("Twin")
    api.player("Twin")
    assert "2 guests go by 'Twin'" in refused(capsys, "players", "ban", "Twin", "--reason", "x")
    assert "--reason must be" in refused(capsys, "players", "ban", "Mallory", "--reason", "a\nb")


def test_tokens_are_listed_without_secrets_and_revoked_one_or_all(env, api, capsys):
    player_id, first = _registered(api, "Trent")
    signed_in = api.http.post("/api/sessions", json={"name": "Trent", "password": PASSWORD})
    second = signed_in.json()["token"]
    assert _me(api, first).status_code == 200

    listed = run_json(capsys, "tokens", "list", "Trent")
    assert listed["player"]["id"] == player_id and len(listed["tokens"]) == 2
    assert all(set(t) == {"id", "created_at", "last_used_at"} for t in listed["tokens"])
    used = [t for t in listed["tokens"] if t["last_used_at"] is not None]
    assert len(used) == 1  # the first, looked up by /me; the second never used yet
    assert main(["tokens", "list", "Trent"]) == 0
    shown = capsys.readouterr().out
    assert all(t["id"] in shown for t in listed["tokens"])
    for secret in (first, second):
        assert secret not in shown and secret not in json.dumps(listed)

    first_id = used[0]["id"]
    revoked = run_json(capsys, "tokens", "revoke", "Trent", first_id)
    assert revoked["revoked"] == [first_id] and revoked["player"]["name"] == "Trent"
    assert _until(lambda: _me(api, first).status_code == 401), "the revoked token still works"
    assert _me(api, second).status_code == 200
    assert "has no token" in refused(capsys, "tokens", "revoke", "Trent", first_id)
    assert "isn't a token id" in refused(capsys, "tokens", "revoke", "Trent", "not-hex")
    assert len(run_json(capsys, "tokens", "revoke", "Trent", "--all")["revoked"]) == 1
    assert _until(lambda: _me(api, second).status_code == 401)
    assert run_json(capsys, "tokens", "list", "Trent")["tokens"] == []
    assert "there is no player" in refused(capsys, "tokens", "list", "nobody")
    with pytest.raises(SystemExit):  # neither an id nor --all
        main(["tokens", "revoke", "Trent"])


def _verified(capsys, url: str, monkeypatch) -> tuple[int, str]:
    monkeypatch.setenv("EUCHRE_DATABASE_URL", url)
    capsys.readouterr()
    code = main(["verify", "--all"])
    return code, capsys.readouterr().out.strip().splitlines()[-1]


def test_backup_restore_then_verify_all_on_the_copy(
    env, database_url, spare_database_url, tmp_path, monkeypatch, capsys
):
    for n in range(3):
        log_game(database_url, f"GAME{n}", finished_game(f"GAME{n}", n, PEOPLE, "hard"))
    log_game(database_url, "HALF", finished_game("HALF", 9, PEOPLE)[:50])
    code, original = _verified(capsys, database_url, monkeypatch)
    assert code == 0 and original.startswith("3 of 3 finished games verified")
    with psycopg.connect(database_url) as conn:
        tables, events = conn.execute(
            "SELECT count(DISTINCT stream), count(*) FROM events"
        ).fetchone()
    assert f"the log holds {tables} tables, {events} events" in original

    backup = tmp_path / "euchre.dump"
    made = run_json(capsys, "backup", str(backup))
    assert made["file"] == str(backup) and made["bytes"] == backup.stat().st_size > 0
    assert (made["tables"], made["events"]) == (tables, events)
    with psycopg.connect(database_url) as conn:
        major = conn.execute("SHOW server_version_num").fetchone()[0][:2]
    assert made["server_version"].startswith(major) and "pg_dump" in made["tool"]
    assert backup.read_bytes().startswith(b"PGDMP")  # pg_dump's custom format

    restored = run_json(capsys, "restore", str(backup), "--database-url", spare_database_url)
    assert (restored["tables"], restored["events"]) == (tables, events)
    code, copy = _verified(capsys, spare_database_url, monkeypatch)
    assert code == 0 and copy == original
    migrate(spare_database_url)  # the copy's schema is the service's own, up to date

    with psycopg.connect(spare_database_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE events SET data = jsonb_set(data, '{card}', '\"AS\"') WHERE ctid = "
            "(SELECT ctid FROM events WHERE stream = 'GAME1' AND type = 'CardPlayed' "
            "AND data->>'card' <> 'AS' LIMIT 1)"
        )
    code, tampered = _verified(capsys, spare_database_url, monkeypatch)
    assert code == 1 and tampered.startswith("2 of 3 finished games verified")

    said = refused(capsys, "restore", str(backup), "--database-url", spare_database_url)
    assert "isn't empty" in said and "--force" in said
    forced = run_json(
        capsys, "restore", str(backup), "--database-url", spare_database_url, "--force"
    )
    assert (forced["tables"], forced["events"]) == (tables, events)
    assert _verified(capsys, spare_database_url, monkeypatch) == (0, original)
    missing = str(tmp_path / "none.dump")
    assert "there is no backup" in refused(
        capsys, "restore", missing, "--database-url", spare_database_url
    )
    assert "no directory" in refused(capsys, "backup", str(tmp_path / "no" / "x.dump"))


def test_status_shows_each_queue_and_the_workers_alive(
    env, database_url, redis_url, namespace, monkeypatch, capsys
):
    broker = make_broker(redis_url, namespace)
    send_bot_turns(broker, [("ABCD", f"1.{n}.0", None) for n in range(3)])
    broker.close()

    async def beat() -> str:
        client = keyvalue.connect(redis_url)
        beating = heartbeat.Heartbeat(client, heartbeat.namespace(database_url))
        await beating.beat()
        await client.aclose()
        return beating.worker

    import asyncio

    worker = asyncio.run(beat())
    try:
        status = run_json(capsys, "status", "--namespace", namespace)
        assert status["broker"] == "redis"
        assert status["workers_alive"] == 1 and status["workers"] == [worker]
        queues = {q["queue"]: q for q in status["queues"]}
        assert set(queues) == {"bots", "ratings", "reviews"}
        assert queues[BOT_QUEUE] == {
            "queue": "bots",
            "ready": 3,
            "delayed": 0,
            "unacked": 0,
            "dead": 0,
            "consumers": None,
        }
        assert queues["ratings"]["ready"] == 0
        assert main(["status", "--namespace", namespace]) == 0
        shown = capsys.readouterr().out
        assert "queues on redis" in shown and "workers alive: 1" in shown and worker in shown
    finally:
        client = redis.Redis.from_url(redis_url)
        client.delete(heartbeat.namespace(database_url))
        client.close()
    assert run_json(capsys, "status", "--namespace", namespace)["workers_alive"] == 0
    monkeypatch.setenv("EUCHRE_REDIS_URL", "redis://127.0.0.1:1/0")
    assert "can't reach" in refused(capsys, "status")


def test_status_on_rabbitmq_counts_messages_and_consumers(env, rabbitmq_url, monkeypatch, capsys):
    monkeypatch.setenv("EUCHRE_BROKER_URL", rabbitmq_url)
    before = run_json(capsys, "status")
    assert before["broker"] == "rabbitmq"
    assert all(q["ready"] is None for q in before["queues"])  # nothing declared them yet
    broker = make_broker(rabbitmq_url)
    send_bot_turns(broker, [("ABCD", f"1.{n}.0", None) for n in range(2)])
    broker.close()
    bots = next(q for q in run_json(capsys, "status")["queues"] if q["queue"] == "bots")
    assert bots["ready"] == 2 and bots["consumers"] == 0 and bots["unacked"] is None


def test_a_dump_by_another_versions_tool_is_refused_naming_those_found():
    """No server of another version is at hand, so the choice of tool is asked directly: for
    a major version nothing here has, the refusal names the versions found."""
    with pytest.raises(Refused, match=r"no pg_dump of PostgreSQL 9, .* found only .*pg_dump \(1"):
        _tool("pg_dump", 9)
