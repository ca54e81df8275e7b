"""The edge as a contract: what /schema promises, bodies refused by name, no 500 from input."""

from __future__ import annotations

import logging
import re
import socket
import time

import httpx
import jsonschema
import psycopg
import pytest
from http_kit import Server
from test_http_refusals import assert_problem

from domain.house_rules import DECLARED
from services.api.app import create_app
from services.bots.runtime import BotRuntime

PROBLEM = "application/problem+json"


@pytest.fixture
def schema(api) -> dict:
    response = api.http.get("/schema/openapi.json")
    assert response.status_code == 200
    return response.json()


def _operations(schema: dict):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                yield path, method, operation


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def test_every_error_is_documented_as_one_problem_shape(schema):
    problem = schema["components"]["schemas"]["ProblemBody"]
    assert {"type", "status", "title", "detail", "field", "allowed", "request_id"} <= set(
        problem["properties"]
    )
    for path, method, operation in _operations(schema):
        errors = {s: r for s, r in operation["responses"].items() if s[0] in "45"}
        assert {"400", "500"} <= set(errors), (method, path)
        for status, response in errors.items():
            if (path, status) == ("/api/health/ready", "503"):
                # A probe's answer, not a request's failure: a plain body, as 200's.
                assert list(response["content"]) == ["application/json"]
                continue
            assert list(response["content"]) == [PROBLEM], (method, path, status)
            ref = response["content"][PROBLEM]["schema"]["$ref"]
            assert ref.endswith("/ProblemBody"), (method, path, status)
    moves = schema["paths"]["/api/tables/{code}/moves"]["post"]["responses"]
    assert {"401", "403", "404", "409", "413", "422", "429", "503"} <= set(moves)


def test_limited_routes_document_429_with_retry_after(schema):
    for path, method in [
        ("/api/players", "post"),
        ("/api/sessions", "post"),
        ("/api/tables", "post"),
        ("/api/tables/{code}/moves", "post"),
    ]:
        limited = schema["paths"][path][method]["responses"]["429"]
        assert "Retry-After" in limited["headers"], path


def test_security_schemes_and_media_types(schema):
    schemes = schema["components"]["securitySchemes"]
    assert schemes["bearer"] == {**schemes["bearer"], "type": "http", "scheme": "bearer"}
    assert schemes["cookie"]["in"] == "cookie" and schemes["cookie"]["name"] == "euchre_token"
    moves = schema["paths"]["/api/tables/{code}/moves"]["post"]
    assert {"bearer": []} in moves["security"] and {"cookie": []} in moves["security"]
    log = schema["paths"]["/api/tables/{code}/log"]["get"]["responses"]["200"]
    assert list(log["content"]) == ["application/x-ndjson"]
    events = schema["paths"]["/api/tables/{code}/events"]["get"]["responses"]["200"]
    assert list(events["content"]) == ["text/event-stream"]


def test_the_moves_body_is_a_tagged_union_with_enums(schema):
    body = schema["paths"]["/api/tables/{code}/moves"]["post"]["requestBody"]
    union = body["content"]["application/json"]["schema"]
    members = {}
    for ref in union["oneOf"]:
        member = _resolve(schema, ref)
        members[member["properties"]["type"]["const"]] = member
    assert set(members) == {
        "farmer",
        "order",
        "call",
        "pass",
        "discard",
        "defend",
        "play",
        "claim",
        "ready",
        "deal",
        "reveal",
        "withhold",
    }
    assert "seed" in members["reveal"]["required"]
    play = members["play"]
    assert (
        "JS" in play["properties"]["card"]["enum"] and len(play["properties"]["card"]["enum"]) == 24
    )
    assert play["properties"]["seq"] and "card" in play["required"]
    assert members["call"]["properties"]["suit"]["enum"] == ["S", "H", "D", "C", "N"]
    level = _resolve(schema, schema["components"]["schemas"]["BotLevel"])["properties"]["level"]
    assert level["enum"] == ["easy", "medium", "hard", "expert"]
    rules = schema["components"]["schemas"]["HouseRules"]["properties"]
    assert {"on", "off"} <= set(rules["alone"]["enum"])
    assert {"brisk", "relaxed"} <= set(rules["bot_pace"]["enum"])
    assert {"on", "off"} <= set(rules["no_trump"]["enum"])
    points = rules["points"]  # a number, not a string like the rest
    assert [v for v in points["enum"] if v is not None] == [5, 7, 10, 11, 15]
    assert "integer" in points["type"]
    # Each rule is named and explained in the schema by its one declaration.
    for rule in DECLARED:
        assert rules[rule.key]["title"] == rule.label, rule.key
        assert rules[rule.key]["description"] == rule.hint, rule.key
    assert points["description"] == "The first side to reach it wins."
    seed_hash = schema["components"]["schemas"]["SignedView"]["properties"]["seed_hash"]
    assert "32 bytes" in seed_hash["description"]


