"""Live tables under load: G tables, each with four seated people and one spectator holding
their streams open, moving at a person's pace or flat out.

Starts `euchre serve` as a child process with its own embedded PostgreSQL and Valkey (so the
server's whole process tree is ours to measure) and rate limits off, seats the tables, then for
`--seconds` measures: moves/s, POST latency p50/p99, move-to-every-watcher latency p50/p99 (from
sending a move to each of the table's five streams showing its result), errors, and the CPU the
server's process tree (app, bot worker, PostgreSQL, Valkey) spent per move, in all and by
program, read from /proc, so this client's own CPU doesn't count; nor do its own garbage
collector's pauses, which is off while it plays and measures. `--processes 2` serves with two
API processes on the port.

    uv run python bench/load.py --tables 500 --pace human --seconds 60
    uv run python bench/load.py --tables 20 --pace flat --seconds 30
    uv run python bench/load.py --tables 20 --seconds 30 --observed 3 --trace-sample 0.05
    uv run python bench/load.py --tables 20 --seconds 20 --observed 9 --trace-sample 0.05 \
        --pin-server 1
    uv run python bench/load.py --tables 10 --seconds 20 --observed 9 --trace-sample 0.05 \
        --pin-server 1 --together
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import http.server
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import msgspec
from api import choose, frames

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
MOVING: set[asyncio.Task] = set()  # moves under way (the loop keeps only weak references)


def tree_cpu(root: int) -> float:
    """CPU seconds (user + system) of `root` and every process below it, from /proc."""
    return sum(tree_cpu_by_program(root).values())


def tree_cpu_by_program(root: int) -> dict[str, float]:
    """CPU seconds of `root` and every process below it, by program: `root` (the serving API
    process) as "api", its Python children (the bot worker and any further API processes) as
    "python", then postgres and valkey-server."""
    parents: dict[int, int] = {}
    times: dict[int, tuple[str, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry)] = int(fields[1])
        program = stat[stat.index("(") + 1 : stat.rindex(")")]
        program = "api" if int(entry) == root else "python" if "python" in program else program
        times[int(entry)] = (program, (int(fields[11]) + int(fields[12])) / TICKS)
    totals: dict[str, float] = {}
    stack = [root]
    while stack:
        pid = stack.pop()
        if pid in times:
            program, seconds = times[pid]
            totals[program] = totals.get(program, 0.0) + seconds
        stack.extend(child for child, parent in parents.items() if parent == pid)
    return totals


@dataclass
class Figures:
    measuring: bool = False
    posts: list[float] = field(default_factory=list)
    moves: list[tuple[float, str, int]] = field(default_factory=list)  # (sent, code, seq after)
    seen: dict[tuple[str, int], list[tuple[int, float]]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    conflicts: dict[str, int] = field(default_factory=dict)  # stale 409s by move


class Seat:
    def __init__(self, table: Table, n: int, token: str) -> None:
        self.table, self.n = table, n
        self.headers = {"Authorization": f"Bearer {token}"}
        self.rng = random.Random(f"{table.code}/{n}")
        self.acted_on = -1  # the seq of the view this seat last moved on
        self.moving = False  # a person sends one move at a time
        self.latest: dict | None = None


class Table:
    def __init__(self, code: str) -> None:
        self.code = code
        self.seats: list[Seat] = []
        self.over = asyncio.Event()


async def watch(
    http: aiohttp.ClientSession,
    table: Table,
    who: str,
    headers: dict,
    seat: Seat | None,
    args,
    figures: Figures,
) -> None:
    """One open stream: records when each view arrives; a seat also moves when it may.

    A spectator only needs the `id:` line (the seq); a seat decodes the view to choose.
    """
    arrivals = figures.seen.setdefault((table.code, who), [])
    async with http.get(f"/api/tables/{table.code}/events", headers=headers) as r:
        try:
            async for seq, data in frames(r.content):
                arrivals.append((seq, time.perf_counter()))
                if seat is not None and (seat.latest is None or seq > seat.latest["seq"]):
                    # (not older than the answer to the seat's own last move)
                    seat.latest = msgspec.json.decode(data or b"")
                    if seat.latest["status"] == "over":
                        table.over.set()
                    consider(http, seat, args, figures)
        finally:
            r.close()  # a stream cut off mid-way can't carry another request


def consider(http, seat: Seat, args, figures: Figures) -> None:
    """Move on the newest view if it asks this seat to and no move of its own is on its way.
    A view older than the answer to the seat's own last move is already out of date."""
    view = seat.latest
    if seat.moving or view is None or view["seq"] <= seat.acted_on:
        return
    if view["status"] != "playing" or not any(k != "deal" for k in view["can"]):
        return
    seat.acted_on, seat.moving = view["seq"], True
    task = asyncio.create_task(move(http, seat, view, args, figures))
    MOVING.add(task)
    task.add_done_callback(MOVING.discard)


