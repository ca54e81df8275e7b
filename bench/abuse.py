"""The service under abuse: a bystander's p99 (view, move, sign-in) quiet and under each attack,
and whether `/api/health` ever failed, in one run.

A bystander plays a table of its own (four registered seats, one client on 127.0.0.1, each seat
holding its stream as a browser does): it reads the view of whoever is to decide every
`--view-every` s and makes that seat's move every `--move-every` s on a kept-alive connection,
and a newcomer signs in every `--sign-in-every` s (on a fresh connection from an address of
their own, 127.9.x.y: a person signs in now and then, not every few seconds from one place).
Each phase opens the bystander a new table, starts one attack, waits for it to be in full swing
(at most `--ramp` s), measures for `--seconds`, stops it and waits for the service to answer again:

- quiet: no attack;
- slowloris: `--slowloris` connections, half sending a request's first lines and a header every
  10 s, half sending nothing, reconnecting when the server closes them;
- streams: `--streams` anonymous `GET /api/tables/{code}/events` on the bystander's table;
- resumes: `--resumes` streams with `Last-Event-ID: 1` on a long finished game (one this bench
  plays through at the start), each closed as soon as it has caught up and opened again;
- flood: `--flood` addresses, each posting wrong passwords for real and made-up names back to
  back;
- quiet again: whether the service came back.

Every attack's connections are spread over `--addresses` source addresses (Linux lets a client
bind any 127.x.y.z; each attack has a /16 of its own, none of them 127.0.0.1), from
`--processes` processes of their own, so the measuring client isn't starved of its core; an
attacker refused (429) waits as long as its `Retry-After` says (a second at least) before
trying again: the caps and limits are what an attack meets, and one that ignores them is a
plain request flood, which the per-address connection cap and a proxy's request limit bound
(docs/operations.md); on this box's two cores the attackers' own loop would also take the
server's CPU. 429s and refused connections are what the
attacker gets; a bystander's request that fails or isn't answered within `--timeout` s counts
as a failure of its phase (and in the percentiles at the time it took, `--timeout` for one
unanswered). `/api/health` is asked on a fresh connection every half second from start to end.

Goals, each printed PASS or FAIL: under every attack the bystander's view and move p99 stay
<= 3x quiet and <= 100 ms with no failures, its sign-in p99 <= 1.5 s during the flood, and
health never fails.

Starts `euchre serve` with a data directory of its own (embedded PostgreSQL and Valkey), rate
limits on as deployed (`--limits off` for none), or measures a running one with `--url` (rate
limits count 127.0.0.1's sign-ins there: run it at most once an hour against one server).
Every process raises its open-file limit to the hard limit; so does the server it starts.

    uv run python bench/abuse.py
    uv run python bench/abuse.py --slowloris 2000 --streams 500 --resumes 50 --flood 30
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import multiprocessing
import os
import queue
import random
import resource
import statistics
import subprocess
import time
import uuid
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import msgspec
from api import choose
from load import ROOT, client, post, seat_table, serving
from rules import random_game

PASSWORD = "the-bystanders-password"
REFUSED_PAUSE = 1.0  # an attacker refused waits this long before trying again


def refused_pause(r: aiohttp.ClientResponse) -> float:
    """How long a refused attacker waits: the server's Retry-After, if it gave one."""
    try:
        return max(REFUSED_PAUSE, float(r.headers.get("Retry-After", REFUSED_PAUSE)))
    except ValueError:
        return REFUSED_PAUSE


DRIP = 10.0  # a slowloris connection's next header line, this many seconds after its last
HEALTH_EVERY = 0.5
NETS = {"slowloris": 1, "streams": 2, "resumes": 3, "flood": 4}  # each attack's 127.N.0.0/16
NEWCOMERS = 9  # the bystander's sign-ins come from 127.9.0.0/16, one address each


def more_files() -> None:
    """Open-file limit up to the hard limit: 20,000 connections need as many descriptors."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def lowest_priority() -> None:
    """Niceness 19 that holds: where the kernel groups processes by session (autogroup, on by
    default in most distributions) a process's niceness only ranks it within its session, and
    each session gets an equal share of the cores, so niced attackers in the bench's session still
    took half of them from the server's (measured: 75% of both cores went to them). In a session
    of its own with that session's niceness 19 too, an attacker gets only what the others leave."""
    os.setsid()
    # Where there are no autogroups, niceness alone is what counts.
    with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as group:
        group.write("19")
    os.nice(19)


