"""The metrics: what moves, streams and the log's appends count, read from a real server's
`/metrics`; who may read them; the queues as the broker holds them; and the values of several
processes summed from their shared directory."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from http_kit import Api, Server, sse_events
from prometheus_client.parser import text_string_to_metric_families

from infra import metrics, queues
from infra.broker import BOT_QUEUE, make_broker, send_bot_turns
from infra.metrics_dir import SHARED, process_gone, shared_directory
from services.api.app import create_app

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def samples(text: str) -> dict[tuple[str, tuple], float]:
    """Each sample of an exposition by name and sorted labels."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(found: dict, name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def scrape(http: httpx.Client) -> dict:
    response = http.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4; charset=utf-8")
    return samples(response.text)


@pytest.fixture
def served(database_url: str, redis_url: str) -> Iterator[str]:
    with Server(create_app(database_url, redis_url, stream_poll=1.0, rate_limits=None)) as url:
        yield url


def test_moves_streams_and_appends_are_counted(served: str):
    with httpx.Client(base_url=served, timeout=30) as http:
        api = Api(http)
        before = scrape(http)

        def grew(name: str, **labels: str) -> float:
            return value(after, name, **labels) - value(before, name, **labels)

        ada, bo = api.player("Ada"), api.player("Bo")
        code = ada.ok("POST", "/api/tables", json={})["code"]
        seen: list[dict] = []
        views = threading.Event()

        def watch() -> None:
            with (
                httpx.Client(base_url=served, timeout=30) as own,
                own.stream("GET", f"/api/tables/{code}/events") as response,
            ):
                for event in sse_events(response):
                    if event.get("event") == "view":
                        seen.append(event)
                        if len(seen) == 2:
                            views.set()
                            return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        deadline = time.monotonic() + 10
        while not seen:
            assert time.monotonic() < deadline, "the stream sent no view"
            time.sleep(0.02)
        assert scrape(http)[("euchre_sse_streams_open", ())] >= 1
        assert bo.request("POST", f"/api/tables/{code}/seats/1").status_code == 200
        assert views.wait(10), "the move's view never came"
        # A move out of turn: the game hasn't started.
        assert bo.move(code, {"type": "pass"}).status_code == 409
        watcher.join(10)
        # A view's latency is written within a second of its send (infra/metrics.py Gathered).
        deadline = time.monotonic() + 5
        while True:
            after = scrape(http)
            if grew("euchre_move_view_latency_seconds_count", via="commit") >= 1:
                break
            assert time.monotonic() < deadline, "the view's latency was never written"
            time.sleep(0.1)

    assert grew("euchre_moves_accepted_total", kind="open") == 1
    assert grew("euchre_moves_accepted_total", kind="sit") == 1
    refused = {
        dict(labels)["reason"]: n - value(before, name, **dict(labels))
        for (name, labels), n in after.items()
        if name == "euchre_moves_refused_total" and dict(labels)["kind"] == "pass"
    }
    assert sum(refused.values()) == 1, refused
    assert grew("euchre_event_append_latency_seconds_count") >= 2
    assert grew("euchre_sse_streams_opened_total", start="fresh") == 1
    # The sitting-down's view went to the watcher: from this process's own commit.
    assert grew("euchre_move_view_latency_seconds_count", via="commit") >= 1
    assert grew("euchre_move_view_latency_seconds_sum", via="commit") < 5
    # Read for the scrape: every follower's lag, and what answered.
    followers = {
        dict(labels)["follower"] for name, labels in after if name == "euchre_follower_lag_seconds"
    }
    assert followers == {"lobby", "ratings", "reviews", "public-log", "activity"}
    assert value(after, "euchre_metrics_source_up", source="database") == 1
    assert value(after, "euchre_metrics_source_up", source="redis") == 1
    assert value(after, "euchre_metrics_source_up", source="broker") == 1
    assert ("euchre_workers_alive", ()) in after  # none: no worker runs here
    assert ("euchre_queue_messages", (("queue", BOT_QUEUE),)) in after


