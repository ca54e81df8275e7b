"""Presence degrades, it never fails what it serves: with a Valkey that takes connections and
never answers, streams still open and close and a request's write still returns."""

import asyncio
import contextlib
import uuid

import pytest
import redis.asyncio as aioredis

from infra import presence as presence_module
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


async def test_one_playing_by_requests_alone_is_there_and_a_page_whose_stream_closed_is_not(
    redis_url, monkeypatch
):
    """A program that plays by requests, with no stream, was shown "Disconnected" to the whole
    table while it played; a page's requests must not hide its closed tab either."""
    monkeypatch.setattr(presence_module, "ASKED_SECONDS", 1)
    client = aioredis.from_url(redis_url)
    presence = Presence(client, f"test-asked-{uuid.uuid4().hex[:8]}")
    try:
        await presence.seen("T", "program")
        assert await presence.disconnected("T", ["program"]) == {}
        async with presence.watching("T", "page", "Page"):
            await presence.seen("T", "page")
            assert await presence.disconnected("T", ["page", "program"]) == {}
        await asyncio.sleep(0.3)  # the writer's round after the stream closed
        gone = await presence.disconnected("T", ["page", "program"])
        assert list(gone) == ["page"] and 15 < gone["page"] <= 20, gone
        await asyncio.sleep(1.2)  # the program stops asking
        gone = await presence.disconnected("T", ["page", "program"])
        assert sorted(gone) == ["page", "program"] and gone["program"] > 15, gone
    finally:
        await client.aclose()
