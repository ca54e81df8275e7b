"""A burst of Redis commands larger than the pool waits for connections and loses nothing;
a beat of more streams than one round holds writes them all."""

import asyncio
import uuid

import pytest

from infra import keyvalue
from infra.presence import BEAT_ROUND, Presence

pytestmark = pytest.mark.anyio


async def test_a_burst_of_streams_opening_is_all_recorded_present(redis_url: str):
    # Every stream of a busy process reconnecting at once, as after a restart: three times
    # as many as the pool has connections, each writing its presence and its listing.
    redis = keyvalue.connect(redis_url)
    presence = Presence(redis, f"test-burst-{uuid.uuid4().hex}")
    opened = asyncio.Event()
    people = [f"p{n}" for n in range(3 * keyvalue.POOL_SIZE)]
    assert len(people) > BEAT_ROUND

    async def stream(player: str) -> None:
        async with presence.watching("BURST", player, player):
            await opened.wait()

    try:
        streams = [asyncio.create_task(stream(p)) for p in people]
        # A stream counts as open once its presence is written and its listing is under way.
        while len(presence._open) < len(people):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # the last listings land
        keys = [presence.key("BURST", p) for p in people]
        assert await redis.exists(*keys) == len(people)
        assert {w for w, _ in await presence.watchers("BURST")} == set(people)
        # A beat writes them all again, over more rounds than one.
        await redis.delete(*keys, presence._watchers("BURST"))
        await presence.beat()
        assert await redis.exists(*keys) == len(people)
        assert {w for w, _ in await presence.watchers("BURST")} == set(people)
    finally:
        opened.set()
        await asyncio.gather(*streams, return_exceptions=True)
        await redis.delete(*await redis.keys(f"{presence.key('BURST', '')}*"))
        await redis.aclose()
