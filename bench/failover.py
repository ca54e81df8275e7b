"""What the database cluster of issue 49 (infra/cluster) costs and how fast it fails over.

Run as root: uv run python bench/failover.py [--kills N] [--seconds S] [--clients C]. It brings
the cluster up if it isn't, and prints:

- writes back after a kill: the time from `kill -9` to the first write acknowledged through
  libpq's multi-host URL with `target_session_attrs=read-write` (what a client of the cluster
  uses), p50 and max over N kills of each kind:
  - "postgres": the primary's postmaster only. Patroni, alive beside it, restarts it on the
    same host (crash recovery) while it still holds the leader lease: no failover.
  - "host": every process of the primary's host at once (Patroni and PostgreSQL), as a lost
    machine. The lease lapses after `ttl` and the synchronous standby takes over; the old
    primary is then started again and rejoins as the standby before the next kill.
  - "unplugged host": the same, and the host cut off the bridge, so its address drops
    packets instead of refusing them, as a machine that is gone: a client trying it first
    waits out `connect_timeout` (2 s, libpq's least) before trying the next.
  A writer commits a numbered row every ~10 ms throughout; after each kill every row it saw
  acknowledged must still be there (a synchronous standby's promise).
- "valkey": the Valkey primary's server, killed; the Sentinels promote its replica once two
  find it silent for `cluster.SENTINEL_DOWN_MS`. A writer sets a numbered key every ~10 ms
  through the Sentinels' URL (infra/keyvalue.py, as the service's clients); its keys lost
  with the old primary are counted, not failed: Redis replicates asynchronously, and nothing
  of the game lives only there. A host kill takes that host's Valkey too; each victim comes
  back as a replica of whichever is primary.
- pgbench's simple-update TPS on the cluster's primary (synchronous commit to the standby)
  and on a lone server with the same settings in its own namespace, in rounds that alternate
  which goes first, and the median of the rounds' ratios: the issue allows the standby to cost
  at most 30% of throughput.

The figures depend on the box: run `uptime` beside them. `python -m infra.cluster down`
removes everything afterwards, the lone server included.

Measured 2026-12-07 on 2 shared cores beside a CI run (load average 1 to 6), three kills
of each kind, no acknowledged row lost in any:

- TIMING ttl 6 / loop_wait 1 / retry_timeout 2 (infra/cluster): postgres p50 3.7 s, max
  4.4 s; host p50 6.4 s, max 6.7 s; unplugged host p50 10.2 s, max 10.2 s (8.2 once). The
  unplugged host is past the issue's 10 s: 2 s of it are Patroni asking the lost machine
  whether it lives, up to 2 more the client's `connect_timeout` on its address. Through an
  HAProxy checking Patroni's `/primary` (started by hand), 8.3 to 8.4 s.
- ttl 8 / loop_wait 1 / retry_timeout 3: postgres p50 3.2 s, max 3.6 s; host p50 8.4 s, max
  8.7 s; unplugged host p50 10.5 s, max 12.2 s (HAProxy: p50 10.2 s).
- Before `wal_retrieve_retry_interval` went from 5 s to 1 s, a restarted primary's commits
  waited up to 5 s for its standby to come back: postgres p50 5 s, max 6.8 s. Before the
  URL's TCP keepalives, a query in flight to an unplugged host waited past a minute.
- Valkey with three Sentinels (infra/cluster, `SENTINEL_DOWN_MS` 2000), measured 2026-12-07
  on an otherwise idle 2-core box: valkey p50 3.2 s, max 3.3 s over 13 kills, 0 of ~240
  acknowledged keys lost in each (the writer is light; under load a failover can lose the
  last writes not yet replicated). The 3.2 s is the 2 s of silence, the Sentinels' vote and
  the client's next ask. Host kills, with each host's Valkey going too: p50 6.2 s, max 6.5 s.
- pgbench, synchronous_commit on, 4 clients: the cluster does 0.55 to 0.64 of the lone
  server (medians of three runs of four rounds, rounds 0.52 to 0.74), past the issue's 30%;
  with remote_write 0.63, so it is not the standby's fsync but each commit's round trip
  through the standby's processes on the same two cores; with 16 clients, whose commits
  share that wait, 0.84 (rounds 0.79 and 0.90).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import threading
import time

import psycopg
import redis

from infra import cluster, keyvalue


class Writer(threading.Thread):
    """Commits numbered rows through the multi-host URL, reconnecting whenever one fails."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        # (when its connection was opened, when acknowledged, id)
        self.acked: list[tuple[float, float, int]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        conn: psycopg.Connection | None = None
        opened = 0.0
        n = 0
        while not self.stop.is_set():
            n += 1
            try:
                if conn is None:
                    opened = time.monotonic()
                    conn = psycopg.connect(self.url, autocommit=True)
                conn.execute("INSERT INTO failover_probe (id) VALUES (%s)", (n,))
                self.acked.append((opened, time.monotonic(), n))
                time.sleep(0.01)
            except psycopg.Error:
                if conn is not None:
                    conn.close()
                conn = None
                time.sleep(0.02)
        if conn is not None:
            conn.close()

    def back_after(self, killed: float, timeout: float = 60) -> float:
        """Counting only connections opened after the kill: a backend of a killed postmaster
        can still answer on its old connection for a moment."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            after = [done for opened, done, _ in self.acked if opened >= killed]
            if after:
                return after[0] - killed
            time.sleep(0.02)
        raise cluster.ClusterError(f"no write acknowledged {timeout:.0f} s after the kill")


class KeyWriter(Writer):
    """Sets numbered keys through the Sentinels' URL, as the service's clients reach Redis;
    each acknowledgement's first time is when its write was sent."""

    def run(self) -> None:
        client = keyvalue.client(self.url, socket_timeout=1, socket_connect_timeout=1)
        n = 0
        while not self.stop.is_set():
            n += 1
            try:
                sent = time.monotonic()  # counted as after a kill only if sent after it
                client.set(f"failover-probe:{n}", n)
                self.acked.append((sent, time.monotonic(), n))
                time.sleep(0.01)
            except redis.RedisError:
                time.sleep(0.02)
        client.close()

    def lost(self) -> list[int]:
        """The keys acknowledged and not on the new primary, asked until a Sentinel names it
        (each learns of the failover in its own time, and may still name the old one)."""
        client = keyvalue.client(self.url, socket_timeout=2, socket_connect_timeout=1)
        deadline = time.monotonic() + 30
        try:
            while True:
                try:
                    there = client.mget([f"failover-probe:{n}" for _, _, n in self.acked])
                    break
                except redis.RedisError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            return [n for (_, _, n), value in zip(self.acked, there, strict=True) if value is None]
        finally:
            client.close()


def kill_valkey() -> tuple[cluster.Host, float]:
    """The Valkey primary killed, and when: the moment of the kill, not of asking the
    Sentinels which it is (a write sent in between still reaches it)."""
    leader = cluster.valkey_primary()
    assert leader is not None
    (pid,) = [p for p in cluster.host_pids(leader) if cluster.command(p) == "valkey-server"]
    killed = time.monotonic()
    cluster.kill_pid(pid)
    return leader, killed


def other(host: cluster.Host) -> cluster.Host:
    """The other data host: the primary once `host` is lost, whatever a Sentinel slower to
    hear of the failover still says."""
    return next(h for h in cluster.DB if h != host)


def kill_postgres() -> cluster.Host:
    leader = cluster.primary()
    assert leader is not None
    pid = cluster.postmaster_pid(leader)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    return leader


def kill_host() -> cluster.Host:
    leader = cluster.primary()
    assert leader is not None
    cluster.kill_host(leader)
    return leader


def unplug_host() -> cluster.Host:
    victim = kill_host()
    cluster.unplug(victim)
    return victim


KILLS = {"postgres": kill_postgres, "host": kill_host, "unplugged host": unplug_host}
KINDS = [*KILLS, "valkey"]


def failovers(kind: str, kills: int, url: str) -> list[float]:
    if kind == "valkey":
        return valkey_failovers(kills)
    kill = KILLS[kind]
    times = []
    for i in range(kills):
        cluster.wait_healthy()
        cluster.wait_valkey()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("TRUNCATE failover_probe")
        writer = Writer(url)
        writer.start()
        time.sleep(2)
        killed = time.monotonic()
        victim = kill()
        took = writer.back_after(killed)
        time.sleep(0.5)
        writer.stop.set()
        writer.join()
        new = cluster.primary()
        with psycopg.connect(url, autocommit=True) as conn:
            there = {row[0] for row in conn.execute("SELECT id FROM failover_probe")}
        lost = [n for _, _, n in writer.acked if n not in there]
        print(
            f"  {kind} kill {i + 1}: {victim.name} killed, writes back after {took:.2f} s "
            f"on {new.name if new else '?'}; {len(writer.acked)} rows acknowledged, "
            f"{len(lost)} lost",
            flush=True,
        )
        if kind != "postgres":
            cluster.plug(victim)
            cluster.start_patroni(victim)
            cluster.start_valkey(victim, other(victim))
        times.append(took)
    return times


def valkey_failovers(kills: int) -> list[float]:
    url = cluster.redis_url()
    times = []
    for i in range(kills):
        cluster.wait_valkey()
        writer = KeyWriter(url)
        writer.start()
        time.sleep(2)
        victim, killed = kill_valkey()
        took = writer.back_after(killed)
        time.sleep(0.5)
        writer.stop.set()
        writer.join()
        new = cluster.valkey_primary()
        lost = writer.lost()
        print(
            f"  valkey kill {i + 1}: {victim.name}'s Valkey killed, writes back after "
            f"{took:.2f} s on {new.name if new else '?'}; {len(writer.acked)} keys acknowledged, "
            f"{len(lost)} lost (asynchronous replication)",
            flush=True,
        )
        cluster.start_valkey(victim, other(victim))
        times.append(took)
    return times


def pgbench(url: str, seconds: int, clients: int, commit: str) -> float:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")  # neither run pays for the other's dirty pages
    out = subprocess.run(
        [
            "pgbench",
            "-n",
            "-b",
            "simple-update",
            "-c",
            str(clients),
            "-j",
            "2",
            "-T",
            str(seconds),
            url,
        ],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PGOPTIONS": f"-c synchronous_commit={commit}"},
    ).stdout
    found = re.search(r"tps = ([\d.]+) \(without initial connection time\)", out)
    assert found, out
    return float(found.group(1))


def throughput(seconds: int, clients: int, rounds: int, commit: str) -> None:
    """Rounds alternate which server goes first, so a load that grows or fades on the box
    (a CI run beside it) weighs on both alike; the median of the rounds' ratios is the
    figure."""
    urls = {"cluster": cluster.database_url(), "lone": cluster.start_solo()}
    for url in urls.values():
        subprocess.run(["pgbench", "-i", "-q", "-s", "10", url], check=True, capture_output=True)
    cluster.wait_healthy()
    ratios = []
    for r in range(rounds):
        order = ["cluster", "lone"] if r % 2 == 0 else ["lone", "cluster"]
        tps = {name: pgbench(urls[name], seconds, clients, commit) for name in order}
        ratios.append(tps["cluster"] / tps["lone"])
        print(
            f"  round {r + 1}: primary + sync standby {tps['cluster']:.0f} TPS, "
            f"lone server {tps['lone']:.0f} TPS, ratio {ratios[-1]:.2f}",
            flush=True,
        )
    ratio = statistics.median(ratios)
    print(
        f"pgbench simple-update, synchronous_commit={commit}, {clients} clients, "
        f"{rounds} rounds of {seconds} s: median "
        f"ratio {ratio:.2f} (the synchronous standby costs {100 * (1 - ratio):.0f}%), "
        f"rounds {min(ratios):.2f} to {max(ratios):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--skip", choices=["failover", "throughput"])
    parser.add_argument("--kind", choices=KINDS, action="append", help="default: each")
    parser.add_argument(
        "--synchronous-commit",
        default="on",
        help="for both servers' pgbench sessions: remote_write spares the standby's fsync",
    )
    args = parser.parse_args()
    cluster.up()
    print(f"Patroni timing: {cluster.TIMING}, synchronous_mode on (not strict)")
    url = cluster.database_url()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS failover_probe (id int PRIMARY KEY)")
    if args.skip != "failover":
        for kind in args.kind or KINDS:
            times = failovers(kind, args.kills, url)
            print(
                f"kill -9 {kind}: writes back p50 {statistics.median(times):.2f} s, "
                f"max {max(times):.2f} s over {len(times)} kills",
                flush=True,
            )
    if args.skip != "throughput":
        cluster.wait_healthy()
        throughput(args.seconds, args.clients, args.rounds, args.synchronous_commit)


if __name__ == "__main__":
    main()
