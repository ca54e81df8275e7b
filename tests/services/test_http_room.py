"""The room over HTTP: lock, bans, partners, who may watch, and away and back, against a real
server, PostgreSQL and Redis (the sweeper run here, as a worker would run it)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import httpx
import redis
from http_kit import sse_events

from infra.activity import Activity
from infra.db import create_engine
from infra.eventstore import EventStore
from infra.presence import Presence, namespace
from services.bots import sweeper as sweeping
from services.bots.sweeper import Sweeper
from services.use_cases import Tables


def four(api, code: str = "ROOM"):
    """Ada hosts in seat 0; Bo, Cy and Di sit in 1, 2 and 3."""
    people = [api.player(name) for name in ("Ada", "Bo", "Cy", "Di")]
    people[0].ok("POST", "/api/tables", json={"code": code})
    for n, p in enumerate(people[1:], start=1):
        p.ok("POST", f"/api/tables/{code}/seats/{n}")
    return people


def problem(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    return response.json()["detail"]


def test_a_locked_table_keeps_newcomers_out_until_unlocked(api):
    ada, bo = api.player("Ada"), api.player("Bo")
    ada.ok("POST", "/api/tables", json={"code": "LOCKED"})
    assert problem(bo.request("POST", "/api/tables/LOCKED/lock"), 403) == (
        "only the host may lock the table"
    )
    api.lobby_until(["LOCKED"])
    assert ada.ok("POST", "/api/tables/LOCKED/lock")["locked"] is True
    api.lobby_until([])
    assert "locked" in problem(bo.request("POST", "/api/tables/LOCKED/seats/1"), 403)
    ada.ok("POST", "/api/tables/LOCKED/unlock")
    assert bo.ok("POST", "/api/tables/LOCKED/seats/1")["you"] == 1


def test_a_banned_player_loses_the_seat_and_may_neither_sit_nor_watch(api):
    ada, _, cy, _ = four(api, "BANS")
    after = ada.ok("POST", "/api/tables/BANS/bans", json={"player": cy.id})
    assert after["seats"][2] == {
        "seat": 2,
        "player": None,
        "name": None,
        "bot": "medium",
        "away": False,
        "registered": False,
        "left": False,
        "seed": None,  # a bot's seat gives no seed for the deals
        "commitment": None,
    }
    assert after["banned"] == [{"player": cy.id, "name": "Cy"}]
    assert "banned" in problem(cy.request("GET", "/api/tables/BANS"), 403)
    assert "banned" in problem(cy.request("GET", "/api/tables/BANS/events"), 403)
    assert "banned" in problem(cy.request("POST", "/api/tables/BANS/seats/2"), 403)
    assert [e["type"] for e in api.log("BANS")][-1] == "PlayerBanned"


def test_a_ban_body_is_checked_before_anything_happens(api):
    ada = api.player("Ada")
    ada.ok("POST", "/api/tables", json={"code": "BODY"})
    response = ada.request("POST", "/api/tables/BODY/bans", json={"player": "<b>"})
    assert response.status_code in (400, 422), response.text
    assert ada.ok("GET", "/api/tables/BODY")["banned"] == []


def test_a_banned_watchers_stream_is_told_and_ends(api, base_url):
    ada = api.player("Ada")
    watcher = api.player("Wat")
    ada.ok("POST", "/api/tables", json={"code": "WATCH"})
    with (
        httpx.Client(base_url=base_url, timeout=30) as http,
        http.stream("GET", "/api/tables/WATCH/events", headers=watcher.headers) as stream,
    ):
        events = sse_events(stream)
        assert next(e for e in events if "event" in e)["event"] == "view"
        ada.ok("POST", "/api/tables/WATCH/bans", json={"player": watcher.id})
        told = next(e for e in events if "event" in e)
        assert told["event"] == "banned" and "banned" in told["data"]
        assert list(events) == []  # and the stream is over


def test_choosing_a_partner_reorders_the_seats(api):
    ada, bo, *_ = four(api, "PARTNER")
    after = ada.ok("POST", "/api/tables/PARTNER/partners", json={"seat": 1})
    assert [s["name"] for s in after["seats"]] == ["Ada", "Cy", "Bo", "Di"]
    assert "only the host" in problem(
        bo.request("POST", "/api/tables/PARTNER/partners", json={"seat": 3}), 403
    )


def test_with_spectators_off_only_players_may_watch(api):
    ada, stranger = api.player("Ada"), api.player("Stranger")
    ada.ok("POST", "/api/tables", json={"code": "PRIVATE", "settings": {"spectators": "off"}})
    assert "spectators" in problem(stranger.request("GET", "/api/tables/PRIVATE"), 403)
    assert "spectators" in problem(api.http.get("/api/tables/PRIVATE"), 403)
    assert ada.ok("GET", "/api/tables/PRIVATE")["you"] == 0


@contextlib.asynccontextmanager
async def _sweeper(
    database_url: str, redis_url: str, grace: float = sweeping.GRACE_SECONDS
) -> AsyncIterator[tuple[Sweeper, Tables]]:
    """A sweeper, as the worker holding the sweeper's lock has it, and its worker's tables."""
    engine = create_engine(database_url)
    store = await EventStore.open(database_url, size=2)
    client = redis.asyncio.from_url(redis_url)
    try:
        presence = Presence(client, namespace(database_url))
        tables = Tables(store)
        activity = Activity(engine, store)
        yield Sweeper(activity, tables, lambda *a: None, 0.0, grace, presence), tables
    finally:
        await client.aclose()
        await store.close()
        await engine.dispose()


async def _sweep(database_url: str, redis_url: str) -> None:
    """One sweep by a worker that has seen no table yet."""
    async with _sweeper(database_url, redis_url) as (sweeper, _):
        await sweeper.sweep()


def _sweep_until(database_url: str, redis_url: str, done, seconds: float = 15) -> None:
    """Sweeps, as the worker makes one every 2 s, until `done()`: a sweep reads the activity
    read model, which may lag while a transaction anywhere on the server holds the log back."""
    deadline = time.monotonic() + seconds
    while True:
        asyncio.run(_sweep(database_url, redis_url))
        if done():
            return
        assert time.monotonic() < deadline, "the sweeps never got there"
        time.sleep(0.3)


def _last(api, code: str) -> dict:
    return api.log(code)[-1]


def _forget(database_url: str, redis_url: str, code: str, player: str) -> None:
    """What the grace running out does to a person's presence."""
    client = redis.Redis.from_url(redis_url)
    key = Presence(None, namespace(database_url)).key(code, player)  # type: ignore[arg-type]
    assert client.delete(key) == 1, "the API recorded them as present"
    client.close()


