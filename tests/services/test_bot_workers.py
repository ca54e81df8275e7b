"""Bot turns as Dramatiq workers on real PostgreSQL and a real broker, Redis and RabbitMQ each:
they finish games, race safely, shrug off duplicate messages, and a broker that lost every
message doesn't stall a table (the sweeper)."""

from __future__ import annotations

import asyncio
import random
import time

import dramatiq
import httpx
import pytest
from broker_kit import Dealt
from http_kit import Server
from log_kit import answered_decisions

from domain import commands as cmd
from domain import deciding
from domain.shuffle import first_dealer
from infra.broker import BOT_QUEUE, BOT_TURN, make_broker
from infra.eventstore import EventStore
from services.api.app import create_app
from services.bots.runtime import BotRuntime
from services.bots.turns import play_turn
from services.use_cases import Tables

pytestmark = pytest.mark.anyio
SEED = "5e" * 32


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def lose_every_message(broker_url: str, namespace: str) -> None:
    """What a broker that crashed with nothing on disk would hold afterwards: no bot turns."""
    broker = make_broker(broker_url, namespace)
    broker.declare_queue(BOT_QUEUE)
    broker.flush_all()
    broker.close()


async def open_table(tables: Tables, code: str, host_seat: int | None = None) -> None:
    """A started table of bots, with the host as a person in `host_seat` if given."""
    seat = 0 if host_seat is None else host_seat
    await tables.execute(
        code, cmd.OpenTable(code=code, host="h", name="Host", seed=SEED, seat=seat)
    )
    if host_seat is None:
        await tables.execute(code, cmd.LeaveSeat(player="h", seat=seat))
    await tables.execute(code, cmd.StartGame(player="h"))