async def move(http, seat: Seat, view: dict, args, figures: Figures) -> None:
    try:
        if args.pace == "human":
            await asyncio.sleep(seat.rng.uniform(1.0, 3.0))
        answer = await _send(http, seat, view, figures)
        # The answer is the seat's own view after its move: newer than the stream's, perhaps.
        if answer is not None and answer["seq"] > seat.latest["seq"]:
            seat.latest = answer
            if answer["status"] == "over":
                seat.table.over.set()
    finally:
        seat.moving = False
    consider(http, seat, args, figures)


async def _send(http, seat: Seat, view: dict, figures: Figures) -> dict | None:
    """Sends the seat's move; the seat's view after it, if it was taken."""
    body = choose(view, seat.rng)
    if body["type"] != "ready":  # everyone says ready at once: no seq, or three would be stale
        body["seq"] = view["seq"]
    sent = time.perf_counter()
    try:
        async with http.post(
            f"/api/tables/{seat.table.code}/moves", json=body, headers=seat.headers
        ) as r:
            answer = await r.read()
    except aiohttp.ClientError as error:
        figures.errors.append(f"POST: {type(error).__name__} {error}")
        return None
    took = time.perf_counter() - sent
    if r.status == 409:
        figures.conflicts[body["type"]] = figures.conflicts.get(body["type"], 0) + 1
        return None
    if r.status != 200:
        figures.errors.append(f"{r.status} {answer[:120]!r}")
        return None
    after = msgspec.json.decode(answer)
    if figures.measuring:
        figures.posts.append(took)
        figures.moves.append((sent, seat.table.code, after["seq"]))
    return after


async def post(http: aiohttp.ClientSession, path: str, body: dict | None, headers=None) -> dict:
    async with http.post(path, json=body, headers=headers) as r:
        r.raise_for_status()
        return await r.json()


async def players(http: aiohttp.ClientSession, n: int) -> list[str]:
    return [(await post(http, "/api/players", {"name": f"Load{n}x{s}"}))["token"] for s in range(4)]


async def seat_table(
    http: aiohttp.ClientSession, n: int, tokens: list[str], **opening: object
) -> Table:
    """A table with `tokens[0]` hosting and the others sitting down; `opening` goes into the
    body that opens it (house rules, for one)."""
    code = f"LOAD{n}-{uuid.uuid4().hex[:6]}".upper()
    host = {"Authorization": f"Bearer {tokens[0]}"}
    await post(http, "/api/tables", {"code": code, **opening}, host)
    table = Table(code)
    for s in range(1, 4):
        headers = {"Authorization": f"Bearer {tokens[s]}"}
        await post(http, f"/api/tables/{code}/seats/{s}", None, headers)
    table.seats = [Seat(table, s, tokens[s]) for s in range(4)]
    return table


async def play_games(
    http: aiohttp.ClientSession,
    n: int,
    tokens: list[str],
    args,
    figures: Figures,
    go: asyncio.Event,
) -> None:
    """The same four people at table after table: when a game ends they open the next, so a
    flat-out run stays at `--tables` live tables however fast games finish."""
    first = True
    while True:
        table = await seat_table(http, n, tokens)
        streams = [
            asyncio.create_task(watch(http, table, f"s{seat.n}", seat.headers, seat, args, figures))
            for seat in table.seats
        ]
        streams.append(
            asyncio.create_task(watch(http, table, "spectator", {}, None, args, figures))
        )
        try:
            if first:
                await go.wait()  # every table's streams open before any game starts
                first = False
            else:
                await asyncio.sleep(0.5)  # the streams open before the start
            await post(http, f"/api/tables/{table.code}/start", None, table.seats[0].headers)
            await table.over.wait()
        finally:
            for stream in streams:
                stream.cancel()
            for outcome in await asyncio.gather(*streams, return_exceptions=True):
                if not isinstance(outcome, asyncio.CancelledError | None):
                    figures.errors.append(f"a stream failed: {outcome!r}")


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else float("nan")


