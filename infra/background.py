"""Processes beside this one for CPU-bound work the event loop shouldn't wait on: Argon2 hashes
for sign-ins, solving hands for the reviews.

A process, not a thread: a thread spends its CPU under this process's GIL, and every slice it
holds is one the event loop (and a worker's other threads) waits for. A process also takes a
niceness of its own, so the kernel gives that work what the rest leaves.

A process can die under us (killed, out of memory); Python's pool is then broken for good and
every later call fails at once, so every sign-in was a 500 from then on. A `Pool` replaces a
broken executor and asks the lost work again, once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

log = logging.getLogger(__name__)


def pool(processes: int, niceness: int) -> ProcessPoolExecutor:
    """`processes` spawned when first asked for, each at `niceness` above this one and gone
    once this process is, however it ended."""
    return ProcessPoolExecutor(
        processes,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_started,
        initargs=(os.getpid(), niceness),
    )


class Pool:
    """`pool(processes, niceness)`, made when first used and made again if one of its
    processes dies."""

    def __init__(self, processes: int, niceness: int) -> None:
        self._processes, self._niceness = processes, niceness
        self._executor: ProcessPoolExecutor | None = None

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        executor = self._started()
        try:
            return await loop.run_in_executor(executor, fn, *args)
        except BrokenProcessPool:
            if self._executor is executor:  # not replaced already by another call
                log.warning("a background process died; its work goes to new ones")
                self.shutdown(wait=False)
            return await loop.run_in_executor(self._started(), fn, *args)

    def shutdown(self, wait: bool = True) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=wait, cancel_futures=True)
            self._executor = None

    def _started(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = pool(self._processes, self._niceness)
        return self._executor


def _started(parent: int, niceness: int) -> None:
    # Not the kernel's parent-death signal: that fires when the *thread* that started us ends,
    # and the event loop's thread may be a short-lived one (a test's server, say).
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()
    with contextlib.suppress(AttributeError, OSError):
        os.nice(niceness)


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(0)
