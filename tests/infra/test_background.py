"""The processes beside a service's own for CPU-bound work: one that dies is replaced."""

from __future__ import annotations

import os
import signal

import pytest

from infra import background

pytestmark = pytest.mark.anyio


async def test_a_pool_whose_process_died_starts_new_ones_and_does_the_work():
    """Seen: with a hashing process killed, every sign-in after was a 500 (BrokenProcessPool)."""
    pool = background.Pool(1, 0)
    try:
        first = await pool.run(os.getpid)
        os.kill(first, signal.SIGKILL)
        second = await pool.run(os.getpid)
        assert second != first and second != os.getpid()
        assert await pool.run(os.getpid) == second
    finally:
        pool.shutdown()
