"""A real server per test: uvicorn on a free port over the test's own database; and for the
workers, each broker with queues of the test's own."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest
import redis
from http_kit import Api, Server

from infra.eventstore import EventStore
from services.api.app import create_app


@pytest.fixture
def base_url(database_url: str, redis_url: str) -> Iterator[str]:
    with Server(create_app(database_url, redis_url, stream_poll=1.0)) as url:
        yield url


@pytest.fixture
def api(base_url: str) -> Iterator[Api]:
    with httpx.Client(base_url=base_url, timeout=30) as http:
        yield Api(http)


@pytest.fixture
def namespace() -> str:
    """This test's own Redis keys: its queues can't meet another test's."""
    return f"euchre-test-{uuid.uuid4().hex[:8]}"


@pytest.fixture(params=["redis", "rabbitmq"])
def broker_url(request: pytest.FixtureRequest, namespace: str) -> Iterator[str]:
    """Each broker the bots run on, with this test's queues its own: keys under `namespace` on
    Redis, a vhost of its own on RabbitMQ."""
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        yield url
        client = redis.Redis.from_url(url)
        for key in client.scan_iter(f"{namespace}:*"):
            client.delete(key)
        client.close()
    else:
        yield request.getfixturevalue("rabbitmq_url")


@pytest.fixture
async def store(database_url: str):
    store = await EventStore.open(database_url, size=4)
    yield store
    await store.close()
