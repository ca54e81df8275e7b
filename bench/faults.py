"""Issue 49's fault test, first version: tables played through the cluster (infra/cluster) while
its machines are killed one at a time, then a checker of what every client saw against the log.

Run as root: uv run python bench/faults.py [--tables N] [--gap S]. It brings the cluster up and
the service on it if they aren't. Each table has one person, played from here through HAProxy
(`cluster.base_url()`), and three bots, played by the worker hosts. The person follows the
table on its event stream, resuming with `Last-Event-ID` whenever the stream is cut, and sends
each move with an `Idempotency-Key`, sending it again under the same key after a lost
connection or a 5xx until it gets an answer that settles it: 200 (the move is in the log, once,
however many times it was sent) or 409 (the table moved on without it). Meanwhile the schedule
kills, one after the other, `--gap` seconds apart, each brought back before the next:

- an API host (every process of it), which HAProxy takes out within a second;
- a worker host, whose bot turns the other worker takes once the sweeper sends them again;
- the PostgreSQL primary's host (Patroni, PostgreSQL and its Valkey), failed over to the
  synchronous standby by Patroni;
- the Valkey primary, failed over to its replica by the Sentinels.

The checker then reads the log (the cluster's database) and answers, for every table: its
seqs run 1..n with no gap or duplicate; every move answered 200 is in it exactly once (its
`command_id`, `<player>:<table>:<key>`); the game finished; the table as the API folds it now
equals the last view its person's stream showed; and `euchre verify --all` passes on every
finished game's chain. It prints, for each fault, how long after it the first move sent after
it was answered 200 (writes back), and the retries the people made in its window.

Still to come (issue 49): partitions and `tc netem` latency, overlapping faults, 200 tables,
and a short version in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import subprocess
import sys
import time
import traceback
import uuid
from dataclasses import dataclass, field

import aiohttp
import msgspec
import psycopg
from api import choose, frames

from infra import cluster

RETRYABLE = {500, 502, 503, 504}


@dataclass
class Person:
    """One table's person and what they saw."""

    code: str
    token: str
    player: str
    rng: random.Random
    acked: list[tuple[str, int, float, float]] = field(default_factory=list)  # key, seq, sent, at
    retries: list[float] = field(default_factory=list)  # when a move was sent again
    stale: int = 0
    last_view: dict | None = None
    resumes: int = 0
    errors: list[str] = field(default_factory=list)
    over: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


async def open_table(http: aiohttp.ClientSession, n: int) -> Person:
    async with http.post("/api/players", json={"name": f"Fault{n}x{uuid.uuid4().hex[:4]}"}) as r:
        r.raise_for_status()
        me = await r.json()
    person = Person("", me["token"], me["id"], random.Random(n))
    async with http.post("/api/tables", json={"bots": "easy"}, headers=person.headers) as r:
        r.raise_for_status()
        person.code = (await r.json())["code"]
    return person


async def settled(
    http: aiohttp.ClientSession,
    path: str,
    person: Person,
    body: dict | None = None,
    key: str | None = None,
) -> tuple[int, bytes]:
    """A POST's answer once it settles: sent again (the same body, the same key) after a lost
    connection or a 5xx, for up to two minutes."""
    headers = person.headers | ({"Idempotency-Key": key} if key else {})
    deadline = time.monotonic() + 120
    first = True
    while True:
        if not first:
            person.retries.append(time.monotonic())
        first = False
        try:
            async with http.post(path, json=body, headers=headers) as r:
                answer = await r.read()
                if r.status not in RETRYABLE:
                    return r.status, answer
        except (TimeoutError, aiohttp.ClientError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"POST {path} never settled")
        await asyncio.sleep(0.3)


