"""The event stream: a view at once, one per change, resumable with Last-Event-ID, kept alive."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import threading
import time

import httpx
import msgspec
import pytest
from http_kit import Server, sse_events
from log_kit import recorded
from msgspec.structs import replace
from prometheus_client.parser import text_string_to_metric_families

from domain import commands as cmd
from domain import deciding, legal
from domain.decider import decide_and_fold
from domain.game import opening
from domain.seat_view import table_json, view_json
from domain.state import State
from infra import metrics
from infra.db import create_engine
from infra.doorbell import Doorbell
from infra.eventstore import EventStore, MemoryEventStore
from infra.signing import Signer
from projections.replay import fold_records, stable_after
from services.api import stream
from services.api.app import create_app
from services.api.heads import Heads
from services.use_cases import Tables

HEADS = Heads(Signer.ephemeral())


def read_views(base_url: str, path: str, headers: dict, until, out: list) -> threading.Thread:
    """Read the stream in a thread into `out` until `until(out)`; returns once the first view
    has arrived, so moves made afterwards are sure to come after it."""
    first = threading.Event()

    def run() -> None:
        with (
            httpx.Client(base_url=base_url, timeout=30) as http,
            http.stream("GET", path, headers=headers) as response,
        ):
            for event in sse_events(response):
                out.append(event)
                first.set()
                if until(out):
                    return

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert first.wait(timeout=30), "the stream sent nothing"
    return thread


def play_moves(people, code: str, count: int, rng: random.Random) -> None:
    for _ in range(count):
        views = [p.ok("GET", f"/api/tables/{code}") for p in people]
        seat = next(s for s, v in enumerate(views) if set(v["can"]) - {"deal"})
        can = views[seat]["can"]
        kind = sorted(k for k in can if k not in ("deal", "claim"))[0]
        body = {"type": kind}
        if kind in ("play", "discard"):
            body["card"] = rng.choice(can[kind]["cards"])
        if kind == "call":
            body["suit"] = can["call"]["suits"][0]
        people[seat].ok("POST", f"/api/tables/{code}/moves", json=body)


@pytest.fixture
def started(api):
    people = [api.player(name) for name in ("Ada", "Bo", "Cy", "Di")]
    code = people[0].ok("POST", "/api/tables", json={"code": "STREAM"})["code"]
    for seat, person in enumerate(people[1:], start=1):
        person.ok("POST", f"/api/tables/{code}/seats/{seat}")
    people[0].ok("POST", f"/api/tables/{code}/start")
    return people, code


@pytest.mark.parametrize("recent", [stream.RECENT, 2], ids=["from-the-feed", "from-the-log"])
def test_a_resumed_stream_is_sent_the_talk_it_missed_and_the_table_now(
    api, base_url, started, recent, monkeypatch
):
    """Resumed within what the table's feed remembers, or from further back (then the log):
    the lines of talk after its last id, then one view, the table as it is; not the states
    between, which that view makes old."""
    monkeypatch.setattr(stream, "RECENT", recent)
    people, code = started
    rng = random.Random(3)
    path = f"/api/tables/{code}/events"

    # One watcher stays connected throughout; another drops out and resumes from its last id.
    whole: list = []
    target = {"seq": None}
    full = read_views(
        base_url,
        path,
        people[1].headers,
        lambda got: target["seq"] is not None and any(e.get("id") == target["seq"] for e in got),
        whole,
    )
    first: list = []
    views = lambda got: [e for e in got if e.get("event") == "view"]  # noqa: E731
    part = read_views(base_url, path, people[1].headers, lambda got: len(views(got)) >= 3, first)
    play_moves(people, code, 2, rng)
    part.join(timeout=30)
    # Who is disconnected (the others play over HTTP alone) is no fact of the log: aside.
    assert len(views(first)) == len(first) - sum(e.get("event") == "presence" for e in first)
    resume_from = first[-1]["id"]
    play_moves(people, code, 6, rng)
    said = people[2].request("POST", f"/api/tables/{code}/chat", json={"text": "hi"})
    assert said.status_code == 204, said.text
    play_moves(people, code, 6, rng)
    target["seq"] = str(people[0].ok("GET", f"/api/tables/{code}")["seq"])
    full.join(timeout=30)

    rest: list = []
    resumed = read_views(
        base_url,
        path,
        {**people[1].headers, "Last-Event-ID": resume_from},
        lambda got: any(e.get("id") == target["seq"] for e in got),
        rest,
    )
    resumed.join(timeout=30)

    chat = [e for e in whole if e.get("event") == "chat"]
    now = [e for e in whole if e.get("id") == target["seq"]]
    assert len(chat) == 1 and len(now) == 1
    logged = [e for e in rest if "comment" not in e and e.get("event") != "presence"]
    assert logged == [*chat, *now]
    assert json.loads(now[0]["data"])["you"] == 1
    # 12 moves missed, each at least one view the stream that stayed open was sent.
    assert len([e for e in whole if e.get("event") == "view"]) >= 15


def test_the_stream_sends_keep_alive_comments(database_url, redis_url):
    app = create_app(database_url, redis_url, keep_alive=0.3)
    with Server(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        ada = http.post("/api/players", json={"name": "Ada"}).json()
        headers = {"Authorization": f"Bearer {ada['token']}"}
        http.post("/api/tables", json={"code": "QUIET"}, headers=headers)
        got: list = []
        read_views(
            url,
            "/api/tables/QUIET/events",
            headers,
            lambda e: sum("comment" in x for x in e) >= 2,
            got,
        ).join(timeout=10)
        assert got[0]["event"] == "view" and json.loads(got[0]["data"])["you"] == 0
        assert sum(1 for e in got if e.get("comment") == "keep-alive") >= 2
        # A comment alone: a `data:` line with it would hand browsers an empty message.
        assert [e for e in got if "comment" not in e and e.get("event") != "view"] == []


def test_a_stream_for_no_table_is_404(api):
    response = api.http.get("/api/tables/NOPE/events")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")


def test_a_closed_stream_leaves_nothing_behind(database_url, redis_url):
    """Disconnecting ends the watcher; the table's feed stops once nobody watches."""
    app = create_app(database_url, redis_url)
    with Server(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        ada = http.post("/api/players", json={"name": "Ada"}).json()
        headers = {"Authorization": f"Bearer {ada['token']}"}
        http.post("/api/tables", json={"code": "GONE"}, headers=headers)
        got: list = []
        read_views(url, "/api/tables/GONE/events", headers, lambda e: True, got).join(timeout=10)
        feeds = app.state.services.feeds
        deadline = time.monotonic() + 10
        while feeds.watching("GONE"):
            assert time.monotonic() < deadline, "the feed outlived its last watcher"
            time.sleep(0.05)


def test_a_reader_that_falls_behind_is_resynced_to_the_newest_state():
    watcher = stream.Watcher()
    for seq in range(1, stream.BACKLOG + 6):
        watcher.offer(State(seq=seq))
    pending = [watcher.queue.get_nowait().seq for _ in range(watcher.queue.qsize())]
    assert len(pending) <= stream.BACKLOG
    assert pending[-1] == stream.BACKLOG + 5 and watcher.resyncs == 1


def test_a_watcher_waits_in_its_readers_own_task_with_no_timer():
    async def wait() -> None:
        watchers = [stream.Watcher() for _ in range(100)]
        waiting = [asyncio.ensure_future(w.next()) for w in watchers]
        await asyncio.sleep(0.01)
        assert asyncio.all_tasks() == {asyncio.current_task(), *waiting}
        # The event loop's timers (a private list: what `asyncio.timeout` would add to).
        assert asyncio.get_running_loop()._scheduled == []  # type: ignore[attr-defined]
        for w in watchers:
            w.offer(State(seq=7))
        assert {(await w).seq for w in waiting} == {7}

    asyncio.run(wait())


def test_a_crowd_is_handed_each_state_a_share_at_a_time_in_order_with_requests_between():
    """200 spectators handed a move at once held a player's request back for all their sends:
    each turn of the loop hands a state to SHARE of them at most, so what came in meanwhile
    runs between; every watcher still gets every state, in order."""

    async def run() -> None:
        feed = stream.Feed("T", State(seq=1), HEADS)
        watchers = [stream.Watcher() for _ in range(7 * stream.SHARE + 3)]
        feed.watchers.update(watchers)
        handed: list[int] = []  # how many watchers held the newest state, at each turn
        feed._show([(State(seq=2), None), (State(seq=3), None)], time.time(), stream.VIA["read"])
        feed._show([(State(seq=4), None)], time.time(), stream.VIA["read"])
        while feed._hander is not None:
            await asyncio.sleep(0)  # a request's step, between the shares
            handed.append(sum(w.queue.qsize() for w in watchers))
        steps = [b - a for a, b in zip([0, *handed], handed, strict=False)]
        assert max(steps) <= stream.SHARE
        assert len(handed) >= 3 * len(watchers) // stream.SHARE
        for w in watchers:
            assert [w.queue.get_nowait().seq for _ in range(3)] == [2, 3, 4]

    asyncio.run(run())


def test_feeds_share_one_clock_and_read_on_it_when_a_ring_is_lost():
    """Each feed's wait for a ring ends at its poll time by the feeds' one clock: twenty
    waiting feeds hold one timer, and a move whose ring never came is read on time."""

    async def run() -> None:
        store = MemoryEventStore()
        elsewhere = Tables(store)  # another process's appends: nothing here rings for them
        codes = [f"T{n}" for n in range(20)]
        for code in codes:
            await elsewhere.execute(
                code, cmd.OpenTable(code=code, host="ann", name="Ann", seed="5e" * 32, settings={})
            )
        unheard = Doorbell(create_engine("postgresql://nobody@127.0.0.1:1/none"))  # not entered
        feeds = stream.Feeds(Tables(store), unheard, HEADS, poll=0.2, keep_alive=10.0)
        async with contextlib.AsyncExitStack() as stack:
            subscribed = [await stack.enter_async_context(feeds.subscribe(c)) for c in codes]
            await asyncio.sleep(0.05)
            # The event loop's timers (a private list: what `asyncio.timeout` would add to).
            assert len(asyncio.get_running_loop()._scheduled) == 1  # type: ignore[attr-defined]

            await elsewhere.execute("T3", cmd.TakeSeat(player="bob", name="Bob", seat=1))
            _, watcher = subscribed[3]
            item = await asyncio.wait_for(watcher.next(), timeout=2)
            assert item is not None and item.seq == 3

    asyncio.run(run())


def test_a_feed_shows_another_processs_moves_as_their_rings_carry_them_and_reads_for_talk(
    database_url,
):
    """A bot's move is appended by a worker, not by the process streaming it: its ring
    carries its events, and the feed shows them without reading the log. Talk is read, for
    the time the log gives each line."""

    async def run() -> list[int]:
        engine = create_engine(database_url)
        here_store = await EventStore.open(database_url, size=2)
        there_store = await EventStore.open(database_url, size=2)  # the worker's
        there = Tables(there_store)
        opening = cmd.OpenTable(code="RING", host="ann", name="Ann", seed="5e" * 32, settings={})
        await there.execute("RING", opening)
        await there.execute("RING", cmd.LeaveSeat(player="ann", seat=0))
        state = await there.execute("RING", cmd.StartGame(player="ann"))
        reads: list[int] = []
        try:
            async with Doorbell(engine) as doorbell:
                feeds = stream.Feeds(
                    Tables(here_store), doorbell, HEADS, poll=60.0, keep_alive=60.0
                )
                async with feeds.subscribe("RING") as (_, watcher):
                    await asyncio.sleep(0.2)  # its first read done
                    read = here_store.read

                    async def counted(code: str, after_seq: int = 0):
                        reads.append(after_seq)
                        return await read(code, after_seq)

                    here_store.read = counted  # type: ignore[method-assign]
                    for _ in range(40):  # past a hand's score, into the next
                        move = legal(state, deciding(state)[0].seat)[0]
                        state = await there.execute("RING", move)
                        while (item := await asyncio.wait_for(watcher.next(), 5)) != state:
                            assert isinstance(item, State) and item.seq < state.seq
                    assert reads == []

                    said = await there.execute("RING", cmd.Say(player="kib", name="Kib", text="gg"))
                    line = await asyncio.wait_for(watcher.next(), 5)
                    assert isinstance(line, stream.Line) and line.seq == said.seq
        finally:
            await here_store.close()
            await there_store.close()
            await engine.dispose()
        return reads

    assert len(asyncio.run(run())) == 1


def test_a_keep_alive_comes_at_the_second_nudge_with_nothing_offered_between():
    quiet, busy = stream.Watcher(), stream.Watcher()
    sent: list = []
    for n in range(3):
        busy.offer(State(seq=n + 1))
        for w in (quiet, busy):
            w.nudge()
        sent.append([quiet.queue.get_nowait() for _ in range(quiet.queue.qsize())])
    assert sent == [[], [None], [None]]  # none at the first nudge: it may be just after a word
    assert [busy.queue.get_nowait().seq for _ in range(3)] == [1, 2, 3]
    assert busy.queue.empty()
    # A stalled reader's queue holds what it hasn't sent: no keep-alive joins it.
    quiet.offer(State(seq=9))
    quiet.nudge()
    quiet.nudge()
    assert quiet.queue.qsize() == 1


def test_a_feed_shows_what_folding_a_commands_events_again_would_and_keeps_its_final_state():
    """What this process appended reaches its feed with the state after it: every stable state
    a fold of the events would find is shown, equal, and the last is the use case's own."""
    rng = random.Random(11)
    every_rule = dict.fromkeys(
        ("stick_dealer", "alone", "defend_alone", "farmers", "canadian"), "on"
    )
    several = forked = 0
    counted = chain_failures()
    for _ in range(6):
        log = opening(f"{rng.getrandbits(256):064x}", every_rule, code="T")
        state = fold_records(recorded("T", log))
        feed = stream.Feed("T", state, HEADS)
        while state.status == "playing":
            command = rng.choice(legal(state, deciding(state)[0].seat))
            events, after = decide_and_fold(state, command)
            hashes = [r.hash for r in recorded("T", [*log, *events])[len(log) :]]
            # As the log gave it, the state after is known by its last event's hash.
            if rng.random() < 0.05:  # a head the feed's own chain doesn't reach: not shown
                feed.committed(replace(after, head=(after.seq, "00" * 32)), events)
                assert feed.state is state
                forked += 1
            after = replace(after, head=(after.seq, hashes[-1]))
            feed.committed(after, events)
            folded = list(stable_after(events, state, hashes))
            assert list(feed.recent)[-len(folded) :] == folded
            assert all(s.head == (s.seq, hashes[s.seq - state.seq - 1]) for s in folded)
            assert feed.state is after
            several += len(events) > 1
            log += events
            state = after
    assert several > 100, "commands of several events, each folded again but for the last"
    assert forked and chain_failures() - counted == forked, "each one counted, for alerts"


def test_a_feed_shows_each_state_once_however_and_in_whatever_order_it_hears_of_it():
    """A feed hears a commit from its own process, from the ring, from both in either order,
    or not at all (a ring lost): one test (`Feed._seen`) says what follows on from what it
    shows. Every stable state is shown once and in order; a run with events missing before it
    is left alone, the feed staying where it was, until a read fills the gap."""
    rng = random.Random(29)
    ways = {"commit": 0, "ring": 0, "both": 0, "ring first": 0, "lost": 0}
    for _ in range(4):
        log = opening(f"{rng.getrandbits(256):064x}", None, code="T")
        state = fold_records(recorded("T", log))
        feed = stream.Feed("T", state, HEADS)
        expected = [state.seq]
        missed: list = []  # records the feed never heard of, since a ring was lost
        while state.status == "playing":
            command = rng.choice(legal(state, deciding(state)[0].seat))
            events, after = decide_and_fold(state, command)
            records = recorded("T", [*log, *events])[len(log) :]
            hashes = [r.hash for r in records]
            after = replace(after, head=(after.seq, hashes[-1]))
            runs = msgspec.json.encode([(r.type, r.data, r.hash) for r in records]).decode()
            way = rng.choice(list(ways))
            ways[way] += 1
            before, gap = feed.state, bool(missed)
            if way in ("commit", "both"):
                feed.committed(after, events)
            if way in ("ring", "both", "ring first"):
                feed._follow([(records[0].seq, runs)])
            if way == "ring first":
                feed.committed(after, events)
            missed += records
            if way == "lost" or gap:
                # Nothing heard, or heard with a gap before it: the feed stays put.
                assert feed.state is before
                if rng.random() < 0.5:  # the poll's read
                    feed._show(stream.shown(missed, feed.state), time.time(), stream.VIA["read"])
                    missed = []
            else:
                missed = []
            expected += [s.seq for s in stable_after(events, state, hashes)]
            if not missed:
                assert feed.state.seq == after.seq
            log += events
            state = after
        feed._show(stream.shown(missed, feed.state), time.time(), stream.VIA["read"])
        seqs = [s.seq for s in feed.recent]
        assert seqs == expected[-len(seqs) :], "each stable state once, in order"
    assert all(ways.values())


def chain_failures() -> float:
    """The feeds' chain failures this process counted, as its /metrics says."""
    return sum(
        sample.value
        for family in text_string_to_metric_families(metrics.render().decode())
        for sample in family.samples
        if sample.name == "euchre_chain_verification_failures_total"
        and sample.labels == {"where": "feed"}
    )


def test_a_feed_keeps_the_views_of_the_states_it_remembers_and_no_more(monkeypatch):
    tables: list = []
    monkeypatch.setattr(stream, "table_json", lambda state: tables.append(state.seq) or b"{}")
    monkeypatch.setattr(stream, "view_json", lambda state, seat, table: b"{}")
    feed = stream.Feed("T", State(seq=1), HEADS)
    for seq in range(2, 10 * stream.RECENT):
        feed._show([(State(seq=seq), None)], time.time(), stream.VIA["commit"])
        for seat in (0, 1, 2, 3, None):
            feed.view_json(feed.state, seat)

    assert tables == list(range(2, 10 * stream.RECENT)), "a state's five views share its table"
    assert len(feed._tables) <= 2 * stream.RECENT + 1
    assert len(feed._views) <= 2 * stream.RECENT + 1
    assert len(feed.committed_at) <= 2 * stream.RECENT + 1  # for the move-to-view latency
    last = feed.state
    tables.clear()
    feed.view_json(last, 2)
    feed.view_json(State(seq=2), 2)
    assert tables == [2]  # the newest state's view is kept; one long gone is made again


def test_spectators_and_movers_share_each_view(api, base_url, started, monkeypatch):
    """Ten spectators' streams and the movers' own answers: each state's table is encoded once
    and each of its views made once."""
    people, code = started
    made: list = []
    tables: list = []

    def counted(state, seat, table):
        made.append((state.seq, seat))
        return view_json(state, seat, table)

    def counted_table(state):
        tables.append(state.seq)
        return table_json(state)

    monkeypatch.setattr(stream, "view_json", counted)
    monkeypatch.setattr(stream, "table_json", counted_table)
    watching = [
        read_views(base_url, f"/api/tables/{code}/events", {}, lambda got: len(got) >= 2, [])
        for _ in range(10)
    ]
    play_moves(people, code, 1, random.Random(5))
    for thread in watching:
        thread.join(timeout=30)
    assert made and len(made) == len(set(made)), "a view was made more than once"
    assert tables and len(tables) == len(set(tables)), "a table was encoded more than once"
    assert any(seat is not None for _, seat in made), "the mover's answer came from the feed"


def test_streams_opened_together_share_one_feed(database_url, redis_url):
    """Five streams of one table opened at once: one feed reads for all of them (each extra
    feed would read the log on every change, and miss what this process hands over)."""
    app = create_app(database_url, redis_url)
    with Server(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        ada = http.post("/api/players", json={"name": "Ada"}).json()
        headers = {"Authorization": f"Bearer {ada['token']}"}
        http.post("/api/tables", json={"code": "TOGETHER"}, headers=headers)
        barrier = threading.Barrier(5)
        views: list[list] = [[] for _ in range(5)]

        def opened(out: list) -> bool:
            if len(out) == 1:
                barrier.wait(timeout=30)  # every stream open before any closes
            return True

        def read(out: list) -> None:
            with (
                httpx.Client(base_url=url, timeout=30) as client,
                client.stream("GET", "/api/tables/TOGETHER/events") as response,
            ):
                for event in sse_events(response):
                    out.append(event)
                    feeds = app.state.services.feeds
                    counted.append(feeds.watching("TOGETHER"))
                    if opened(out):
                        return

        counted: list[int] = []
        threads = [threading.Thread(target=read, args=(out,), daemon=True) for out in views]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert all(len(out) == 1 for out in views)
        assert max(counted) == 5, counted
