"""The table use cases (services/use_cases.py) and a bot's turn (services/bots/turns.py), on the
in-memory event store: what they decide and append, without a server."""

from __future__ import annotations

import time

import anyio
import pytest

from domain import Decision, deciding, legal
from domain import commands as cmd
from domain import events as ev
from domain.codec import to_event
from domain.errors import IllegalMove, NotAllowed
from domain.state import State
from infra.broker import Contexts
from infra.eventstore import MemoryEventStore
from services.bots.pacing import search_seconds, think_seconds
from services.bots.turns import WAKE_GATHER, Scheduler, play_turn
from services.use_cases import NoSuchTable, Stale, Tables

pytestmark = pytest.mark.anyio
SEED = "5e" * 32


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def logged(store: MemoryEventStore, code: str) -> list[ev.Event]:
    return [to_event(r.type, r.data) for r in await store.read(code)]


async def open_table(tables: Tables, code: str = "ABCD") -> State:
    return await tables.execute(
        code, cmd.OpenTable(code=code, host="ann", name="Ann", seed=SEED, settings={})
    )


async def test_opening_a_table_appends_its_events_and_loads_from_them() -> None:
    store = MemoryEventStore()
    tables = Tables(store)
    after = await open_table(tables)

    assert [type(e) for e in await logged(store, "ABCD")] == [ev.TableOpened, ev.SeatTaken]
    assert after.seq == 2 and after.host == "ann"
    assert await Tables(store).load("ABCD") == after  # another process folds the same state


async def test_a_table_never_opened_is_no_such_table() -> None:
    tables = Tables(MemoryEventStore())
    with pytest.raises(NoSuchTable):
        await tables.load("NOPE")
    with pytest.raises(NoSuchTable):
        await tables.execute("NOPE", cmd.StartGame(player="ann"))


async def test_a_refused_command_appends_nothing() -> None:
    store = MemoryEventStore()
    tables = Tables(store)
    await open_table(tables)

    with pytest.raises(NotAllowed):
        await tables.execute("ABCD", cmd.StartGame(player="bob"))
    with pytest.raises(IllegalMove):
        await tables.execute("ABCD", cmd.TakeSeat(player="bob", name="Bob", seat=7))
    assert await store.last_seq("ABCD") == 2


async def test_a_command_decided_on_an_old_seq_is_stale_and_appends_nothing() -> None:
    store = MemoryEventStore()
    tables = Tables(store)
    await open_table(tables)
    await tables.execute("ABCD", cmd.TakeSeat(player="bob", name="Bob", seat=1))

    with pytest.raises(Stale):
        await tables.execute("ABCD", cmd.StartGame(player="ann"), expected_seq=2)
    assert await store.last_seq("ABCD") == 3


async def test_a_process_decides_on_what_another_appended_since_it_last_looked() -> None:
    store = MemoryEventStore()
    here, there = Tables(store), Tables(store)
    await open_table(here)
    await there.execute("ABCD", cmd.TakeSeat(player="bob", name="Bob", seat=1))

    with pytest.raises(Exception, match="seat 1 is taken"):
        await here.execute("ABCD", cmd.TakeSeat(player="cy", name="Cy", seat=1))
    after = await here.execute("ABCD", cmd.TakeSeat(player="cy", name="Cy", seat=2))
    assert [seat.player for seat in after.seats] == ["ann", "bob", "cy", None]


async def test_each_commit_schedules_the_bot_decisions_it_leaves_pending() -> None:
    sent: list[tuple[str, str, float]] = []
    scheduler = Scheduler(lambda turns, _: sent.extend(turns), scale=0)
    store = MemoryEventStore()
    tables = Tables(store, on_commit=scheduler)
    await open_table(tables)
    await tables.execute("ABCD", cmd.LeaveSeat(player="ann", seat=0))
    assert sent == []

    state = await tables.execute("ABCD", cmd.StartGame(player="ann"))
    assert state.status == "playing"
    assert sent == [("ABCD", f"1.0.{state.turn}", 0.0)]