def watcher_latencies(figures: Figures) -> list[float]:
    """For each move, the delay until each stream of its table showed a view at or past it."""
    by_table: dict[str, list[list[tuple[int, float]]]] = {}
    for (code, _), arrivals in figures.seen.items():
        by_table.setdefault(code, []).append(arrivals)
    out = []
    for sent, code, seq in figures.moves:
        for arrivals in by_table.get(code, []):
            at = next((t for s, t in arrivals if s >= seq), None)
            if at is not None:
                out.append(max(0.0, at - sent))
    return out


def client(base: str, source: str | None = None) -> aiohttp.ClientSession:
    """A session for many people at once, each holding streams open; from the address `source`
    (any 127.x.y.z on Linux) if given."""
    # Unbounded: every stream holds a connection; idle ones go before the server drops them.
    local = None if source is None else (source, 0)
    connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=30, local_addr=local)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=30)
    jar = aiohttp.DummyCookieJar()  # each call says who it is by its token, as API clients do
    return aiohttp.ClientSession(base, connector=connector, timeout=timeout, cookie_jar=jar)


async def run(servers: list[Server], args) -> list[float]:
    """Play on every server in `servers` at once and measure them over the same seconds, so a
    spell of the machine running slower falls on each alike; each one's CPU seconds per move."""
    figures = [Figures() for _ in servers]
    async with contextlib.AsyncExitStack() as stack:
        sessions = [await stack.enter_async_context(client(s.base)) for s in servers]
        games: list[tuple[Figures, asyncio.Task]] = []
        go = asyncio.Event()
        for http, figs in zip(sessions, figures, strict=True):
            people = []
            for start in range(0, args.tables, 25):
                batch = range(start, min(start + 25, args.tables))
                people += await asyncio.gather(*(players(http, n) for n in batch))
            games += [
                (figs, asyncio.create_task(play_games(http, n, tokens, args, figs, go)))
                for n, tokens in enumerate(people)
            ]
        await asyncio.sleep(2 + len(servers) * args.tables / 100)  # tables and streams open
        print(
            f"seated {args.tables} tables"
            + (f" on each of {len(servers)} servers" if len(servers) > 1 else ""),
            flush=True,
        )
        # This client is the instrument: its own collector's pauses (up to 200 ms at 500
        # tables, as its record of every arrival grows) would count as the server's latency.
        # What it made so far is kept out of the collector's sight, and the collector stays
        # off until the figures are in.
        gc.collect()
        gc.freeze()
        gc.disable()
        go.set()
        await asyncio.sleep(args.warmup)
        by0 = [tree_cpu_by_program(s.pid) for s in servers]
        t0, own0 = time.perf_counter(), time.process_time()
        for figs in figures:
            figs.measuring = True
        await asyncio.sleep(args.seconds)
        for figs in figures:
            figs.measuring = False
        by1, t1 = [tree_cpu_by_program(s.pid) for s in servers], time.perf_counter()
        client_cpu = time.process_time() - own0
        gc.enable()
        await asyncio.sleep(1)  # let the last views arrive
        tasks = [task for _, task in games]
        for task in [*tasks, *MOVING]:
            task.cancel()
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        for (figs, _), outcome in zip(games, outcomes, strict=True):
            if not isinstance(outcome, asyncio.CancelledError):
                figs.errors.append(f"a table's games stopped: {outcome!r}")
    print(f"client CPU={client_cpu / (t1 - t0):.2f} cores", flush=True)
    return [
        report(args, figs, before, after, t1 - t0)
        for figs, before, after in zip(figures, by0, by1, strict=True)
    ]