def test_control_characters_and_deep_json_are_refused_not_500(api):
    assert_problem(api.http.post("/api/players", json={"name": "\u0000"}), 422, "name")
    assert_problem(api.http.post("/api/players", json={"name": "A\u0007b"}), 422, "name")
    assert_problem(api.http.get("/api/players/%00"), 400)
    assert_problem(api.http.get("/%00"), 400)
    deep = b"[" * 1000 + b"]" * 1000
    headers = {"content-type": "application/json"}
    assert_problem(api.http.post("/api/players", content=deep, headers=headers), 400)
    nested = b'{"name": "Ada", "password": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    assert_problem(api.http.post("/api/players", content=nested, headers=headers), 400)
    # Measuring the depth must not itself be the stall: an unterminated string of escaped
    # quotes once took 40 s to scan.
    unterminated = b'{"name": "' + b'\\"' * 30_000
    started = time.monotonic()
    assert_problem(api.http.post("/api/players", content=unterminated, headers=headers), 400)
    assert time.monotonic() - started < 5


def test_refusals_name_the_field(api):
    ada = api.player("Ada")
    code = ada.ok("POST", "/api/tables", json={"code": "NAMES"})["code"]
    body = assert_problem(ada.move(code, {"type": "play"}), 422, "card")
    assert "JS" in body["allowed"]
    assert_problem(ada.move(code, {"type": "pass", "colour": "red"}), 422, "colour")
    assert_problem(ada.move(code, {"type": "farmer", "cards": ["9S", "ZZ"]}), 422, "cards[1]")
    assert_problem(ada.request("POST", "/api/tables", json={"colour": "red"}), 422, "colour")
    empty = ada.request("POST", f"/api/tables/{code}/moves", content=b"")
    assert "empty" in assert_problem(empty, 400)["detail"]
    bot = ada.request("PUT", f"/api/tables/{code}/seats/1/bot", json={"level": "x"})
    assert assert_problem(bot, 422, "level")["allowed"] == ["easy", "medium", "hard", "expert"]
    rules = {"settings": {"farmers": "x"}}
    assert_problem(ada.request("POST", "/api/tables", json=rules), 422, "settings.farmers")
    huge = ada.request("POST", "/api/tables", json={"code": "X" * 100_000})
    assert assert_problem(huge, 413)["title"] == "Request body too large"


def test_strings_and_fractions_are_not_whole_numbers_but_1_0_is(api):
    """JSON has one kind of number and JSON Schema counts 1.0 as an integer, so a client
    (or a fuzzer) that writes a seat as 1.0 sits in seat 1; "1", true and 1.5 are refused."""
    ada = api.player("Ada")
    for seat in ("1", 1.5, True):
        refused = ada.request("POST", "/api/tables", json={"code": "SEATS", "seat": seat})
        assert_problem(refused, 422, "seat")
    assert ada.ok("POST", "/api/tables", json={"code": "SEATS", "seat": 1.0})["you"] == 1
    assert_problem(ada.move("SEATS", {"type": "pass", "seq": "2"}), 422, "seq")
    assert_problem(ada.move("SEATS", {"type": "pass", "seq": 1e300}), 422, "seq")