def _turn(view: dict) -> int:
    return view["turn"] if view["turn"] is not None else 0


def test_a_person_gone_is_covered_and_opening_the_table_brings_them_back(
    api, database_url, redis_url
):
    people = four(api, "GONE")
    people[0].ok("POST", "/api/tables/GONE/start")
    state = people[0].ok("GET", "/api/tables/GONE")
    gone = people[_turn(state)]
    _forget(database_url, redis_url, "GONE", gone.id)

    _sweep_until(database_url, redis_url, lambda: _last(api, "GONE")["type"] == "PlayerWentAway")

    # Seen by someone else: the gone person opening the table would bring them back.
    watcher = next(p for p in people if p is not gone)
    seat = watcher.ok("GET", "/api/tables/GONE")["seats"][_turn(state)]
    assert seat["away"] and seat["bot"] == "medium" and not seat["left"]
    back = gone.ok("GET", "/api/tables/GONE")
    assert not back["seats"][back["you"]]["away"]
    assert [e["type"] for e in api.log("GONE")][-2:] == ["PlayerWentAway", "PlayerCameBack"]
    assert api.log("GONE")[-2]["reason"] == "gone"


def test_the_sweeper_looks_for_the_gone_on_tables_as_seen_unless_the_game_has_moved_since(
    api, database_url, redis_url, monkeypatch
):
    """Every table in play is looked at every few seconds, so a worker's own memory of it
    serves, with no read; one from before the last move the activity knows of is read again
    (here it is from before the game began, when nobody was in play to be gone)."""
    people = four(api, "SEEN")

    async def sweeps() -> list[int]:
        # Its tables go quiet only after a minute: no overdue turn is looked for meanwhile.
        async with _sweeper(database_url, redis_url, grace=60) as (sweeper, tables):
            await tables.load("SEEN")
            people[0].ok("POST", "/api/tables/SEEN/start")
            gone = people[_turn(people[0].ok("GET", "/api/tables/SEEN"))]
            _forget(database_url, redis_url, "SEEN", gone.id)
            deadline = time.monotonic() + 15
            while _last(api, "SEEN")["type"] != "PlayerWentAway":
                assert time.monotonic() < deadline, "the gone person was never marked away"
                await sweeper.sweep()
                await asyncio.sleep(0.3)
            reads: list[int] = []
            read = tables.store.read

            async def counted(code: str, after_seq: int = 0):
                reads.append(after_seq)
                return await read(code, after_seq)

            tables.store.read = counted  # type: ignore[method-assign]
            await sweeper.sweep()
            return reads

    assert asyncio.run(sweeps()) == []
    assert api.log("SEEN")[-1]["type"] == "PlayerWentAway"