def source(net: int, n: int) -> str:
    """The `n`th source address of an attack's /16 (never 127.0.0.1, the bystander's)."""
    return f"127.{net}.{n // 250}.{n % 250 + 1}"


# -- the attackers, each part in a process of its own ------------------------------------------


@dataclass
class Orders:
    """What one attack's processes are told: how many connections (or clients) over how many
    addresses, and where."""

    kind: str
    base: str
    count: int
    addresses: int
    code: str = ""  # the finished game the resumes replay
    final: int = 0  # its last seq
    names: list[str] = field(default_factory=list)  # real names the flood guesses at


def attacker(orders: Orders, part: int, parts: int, tallies, codebox) -> None:
    """One process's share of an attack: connections `part`, `part + parts`, ... of
    `orders.count`, reporting its tally every second until it is terminated.

    At niceness 19: an attacker's CPU is its own machine's, not the server's, and on a box of
    two cores an attack's loop at normal priority measured the attacker's share of the cores
    as much as what the attack costs the server."""
    more_files()
    lowest_priority()
    asyncio.run(_attack(orders, part, parts, tallies, codebox))


async def _attack(orders: Orders, part: int, parts: int, tallies, codebox) -> None:
    tally: Counter[str] = Counter()
    mine = range(part, orders.count, parts)
    addresses = [source(NETS[orders.kind], n % orders.addresses) for n in mine]
    work: list[asyncio.Task] = []
    if orders.kind == "slowloris":
        url = urlsplit(orders.base)
        gate = asyncio.Semaphore(500)  # connects under way at once
        work = [
            asyncio.create_task(loris(url.hostname, url.port, at, n % 2 == 0, tally, gate))
            for n, at in zip(mine, addresses, strict=True)
        ]
    else:
        sessions = {at: client(orders.base, at) for at in set(addresses)}
        if orders.kind == "streams":
            work = [asyncio.create_task(follow(sessions, addresses, codebox, tally))]
        elif orders.kind == "resumes":
            work = [
                asyncio.create_task(resume(sessions[at], orders.code, orders.final, tally))
                for at in addresses
            ]
        else:
            work = [
                asyncio.create_task(guess(sessions[at], orders.names, random.Random(n), tally))
                for n, at in zip(mine, addresses, strict=True)
            ]
    while True:
        tallies.put((part, dict(tally)))
        await asyncio.sleep(1)
        for task in work:
            if task.done() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]


def once(tally: Counter) -> Callable[[], None]:
    """Counts a connection's (or a client's) first outcome in `tally["settled"]`, and no other."""
    done = False

    def settled() -> None:
        nonlocal done
        if not done:
            tally["settled"] += 1
            done = True

    return settled


async def loris(host, port, at: str, half: bool, tally: Counter, gate) -> None:
    """One slow connection: half a request dribbled out (`half`) or nothing at all; when the
    server closes it, another."""
    settled = once(tally)
    while True:
        try:
            async with gate:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(host, port, local_addr=(at, 0)), 10
                )
        except ConnectionRefusedError:
            tally["refused"] += 1
            await asyncio.sleep(REFUSED_PAUSE)
            continue
        except TimeoutError:
            tally["connect timed out"] += 1
            continue
        except OSError as error:
            tally[f"connect {error.strerror}"] += 1
            await asyncio.sleep(REFUSED_PAUSE)
            continue
        finally:
            settled()
        tally["open"] += 1
        tally["opened"] += 1
        try:
            if half:
                writer.write(b"GET / HTTP/1.1\r\nHost: abuse\r\n")
            while True:
                try:
                    data = await asyncio.wait_for(reader.read(4096), DRIP)
                except TimeoutError:
                    if half:
                        writer.write(b"X-Drip: 1\r\n")
                    continue
                if not data:
                    break
                tally["answered"] += 1  # the server said something (400, 408, ...) first
        except OSError:
            pass
        finally:
            tally["open"] -= 1
            tally["closed by the server"] += 1
            writer.close()
        await asyncio.sleep(REFUSED_PAUSE)