def _valid(schema: dict, name: str, body: object) -> bool:
    """Whether `body` is what the document's component `name` allows."""
    document = {**schema, "$ref": f"#/components/schemas/{name}"}
    return jsonschema.Draft202012Validator(document).is_valid(body)


def test_what_the_schema_allows_the_server_takes_and_what_it_refuses_it_refuses(api, schema):
    """The rules the fuzzer found the schema silent on, each tried both ways: the body the
    document allows is taken, the one it doesn't is refused."""
    ada = api.player("Ada")
    ada.ok("POST", "/api/tables", json={"code": "TALK"})
    seed = "ab" * 32
    tried = [
        ("NewTable", "/api/tables", {"seed": seed, "commitment": seed}),
        ("NewTable", "/api/tables", {"seed": seed, "commitment": None}),
        (
            "NewPlayer",
            "/api/players",
            {"name": "Bel", "password": "violet harbour\x07under tin rain"},
        ),
        ("NewPlayer", "/api/players", {"name": "Cy", "password": "violet harbour under tin rain"}),
        ("MuteBody", "/api/tables/TALK/mutes", {"player": "x\x1b"}),
    ] + [
        ("ChatBody", "/api/tables/TALK/chat", {"text": text})
        for text in ("hi", "  ", "\u3000x", "a\u202eb", "\ufeff")  # 5: chat is limited
    ]
    for name, path, body in tried:
        status = ada.request("POST", path, json=body).status_code
        assert _valid(schema, name, body) == (status not in (400, 422)), (path, body, status)
    for path in ("/api/tables/TALK/again", "/api/tables/TALK/seats/1"):
        operation = schema["paths"][path.replace("TALK", "{code}").replace("/1", "/{seat}")]
        assert operation["post"]["requestBody"]["required"] is False, path
    moves = schema["paths"]["/api/tables/{code}/moves"]["post"]
    key = next(p for p in moves["parameters"] if p["name"] == "Idempotency-Key")
    assert not re.match(key["schema"]["pattern"], "k\x7f") and re.match(
        key["schema"]["pattern"], "k"
    )
    assert not _valid(schema, "PassMove", {"type": "pass", "seq": -1})
    unmute = schema["paths"]["/api/tables/{code}/mutes/{target}"]["delete"]["parameters"]
    target = next(p for p in unmute if p["name"] == "target")
    assert not re.match(target["schema"]["pattern"], "a\x19b")


def test_head_wherever_get_and_allow_matches_the_routes(api):
    ada = api.player("Ada")
    code = ada.ok("POST", "/api/tables", json={"code": "HEADS"})["code"]
    for path in ("/", "/api/health", f"/api/tables/{code}", f"/api/tables/{code}/log"):
        got = api.http.get(path)
        head = api.http.head(path)
        assert head.status_code == got.status_code == 200, path
        assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"]
    stream = api.http.head(f"/api/tables/{code}/events", timeout=5)
    assert stream.status_code == 200 and stream.content == b""

    def allow(response) -> set[str]:
        return {m.strip() for m in response.headers["allow"].split(",")}

    assert {"GET", "HEAD", "POST"} <= allow(api.http.options("/api/tables"))
    seats = api.http.options(f"/api/tables/{code}/seats/1")
    assert {"POST", "DELETE"} <= allow(seats) and "GET" not in allow(seats)
    refused = api.http.put(f"/api/tables/{code}/seats/1")
    assert_problem(refused, 405)
    assert {"POST", "DELETE"} <= allow(refused)
    assert {"GET", "HEAD", "POST"} <= allow(api.http.patch("/api/tables"))