async def test_a_bot_turn_plays_once_and_a_stale_key_moves_on() -> None:
    store = MemoryEventStore()
    tables = Tables(store)
    await open_table(tables)
    await tables.execute("ABCD", cmd.LeaveSeat(player="ann", seat=0))
    state = await tables.execute("ABCD", cmd.StartGame(player="ann"))
    key = f"{state.deal_no}.{state.deal.moves}.{state.turn}"

    assert await play_turn(tables, "ABCD", key) == "played"
    seq = await store.last_seq("ABCD")
    assert seq > state.seq
    assert await play_turn(tables, "ABCD", key) == "moved on"
    assert await store.last_seq("ABCD") == seq


async def test_a_scheduler_that_plays_here_sends_none_of_its_turns() -> None:
    """A worker's own commits: the turns they leave pending are played by the worker itself,
    and only a read model's wake-up still goes out."""
    sent: list[tuple[str, str, float]] = []
    kept: list[tuple[str, str, float]] = []
    woken: list[str] = []
    scheduler = Scheduler(
        lambda turns, _: sent.extend(turns),
        scale=0,
        wakes={ev.GameStarted: lambda: woken.append("started")},
        here=lambda *turn: kept.append(turn),
    )
    tables = Tables(MemoryEventStore(), on_commit=scheduler)
    await open_table(tables)
    await tables.execute("ABCD", cmd.LeaveSeat(player="ann", seat=0))
    state = await tables.execute("ABCD", cmd.StartGame(player="ann"))
    scheduler.close()
    assert kept == [("ABCD", f"1.0.{state.turn}", 0.0)]
    assert sent == [] and woken == ["started"]


def counting_reads(store: MemoryEventStore) -> list[int]:
    """The seqs `store` is read after, from now on."""
    reads: list[int] = []
    read = store.read

    async def counted(code: str, after_seq: int = 0):
        reads.append(after_seq)
        return await read(code, after_seq)

    store.read = counted  # type: ignore[method-assign]
    return reads


async def test_a_bot_turn_pending_in_memory_is_played_without_a_read_and_checked_by_the_append():
    """A worker's memory of a table is most often its own last move, where the next bot's
    turn is pending: it plays on that with no read. Behind the log by some talk, the move is
    still taken; behind by the turn itself, played elsewhere, nothing is appended twice."""
    store = MemoryEventStore()
    here, there = Tables(store), Tables(store)
    await open_table(here)
    await here.execute("ABCD", cmd.LeaveSeat(player="ann", seat=0))
    state = await here.execute("ABCD", cmd.StartGame(player="ann"))
    reads = counting_reads(store)

    def key(state: State) -> str:
        return deciding(state)[0].key

    assert await play_turn(here, "ABCD", key(state)) == "played"
    assert await play_turn(here, "ABCD", key(here.known("ABCD"))) == "played"
    assert reads == []

    await there.execute("ABCD", cmd.Say(player="kib", name="Kib", text="go on"))
    before = here.known("ABCD")
    assert await play_turn(here, "ABCD", key(before)) == "played"
    after = here.known("ABCD")
    assert type((await logged(store, "ABCD"))[before.seq]) is ev.ChatSaid
    assert after.deal.moves == before.deal.moves + 1 and after.seq == await store.last_seq("ABCD")

    behind = here.known("ABCD")
    assert await play_turn(there, "ABCD", key(behind)) == "played"
    seq = await store.last_seq("ABCD")
    # Its append is the one already made (the same command id), so nothing is appended twice.
    assert await play_turn(here, "ABCD", key(behind)) in {"played", "moved on"}
    assert await store.last_seq("ABCD") == seq
    assert here.known("ABCD").seq == seq


async def test_a_bot_that_must_read_the_table_reads_while_it_thinks_and_moves_on_time():
    """A person moved last, through another process: the bot's worker reads the table when
    the turn comes, and the move still waits out the whole think time, no more."""
    store = MemoryEventStore()
    here, there = Tables(store), Tables(store)
    await open_table(there)
    await there.execute("ABCD", cmd.LeaveSeat(player="ann", seat=0))
    state = await there.execute("ABCD", cmd.StartGame(player="ann"))
    read_at: list[float] = []
    read = store.read

    async def timed(code: str, after_seq: int = 0):
        read_at.append(anyio.current_time())
        return await read(code, after_seq)

    store.read = timed  # type: ignore[method-assign]
    started = anyio.current_time()
    assert await play_turn(here, "ABCD", deciding(state)[0].key, wait=0.3) == "played"
    moved = anyio.current_time()
    assert len(read_at) == 1 and read_at[0] - started < 0.1
    assert 0.3 <= moved - started < 0.3 + 0.1


