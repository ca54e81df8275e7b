"""Presence degrades, it never fails what it serves: with a Valkey that takes connections and
never answers, streams still open and close and a request's write still returns."""

import asyncio
import contextlib

import pytest
import redis.asyncio as aioredis

from infra.presence import Presence

pytestmark = pytest.mark.anyio


@contextlib.asynccontextmanager
async def _silent_server():
    """A TCP server that accepts every connection and never says a word."""
    held: list[asyncio.StreamWriter] = []

    async def accept(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        for writer in held:
            writer.close()
        server.close()


async def test_streams_open_and_close_and_requests_go_on_while_valkey_never_answers():
    async with _silent_server() as port:
        client = aioredis.Redis(host="127.0.0.1", port=port)
        presence = Presence(client, "test-silent")
        opened = asyncio.Event()

        async def stream(n: int) -> None:
            async with presence.watching("SLOW", f"p{n}" if n % 2 else None, f"P{n}"):
                await opened.wait()

        try:
            # The old writes awaited the server for ever: each stream's opening, its close,
            # and a request's write.
            async with asyncio.timeout(15):
                streams = [asyncio.create_task(stream(n)) for n in range(300)]
                while len(presence._streams.get("SLOW", {})) < 300:
                    await asyncio.sleep(0.01)
                await presence.seen("SLOW", "someone")
                opened.set()
                await asyncio.gather(*streams)
            assert all(s.exception() is None for s in streams)
        finally:
            writer = getattr(presence, "_writer", None)
            if writer is not None:
                writer.cancel()
            await client.aclose(close_connection_pool=True)