def test_an_unexpected_failure_is_logged_and_names_its_request_id(api, database_url, caplog):
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("DROP TABLE tokens")
    with caplog.at_level(logging.ERROR, logger="euchre.api"):
        response = api.http.post("/api/players", json={"name": "Ada"})
    body = assert_problem(response, 500)
    request_id = body["request_id"]
    assert request_id in body["detail"] and response.headers["x-request-id"] == request_id
    logged = [r for r in caplog.records if request_id in r.getMessage()]
    assert logged and logged[0].exc_info is not None


def test_a_database_that_stops_answering_is_503_not_500(api, database_url, base_database_url):
    ada = api.player("Ada")
    name = psycopg.conninfo.conninfo_to_dict(database_url)["dbname"]
    with psycopg.connect(base_database_url, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        try:
            response = ada.request("GET", "/api/tables/NOPE")
            body = assert_problem(response, 503)
            assert response.headers["retry-after"] and "request_id" not in body
            # Still alive (a restart wouldn't bring the database back), but out of rotation.
            health = api.http.get("/api/health")
            assert health.status_code == 200 and health.json()["status"] == "degraded"
            assert health.json()["database"].startswith("down")
            ready = api.http.get("/api/health/ready")
            assert ready.status_code == 503 and ready.json()["status"] == "unready"
            live = api.http.get("/api/health/live")
            assert live.status_code == 200 and live.json() == {"status": "live"}
        finally:
            admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')


def test_the_view_names_its_cards_suits_levels_and_phases_as_enums(schema):
    view = schema["components"]["schemas"]["SignedView"]["properties"]
    signed = _resolve(schema, next(o for o in view["signed_head"]["oneOf"] if "$ref" in o))
    assert set(signed["required"]) == {"code", "seq", "hash", "key", "signature"}

    def enum(prop: dict) -> list:
        """The enum of a property, through a nullable or array wrapper, less the null."""
        for option in [prop, *prop.get("oneOf", []), prop.get("items", {})]:
            if "enum" in option:
                return [value for value in option["enum"] if value is not None]
        return []

    cards = enum(view["hand"])
    assert len(cards) == 24 and "JS" in cards
    assert enum(view["up"]) == cards and enum(view["buried"]) == cards
    assert enum(view["trump"]) == ["S", "H", "D", "C", "N"]  # "N": no trump
    assert enum(view["bots"]) == ["easy", "medium", "hard", "expert"]
    assert "bid1" in enum(view["phase"]) and "over" in enum(view["status"])
    seat = _resolve(schema, view["seats"]["items"])["properties"]
    assert enum(seat["bot"]) == ["easy", "medium", "hard", "expert"]
    card_at = schema["components"]["schemas"]["CardAt"]["properties"]
    assert enum(card_at["card"]) == cards


def test_health_asks_rabbitmq_when_it_is_the_broker(database_url, redis_url, rabbitmq_url):
    """With bot turns on RabbitMQ, health speaks AMQP to it (and still pings the Redis the
    rate limits use); a broker that doesn't answer degrades the service, named."""
    with Server(create_app(database_url, redis_url, broker_url=rabbitmq_url)) as url:
        answer = httpx.get(f"{url}/api/health")
        assert answer.status_code == 200
        assert answer.json() == {
            "status": "degraded",
            "database": "ok",
            "broker": "ok",
            "redis": "ok",
            "workers": 0,
            "degraded": ["no bot worker alive"],
        }
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))  # bound, never listening: nobody answers there
        gone = f"amqp://guest:guest@127.0.0.1:{unused.getsockname()[1]}/"
        with Server(create_app(database_url, redis_url, broker_url=gone)) as url:
            answer = httpx.get(f"{url}/api/health")
            body = answer.json()
            assert answer.status_code == 200 and body["status"] == "degraded"
            assert body["broker"].startswith("down") and body["redis"] == "ok"
            assert body["degraded"][0].startswith("broker down")
            assert httpx.get(f"{url}/api/health/ready").status_code == 200


