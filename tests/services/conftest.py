"""A real server per test: uvicorn on a free port over the test's own database."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from http_kit import Api, Server

from services.api.app import create_app


@pytest.fixture
def base_url(database_url: str, redis_url: str) -> Iterator[str]:
    with Server(create_app(database_url, redis_url, stream_poll=1.0)) as url:
        yield url


@pytest.fixture
def api(base_url: str) -> Iterator[Api]:
    with httpx.Client(base_url=base_url, timeout=30) as http:
        yield Api(http)