async def follow(sessions, addresses: list[str], codebox, tally: Counter) -> None:
    """This process's streams on the bystander's table; on another table once it moves."""
    code, streams = "", []
    while True:
        now = codebox.value.decode()
        if now != code:
            for task in streams:
                task.cancel()
            code = now
            streams = [asyncio.create_task(watch(sessions[at], code, tally)) for at in addresses]
        await asyncio.sleep(1)


async def watch(http: aiohttp.ClientSession, code: str, tally: Counter) -> None:
    """One anonymous stream held open, read and thrown away; opened again when it ends."""
    settled = once(tally)
    while True:
        try:
            async with http.get(f"/api/tables/{code}/events") as r:
                settled()
                if r.status != 200:
                    tally[f"{r.status}"] += 1
                    await asyncio.sleep(refused_pause(r))
                    continue
                tally["open"] += 1
                tally["opened"] += 1
                try:
                    while await r.content.readany():
                        pass
                    tally["ended by the server"] += 1
                finally:
                    tally["open"] -= 1
        except (aiohttp.ClientError, OSError) as error:
            settled()
            tally[type(error).__name__] += 1
            await asyncio.sleep(REFUSED_PAUSE)


async def resume(http: aiohttp.ClientSession, code: str, final: int, tally: Counter) -> None:
    """Resume the finished game from its first event, read until it has caught up, hang up,
    again and again."""
    headers, settled = {"Last-Event-ID": "1"}, once(tally)
    while True:
        try:
            async with http.get(f"/api/tables/{code}/events", headers=headers) as r:
                settled()
                tally["answers"] += 1
                if r.status != 200:
                    tally[f"{r.status}"] += 1
                    await asyncio.sleep(refused_pause(r))
                    continue
                got = 0
                async for line in r.content:
                    got += len(line)
                    if line.startswith(b"id:") and int(line[3:]) >= final:
                        break
                else:
                    tally["ended before catching up"] += 1
                    continue
                tally["caught up"] += 1
                tally["bytes"] += got
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            settled()
            tally[type(error).__name__] += 1
            await asyncio.sleep(REFUSED_PAUSE)


async def guess(http: aiohttp.ClientSession, names: list[str], rng, tally: Counter) -> None:
    """Wrong passwords back to back, for real names half the time and made-up ones else."""
    settled = once(tally)
    while True:
        name = rng.choice(names) if rng.random() < 0.5 else f"Nobody{rng.getrandbits(40):010x}"
        body = {"name": name, "password": f"wrong-{rng.getrandbits(64):016x}"}
        try:
            async with http.post("/api/sessions", json=body) as r:
                await r.read()
                tally["answers"] += 1
                tally[f"{r.status}"] += 1
            settled()
            if r.status == 429:
                await asyncio.sleep(refused_pause(r))
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            settled()
            tally[type(error).__name__] += 1
            await asyncio.sleep(REFUSED_PAUSE)


class Attack:
    """An attack's processes, started and stopped from the measuring one, and their tallies."""

    GAUGES = ("open", "settled")  # not counts of what happened while measuring

    def __init__(self, orders: Orders, parts: int, codebox) -> None:
        spawn = multiprocessing.get_context("spawn")
        self.orders = orders
        self.tallies = spawn.Queue()
        self.latest: dict[int, dict[str, int]] = {}
        self.processes = [
            spawn.Process(
                target=attacker, args=(orders, part, parts, self.tallies, codebox), daemon=True
            )
            for part in range(parts)
        ]

    def start(self) -> None:
        for process in self.processes:
            process.start()

    def tally(self) -> Counter[str]:
        with contextlib.suppress(queue.Empty):
            while True:
                part, counts = self.tallies.get_nowait()
                self.latest[part] = counts
        total: Counter[str] = Counter()
        for counts in self.latest.values():
            total.update(counts)
        return total

    def in_full_swing(self) -> bool:
        """Every connection or client has had its first answer (open, refused, ...)."""
        return self.tally()["settled"] >= self.orders.count

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.join(10)
            if process.is_alive():
                process.kill()
                process.join()


