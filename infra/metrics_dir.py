"""The directory where a command's processes write their metrics (infra/metrics.py).

Apart from infra/metrics.py, which imports prometheus_client: that library picks between
values in memory and values in files when it is first imported, so the directory must be in
the environment before then, and a command sets it here first.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import tempfile
from collections.abc import Iterator

SHARED = "PROMETHEUS_MULTIPROC_DIR"


@contextlib.contextmanager
def shared_directory(on: bool = True) -> Iterator[str | None]:
    """A fresh directory for this command's processes to write their values to, removed when
    the command ends: set in the environment, which every process it starts inherits. Fresh,
    since values left by an earlier run would be summed with this one's. None with metrics
    off (EUCHRE_METRICS): each process then keeps its counts in memory, where nobody reads
    them, and writes no file."""
    if not on:
        yield None
        return
    directory = tempfile.mkdtemp(prefix="euchre-metrics-")
    os.environ[SHARED] = directory
    try:
        yield directory
    finally:
        os.environ.pop(SHARED, None)
        shutil.rmtree(directory, ignore_errors=True)


def process_gone(pid: int | None) -> None:
    """A process of this command died: its share of the live gauges (streams open) goes, where
    a process that stops cleanly would have brought them to zero itself. (What
    prometheus_client's `mark_process_dead` does, without importing it here.)"""
    directory = os.environ.get(SHARED)
    if directory and pid is not None:
        for path in glob.glob(os.path.join(directory, f"gauge_live*_{pid}.db")):
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)
