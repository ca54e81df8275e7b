"""A process's table cache stays bounded, and the per-table locks go with it."""

from __future__ import annotations

import pytest

from domain import commands as cmd
from infra.eventstore import EventStore
from services import use_cases
from services.use_cases import Tables

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_locks_are_dropped_with_the_tables_the_cache_forgets(database_url, monkeypatch):
    monkeypatch.setattr(use_cases, "CACHE_SIZE", 3)
    store = await EventStore.open(database_url, size=2)
    try:
        tables = Tables(store)
        for n in range(10):
            code = f"CACHE{n}"
            await tables.execute(
                code, cmd.OpenTable(code=code, host="h", name="Host", seed="ab" * 32)
            )
        assert len(tables._locks) <= 3
        assert (await tables.load("CACHE0")).code == "CACHE0"  # forgotten, not lost
    finally:
        await store.close()