# -- the bystander -----------------------------------------------------------------------------


def p(values: list[float], q: int) -> float:
    """The q-th percentile, never past the largest value (few sign-ins a phase)."""
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


@dataclass
class Phase:
    name: str
    took: dict[str, list[float]] = field(
        default_factory=lambda: {"view": [], "move": [], "sign-in": []}
    )
    failures: Counter[str] = field(default_factory=Counter)
    health: Counter[str] = field(default_factory=Counter)  # "ok" and each kind of failure
    own_streams: Counter[str] = field(default_factory=Counter)  # the bystander's, cut or refused
    attack: str = ""
    tables: int = 0


class Bystander:
    """One person playing all four seats of a table, by turns, on one kept-alive connection."""

    def __init__(
        self, base: str, http, fresh, tokens: list[str], names: list[str], timeout: float
    ) -> None:
        self.base, self.http, self.fresh = base, http, fresh
        self.tokens, self.names = tokens, names
        self.headers = [{"Authorization": f"Bearer {t}"} for t in tokens]
        self.timeout = aiohttp.ClientTimeout(total=timeout)
        self.rng = random.Random(45)
        self.code, self.view = "", {}
        self.recording: Phase | None = None
        self.holding: list[asyncio.Task] = []
        self.codebox: Any = None  # where the stream attackers read which table to watch

    async def table(self, n: int, **opening) -> str:
        """A new table with the four seated and started; its code."""
        table = await seat_table(self.http, n, self.tokens, **opening)
        for task in self.holding:
            task.cancel()
        self.holding = [
            asyncio.create_task(self.hold(table.code, headers)) for headers in self.headers
        ]
        self.code = table.code
        if self.codebox is not None:
            self.codebox.value = table.code.encode()
        self.view = await post(self.http, f"/api/tables/{table.code}/start", None, self.headers[0])
        return table.code

    async def hold(self, code: str, headers: dict) -> None:
        """A seat's stream, read and thrown away, as a browser keeps it; opened again if cut."""
        while True:
            try:
                async with self.http.get(f"/api/tables/{code}/events", headers=headers) as r:
                    if r.status != 200:
                        self.own_stream(f"refused {r.status}")
                    else:
                        while await r.content.readany():
                            pass
                        self.own_stream("ended")
            except (aiohttp.ClientError, OSError) as error:
                self.own_stream(type(error).__name__)
            await asyncio.sleep(1)

    def own_stream(self, what: str) -> None:
        if self.recording is not None:
            self.recording.own_streams[what] += 1

    def seat(self) -> int:
        """Whoever is to decide; between hands, the first not ready yet."""
        if self.view["turn"] is not None:
            return self.view["turn"]
        return next((s for s, ready in enumerate(self.view["ready"]) if not ready), 0)

    async def timed(self, kind: str, request: Any) -> dict | None:
        """The answer's body, with its time (and any failure) recorded while measuring."""
        start = time.perf_counter()
        try:
            async with request as r:
                body = await r.read()
            took, failure = time.perf_counter() - start, None if r.status < 300 else str(r.status)
        except TimeoutError:
            took, failure = self.timeout.total or 0.0, "timed out"
        except (aiohttp.ClientError, OSError) as error:
            took, failure = time.perf_counter() - start, type(error).__name__
        if self.recording is not None:
            self.recording.took[kind].append(took)
            if failure is not None:
                self.recording.failures[f"{kind} {failure}"] += 1
        return None if failure is not None else msgspec.json.decode(body)

    async def look(self) -> dict | None:
        seat = self.seat()
        path = f"/api/tables/{self.code}"
        got = await self.timed(
            "view", self.http.get(path, headers=self.headers[seat], timeout=self.timeout)
        )
        if got is not None:
            self.view = got
        return got

    async def move(self) -> None:
        """The move of whoever is to decide, chosen on their own view."""
        seat = self.seat()
        mine = await self.look()
        if mine is None or not any(k != "deal" for k in mine["can"]):
            return
        path = f"/api/tables/{self.code}/moves"
        request = self.http.post(
            path, json=choose(mine, self.rng), headers=self.headers[seat], timeout=self.timeout
        )
        answer = await self.timed("move", request)
        if answer is not None:
            self.view = answer

    async def sign_in(self, n: int) -> None:
        body = {"name": self.names[n % len(self.names)], "password": PASSWORD}
        async with client(self.base, source(NEWCOMERS, n)) as newcomer:
            await self.timed(
                "sign-in", newcomer.post("/api/sessions", json=body, timeout=self.timeout)
            )