async def play(http: aiohttp.ClientSession, person: Person) -> None:
    """Follows the table's stream, resuming where it was cut, and moves when it may."""
    status, _ = await settled(http, f"/api/tables/{person.code}/start", person)
    assert status == 200, status
    last_id: int | None = None
    moving: asyncio.Task | None = None
    while not person.over.is_set():
        headers = person.headers | ({"Last-Event-ID": str(last_id)} if last_id else {})
        try:
            async with http.get(f"/api/tables/{person.code}/events", headers=headers) as r:
                if r.status != 200:
                    raise aiohttp.ClientResponseError(r.request_info, (), status=r.status)
                async for seq, data in frames(r.content):
                    last_id = seq
                    view = msgspec.json.decode(data) if data is not None else {}
                    if "can" in view and seq >= (person.last_view or {}).get("seq", -1):
                        person.last_view = view
                        if view["status"] == "over":
                            person.over.set()
                            return
                        if moving is None or moving.done():
                            moving = asyncio.create_task(move(http, person, view))
                            moving.add_done_callback(lambda t: noted(person, t))
        except (TimeoutError, aiohttp.ClientError):
            pass
        person.resumes += 1
        await asyncio.sleep(0.5)


def noted(person: Person, task: asyncio.Task) -> None:
    """A move's failure, kept for the checker's report."""
    if not task.cancelled() and task.exception() is not None:
        error = task.exception()
        person.errors.append("".join(traceback.format_exception(error))[-1500:])


async def move(http: aiohttp.ClientSession, person: Person, view: dict) -> None:
    if view["status"] != "playing" or not any(k not in ("deal", "claim") for k in view["can"]):
        return
    body = choose(view, person.rng)
    if body["type"] != "ready":
        body["seq"] = view["seq"]
    key = uuid.uuid4().hex
    sent = time.monotonic()
    status, answer = await settled(http, f"/api/tables/{person.code}/moves", person, body, key)
    if status == 200:
        after = msgspec.json.decode(answer)
        person.acked.append((key, after["seq"], sent, time.monotonic()))
        if after["seq"] > (person.last_view or {}).get("seq", -1):
            person.last_view = after
    elif status == 409:
        person.stale += 1
    else:
        raise RuntimeError(f"a move was answered {status}: {answer[:200]!r}")
    # Views that came while this move was on its way were passed over: the newest may be
    # waiting for this person.
    latest = person.last_view
    if latest is not None and latest["seq"] > view["seq"] and latest["status"] != "over":
        await move(http, person, latest)


def kill_api() -> str:
    cluster.kill_host(cluster.API[0])
    return "api host"


def kill_worker() -> str:
    cluster.kill_host(cluster.WORKERS[0])
    return "worker host"


def kill_database_host() -> str:
    leader = cluster.primary()
    assert leader is not None
    cluster.kill_host(leader)
    return f"PostgreSQL primary's host ({leader.name})"


def kill_valkey() -> str:
    leader = cluster.valkey_primary()
    assert leader is not None
    (pid,) = [p for p in cluster.host_pids(leader) if cluster.command(p) == "valkey-server"]
    cluster.kill_pid(pid)
    return f"Valkey primary ({leader.name})"


def bring_back(what: str) -> None:
    if what == "api host":
        cluster.start_api(cluster.API[0])
    elif what == "worker host":
        cluster.start_worker(cluster.WORKERS[0])
    else:
        for host in cluster.DB:
            alive = [p for p in cluster.host_pids(host) if not cluster.gone(p)]
            if not any(cluster.command(p) == "patroni" for p in alive):
                cluster.start_patroni(host)
            if not any(cluster.command(p) == "valkey-server" for p in alive):
                cluster.start_valkey(host, next(h for h in cluster.DB if h != host))


SCHEDULE = [kill_api, kill_worker, kill_database_host, kill_valkey]