async def test_a_process_behind_the_log_decides_again_on_what_is_there() -> None:
    """Two processes on one log: the one whose memory of the table is out of date neither
    refuses a move that is legal now nor applies one twice, and reads only when it must."""
    store = MemoryEventStore()
    here, there = Tables(store), Tables(store)
    await open_table(here)
    await here.load("ABCD")
    await there.execute("ABCD", cmd.TakeSeat(player="bob", name="Bob", seat=1))

    # Only legal on the table as it is now, which `here` hasn't seen: Bob is seated.
    after = await here.execute("ABCD", cmd.LeaveSeat(player="bob", seat=1))
    assert after.seats[1].player is None and after.seq == 4

    # A seq sent from the newest view is current, though `here` was behind when it came.
    await there.execute("ABCD", cmd.TakeSeat(player="cy", name="Cy", seat=2))
    after = await here.execute("ABCD", cmd.LeaveSeat(player="cy", seat=2), expected_seq=5)
    assert after.seq == 6

    # And what is refused on the newest state stays refused, with nothing appended.
    with pytest.raises(NotAllowed):
        await here.execute("ABCD", cmd.StartGame(player="bob"))
    assert len(await store.read("ABCD")) == 6

    reads = 0
    read = store.read

    async def counted(code: str, after_seq: int = 0):
        nonlocal reads
        reads += 1
        return await read(code, after_seq)

    store.read = counted  # type: ignore[method-assign]
    await here.execute("ABCD", cmd.TakeSeat(player="di", name="Di", seat=3))
    assert reads == 0  # nobody else moved: decided on memory, checked by the append


async def test_talk_schedules_no_bot_turn() -> None:
    """The bot's turn was sent when the game moved; chat, reactions and mutes send nothing."""
    sent: list[tuple[str, str, float]] = []
    scheduler = Scheduler(lambda turns, _: sent.extend(turns), scale=0)
    tables = Tables(MemoryEventStore(), on_commit=scheduler)
    await open_table(tables)
    await tables.execute("ABCD", cmd.LeaveSeat(player="ann", seat=0))
    await tables.execute("ABCD", cmd.StartGame(player="ann"))
    scheduler.close()  # sends what is queued
    assert len(sent) == 1
    scheduler = Scheduler(lambda turns, _: sent.extend(turns), scale=0)
    tables = Tables(tables.store, on_commit=scheduler)
    await tables.execute("ABCD", cmd.Say(player="ann", name="Ann", text="good luck, bots"))
    await tables.execute("ABCD", cmd.React(player="kib", name="Kib", emoji="🔥"))
    await tables.execute("ABCD", cmd.Mute(player="ann", target="kib", name="Kib"))
    scheduler.close()
    assert len(sent) == 1


async def test_a_pinned_seq_survives_talk_another_process_appended_meanwhile() -> None:
    """Another process's chat takes the seq this one expected to append at: the move is
    decided again and taken, not refused as stale; one decided before a move still is."""
    store = MemoryEventStore()
    here, there = Tables(store), Tables(store)
    await open_table(here)
    await here.execute("ABCD", cmd.LeaveSeat(player="ann", seat=0))
    state = await here.execute("ABCD", cmd.StartGame(player="ann"))
    assert state.turn is not None
    await there.execute("ABCD", cmd.Say(player="kib", name="Kib", text="who leads?"))
    await there.execute("ABCD", cmd.React(player="kib", name="Kib", emoji="😮"))

    move = legal(state, state.turn)[0]
    after = await here.execute("ABCD", move, expected_seq=state.seq)
    assert after.deal.moves == state.deal.moves + 1 and after.seq > state.seq + 2
    await there.execute("ABCD", cmd.Say(player="kib", name="Kib", text="nice"))
    assert after.turn is not None
    with pytest.raises(Stale):
        await here.execute("ABCD", legal(after, after.turn)[0], expected_seq=state.seq)


