"""The lobby lists waiting tables newest first, and `euchre rebuild` gives back the same rows."""

from __future__ import annotations

import hashlib

from services.cli import main


def test_the_lobby_rebuilt_from_the_log_equals_the_live_one(
    api, database_url, redis_url, monkeypatch, capsys
):
    ada, bo, cy = (api.player(name) for name in ("Ada", "Bo", "Cy"))
    ada.ok("POST", "/api/tables", json={"code": "FIRST", "settings": {"farmers": "on"}})
    bo.ok("POST", "/api/tables", json={"code": "SECOND", "seat": 2, "bots": "hard"})
    cy.ok("POST", "/api/tables", json={"code": "THIRD"})
    ada.ok("POST", "/api/tables/SECOND/seats/1")
    ada.ok("DELETE", "/api/tables/SECOND/seats/1")
    cy.ok("POST", "/api/tables/SECOND/seats/3")
    bo.ok("PUT", "/api/tables/SECOND/seats/0/bot", json={"level": "easy"})
    bo.ok("PATCH", "/api/tables/SECOND/settings", json={"canadian": "on"})
    cy.ok("POST", "/api/tables/THIRD/start")  # started: no longer waiting

    live = api.lobby_until(["SECOND", "FIRST"])
    second = live[0]
    assert second["host_name"] == "Bo" and second["bots"] == "hard"
    assert second["settings"]["canadian"] == "on"
    assert [(s["name"], s["bot"]) for s in second["seats"]] == [
        (None, "easy"),
        (None, None),
        ("Bo", None),
        ("Cy", None),
    ]
    assert second["open_seats"] == 1

    monkeypatch.setenv("EUCHRE_DATABASE_URL", database_url)
    monkeypatch.setenv("EUCHRE_REDIS_URL", redis_url)
    assert main(["rebuild"]) == 0
    assert "lobby, activity, ratings, reviews and the public log rebuilt" in capsys.readouterr().out
    assert api.http.get("/api/tables").json()["tables"] == live


def test_the_lobby_comes_a_page_at_a_time_and_hides_locked_tables(api):
    hosts = [api.player(f"Host{n}") for n in range(5)]
    for n, host in enumerate(hosts):
        host.ok("POST", "/api/tables", json={"code": f"PAGE{n}"})
    hosts[2].ok("POST", "/api/tables/PAGE2/lock")
    api.lobby_until(["PAGE4", "PAGE3", "PAGE1", "PAGE0"])
    first = api.http.get("/api/tables", params={"limit": 3}).json()
    assert [t["code"] for t in first["tables"]] == ["PAGE4", "PAGE3", "PAGE1"]
    second = api.http.get("/api/tables", params={"limit": 3, "before": first["next"]}).json()
    assert [t["code"] for t in second["tables"]] == ["PAGE0"] and second["next"] is None
    hosts[2].ok("POST", "/api/tables/PAGE2/unlock")
    api.lobby_until(["PAGE4", "PAGE3", "PAGE2", "PAGE1", "PAGE0"])
    assert api.http.get("/api/tables", params={"limit": 0}).status_code == 422


def test_a_table_leaves_the_lobby_when_its_host_starts_it_before_the_seeds_are_in(api):
    """Started is started: while the seeds are asked for, nobody new may sit down."""
    ada = api.player("Ada")
    pledge = hashlib.sha256(bytes(32)).hexdigest()
    ada.ok("POST", "/api/tables", json={"code": "SOON", "commitment": pledge})
    api.lobby_until(["SOON"])
    assert ada.ok("POST", "/api/tables/SOON/start")["phase"] == "reveal"
    api.lobby_until([])
