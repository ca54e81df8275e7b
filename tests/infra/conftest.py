"""The event stores under test: PostgreSQL on the fresh database each test gets (see
tests/conftest.py), and for the recorder contract the in-memory one as well."""

from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.db import create_engine, server_options
from infra.eventstore import EventStore, MemoryEventStore

FAST_COMMITS = {"synchronous_commit": "off"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    # Room for ten concurrent writers without churning overflow connections. Durability is not
    # under test, and waiting for the disk on each of a thousand serial commits would be most
    # of the suite's time; what commits, and in what order others see it, is unchanged.
    engine = create_engine(
        database_url, pool_size=12, connect_args={"options": server_options(FAST_COMMITS)}
    )
    yield engine
    await engine.dispose()


@pytest.fixture
async def store(
    request: pytest.FixtureRequest, database_url: str
) -> AsyncIterator[EventStore | MemoryEventStore]:
    """PostgreSQL's; a test of the recorder contract asks for both (test_eventstore.BOTH)."""
    if getattr(request, "param", "postgres") == "memory":
        yield MemoryEventStore()
        return
    store = await EventStore.open(database_url, size=12, settings=FAST_COMMITS)
    yield store
    await store.close()