def report(
    args, figures: Figures, before: dict[str, float], after: dict[str, float], seconds: float
) -> float:
    """Prints one server's figures; its CPU seconds per move."""
    moves = len(figures.moves)
    watchers = watcher_latencies(figures)
    spent = {program: after[program] - before.get(program, 0.0) for program in after}
    cpu = sum(spent.values())
    shares = ", ".join(
        f"{program} {used / max(moves, 1) * 1000:.2f} ms"
        for program, used in sorted(spent.items(), key=lambda item: -item[1])
    )
    print(
        f"tables={args.tables} pace={args.pace} seconds={seconds:.0f}\n"
        f"moves/s={moves / seconds:.1f}  POST p50={pct(figures.posts, 50) * 1000:.1f} ms"
        f"  p99={pct(figures.posts, 99) * 1000:.1f} ms\n"
        f"move-to-every-watcher p50={pct(watchers, 50) * 1000:.1f} ms"
        f"  p99={pct(watchers, 99) * 1000:.1f} ms  ({len(watchers)} deliveries)\n"
        f"server CPU per move={cpu / max(moves, 1) * 1000:.2f} ms"
        f"  (server tree used {cpu / seconds:.2f} cores)\n"
        f"  of which {shares}\n"
        f"errors={len(figures.errors)}  stale 409s={figures.conflicts}",
        flush=True,
    )
    for error in sorted(set(figures.errors))[:5]:
        print("  error:", error)
    return cpu / max(moves, 1)


@dataclass
class Server:
    """A running `euchre serve` and the embedded servers it started."""

    base: str
    pid: int
    database_url: str  # the embedded PostgreSQL's, for reading the log back after a run
    redis_url: str