async def test_a_move_read_afresh_survives_a_chat_that_lands_before_its_append() -> None:
    """The table is read, the move decided, and before it is appended someone's chat takes
    its seq: the move is decided again on the new log and taken."""
    store = MemoryEventStore()
    setup = Tables(store)
    await open_table(setup)
    await setup.execute("ABCD", cmd.LeaveSeat(player="ann", seat=0))
    state = await setup.execute("ABCD", cmd.StartGame(player="ann"))
    assert state.turn is not None
    append = store.append
    chatted: list[int] = []

    async def chat_first(stream, expected_seq, new, command_id=None):
        if not chatted:
            chatted.append(expected_seq)
            await Tables(store).execute("ABCD", cmd.Say(player="kib", name="Kib", text="hm"))
        return await append(stream, expected_seq, new, command_id=command_id)

    store.append = chat_first  # type: ignore[method-assign]
    after = await Tables(store).execute("ABCD", legal(state, state.turn)[0], expected_seq=state.seq)
    assert chatted == [state.seq] and after.deal.moves == state.deal.moves + 1


async def test_between_hands_each_person_is_ready_on_the_view_they_saw() -> None:
    """Two people press Ready on the same view of the scored hand: both are ready, neither is
    told the table moved on; the host's Deal now on that view deals. Once dealt, a Ready from
    the pause is stale."""
    store = MemoryEventStore()
    tables = Tables(store)
    await open_table(tables)
    for n, who in ((1, "bo"), (2, "cy"), (3, "di")):
        await tables.execute("ABCD", cmd.TakeSeat(player=who, name=who.title(), seat=n))
    state = await tables.execute("ABCD", cmd.StartGame(player="ann"))
    while state.phase != "scored":
        d = deciding(state)[0]
        state = await tables.execute("ABCD", legal(state, d.seat)[0])
    seen = state.seq
    for n in (1, 2):
        state = await tables.execute("ABCD", cmd.Ready(seat=n), expected_seq=seen)
    assert state.deal.ready[1] and state.deal.ready[2] and state.phase == "scored"
    state = await tables.execute("ABCD", cmd.DealNow(seat=0), expected_seq=seen)
    assert state.deal_no == 2 and state.phase != "scored"
    with pytest.raises(Stale):
        await tables.execute("ABCD", cmd.Ready(seat=3), expected_seq=seen)


async def expert_table(tables: Tables) -> State:
    """A game begun with Ann watching and three experts and a hard bot in the seats."""
    await open_table(tables)
    await tables.execute("ABCD", cmd.LeaveSeat(player="ann", seat=0))
    for seat in range(4):
        level = "hard" if seat == 3 else "expert"
        await tables.execute("ABCD", cmd.SeatBot(player="ann", seat=seat, level=level))
    return await tables.execute("ABCD", cmd.StartGame(player="ann"))


async def test_a_searching_bot_is_sent_early_by_its_search_time() -> None:
    sent: list[tuple[str, str, float]] = []
    scheduler = Scheduler(lambda turns, _: sent.extend(turns), scale=1)
    state = await expert_table(Tables(MemoryEventStore(), on_commit=scheduler))
    scheduler.close()
    assert state.seats[state.turn].bot == "expert"
    code, key, delay = sent[-1]
    assert (code, key) == ("ABCD", f"1.0.{state.turn}")
    assert 1.2 - 0.5 - 0.1 < delay <= 1.2 - 0.5  # less what the sending thread took


async def test_a_turn_held_up_on_the_sending_thread_takes_the_wait_off_its_delay() -> None:
    """A bot's think time counts from the commit: a send that waited behind a slow one (a
    busy broker) is sent with as much less delay, so the bot still moves on time."""
    sent: list[float] = []
    began: list[float] = []

    def slow(turns: list[tuple[str, str, float]], _: Contexts) -> None:
        began.append(time.monotonic())
        time.sleep(0.3)
        sent.extend(delay for _, _, delay in turns)

    scheduler = Scheduler(slow, scale=1)
    tables = Tables(MemoryEventStore(), on_commit=scheduler)
    state = await expert_table(tables)
    state = await tables.execute("ABCD", legal(state, state.turn)[0])
    committed = time.monotonic()  # no earlier than the move was made
    decision = deciding(state)[0]
    scheduler.close()
    due = think_seconds(state, decision, 1) - search_seconds(state, decision, 1)
    # The second turn waited at least from its commit until the first send was done.
    waited = began[0] + 0.3 - committed
    assert len(sent) == 2 and due - waited - 0.1 < sent[1] <= due - waited