async def every(seconds: float, until: float, act: Callable[[int], Coroutine]) -> None:
    """`act(n)` every `seconds` till `until`, each on time even if the one before is slow."""
    start, running, n = time.perf_counter(), set(), 0
    while (now := time.perf_counter()) < until:
        task = asyncio.create_task(act(n))
        running.add(task)
        task.add_done_callback(running.discard)
        n += 1
        await asyncio.sleep(max(0.0, start + n * seconds - now))
    await asyncio.gather(*running)


async def play(by: Bystander, seconds: float, view_every: float, move_every: float) -> None:
    """Views and moves for `seconds`: a move (with the mover's view first) every `move_every`,
    the view alone in between; one request at a time, as on one connection."""
    until, lock = time.perf_counter() + seconds, asyncio.Lock()
    per_move = max(1, round(move_every / view_every))
    tables = 0

    async def act(n: int) -> None:
        nonlocal tables
        async with lock:
            if time.perf_counter() >= until:
                return
            if by.view["status"] == "over":  # rare: a game is longer than a phase
                await by.table(1000 + tables, settings={"turn_limit": "off"})
                tables += 1
            if n % per_move == 0:
                await by.move()
            else:
                await by.look()

    await every(view_every, until, act)
    if by.recording is not None:
        by.recording.tables += tables


async def health(fresh, phases: list[Phase], timeout: float, stop: asyncio.Event) -> None:
    """`/api/health` on a fresh connection every half second, whether the last has answered
    or not; each answer counted in the phase under way when it was asked."""
    limit = aiohttp.ClientTimeout(total=timeout)

    async def ask() -> None:
        phase = phases[-1]
        try:
            async with fresh.get("/api/health", timeout=limit) as r:
                await r.read()
                phase.health["ok" if r.status == 200 else f"{r.status}"] += 1
        except TimeoutError:
            phase.health["timed out"] += 1
        except (aiohttp.ClientError, OSError) as error:
            phase.health[type(error).__name__] += 1

    running: set[asyncio.Task] = set()
    while not stop.is_set():
        task = asyncio.create_task(ask())
        running.add(task)
        task.add_done_callback(running.discard)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), HEALTH_EVERY)
    await asyncio.gather(*running)


async def answering(fresh, timeout: float, limit: float) -> float:
    """Seconds until `/api/health` answers 200 (at most `limit`)."""
    start, once = time.perf_counter(), aiohttp.ClientTimeout(total=timeout)
    while (waited := time.perf_counter() - start) < limit:
        with contextlib.suppress(aiohttp.ClientError, OSError, TimeoutError):
            async with fresh.get("/api/health", timeout=once) as r:
                if r.status == 200:
                    return waited
        await asyncio.sleep(0.5)
    return limit


# -- the run ----------------------------------------------------------------------------------


async def register(http, tag: str, n: int) -> tuple[str, str]:
    name = f"Ab{tag}{n}"
    made = await post(http, "/api/players", {"name": name, "password": PASSWORD})
    return name, made["token"]


async def long_game(base: str, http, tag: str, timeout: float) -> tuple[str, int, list[str]]:
    """Four registered players play a game through to the end; its code, last seq and their
    names (real names for the flood to guess at)."""
    people = [await register(http, f"{tag}g", n) for n in range(4)]
    player = Bystander(base, http, http, [t for _, t in people], [n for n, _ in people], timeout)
    code = await player.table(0, settings={"turn_limit": "off"})
    moves = 0
    while player.view["status"] != "over":
        await player.move()
        moves += 1
        if moves > 5000:
            raise SystemExit(f"the game {code} did not end in 5,000 moves")
    for task in player.holding:
        task.cancel()
    return code, player.view["seq"], [n for n, _ in people]