def test_metrics_are_for_the_allowed_addresses_only(database_url: str, redis_url: str):
    app = create_app(database_url, redis_url, metrics_allow=("10.0.0.0/8",))
    with Server(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        refused = http.get("/metrics")
        assert refused.status_code == 403
        assert "EUCHRE_METRICS_ALLOW" in refused.json()["detail"]
        assert "/metrics" not in http.get("/schema/openapi.json").json()["paths"]


def test_metrics_off_serve_none_and_write_no_files(database_url: str, redis_url: str):
    """EUCHRE_METRICS=off: no /metrics, and no directory of values for a command's processes
    (each keeps its counts in memory, where nobody reads them)."""
    from infra.metrics_dir import SHARED, shared_directory
    from infra.settings import Settings

    assert Settings.from_env({}).metrics is True
    assert Settings.from_env({"EUCHRE_METRICS": "off"}).metrics is False
    with shared_directory(on=False) as directory:
        assert directory is None and SHARED not in os.environ
    with Server(create_app(database_url, redis_url, metrics_allow=None)) as url:
        off = httpx.get(f"{url}/metrics")
        assert off.status_code == 404 and "EUCHRE_METRICS=off" in off.json()["detail"]


def test_a_proxied_request_is_refused_even_from_loopback(served: str):
    with httpx.Client(base_url=served, timeout=30) as http:
        assert http.get("/metrics").status_code == 200
        for header in ("X-Forwarded-For", "Forwarded"):
            assert http.get("/metrics", headers={header: "for=203.0.113.9"}).status_code == 403


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_queue_depth_and_age_come_from_the_broker(
    broker_url: str, namespace: str, anyio_backend: str
):
    broker = make_broker(broker_url, namespace)
    try:
        broker.declare_queue(BOT_QUEUE)
        send_bot_turns(broker, [("AAAA", "k1", 0.0), ("AAAA", "k2", 0.0)])
        time.sleep(0.3)
        found = await queues.depths(broker_url, namespace)
    finally:
        broker.flush_all()
        broker.close()
    count, age = found[BOT_QUEUE]
    assert count == 2
    if broker_url.startswith("amqp"):
        assert age is None  # RabbitMQ tells counts alone
    else:
        assert age is not None and 0.3 <= age < 30


def test_processes_sharing_a_directory_are_summed():
    """Two processes count moves and hold streams open; a scrape sums them, and a process that
    died without closing its streams stops counting among those open."""
    with shared_directory() as directory:  # set in this process's environment too
        code = (
            "from infra import metrics; import os, sys\n"
            "metrics.moves_accepted.labels('play').inc(3)\n"
            "metrics.streams_open.inc(2)\n"
            "print(os.getpid())\n"
        )
        pids = [
            int(
                subprocess.run(
                    [sys.executable, "-c", code],
                    cwd=ROOT,
                    env={**os.environ, SHARED: directory},
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
            for _ in range(2)
        ]
        found = samples(metrics.render().decode())
        assert value(found, "euchre_moves_accepted_total", kind="play") == 6
        assert value(found, "euchre_sse_streams_open") == 4
        process_gone(pids[0])
        found = samples(metrics.render().decode())
        assert value(found, "euchre_sse_streams_open") == 2
        assert value(found, "euchre_moves_accepted_total", kind="play") == 6  # counts stay


def test_the_workers_endpoint_serves_the_allowed_alone():
    server = metrics.serve("127.0.0.1", 0, ("127.0.0.0/8",))
    shut = metrics.serve("127.0.0.1", 0, ("10.0.0.0/8",))
    try:
        port, other = server.server_address[1], shut.server_address[1]
        metrics.bot_decision.labels("medium").observe(0.01)
        answer = httpx.get(f"http://127.0.0.1:{port}/metrics")
        assert answer.status_code == 200
        assert value(samples(answer.text), "euchre_bot_decision_seconds_count", level="medium") >= 1
        assert httpx.get(f"http://127.0.0.1:{port}/other").status_code == 404
        assert httpx.get(f"http://127.0.0.1:{other}/metrics").status_code == 403
    finally:
        server.shutdown()
        shut.shutdown()


def test_labels_name_kinds_never_tables():
    from domain import commands as cmd

    assert metrics.kind_of(cmd.Play) == "play"
    from domain.errors import NotYourTurn

    assert metrics.reason_of(NotYourTurn) == "not_your_turn"
    for name, kind in metrics.names().items():
        assert name.startswith("euchre_"), name
        assert kind in ("counter", "gauge", "histogram")


def test_who_may_read_and_the_workers_port_are_settings():
    from infra.settings import Settings, SettingsError

    assert Settings.from_env({}).metrics_allow == ("127.0.0.0/8", "::1/128")
    assert Settings.from_env({}).worker_metrics_port is None
    chosen = Settings.from_env(
        {"EUCHRE_METRICS_ALLOW": "10.0.0.5, 10.1.0.0/16", "EUCHRE_WORKER_METRICS_PORT": "9108"}
    )
    assert chosen.metrics_allow == ("10.0.0.5/32", "10.1.0.0/16")
    assert chosen.worker_metrics_port == 9108
    assert metrics.allowed("10.1.2.3", chosen.metrics_allow)
    assert not metrics.allowed("10.2.0.1", chosen.metrics_allow)
    with pytest.raises(SettingsError, match="EUCHRE_METRICS_ALLOW"):
        Settings.from_env({"EUCHRE_METRICS_ALLOW": "everyone"})