def test_a_move_brings_a_covered_person_back_and_a_leaver_must_sit_down(
    api, database_url, redis_url
):
    people = four(api, "BACK")
    people[0].ok("POST", "/api/tables/BACK/start")
    view = people[0].ok("GET", "/api/tables/BACK")
    mover = people[_turn(view)]
    _forget(database_url, redis_url, "BACK", mover.id)
    _sweep_until(database_url, redis_url, lambda: _last(api, "BACK")["type"] == "PlayerWentAway")
    seq = mover.ok("GET", "/api/tables/BACK")["seq"]  # back already, by looking
    assert [e["type"] for e in api.log("BACK")][-1] == "PlayerCameBack"

    mover.ok("DELETE", f"/api/tables/BACK/seats/{_turn(view)}")  # "Leave table"
    refusal = mover.move("BACK", {"type": "pass"})
    assert "sit down" in problem(refusal, 409)
    assert seq < mover.ok("POST", f"/api/tables/BACK/seats/{_turn(view)}")["seq"]
    moved = mover.move("BACK", {"type": "pass"})
    assert moved.status_code == 200, moved.text


def test_a_person_past_the_turn_limit_is_covered_and_their_move_brings_them_back(
    api, database_url, redis_url, monkeypatch
):
    people = four(api, "TIMEOUT")
    people[0].ok("POST", "/api/tables/TIMEOUT/start")
    slow = people[_turn(people[0].ok("GET", "/api/tables/TIMEOUT"))]
    monkeypatch.setattr(sweeping, "TURN_LIMIT_SECONDS", {"brisk": 0.2, "relaxed": 0.4})
    monkeypatch.setattr(sweeping, "turn_limit", lambda state: 0.2)
    time.sleep(0.5)

    _sweep_until(database_url, redis_url, lambda: _last(api, "TIMEOUT")["type"] == "PlayerWentAway")

    log = api.log("TIMEOUT")
    assert (log[-1]["type"], log[-1]["reason"]) == ("PlayerWentAway", "timeout")
    moved = slow.move("TIMEOUT", {"type": "pass", "seq": log[-1]["seq"]})
    assert moved.status_code == 200, moved.text
    assert [e["type"] for e in api.log("TIMEOUT")][-2:] == ["PlayerCameBack", "BidPassed"]
    assert not moved.json()["seats"][moved.json()["you"]]["away"]


def test_nobody_is_marked_away_while_present(api, database_url, redis_url):
    people = four(api, "HERE")
    people[0].ok("POST", "/api/tables/HERE/start")
    asyncio.run(_sweep(database_url, redis_url))
    assert not any(s["away"] for s in people[0].ok("GET", "/api/tables/HERE")["seats"])


def test_the_host_sees_who_watches_and_everyone_else_how_many(api, base_url):
    ada, bo, wat = api.player("Ada"), api.player("Bo"), api.player("Wat")
    ada.ok("POST", "/api/tables", json={"code": "SEEN"})
    bo.ok("POST", "/api/tables/SEEN/seats/1")

    def spectators(who=None) -> dict:
        response = (who.request if who else api.http.request)("GET", "/api/tables/SEEN/spectators")
        assert response.status_code == 200, response.text
        return response.json()

    assert spectators(ada) == {"count": 0, "names": []}
    with (
        httpx.Client(base_url=base_url, timeout=30) as http,
        http.stream("GET", "/api/tables/SEEN/events", headers=wat.headers) as one,
        http.stream("GET", "/api/tables/SEEN/events") as anonymous,
        http.stream("GET", "/api/tables/SEEN/events", headers=bo.headers) as seated,
    ):
        # Held, not dropped: a parser let go closes its stream.
        parsers = [sse_events(stream) for stream in (one, anonymous, seated)]
        for events in parsers:
            next(e for e in events if "event" in e)
        assert spectators(ada) == {"count": 2, "names": ["Wat"]}
        assert spectators(bo) == {"count": 2, "names": None}
        assert spectators() == {"count": 2, "names": None}
        one.close()
        # The server finds a stream gone when it next writes to it: a change writes to all.
        ada.ok("PATCH", "/api/tables/SEEN/settings", json={"farmers": "on"})
        deadline = time.monotonic() + 30  # a keep-alive (15 s) writes to it at the latest
        while spectators(ada)["count"] != 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert spectators(ada) == {"count": 1, "names": []}