async def run(base: str, args) -> list[Phase]:
    tag = uuid.uuid4().hex[:6]
    timeout = args.timeout
    async with (
        client(base) as http,
        aiohttp.ClientSession(
            base,
            connector=aiohttp.TCPConnector(force_close=True),
            cookie_jar=aiohttp.DummyCookieJar(),
        ) as fresh,
    ):
        started = time.perf_counter()
        code, final, names = await long_game(base, http, tag, timeout)
        print(
            f"played the long game {code} to its end: seq {final} "
            f"({time.perf_counter() - started:.1f} s)",
            flush=True,
        )
        people = [await register(http, f"{tag}b", n) for n in range(4)]
        by = Bystander(base, http, fresh, [t for _, t in people], [n for n, _ in people], timeout)
        by.codebox = codebox = multiprocessing.get_context("spawn").Array("c", 64)
        plan: list[tuple[str, Orders | None]] = [
            ("quiet", None),
            ("slowloris", Orders("slowloris", base, args.slowloris, args.addresses)),
            ("streams", Orders("streams", base, args.streams, args.addresses)),
            ("resumes", Orders("resumes", base, args.resumes, args.addresses, code, final)),
            ("flood", Orders("flood", base, args.flood, args.flood, names=names)),
            ("quiet again", None),
        ]
        plan = [(name, orders) for name, orders in plan if orders is None or orders.count > 0]
        phases = [Phase("setting up")]
        stop = asyncio.Event()
        polling = asyncio.create_task(health(fresh, phases, timeout, stop))
        gc.collect()
        gc.freeze()  # what setting up made stays out of the collector's way
        for n, (name, orders) in enumerate(plan):
            phase = Phase(name)
            phases.append(phase)
            try:  # a table of its own each phase: its game outlasts the phase
                opening = by.table(100 + n, settings={"turn_limit": "off"})
                await asyncio.wait_for(opening, 3 * timeout)
            except (aiohttp.ClientError, OSError, TimeoutError) as error:
                print(f"   no new table ({error!r}): the last one goes on", flush=True)
            attack = None if orders is None else Attack(orders, args.processes, codebox)
            ramp = 0.0
            if attack is not None:
                attack.start()
                began = time.perf_counter()
                while time.perf_counter() - began < args.ramp and not attack.in_full_swing():
                    await asyncio.sleep(1)
                ramp = time.perf_counter() - began
                at_start = attack.tally()
            print(f"-- {name}" + (f" (in swing after {ramp:.0f} s)" if attack else ""), flush=True)
            by.recording = phase
            until = time.perf_counter() + args.seconds
            await asyncio.gather(
                play(by, args.seconds, args.view_every, args.move_every),
                every(args.sign_in_every, until, by.sign_in),
            )
            by.recording = None
            if attack is not None:
                phase.attack = described(at_start, attack.tally(), args.seconds)
                attack.stop()
                back = await answering(fresh, timeout, args.ramp)
                phase.attack += f"; health answered {back:.1f} s after the attack stopped"
            report(phase)
        stop.set()
        await polling
        for task in by.holding:
            task.cancel()
    return phases


def described(before: Counter[str], after: Counter[str], seconds: float) -> str:
    """An attack's tally: connections open when measuring began and ended, and what happened
    while it measured."""
    during = {k: after[k] - before[k] for k in after if k not in Attack.GAUGES}
    parts = [f"open {before['open']} -> {after['open']}"] if "open" in after else []
    parts += [
        f"{k} {v}" + (f" ({v / seconds:.0f}/s)" if k in ("answers", "caught up") else "")
        for k, v in sorted(during.items())
        if v
    ]
    if during.get("caught up"):
        parts.append(f"{during['bytes'] / during['caught up'] / 1024:.0f} KiB a resume")
    return ", ".join(parts)


def ms(values: list[float], q: int) -> str:
    return f"{p(values, q) * 1000:7.1f}"


def report(phase: Phase) -> None:
    for kind, took in phase.took.items():
        print(
            f"   {kind:8} n={len(took):4}  p50 {ms(took, 50)} ms  p99 {ms(took, 99)} ms"
            f"  max {max(took, default=float('nan')) * 1000:7.1f} ms",
            flush=True,
        )
    if phase.failures:
        print(f"   bystander failures: {dict(phase.failures)}")
    if phase.own_streams:
        print(f"   bystander's own streams: {dict(phase.own_streams)}")
    print(f"   health: {dict(phase.health)}")
    if phase.attack:
        print(f"   attacker got: {phase.attack}", flush=True)