async def test_the_turns_left_while_a_send_is_on_its_way_go_together_in_the_next() -> None:
    """However many commits come while the sending thread is busy, their turns wait for at
    most one send ahead of them, not one each."""
    sends: list[list[str]] = []

    def slow(turns: list[tuple[str, str, float]], _: Contexts) -> None:
        sends.append([key for _, key, _ in turns])
        time.sleep(0.3)

    scheduler = Scheduler(slow, scale=0)
    tables = Tables(MemoryEventStore(), on_commit=scheduler)
    state = await expert_table(tables)
    keys = []
    for _ in range(3):
        state = await tables.execute("ABCD", legal(state, state.turn)[0])
        keys.append(deciding(state)[0].key)
    scheduler.close()
    assert len(sends) == 2 and sends[1] == keys  # the game's first turn went alone


class SlowLog(MemoryEventStore):
    """A log whose commits take `slow` seconds to come back, as under load."""

    slow = 0.0

    async def append(self, *args, **kwargs):
        result = await super().append(*args, **kwargs)
        await anyio.sleep(self.slow)
        return result


@pytest.mark.parametrize("where", ["sent", "here"])
async def test_a_bots_think_time_counts_from_the_move_not_from_its_commit_coming_back(
    where: str,
) -> None:
    """Under load a commit comes back late (the batch ahead of it, a busy event loop): the
    turns it leaves are sent, or kept on the worker, with as much less delay."""
    delays: list[float] = []

    def note(code: str, key: str, delay: float) -> None:
        delays.append(delay)

    def send(turns: list[tuple[str, str, float]], _: Contexts) -> None:
        for turn in turns:
            note(*turn)

    scheduler = Scheduler(send, scale=1, here=note if where == "here" else None)
    store = SlowLog()
    tables = Tables(store, on_commit=scheduler)
    state = await expert_table(tables)
    store.slow = 0.3
    state = await tables.execute("ABCD", legal(state, state.turn)[0])
    scheduler.close()
    decision = deciding(state)[0]
    due = think_seconds(state, decision, 1) - search_seconds(state, decision, 1)
    assert due - 0.3 - 0.1 < delays[-1] <= due - 0.3


async def test_a_searching_bot_moves_when_its_think_time_is_up_not_before() -> None:
    """The search runs inside the think time: the message came early by the search's share
    (0.5 s at scale 1), and the move waits out what's left of it."""
    tables = Tables(MemoryEventStore())
    state = await expert_table(tables)
    key = f"{state.deal_no}.{state.deal.moves}.{state.turn}"
    started = anyio.current_time()
    assert await play_turn(tables, "ABCD", key, scale=1) == "played"
    assert anyio.current_time() - started >= 0.5
    for seat, share in ((state.turn, 0.1), (3, 0.0)):  # the hard bot in seat 3 doesn't search
        decision = Decision(seat=seat, kind="bid", key=key)
        assert search_seconds(state, decision, 0.2) == pytest.approx(share)


async def test_a_read_models_wake_up_gathers_the_commits_of_a_moment() -> None:
    """Its follower reads everything since its checkpoint, so one wake-up, sent after the
    commits it gathered, serves them all; one still gathering goes out when the process stops."""
    store = MemoryEventStore()
    state = await open_table(Tables(store))
    first = (await logged(store, "ABCD"))[0]
    woken: list[float] = []
    kind = type(first)
    scheduler = Scheduler(
        lambda turns, _: None,
        scale=0,
        wakes={kind: lambda: woken.append(time.monotonic())},
        gathered={kind},
    )
    committed = time.monotonic()
    await scheduler(state, [first], committed)
    while not woken:
        assert time.monotonic() < committed + 10, "the wake-up never went"
        await anyio.sleep(0.01)
    assert woken[0] - committed >= WAKE_GATHER

    for _ in range(5):
        await scheduler(state, [first], time.monotonic())
    scheduler.close()
    assert len(woken) == 2
