"""`euchre serve` keeps what it started running: a worker, an API process or an embedded server
that dies is started again, after a pause that doubles while it keeps dying.

Nothing else would: a killed worker left every table still while every server answered. An
embedded server comes back on its own socket, so the URLs the processes hold still reach it
and their clients reconnect by themselves. Each death is one line: what died, how, and when it
comes back.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from multiprocessing import forkserver  # type: ignore[attr-defined]
from multiprocessing.process import BaseProcess

from infra.embedded.process import Embedded
from infra.metrics_dir import process_gone

log = logging.getLogger(__name__)

FIRST_PAUSE = 0.5
LONGEST_PAUSE = 30.0
# Up this long, a process counts as healthy again: its next death waits FIRST_PAUSE.
HEALTHY = 60.0
LOOK_EVERY = 0.2
STOP_WITHIN = 30.0
ORPHAN_STOPS = 10.0


def orphan_proof(serve: int, target: Callable[..., object], *args: object) -> None:
    """Run `target(*args)` in a child that ends with `serve` (pid `serve`), even a killed one.

    A thread waits on `serve` itself and sends this process SIGTERM (the stop it answers to
    anyway) once `serve` is gone, so a `serve` killed leaves no child serving or taking bot
    turns, and the next one starts. Not the kernel's parent-death signal: the parent is the
    fork server. The child lets go of the fork server's pipe, which would keep that server
    alive as long as the child, so it ends with `serve` too. A group of its own: a terminal's
    Ctrl-C reaches `serve` alone, which stops its children after its own API is done, rather
    than their stopping at once and being taken for dead."""
    os.setpgid(0, 0)
    threading.Thread(target=_end_with, args=(serve,), name="orphan-proof", daemon=True).start()
    server = forkserver._forkserver
    if server._forkserver_alive_fd is not None:
        os.close(server._forkserver_alive_fd)
        server._forkserver_alive_fd = None
    target(*args)


def _end_with(serve: int) -> None:
    """SIGTERM to this process once `serve` has exited; a kill if it hasn't stopped within
    ORPHAN_STOPS seconds (nobody else is left to send one)."""
    try:
        watch = os.pidfd_open(serve)
    except ProcessLookupError:
        pass
    else:
        select.select([watch], [], [])  # readable once `serve` has exited
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(ORPHAN_STOPS)
    os.kill(os.getpid(), signal.SIGKILL)


def how(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


class _Watched:
    """One thing kept running, its pause before the next start, and when that is due."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.pause = FIRST_PAUSE
        self.started = time.monotonic()
        self.due: float | None = None

    def exited(self) -> int | None:
        raise NotImplementedError

    def pid(self) -> int | None:
        raise NotImplementedError

    def start(self, abandon: threading.Event) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        """Signal it to stop; `reap` waits."""

    def reap(self, deadline: float) -> None:
        """Wait for it till `deadline`, then kill it."""

    def died(self, code: int, now: float) -> None:
        if now - self.started >= HEALTHY:
            self.pause = FIRST_PAUSE
        log.warning(
            "%s (pid %s) %s; restarting it in %g s", self.name, self.pid(), how(code), self.pause
        )
        process_gone(self.pid())
        self.again(now)

    def again(self, now: float) -> None:
        self.due = now + self.pause
        self.pause = min(self.pause * 2, LONGEST_PAUSE)


class Child(_Watched):
    """A spawned process (a worker, an API process): made anew by `make` for each start."""

    def __init__(self, name: str, make: Callable[[], BaseProcess]) -> None:
        super().__init__(name)
        self._make = make
        self.process = make()
        self.process.start()
        log.info("%s started (pid %s)", self.name, self.process.pid)

    def exited(self) -> int | None:
        return None if self.process.is_alive() else self.process.exitcode

    def pid(self) -> int | None:
        return self.process.pid

    def start(self, abandon: threading.Event) -> None:
        self.process.close()
        self.process = self._make()
        self.process.start()
        log.warning("%s restarted (pid %s)", self.name, self.process.pid)

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.terminate()

    def reap(self, deadline: float) -> None:
        self.process.join(timeout=max(0.0, deadline - time.monotonic()))
        if self.process.is_alive():
            log.warning("%s (pid %s) did not stop; killing it", self.name, self.process.pid)
            self.process.kill()
            self.process.join()


class Server(_Watched):
    """An embedded server, restarted on its own socket; stopped by `euchre serve`'s own exit
    (infra.embedded.services), after the processes that use it."""

    def __init__(self, embedded: Embedded) -> None:
        super().__init__(embedded.name)
        self.embedded = embedded

    def exited(self) -> int | None:
        return self.embedded.exited()

    def pid(self) -> int | None:
        return self.embedded.pid

    def start(self, abandon: threading.Event) -> None:
        self.embedded.restart(abandon=abandon)


class Supervisor:
    """Watches from a thread of its own until `close`.

    The thread never ends before the process does: Linux sends a child its parent-death signal
    when the *thread* that started it ends, and what it restarts must last till `serve` stops
    them in order, the servers after the processes using them."""

    def __init__(self, watched: list[_Watched]) -> None:
        self.watched = watched
        self._closing = threading.Event()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name="supervisor", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._closing.wait(LOOK_EVERY):
            for each in self.watched:
                if self._closing.is_set():
                    break
                self._look(each)
        self._closed.set()
        threading.Event().wait()  # parked: see the class's docstring

    def _look(self, each: _Watched) -> None:
        now = time.monotonic()
        if each.due is None:
            code = each.exited()
            if code is not None:
                each.died(code, now)
            return
        if now < each.due:
            return
        each.started = now
        each.due = None
        try:
            each.start(self._closing)
        except Exception as error:
            if not self._closing.is_set():
                first = str(error).splitlines()[0]
                log.warning(
                    "%s did not start again (%s); trying again in %g s",
                    each.name,
                    first,
                    each.pause,
                )
                each.again(now)

    def close(self) -> None:
        """Stop restarting (a start under way is given up), then stop every child process:
        SIGTERM to all, a kill for any still there after STOP_WITHIN seconds."""
        self._closing.set()
        self._closed.wait(STOP_WITHIN)
        for each in self.watched:
            each.stop()
        deadline = time.monotonic() + STOP_WITHIN
        for each in self.watched:
            each.reap(deadline)