def goals(phases: list[Phase]) -> bool:
    """Each goal PASS or FAIL; whether all passed."""
    quiet = phases[1]
    verdicts = []

    def verdict(ok: bool, text: str) -> None:
        verdicts.append(ok)
        print(f"  {'PASS' if ok else 'FAIL'}  {text}")

    print("goals:")
    for phase in phases[2:]:
        for kind in ("view", "move"):
            bound = min(3 * p(quiet.took[kind], 99), 0.100)
            got = p(phase.took[kind], 99)
            failed = sum(v for k, v in phase.failures.items() if k.startswith(kind))
            verdict(
                got <= bound and not failed,
                f"{phase.name:12} {kind} p99 {got * 1000:.1f} ms <= {bound * 1000:.1f} ms "
                f"(3x quiet, at most 100), {failed} failed",
            )
        if phase.name == "flood":
            got = p(phase.took["sign-in"], 99)
            failed = sum(v for k, v in phase.failures.items() if k.startswith("sign-in"))
            verdict(
                got <= 1.5 and not failed,
                f"{phase.name:12} sign-in p99 {got * 1000:.0f} ms <= 1500 ms, {failed} failed",
            )
    bad = Counter()
    for phase in phases:
        bad.update({f"{phase.name}: {k}": v for k, v in phase.health.items() if k != "ok"})
    asked = sum(sum(phase.health.values()) for phase in phases)
    verdict(not bad, f"/api/health never failed ({asked} asked; failures {dict(bad) or 'none'})")
    return all(verdicts)


def box_speed() -> str:
    """Random full games a second on one core (bench/rules.py's), for comparing runs."""
    rng, n, start = random.Random(2026), 0, time.perf_counter()
    while time.perf_counter() - start < 2:
        random_game(rng)
        n += 1
    return f"{n / (time.perf_counter() - start):.0f} random games/s on one core"


def commit() -> str:
    def git(*argv: str) -> str:
        return subprocess.run(["git", *argv], cwd=ROOT, capture_output=True, text=True).stdout

    dirty = (
        " (with uncommitted changes)"
        if git("status", "--porcelain", "--untracked-files=no").strip()
        else ""
    )
    return git("log", "-1", "--format=%h %s").strip()[:72] + dirty


@contextlib.contextmanager
def served(args) -> Iterator[str]:
    if args.url:
        yield args.url.rstrip("/")
        return
    with serving(EUCHRE_RATE_LIMITS=args.limits) as server:
        yield server.base


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slowloris", type=int, default=20_000, help="connections (0: skip)")
    parser.add_argument("--streams", type=int, default=5_000, help="streams (0: skip)")
    parser.add_argument("--resumes", type=int, default=200, help="resuming clients (0: skip)")
    parser.add_argument("--flood", type=int, default=100, help="addresses guessing (0: skip)")
    parser.add_argument("--addresses", type=int, default=100, help="each attack's sources")
    parser.add_argument("--processes", type=int, default=2, help="each attack's processes")
    parser.add_argument("--seconds", type=float, default=30, help="measured, each phase")
    parser.add_argument("--ramp", type=float, default=60, help="at most, for an attack to swing")
    parser.add_argument("--timeout", type=float, default=10, help="a bystander's request's")
    parser.add_argument("--view-every", type=float, default=0.1)
    parser.add_argument("--move-every", type=float, default=0.5)
    parser.add_argument("--sign-in-every", type=float, default=2.5)
    parser.add_argument("--limits", choices=["on", "off"], default="on", help="rate limits")
    parser.add_argument("--url", help="a running service to measure instead of starting one")
    args = parser.parse_args()
    more_files()
    print(f"commit {commit()}\nbox: {box_speed()}, {multiprocessing.cpu_count()} cores", flush=True)
    with served(args) as base:
        phases = asyncio.run(run(base, args))
    print(f"box after: {box_speed()}")
    goals(phases)


if __name__ == "__main__":
    main()