async def wait_until_over(tables: Tables, code: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while (state := await tables.load(code)).status != "over":
        assert time.monotonic() < deadline, f"stalled at seq {state.seq}, phase {state.phase}"
        await asyncio.sleep(0.1)


async def each_decision_answered_once(store: EventStore, code: str) -> int:
    """Every move answers the decision pending before it, and no decision key is answered
    twice (a duplicate or raced turn would show here). Returns the moves seen."""
    answered = answered_decisions(await store.read(code))
    assert len(answered) == len(set(answered))
    return len(answered)


async def test_four_bots_play_a_whole_game_through_the_worker(
    database_url, broker_url, namespace, store
):
    with BotRuntime(database_url, broker_url, 0.0, namespace=namespace, sweep=False) as bots:
        tables = Tables(store, bots.scheduler)
        await open_table(tables, "BOTS4")
        await wait_until_over(tables, "BOTS4")
    state = await tables.load("BOTS4")
    assert max(state.score) >= 10 and state.winner is not None
    assert await each_decision_answered_once(store, "BOTS4") > 50


async def test_two_workers_racing_one_turn_append_one_move(store):
    quiet = Tables(store)  # no scheduler: nothing else moves
    await open_table(quiet, "RACE")
    state = await quiet.load("RACE")
    key = deciding(state)[0].key
    first, second = Tables(store), Tables(store)
    outcomes = await asyncio.gather(play_turn(first, "RACE", key), play_turn(second, "RACE", key))
    # The loser either saw the turn gone or had its append recognised as the same command.
    assert "played" in outcomes and set(outcomes) <= {"played", "moved on"}
    assert len(await store.read("RACE", after_seq=state.seq)) == 1  # one bid, nothing follows
    assert await each_decision_answered_once(store, "RACE") == 1


async def test_the_same_message_twice_appends_one_move(database_url, broker_url, namespace, store):
    # The host sits where bidding reaches last, so three bot bids come first.
    host = first_dealer(SEED)
    quiet = Tables(store)
    await open_table(quiet, "TWICE", host_seat=host)
    pending = deciding(await quiet.load("TWICE"))[0]
    assert pending.seat != host
    with BotRuntime(database_url, broker_url, 0.0, namespace=namespace, sweep=False) as bots:
        turns = Dealt(BOT_TURN)
        bots.broker.add_middleware(turns)
        bots.send("TWICE", pending.key, 0.0)
        bots.send("TWICE", pending.key, 0.0)
        deadline = time.monotonic() + 30
        while deciding(state := await quiet.load("TWICE"))[0].seat != host:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        await turns.all_dealt_with()  # the duplicate too: had it moved, it would have by now
    assert (await quiet.load("TWICE")).seq == state.seq
    assert await each_decision_answered_once(store, "TWICE") == 3  # three bids, once each


class Sent(dramatiq.Middleware):
    """The bot turns a broker is given to carry."""

    def __init__(self) -> None:
        self.turns: list[tuple] = []

    def after_enqueue(self, broker, message, delay) -> None:
        if message.actor_name == BOT_TURN:
            self.turns.append(message.args)


async def test_the_worker_plays_the_turns_its_own_moves_leave_with_no_message(
    database_url, broker_url, namespace, store
):
    """Three bots bid before the host: the first turn comes through the broker, and the two
    that the worker's own bids leave pending it plays itself."""
    host = first_dealer(SEED)
    quiet = Tables(store)
    await open_table(quiet, "CHAIN", host_seat=host)
    first = deciding(await quiet.load("CHAIN"))[0]
    sent = Sent()
    with BotRuntime(database_url, broker_url, 0.0, namespace=namespace, sweep=False) as bots:
        bots.broker.add_middleware(sent)
        bots.send("CHAIN", first.key, 0.0)
        deadline = time.monotonic() + 30
        while deciding(await quiet.load("CHAIN"))[0].seat != host:
            assert time.monotonic() < deadline, "the bots stopped bidding"
            await asyncio.sleep(0.05)
    assert await each_decision_answered_once(store, "CHAIN") == 3
    assert [key for _, key, _ in sent.turns] == [first.key]


async def test_a_turn_sent_with_a_delay_is_played_once_it_is_due_and_not_before(
    database_url, broker_url, namespace, store
):
    """The worker takes the message at once and waits out the delay itself."""
    host = first_dealer(SEED)
    quiet = Tables(store)
    await open_table(quiet, "LATER", host_seat=host)
    before = await quiet.load("LATER")
    with BotRuntime(database_url, broker_url, 0.0, namespace=namespace, sweep=False) as bots:
        sent = time.monotonic()
        bots.send("LATER", deciding(before)[0].key, 1.0)
        await asyncio.sleep(0.7)
        assert (await quiet.load("LATER")).seq == before.seq, "played before it was due"
        while (await quiet.load("LATER")).seq == before.seq:
            assert time.monotonic() - sent < 10, "never played"
            await asyncio.sleep(0.02)
        assert time.monotonic() - sent >= 1.0
    assert await each_decision_answered_once(store, "LATER") >= 1


async def test_a_turn_that_comes_late_never_holds_a_message_thread_while_the_loop_is_busy(
    database_url, broker_url, namespace, store
):
    """Its thread hands it to the event loop and takes the next message: held till played,
    late turns took up every thread of a busy worker and the messages behind them came
    later still. Each is played once the loop is free."""
    quiet = Tables(store)
    codes = ["LATE1", "LATE2", "LATE3"]
    for code in codes:
        await open_table(quiet, code, host_seat=first_dealer(SEED))
    before = {code: await quiet.load(code) for code in codes}
    with BotRuntime(
        database_url, broker_url, 0.0, namespace=namespace, sweep=False, threads=1
    ) as bots:
        bots._loop.call_soon_threadsafe(time.sleep, 1.0)  # the loop busy for a second
        handed = time.monotonic()
        for code in codes:  # all due a while ago
            bots._bot_turn(code, deciding(before[code])[0].key, time.time() - 5)
        assert time.monotonic() - handed < 0.5
        deadline = time.monotonic() + 10
        for code in codes:
            while (await quiet.load(code)).seq == before[code].seq:
                assert time.monotonic() < deadline, f"{code}'s turn was never played"
                await asyncio.sleep(0.02)
    for code in codes:
        assert await each_decision_answered_once(store, code) >= 1


async def test_a_turn_waiting_in_a_worker_that_stops_is_played_after_all(
    database_url, broker_url, namespace, store
):
    """A worker stops with a turn taken but not yet due: the turn goes with it, the worker
    doesn't wait for it, and the sweeper of the next worker sends it again."""
    host = first_dealer(SEED)
    quiet = Tables(store)
    await open_table(quiet, "DROP", host_seat=host)
    before = await quiet.load("DROP")
    with BotRuntime(database_url, broker_url, 0.0, namespace=namespace, sweep=False) as bots:
        bots.send("DROP", deciding(before)[0].key, 60.0)
        await asyncio.sleep(0.5)  # taken, and waiting out its minute
        stopping = time.monotonic()
    assert time.monotonic() - stopping < 10
    assert (await quiet.load("DROP")).seq == before.seq
    with BotRuntime(database_url, broker_url, 0.0, namespace=namespace, grace=0.5):
        deadline = time.monotonic() + 30
        while (await quiet.load("DROP")).seq == before.seq:
            assert time.monotonic() < deadline, "the dropped turn was never played"
            await asyncio.sleep(0.05)
    assert await each_decision_answered_once(store, "DROP") >= 1


async def test_a_broker_that_lost_its_messages_doesnt_stall_the_game(
    database_url, broker_url, namespace, store
):
    with BotRuntime(database_url, broker_url, 0.0, namespace=namespace, sweep=False) as bots:
        tables = Tables(store, bots.scheduler)
        await open_table(tables, "FLUSH")
        while (await tables.load("FLUSH")).seq < 40:
            await asyncio.sleep(0.05)
    # The worker died mid-game and the broker lost every message it held.
    lose_every_message(broker_url, namespace)
    stalled = await tables.load("FLUSH")
    await asyncio.sleep(0.5)
    assert (await tables.load("FLUSH")).seq == stalled.seq, "nothing moves without a message"

    with BotRuntime(database_url, broker_url, 0.0, namespace=namespace, grace=0.5):
        await wait_until_over(tables, "FLUSH")
    assert await each_decision_answered_once(store, "FLUSH") > 50


def test_a_person_plays_three_bots_to_the_end_over_http(
    database_url, broker_url, redis_url, namespace
):
    with (
        BotRuntime(database_url, broker_url, 0.0, namespace=namespace, sweep=False) as bots,
        Server(create_app(database_url, redis_url, bots.scheduler)) as url,
        httpx.Client(base_url=url, timeout=30) as http,
    ):
        token = http.post("/api/players", json={"name": "Solo"}).json()["token"]
        http.cookies.clear()
        me = {"Authorization": f"Bearer {token}"}
        code = http.post("/api/tables", json={"bots": "hard"}, headers=me).json()["code"]
        view = http.post(f"/api/tables/{code}/start", headers=me).json()
        assert [s["bot"] for s in view["seats"]] == [None, "hard", "hard", "hard"]
        rng, moves, deadline = random.Random(1), 0, time.monotonic() + 120
        while view["status"] != "over":
            assert time.monotonic() < deadline, "the bots stalled"
            view = http.get(f"/api/tables/{code}", headers=me).json()
            kinds = sorted(k for k in view["can"] if k not in ("deal", "claim"))
            if not kinds:
                time.sleep(0.02)
                continue
            kind = kinds[0]
            body = {"type": kind, "seq": view["seq"]}
            if kind in ("play", "discard"):
                body["card"] = rng.choice(view["can"][kind]["cards"])
            if kind == "call":
                body["suit"] = view["can"]["call"]["suits"][0]
            response = http.post(f"/api/tables/{code}/moves", json=body, headers=me)
            if response.status_code == 429:  # faster than a person: wait as told, like a client
                time.sleep(float(response.headers["retry-after"]))
                continue
            assert response.status_code in (200, 409), response.text  # 409: a bot moved first
            moves += 1
        assert max(view["score"]) >= 10 and moves > 10
