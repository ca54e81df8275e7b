"""One trace from a person's move to the bots' (docs/operations.md "Tracing"): `euchre serve`
with EUCHRE_OTLP_ENDPOINT sends its spans to an OTLP/HTTP receiver run here, from the API
process and from its worker process alike; a person's move at a table of bots is one trace from
the HTTP request through its append and the bot turn sent, into the worker that takes the turn
and appends the bot's move."""

from __future__ import annotations

import gzip
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from serve_kit import choose, follow, json_lines, own_redis, serving

MOVE = "POST /api/tables/{code}/moves"


@dataclass(frozen=True)
class Seen:
    service: str
    pid: int
    span: Span


class Receiver(ThreadingHTTPServer):
    """An OTLP/HTTP receiver of traces (protobuf), keeping every span it is sent."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Receiving)
        self.spans: list[Seen] = []
        self.lock = threading.Lock()
        self.url = f"http://127.0.0.1:{self.server_address[1]}"

    def seen(self) -> list[Seen]:
        with self.lock:
            return list(self.spans)


class Receiving(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path != "/v1/traces":
            self.send_error(404)
            return
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        request = ExportTraceServiceRequest.FromString(body)
        for resource in request.resource_spans:
            named = {a.key: a.value for a in resource.resource.attributes}
            service, pid = named["service.name"].string_value, named["process.pid"].int_value
            with self.server.lock:
                self.server.spans += [
                    Seen(service, pid, span)
                    for scope in resource.scope_spans
                    for span in scope.spans
                ]
        reply = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args) -> None:
        pass


@contextmanager
def receiving() -> Iterator[Receiver]:
    receiver = Receiver()
    thread = threading.Thread(target=receiver.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.shutdown()
        receiver.server_close()
        thread.join(timeout=5)


def whole(trace: list[Seen]) -> dict[str, list[Seen]] | None:
    """The spans of a move's trace that make the whole path, by part; None if any is missing
    yet (spans come in batches, the worker's after the API's)."""
    parts: dict[str, list[Seen]] = {
        "request": [s for s in trace if s.service == "euchre-api" and s.span.name == MOVE],
        "use case": [
            s for s in trace if s.service == "euchre-api" and s.span.name.startswith("execute ")
        ],
        "append": [s for s in trace if s.service == "euchre-api" and s.span.name == "append"],
        "send": [
            s for s in trace if s.service == "euchre-api" and s.span.kind == Span.SPAN_KIND_PRODUCER
        ],
        "take": [
            s
            for s in trace
            if s.service == "euchre-worker" and s.span.kind == Span.SPAN_KIND_CONSUMER
        ],
        "bot's append": [
            s for s in trace if s.service == "euchre-worker" and s.span.name == "append"
        ],
    }
    if not all(parts.values()):
        return None
    # Each bot's append with every span above it, up to the request: the last to come in.
    spans = {s.span.span_id: s.span for s in trace}
    complete = [a for a in parts["bot's append"] if ancestors(a.span, spans) is not None]
    return {**parts, "bot's append": complete} if complete else None


def ancestors(span: Span, spans: dict[bytes, Span]) -> list[Span] | None:
    """`span`'s parent, its parent's... up to its trace's root; None if one is missing."""
    chain = []
    while span.parent_span_id:
        if span.parent_span_id not in spans:
            return None
        span = spans[span.parent_span_id]
        chain.append(span)
    return chain


def named(receiver: Receiver) -> list[tuple[str, str, int]]:
    """What was received, for a failure's message: each service's span names, and how many."""
    counts = Counter((s.service, s.span.name) for s in receiver.seen())
    return sorted((service, name, n) for (service, name), n in counts.items())