def test_a_registered_hosts_house_rules_pre_fill_their_next_table(api):
    made = api.http.post("/api/players", json={"name": "Grace", "password": "hopper-1906"})
    assert made.status_code == 201, made.text
    grace = {"Authorization": f"Bearer {made.json()['token']}"}
    guest = api.player("Guest")

    def me(headers) -> dict:
        api.http.cookies.clear()
        return api.http.get("/api/players/me", headers=headers).json()

    assert me(grace)["house_rules"] is None
    api.http.post(
        "/api/tables", json={"code": "FIRST", "settings": {"farmers": "on"}}, headers=grace
    )
    assert me(grace)["house_rules"]["farmers"] == "on"
    api.http.patch(
        "/api/tables/FIRST/settings", json={"canadian": "on", "points": 7}, headers=grace
    )
    kept = me(grace)["house_rules"]
    assert (kept["farmers"], kept["canadian"], kept["stick_dealer"]) == ("on", "on", "on")
    assert kept["points"] == 7
    guest.ok("POST", "/api/tables", json={"code": "GUESTS", "settings": {"farmers": "on"}})
    assert me(guest.headers)["house_rules"] is None  # a guest's aren't kept


async def _play_out(database_url: str, code: str, people: list) -> None:
    """A game at table `code` played to its end in this process, its people the first seats
    (the host first), bots the rest: every decision the rules' fallback."""
    from domain import commands as cmd
    from domain import deciding, fallback

    store = await EventStore.open(database_url, size=2)
    tables = Tables(store)
    try:
        host = people[0]
        opened = cmd.OpenTable(code=code, host=host.id, name=host.name, seed="5a" * 32)
        await tables.execute(code, opened)
        for n, p in enumerate(people[1:], start=1):
            await tables.execute(code, cmd.TakeSeat(player=p.id, name=p.name, seat=n))
        state = await tables.execute(code, cmd.StartGame(player=host.id))
        while state.status == "playing":
            d = deciding(state)[0]
            state = await tables.execute(code, fallback(state, d.seat))
    finally:
        await store.close()


def test_play_again_keeps_each_persons_seat_and_gives_the_rest_to_bots(
    api, database_url, redis_url, monkeypatch
):
    ada, bo, cy = api.player("Ada"), api.player("Bo"), api.player("Cy")
    asyncio.run(_play_out(database_url, "DONE", [ada, bo]))
    assert "only the host" in problem(bo.request("POST", "/api/tables/DONE/again"), 403)

    made = ada.request("POST", "/api/tables/DONE/again")
    assert made.status_code == 201, made.text
    fresh = made.json()
    assert fresh["you"] == 0 and fresh["status"] == "waiting"
    assert fresh["held"] == [None, bo.id, None, None]
    assert [s["bot"] for s in fresh["seats"]] == [None, None, "medium", "medium"]
    invited = bo.ok("GET", "/api/tables/DONE")
    assert invited["again"] == fresh["code"]
    assert "kept" in problem(cy.request("POST", f"/api/tables/{fresh['code']}/seats/1"), 409)
    assert bo.ok("POST", f"/api/tables/{fresh['code']}/seats/1")["you"] == 1
    assert "open already" in problem(ada.request("POST", "/api/tables/DONE/again"), 409)


def test_seats_kept_too_long_go_to_bots(api, database_url, redis_url, monkeypatch):
    ada, bo = api.player("Ada"), api.player("Bo")
    asyncio.run(_play_out(database_url, "LATE", [ada, bo]))
    fresh = ada.ok("POST", "/api/tables/LATE/again")["code"]
    monkeypatch.setattr(sweeping, "HOLD_SECONDS", 0.2)
    time.sleep(0.5)
    _sweep_until(database_url, redis_url, lambda: _last(api, fresh)["type"] == "BotSeated")
    after = ada.ok("GET", f"/api/tables/{fresh}")
    assert after["held"] == [None, None, None, None] and after["seats"][1]["bot"] == "medium"


def test_the_host_who_starts_the_game_is_present_before_any_stream(api, database_url, redis_url):
    """Play again against bots starts the new table before its page has a stream: starting
    must count as being there, or the next sweep finds the host gone at once."""
    ada = api.player("Ada")
    ada.ok("POST", "/api/tables", json={"code": "STARTS"})
    ada.ok("POST", "/api/tables/STARTS/start")
    client = redis.Redis.from_url(redis_url)
    try:
        assert client.exists(Presence(None, namespace(database_url)).key("STARTS", ada.id))  # type: ignore[arg-type]
    finally:
        client.close()
