"""The event store under test, on the fresh database each test gets (see tests/conftest.py)."""

from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.db import create_engine
from infra.eventstore import EventStore


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    # Room for ten concurrent writers without churning overflow connections. Durability is not
    # under test, and waiting for the disk on each of a thousand serial commits would be most
    # of the suite's time; what commits, and in what order others see it, is unchanged.
    engine = create_engine(
        database_url, pool_size=12, connect_args={"options": "-c synchronous_commit=off"}
    )
    yield engine
    await engine.dispose()


@pytest.fixture
def store(engine: AsyncEngine) -> EventStore:
    return EventStore(engine)