def test_a_persons_move_and_the_bots_turn_it_sends_are_one_trace_across_processes(
    database_url: str, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")  # the SDK's batches, every 0.1 s
    with (
        receiving() as receiver,
        serving(
            database_url,
            own_redis(redis_url),
            tmp_path,
            settings={
                "EUCHRE_OTLP_ENDPOINT": receiver.url,
                "EUCHRE_TRACE_SAMPLE": "1",  # every move, not the default one in a hundred
                "EUCHRE_TRACE_STATEMENTS": "on",
                "EUCHRE_LOG_LEVEL": "info",
            },
        ) as base,
        httpx.Client(base_url=base, timeout=30) as http,
    ):
        ada = http.post("/api/players", json={"name": "Ada Traces"}).json()
        http.cookies.clear()
        as_ada = {"Authorization": f"Bearer {ada['token']}"}
        code = http.post("/api/tables", json={"bots": "medium"}, headers=as_ada).json()["code"]
        # A stream stays live with tracing on (the worker's moves reach it) and is not traced.
        streamed: list = []
        done = threading.Event()
        stream = threading.Thread(
            target=follow, args=(base, code, as_ada, streamed, done), daemon=True
        )
        stream.start()
        opened = time.monotonic() + 10
        while not streamed:  # the table's first view: the stream is open before the game starts
            assert time.monotonic() < opened, "the stream never opened"
            time.sleep(0.05)
        started = http.post(f"/api/tables/{code}/start", headers=as_ada)
        assert started.status_code == 200
        here = {started.json()["seq"]}  # the views this API process made itself
        rng = random.Random(3)
        found, trace = None, []
        deadline = time.monotonic() + 60
        while found is None:
            assert time.monotonic() < deadline, f"no move's trace was whole: {named(receiver)}"
            view = http.get(f"/api/tables/{code}", headers=as_ada).json()
            can = {k: v for k, v in view["can"].items() if k != "deal"}
            if can:
                body = {**choose(can, rng), "seq": view["seq"]}
                moved = http.post(f"/api/tables/{code}/moves", json=body, headers=as_ada)
                assert moved.status_code in (200, 409), moved.text
                if moved.status_code == 200:
                    here.add(moved.json()["seq"])
            time.sleep(0.3)
            seen = receiver.seen()
            for request in (s for s in seen if s.span.name == MOVE):
                trace = [s for s in seen if s.span.trace_id == request.span.trace_id]
                found = whole(trace)
                if found is not None:
                    break
        while (streamed or [(0, "")])[-1][0] < http.get(f"/api/tables/{code}").json()["seq"]:
            assert time.monotonic() < deadline + 10, "the stream fell behind the table"
            time.sleep(0.2)
        done.set()

    (request,) = found["request"]
    assert request.span.kind == Span.SPAN_KIND_SERVER and not request.span.parent_span_id
    spans = {s.span.span_id: s.span for s in trace}
    # The use case under the request, the append under the use case.
    assert any(s.span.parent_span_id == request.span.span_id for s in found["use case"])
    use_cases = {s.span.span_id for s in found["use case"]}
    assert any(s.span.parent_span_id in use_cases for s in found["append"])
    # With EUCHRE_TRACE_STATEMENTS=on, the append's SQL statements are spans under it.
    appends = {s.span.span_id for s in found["append"]}
    assert any(
        s.span.kind == Span.SPAN_KIND_CLIENT and s.span.parent_span_id in appends for s in trace
    ), "no statement span under the append"
    # The send in the API, the take in the worker its child, the bot's append under the take.
    sends = {s.span.span_id for s in found["send"]}
    takes = [s for s in found["take"] if s.span.parent_span_id in sends]
    assert takes, "the worker's consumer span is not the child of the API's send"
    assert all(s.span.parent_span_id in use_cases for s in found["send"])
    for append in found["bot's append"]:
        above = ancestors(append.span, spans) or []
        assert above[-1].name == MOVE, "a bot's append is not in the request's tree"
        assert {s.span_id for s in above} & {s.span.span_id for s in takes}
    # Views of the worker's moves, which reach this process only through the database.
    assert {seq for seq, _ in streamed[1:]} - here
    assert not [s for s in receiver.seen() if s.span.name.endswith("/events")]
    processes = {s.service: s.pid for parts in found.values() for s in parts}
    assert len(processes) == len(set(processes.values())) == 2
    # The request's access line leads to its trace.
    trace_id = request.span.trace_id.hex()
    assert any(
        line.get("trace_id") == trace_id and line["path"].endswith("/moves")
        for line in json_lines(tmp_path / "serve.log")
        if line.get("logger") == "euchre.access"
    )


def test_requests_are_sampled_at_the_door_and_an_untraced_one_names_no_trace(
    database_url: str, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With EUCHRE_TRACE_SAMPLE=0.5 some moves are traced, whole, and the rest not at all:
    their access lines name no trace, and nothing of theirs reaches the receiver."""
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
    settings = {
        "EUCHRE_OTLP_ENDPOINT": "",
        "EUCHRE_TRACE_SAMPLE": "0.5",
        "EUCHRE_LOG_LEVEL": "info",
    }
    with receiving() as receiver:
        settings["EUCHRE_OTLP_ENDPOINT"] = receiver.url
        with (
            serving(database_url, own_redis(redis_url), tmp_path, settings=settings) as base,
            httpx.Client(base_url=base, timeout=30) as http,
        ):
            ada = http.post("/api/players", json={"name": "Ada Samples"}).json()
            http.cookies.clear()
            as_ada = {"Authorization": f"Bearer {ada['token']}"}
            code = http.post("/api/tables", json={"bots": "easy"}, headers=as_ada).json()["code"]
            assert http.post(f"/api/tables/{code}/start", headers=as_ada).status_code == 200
            rng = random.Random(5)
            for _ in range(24):  # moves or refusals: both are requests sampled at the door
                view = http.get(f"/api/tables/{code}", headers=as_ada).json()
                can = {k: v for k, v in view["can"].items() if k != "deal"} or {"ready": {}}
                body = {**choose(can, rng), "seq": view["seq"]}
                http.post(f"/api/tables/{code}/moves", json=body, headers=as_ada)
            time.sleep(1.5)  # the last batches of spans
        moves = [
            line
            for line in json_lines(tmp_path / "serve.log")
            if line.get("logger") == "euchre.access" and line["path"].endswith("/moves")
        ]
        traced = {line["trace_id"] for line in moves if "trace_id" in line}
        assert len(moves) == 24 and 0 < len(traced) < 24, f"{len(traced)} of 24 traced"
        received = {s.span.trace_id.hex() for s in receiver.seen() if s.span.name == MOVE}
        assert received == traced
        # Statements are no spans of their own unless EUCHRE_TRACE_STATEMENTS=on.
        assert not [s for s in receiver.seen() if s.span.kind == Span.SPAN_KIND_CLIENT]