def environment(**env: str) -> dict[str, str]:
    """This process's environment with `env` as the only EUCHRE_* settings: whatever the shell
    exports, a benchmark's servers are its own."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("EUCHRE_")}
    return environ | env


@contextlib.contextmanager
def serving(*options: str, cpus: set[int] | None = None, **env: str) -> Iterator[Server]:
    """`euchre serve` with `options` on a port it picks (port 0), with a data directory of its
    own (so its own embedded PostgreSQL and Valkey), rate limits off unless `env` turns them
    on, and `env`; stopped on the way out. `cpus`: the only processors its whole tree may run
    on (its children inherit the affinity)."""
    with tempfile.TemporaryDirectory(prefix="euchre-load-") as data:
        server = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "serve", "--port", "0", *options],
            cwd=ROOT,
            env=environment(**({"EUCHRE_DATA_DIR": data, "EUCHRE_RATE_LIMITS": "off"} | env)),
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=None if cpus is None else lambda: os.sched_setaffinity(0, cpus),
        )
        try:
            said = ""
            for line in server.stdout:
                said += line
                if "serving on" in line:
                    break
            else:
                raise SystemExit("the server did not start")
            base = re.search(r"serving on (http://\S+?)/? ", said)
            urls = dict(re.findall(r"embedded (PostgreSQL|Valkey) ready at (\S+)", said))
            assert base is not None, said
            yield Server(base.group(1), server.pid, urls["PostgreSQL"], urls["Valkey"])
        finally:
            server.terminate()
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:  # a server stuck on its way out must not outlive us
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--pace", choices=["human", "flat"], default="flat")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument(
        "--processes", type=int, default=1, help="API processes `euchre serve` runs (default 1)"
    )
    parser.add_argument(
        "--signed-heads",
        type=int,
        metavar="ROUNDS",
        help="measure what signing views' heads costs: ROUNDS runs each with signing on and "
        "off (EUCHRE_SIGNED_HEADS), alternating, and the medians' ratio",
    )
    parser.add_argument(
        "--observed",
        type=int,
        metavar="ROUNDS",
        help="measure what metrics and tracing cost: ROUNDS runs each with both on (spans sent "
        "over OTLP to a sink in this process) and both off, alternating, and the medians' ratio",
    )
    parser.add_argument(
        "--traced",
        type=int,
        metavar="ROUNDS",
        help="measure what tracing alone costs: as --observed, but metrics on both ways",
    )
    parser.add_argument(
        "--trace-sample",
        type=float,
        default=1.0,
        help="with --observed or --traced, the fraction of requests and messages traced "
        "(default 1: all)",
    )
    parser.add_argument(
        "--pin-server",
        type=int,
        metavar="N",
        help="the server's whole tree on the machine's last N processors and this client on "
        "the others, so neither takes the other's: flat out, the runs then differ less",
    )
    parser.add_argument(
        "--together",
        action="store_true",
        help="with --observed or --signed-heads, each round serves both ways at once on the "
        "same processors, each with --tables tables, measured over the same seconds",
    )
    args = parser.parse_args()
    args.server_cpus = None
    if args.pin_server:
        cpus = sorted(os.sched_getaffinity(0))
        if not 0 < args.pin_server < len(cpus):
            parser.error(f"--pin-server takes 1 to {len(cpus) - 1} of the {len(cpus)} processors")
        args.server_cpus = set(cpus[-args.pin_server :])
        os.sched_setaffinity(0, set(cpus[: -args.pin_server]))
    if args.signed_heads:
        compare(
            args,
            args.signed_heads,
            "signing heads",
            {"EUCHRE_SIGNED_HEADS": "on"},
            {"EUCHRE_SIGNED_HEADS": "off"},
        )
        return
    if args.observed or args.traced:
        with otlp_sink() as endpoint:
            tracing = {
                "EUCHRE_OTLP_ENDPOINT": endpoint,
                "EUCHRE_TRACE_SAMPLE": str(args.trace_sample),
            }
            metrics = {"EUCHRE_METRICS": "on"}
            if args.observed:
                observed = tracing | metrics
                compare(
                    args, args.observed, "metrics and tracing", observed, {"EUCHRE_METRICS": "off"}
                )
            else:
                compare(args, args.traced, "tracing", tracing | metrics, metrics)
        return
    options = ("--processes", str(args.processes))
    with serving(*options, cpus=args.server_cpus, EUCHRE_BOT_DELAY_SCALE="0") as server:
        asyncio.run(run([server], args))


def compare(args, rounds: int, what: str, on: dict[str, str], off: dict[str, str]) -> None:
    """Server CPU per move with `what` on and off, the same load. One after the other, rounds
    alternate so that a machine slowing down in the middle weighs on both alike; `--together`,
    each round runs both servers at once on the same processors and measures them over the
    same seconds, which takes the machine's own drift out of each pair."""
    spent: dict[str, list[float]] = {"on": [], "off": []}
    options = ("--processes", str(args.processes))
    for n in range(rounds):
        modes = [("on", on), ("off", off)]
        if args.together and n % 2:  # neither is always the first seated
            modes.reverse()
        for group in [modes] if args.together else [[mode] for mode in modes]:
            names = " and ".join(mode for mode, _ in group)
            together = " at once (in that order)" if args.together else ""
            print(f"-- {what} {names}{together}", flush=True)
            with contextlib.ExitStack() as stack:
                servers = [
                    stack.enter_context(
                        serving(*options, cpus=args.server_cpus, EUCHRE_BOT_DELAY_SCALE="0", **env)
                    )
                    for _, env in group
                ]
                for (mode, _), used in zip(group, asyncio.run(run(servers, args)), strict=True):
                    spent[mode].append(used)
    with_it, without = (statistics.median(spent[mode]) * 1000 for mode in ("on", "off"))
    # Each round's on against its off: a machine's slower spells fall on both of a pair more
    # often than on both medians.
    pairs = [(on_ / off_ - 1) * 100 for on_, off_ in zip(spent["on"], spent["off"], strict=True)]
    print(
        f"server CPU per move, median of {rounds}: {what} on {with_it:.3f} ms, off "
        f"{without:.3f} ms; {what} add {(with_it / without - 1) * 100:+.1f}%; by pair "
        f"{', '.join(f'{p:+.1f}%' for p in pairs)} (median {statistics.median(pairs):+.1f}%)",
        flush=True,
    )
    if args.together and rounds > 1:
        # The server seated first runs a few per cent costlier, whichever it is (2-3 % on a
        # 2-core machine, seen with nothing different between the two): each order's median
        # pair, and their mean, in which that cancels.
        first = statistics.median(pairs[0::2])
        second = statistics.median(pairs[1::2])
        print(
            f"by order: {what} seated first {first:+.1f}%, seated second {second:+.1f}%; "
            f"the mean of both orders {(first + second) / 2:+.1f}%",
            flush=True,
        )


@contextlib.contextmanager
def otlp_sink() -> Iterator[str]:
    """An OTLP/HTTP endpoint that takes every export and keeps nothing: the server pays for
    making and sending its spans, as it would to a real collector; what a collector does with
    them is the collector's machine's cost."""

    class Sink(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
