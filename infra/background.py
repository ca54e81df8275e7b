"""Processes beside this one for CPU-bound work the event loop shouldn't wait on: Argon2 hashes
for sign-ins, solving hands for the reviews.

A process, not a thread: a thread spends its CPU under this process's GIL, and every slice it
holds is one the event loop (and a worker's other threads) waits for. A process also takes a
niceness of its own, so the kernel gives that work what the rest leaves.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor


def pool(processes: int, niceness: int) -> ProcessPoolExecutor:
    """`processes` spawned when first asked for, each at `niceness` above this one and gone
    once this process is, however it ended."""
    return ProcessPoolExecutor(
        processes,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_started,
        initargs=(os.getpid(), niceness),
    )


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