async def faults(gap: float, people: list[Person], log: list[tuple[str, float]]) -> None:
    for fault in SCHEDULE:
        await asyncio.sleep(gap)
        if all(p.over.is_set() for p in people):
            return
        at = time.monotonic()
        what = await asyncio.to_thread(fault)
        log.append((what, at))
        print(f"  {time.strftime('%H:%M:%S')} killed the {what}", flush=True)
        await asyncio.sleep(gap / 2)
        await asyncio.to_thread(bring_back, what)
        await asyncio.to_thread(cluster.wait_healthy)
        await asyncio.to_thread(cluster.wait_valkey)


def check(people: list[Person], log: list[tuple[str, float]], finished: bool) -> bool:
    """The checker's report; whether every check held."""
    url = cluster.database_url(cluster.DATABASE)
    problems: list[str] = []
    with psycopg.connect(url) as conn:
        for p in people:
            rows = conn.execute(
                "SELECT seq, command_id, type FROM events WHERE stream = %s ORDER BY seq",
                (p.code,),
            ).fetchall()
            seqs = [seq for seq, _, _ in rows]
            if seqs != list(range(1, len(seqs) + 1)):
                problems.append(f"{p.code}: seqs are not 1..{len(seqs)}")
            ids = [c for _, c, _ in rows if c is not None]
            for key, seq, _, _ in p.acked:
                found = ids.count(f"{p.player}:{p.code}:{key}")
                if found != 1:
                    problems.append(f"{p.code}: the move answered at seq {seq} is there {found}x")
            if not any(kind == "GameWon" for _, _, kind in rows):
                problems.append(f"{p.code}: the game did not finish")
            problems += [f"{p.code}: a move failed: {error}" for error in p.errors]
    verified = subprocess.run(
        cluster.euchre("verify", "--all"),
        capture_output=True,
        text=True,
        cwd=cluster.ROOT,
        env=cluster.service_environment(),
    )
    if verified.returncode != 0:
        problems.append(f"euchre verify --all: {verified.stdout[-300:]} {verified.stderr[-300:]}")
    acked = [a for p in people for a in p.acked]
    print(
        f"checker: {len(people)} tables, {len(acked)} moves answered 200, "
        f"{sum(p.stale for p in people)} answered 409, "
        f"{sum(len(p.retries) for p in people)} sent again, "
        f"{sum(p.resumes for p in people)} streams resumed; "
        f"games finished: {'all' if finished else 'NOT all'}",
        flush=True,
    )
    for what, at in log:
        after = sorted(done - at for _, _, sent, done in acked if sent >= at)
        retried = sum(1 for p in people for t in p.retries if at <= t < at + 30)
        back = f"{after[0]:.1f} s" if after else "never"
        print(f"  {what}: writes back after {back}; {retried} moves sent again within 30 s")
    for problem in problems[:20]:
        print("  PROBLEM:", problem)
    print(f"{len(problems)} problems", flush=True)
    return not problems and finished


async def main_async(args: argparse.Namespace) -> bool:
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=5, sock_read=40)
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(
        cluster.base_url(), timeout=timeout, connector=connector
    ) as http:
        people = [await open_table(http, n) for n in range(args.tables)]
        games = [asyncio.create_task(play(http, p)) for p in people]
        log: list[tuple[str, float]] = []
        schedule = asyncio.create_task(faults(args.gap, people, log))
        done, _ = await asyncio.wait(games, timeout=args.deadline)
        finished = all(p.over.is_set() for p in people)
        for task in [*games, schedule]:
            task.cancel()
        await asyncio.gather(*games, schedule, return_exceptions=True)
        for task in done:
            if task.exception() is not None:
                print("  a table's client failed:", repr(task.exception()))
    return check(people, log, finished)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--gap", type=float, default=20, help="seconds between faults")
    parser.add_argument("--deadline", type=float, default=900, help="seconds for every game")
    args = parser.parse_args()
    cluster.up()
    cluster.serve()
    started = time.monotonic()
    ok = asyncio.run(main_async(args))
    print(f"took {time.monotonic() - started:.0f} s; {'PASSED' if ok else 'FAILED'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
