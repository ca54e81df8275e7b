"""Bots at their real pace under load: how late each bot move lands against its think time.

N live tables, each with one person who moves the moment it may (load.py's flat pace, through
its stream) and three bots (the table's default level) at the brisk pace with the real delays
(EUCHRE_BOT_DELAY_SCALE left at 1). `euchre serve` runs as a child process with its own
embedded PostgreSQL and Valkey; `--workers` starts `euchre worker` processes beside the one it
runs, so whether more of them keep the bots on time can be measured.

Lateness is read from the log, not from this client, so nothing between the server and it
counts: after the run each table's events are read back from that PostgreSQL and folded
through the rules, which say exactly which bot decisions each commit left pending and their
think times (services/bots/pacing.py). For each bot move,

    lateness = at(the bot's move) - at(the commit that made it the bot's turn) - think time

with `at` the time the events' appending transaction began (the log's `at` column; each
append is one statement, so that is its commit less the statement's own few milliseconds, on
both sides alike). Counted: bot decisions whose turn began in the `--seconds` window after the
`--warmup`, followed for FOLLOW seconds past the window so its last turns can land; "ready"
takes no think time and isn't counted. Turns that came from a person's move were sent by the
API process, those from a bot's move by a worker: their p95s side by side say which side is late.

    uv run python bench/bots_live.py --tables 1000 --seconds 60
    uv run python bench/bots_live.py --tables 200 --seconds 30 --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from operator import attrgetter

from load import (
    MOVING,
    ROOT,
    Figures,
    Seat,
    Server,
    Table,
    client,
    environment,
    pct,
    post,
    serving,
    tree_cpu_by_program,
    watch,
)

from domain import State
from infra.eventstore import EventStore, RecordedEvent
from projections.replay import fold_records
from services.bots.pacing import bot_decisions, think_seconds
from services.bots.sweeper import GRACE_SECONDS

SCALE = 1.0  # the real delays, as the server runs them
# A turn still unanswered this long after the window closed has outlived the longest think
# time (1.7 s) and the sweeper's grace, so its message was lost: it is counted, not waited for.
FOLLOW = 2.0 + GRACE_SECONDS


@dataclass
class Turn:
    """One bot decision as the log tells it."""

    began: datetime  # the commit that left it pending
    think: float
    after_bot: bool  # that commit was a bot's move (its turn was sent by the worker)
    moved: datetime | None = None  # the bot's own move


def bot_turns(code: str, records: list[RecordedEvent]) -> list[Turn]:
    """Every bot decision at one table, from its log.

    Folded one append at a time (an append's events share their transaction), because the
    scheduler sends turns for the state after a whole command, never one in between. A bot's
    append carries the command id `bot/<table>/<decision key>`; a decision pending across
    several commits was first sent at the first, so its clock starts there.
    """
    state, turns, pending = State(), [], {}
    for _, appended in itertools.groupby(records, key=attrgetter("xid")):
        group = list(appended)
        at, command = group[0].at, group[0].command_id or ""
        state = fold_records(group, state)
        if command.startswith(f"bot/{code}/"):
            turn = pending.get(command.split("/")[2])
            if turn is not None:
                turn.moved = at
        now = {decision.key: decision for decision in bot_decisions(state)}
        for key, decision in now.items():
            if key not in pending:
                think = think_seconds(state, decision, SCALE)
                pending[key] = Turn(at, think, after_bot=command.startswith("bot/"))
                turns.append(pending[key])
        pending = {key: pending[key] for key in now}
    return turns


async def play_tables(
    http, n: int, token: str, args, figures: Figures, codes: list[str], started: set[int]
) -> None:
    """One person at table after table with three bots: when a game ends they open the next,
    so the run stays at `--tables` live tables."""
    headers = {"Authorization": f"Bearer {token}"}
    while True:
        code = f"BOTS{n}-{uuid.uuid4().hex[:6]}".upper()
        await post(http, "/api/tables", {"code": code}, headers)
        codes.append(code)
        table = Table(code)
        table.seats = [Seat(table, 0, token)]
        # The stream shows the table as it is when it opens: started first or not, the person
        # sees their turn.
        stream = asyncio.create_task(
            watch(http, table, "s0", headers, table.seats[0], args, figures)
        )
        try:
            await post(http, f"/api/tables/{code}/start", None, headers)  # the bots sit down
            started.add(n)
            await table.over.wait()
        finally:
            stream.cancel()
            (outcome,) = await asyncio.gather(stream, return_exceptions=True)
            if not isinstance(outcome, asyncio.CancelledError | None):
                figures.errors.append(f"a stream failed: {outcome!r}")


@contextlib.contextmanager
def more_workers(server: Server, processes: int, threads: int) -> Iterator[list[int]]:
    """`euchre worker` processes beside the one `euchre serve` runs, on its servers; their
    pids, for their CPU. One command each, so each is stopped by its own SIGTERM."""
    env = environment(EUCHRE_DATABASE_URL=server.database_url, EUCHRE_REDIS_URL=server.redis_url)
    argv = [sys.executable, "-m", "services.cli", "worker", "--threads", str(threads)]
    with contextlib.ExitStack() as stack:
        workers = [
            stack.enter_context(subprocess.Popen(argv, cwd=ROOT, env=env)) for _ in range(processes)
        ]
        for worker in workers:
            stack.callback(worker.terminate)
        yield [worker.pid for worker in workers]


async def read_log(database_url: str, codes: list[str]) -> dict[str, list[RecordedEvent]]:
    store = await EventStore.open(database_url, size=4)
    try:
        logs = await asyncio.gather(*(store.read(code) for code in codes))
    finally:
        await store.close()
    return dict(zip(codes, logs, strict=True))


async def run(server: Server, args, pids: list[int]) -> None:
    figures, codes, started = Figures(), [], set()

    def cpu() -> dict[str, float]:
        totals: dict[str, float] = {}
        for pid in pids:
            for program, seconds in tree_cpu_by_program(pid).items():
                # The further workers' roots are Python processes like serve's own worker.
                program = "python" if program == "api" and pid != server.pid else program
                totals[program] = totals.get(program, 0.0) + seconds
        return totals

    async with client(server.base) as http:
        tokens = []
        for first in range(0, args.tables, 25):
            batch = range(first, min(first + 25, args.tables))
            answers = [post(http, "/api/players", {"name": f"Live{n}"}) for n in batch]
            tokens += [player["token"] for player in await asyncio.gather(*answers)]
        games = [
            asyncio.create_task(play_tables(http, n, token, args, figures, codes, started))
            for n, token in enumerate(tokens)
        ]
        while len(started) < args.tables:
            for game in games:
                if game.done():
                    game.result()  # what stopped it, before waiting for it in vain
            await asyncio.sleep(0.1)
        print(f"{args.tables} tables playing", flush=True)
        # This client shares the box with the server: as in load.py, its collector stays off
        # while it plays, so the CPU it leaves the server isn't spent walking its own records.
        gc.collect()
        gc.freeze()
        gc.disable()
        await asyncio.sleep(args.warmup)
        cpu0, t0, opened = cpu(), time.perf_counter(), datetime.now(UTC)
        own0 = time.process_time()
        figures.measuring = True
        await asyncio.sleep(args.seconds)
        figures.measuring = False
        cpu1, t1, closed = cpu(), time.perf_counter(), datetime.now(UTC)
        client_cpu = time.process_time() - own0
        gc.enable()
        await asyncio.sleep(FOLLOW)
        for task in [*games, *MOVING]:
            task.cancel()
        for outcome in await asyncio.gather(*games, return_exceptions=True):
            if not isinstance(outcome, asyncio.CancelledError):
                figures.errors.append(f"a table's games stopped: {outcome!r}")
    logs = await read_log(server.database_url, codes)

    turns = [turn for code, log in logs.items() for turn in bot_turns(code, log)]
    bot_moves = sum(1 for t in turns if t.moved is not None and opened <= t.moved < closed)
    window = [t for t in turns if opened <= t.began < closed and t.think > 0]
    measured = [t for t in window if t.moved is not None]
    late = [((t.moved - t.began).total_seconds() - t.think, t) for t in measured]
    lateness = [lag for lag, _ in late]
    share = [lag / t.think for lag, t in late]
    after_person = [lag for lag, t in late if not t.after_bot]
    after_bot = [lag for lag, t in late if t.after_bot]
    seconds = t1 - t0
    moves = len(figures.moves) + bot_moves
    spent = {program: cpu1[program] - cpu0.get(program, 0.0) for program in cpu1}
    used = sum(spent.values())
    shares = ", ".join(
        f"{program} {spent[program] / max(moves, 1) * 1000:.2f}"
        for program in sorted(spent, key=lambda program: -spent[program])
    )
    print(
        f"tables={args.tables} seconds={seconds:.0f} workers={args.workers}"
        f" x {args.bot_threads} threads\n"
        f"bot moves measured={len(measured)} ({len(window) - len(measured)} unanswered"
        f" {FOLLOW:.0f} s after the window)  bot moves/s={len(measured) / seconds:.1f}\n"
        f"lateness p50={pct(lateness, 50) * 1000:.0f} ms"
        f"  p95={pct(lateness, 95) * 1000:.0f} ms  p99={pct(lateness, 99) * 1000:.0f} ms\n"
        f"lateness/think p50={pct(share, 50):.1%}  p95={pct(share, 95):.1%}\n"
        f"  p95 when the turn came from a person's move={pct(after_person, 95) * 1000:.0f} ms"
        f" ({len(after_person)}), from a bot's move={pct(after_bot, 95) * 1000:.0f} ms"
        f" ({len(after_bot)})\n"
        f"server CPU per move={used / max(moves, 1) * 1000:.2f} ms ({shares})"
        f"  ({moves} moves by people and bots; the server tree used"
        f" {used / seconds:.2f} cores, this client {client_cpu / seconds:.2f})\n"
        f"people's POST p50={pct(figures.posts, 50) * 1000:.1f} ms"
        f"  p99={pct(figures.posts, 99) * 1000:.1f} ms"
        f"  errors={len(figures.errors)}  stale 409s={figures.conflicts}\n"
        "goal: 1,000 live tables with p95 lateness ≤ 10% of think time",
        flush=True,
    )
    for error in sorted(set(figures.errors))[:5]:
        print("  error:", error)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument(
        "--warmup", type=float, default=10, help="seconds after every table has started"
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="bot worker processes, serve's own included"
    )
    parser.add_argument("--bot-threads", type=int, default=4, help="threads per worker process")
    parser.set_defaults(pace="flat")  # the person: load.py's, at once
    args = parser.parse_args()
    with (
        serving("--bot-threads", str(args.bot_threads)) as server,
        more_workers(server, args.workers - 1, args.bot_threads) as workers,
    ):
        asyncio.run(run(server, args, [server.pid, *workers]))


if __name__ == "__main__":
    main()
