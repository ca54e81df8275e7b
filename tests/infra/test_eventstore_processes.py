"""Two processes appending at once, as two API processes do, while a third follows the log: the
follower sees every event exactly once, each table's in seq order, none passed over."""

import asyncio
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from infra.eventstore import START, EventStore

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]

WRITER = textwrap.dedent(
    """
    import asyncio, random, sys
    from infra.eventstore import ConcurrencyConflict, EventStore, NewEvent

    async def main(url, name):
        store = await EventStore.open(url, size=8)

        async def writer(stream):
            for n in range(60):
                while True:
                    try:
                        seq = await store.last_seq(stream)
                        new = [NewEvent("Noted", {"by": name})] * (1 + n % 2)
                        await store.append(stream, seq, new)
                        break
                    except ConcurrencyConflict:
                        await asyncio.sleep(random.uniform(0, 0.005))

        # Both processes write the shared tables, so they race at the same seqs too.
        await asyncio.gather(*(writer(s) for s in ["S1", "S2", "S3", f"OWN-{name}"] * 2))
        await store.close()

    asyncio.run(main(sys.argv[1], sys.argv[2]))
    """
)


async def test_a_follower_misses_nothing_while_two_processes_append(
    database_url: str, store: EventStore
):
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, database_url, name], cwd=ROOT)
        for name in "AB"
    ]
    seen = []
    after = START
    deadline = time.monotonic() + 120
    while True:
        finished = all(w.poll() is not None for w in writers)
        batch = await store.read_all(after, limit=50)
        seen.extend(batch)
        if batch:
            after = batch[-1].cursor
        elif finished:
            break
        else:
            assert time.monotonic() < deadline, "the writers did not finish"
            await asyncio.sleep(0.002)
    assert [w.returncode for w in writers] == [0, 0]

    cursors = [e.cursor for e in seen]
    assert cursors == sorted(set(cursors)), "an event seen twice, or out of the log's order"
    assert cursors == [e.cursor for e in await store.read_all(START, limit=100_000)]
    for stream in ["S1", "S2", "S3", "OWN-A", "OWN-B"]:
        last = await store.last_seq(stream)
        assert last >= 180  # 120 appends of 1 or 2 events, from two writers or two processes
        assert [e.seq for e in seen if e.stream == stream] == list(range(1, last + 1))