def test_a_redis_that_never_answers_leaves_the_process_ready_at_once(database_url):
    """A Redis that takes connections and never answers (a host gone silent) is named as
    missing within a second or so: readiness waits on nothing but the database, so a load
    balancer's check doesn't time out and take every API process out."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)  # connections complete in the kernel, and nobody ever reads them
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        with Server(create_app(database_url, url)) as base:
            started = time.monotonic()
            ready = httpx.get(f"{base}/api/health/ready", timeout=10)
            waited = time.monotonic() - started
    assert ready.status_code == 200, ready.text
    assert ready.json()["missing"] == ["redis down: TimeoutError"]
    assert waited < 3, f"readiness waited {waited:.1f} s on a silent Redis"


def test_health_says_degraded_while_no_bot_worker_is_alive(database_url, redis_url):
    """Every server answering is not a service working: with its worker gone no table
    moves, and health says so (a worker beats in Redis), while the API stays ready."""
    with Server(create_app(database_url, redis_url)) as url:
        alone = httpx.get(f"{url}/api/health")
        assert alone.status_code == 200
        assert alone.json()["status"] == "degraded" and alone.json()["workers"] == 0
        assert "no bot worker alive" in alone.json()["degraded"]
        ready = httpx.get(f"{url}/api/health/ready")
        assert ready.status_code == 200
        assert ready.json() == {
            "status": "ready",
            "database": "ok",
            "missing": ["no bot worker alive"],
        }
        with BotRuntime(database_url, redis_url, presence_url=redis_url, sweep=False):
            working = httpx.get(f"{url}/api/health").json()
            assert working == {"status": "ok", "database": "ok", "broker": "ok", "workers": 1}
            ready = httpx.get(f"{url}/api/health/ready").json()
            assert ready == {"status": "ready", "database": "ok", "missing": []}
        assert httpx.get(f"{url}/api/health").json()["workers"] == 0


def test_an_illegal_move_is_refused_with_the_legal_ones(api):
    ada = api.player("Ada")
    commitment = "a" * 64
    code = ada.ok("POST", "/api/tables", json={"code": "LEGAL", "commitment": commitment})["code"]
    ada.ok("POST", f"/api/tables/{code}/start")
    # Not the seed committed to: against the rules.
    body = assert_problem(ada.move(code, {"type": "reveal", "seed": "b" * 64}), 422, "seed")
    assert body["legal"] == {"reveal": {"commitment": commitment}, "withhold": {}}


def test_the_schema_describes_what_clients_got_stuck_on(schema):
    schemas = schema["components"]["schemas"]
    events = schema["paths"]["/api/tables/{code}/events"]["get"]["responses"]["200"]
    frames = events["content"]["text/event-stream"]["schema"]["oneOf"]
    names = {_resolve(schema, f)["properties"]["event"]["enum"][0] for f in frames}
    assert names == {"view", "chat", "reaction", "banned", "presence"}
    assert _resolve(schema, schemas["SignedView"]["properties"]["can"])["title"] == "Can"
    assert set(schemas["Can"]["properties"]) >= {"play", "pass", "reveal", "deal"}
    signup = schema["paths"]["/api/players"]["post"]["responses"]
    assert "taken" in signup["409"]["description"]
    for path, _method, operation in _operations(schema):
        for parameter in operation.get("parameters", []):
            if parameter["name"] == "code":
                assert parameter["schema"]["pattern"] == "^[A-Za-z0-9-]{4,32}$", path
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body:
            for ref in _resolve(schema, body["schema"]).get("oneOf", [body["schema"]]):
                member = _resolve(schema, ref)
                if "$ref" in ref:
                    assert member.get("additionalProperties") is False, (path, ref)
    assert {"bearer": []} in schema["paths"]["/api/sessions/logout"]["post"]["security"]
    assert {} in schema["paths"]["/api/sessions/logout"]["post"]["security"]
    links = schema["paths"]["/api/tables"]["post"]["responses"]["201"]["links"]
    assert links["ApiTablesCodeMovesMove"]["parameters"] == {"code": "$response.body#/code"}
    assert "legal" in schemas["ProblemBody"]["properties"]
