"""Fixtures every test folder shares: the PostgreSQL and Redis servers tests talk to."""

import os
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit
from uuid import uuid4

import psycopg
import pytest
from sqlalchemy import make_url

from infra.db import migrate
from infra.embedded import EmbeddedPostgres, EmbeddedValkey


@pytest.fixture(scope="session")
def embedded_data_dir() -> Iterator[Path]:
    """A scratch directory for the session's embedded servers, made only when one is needed.

    Not pytest's own temporary directory: that sits under a private (0700) root, which the
    PostgreSQL server user could not reach when the tests run as root.
    """
    with tempfile.TemporaryDirectory(prefix="euchre-test-") as directory:
        yield Path(directory)


@pytest.fixture(scope="session")
def base_database_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A server and database where tests may CREATE DATABASE.

    `EUCHRE_TEST_DATABASE_URL` when set (CI points it at the machine's PostgreSQL), otherwise an
    embedded server started on first use, so tests that never ask for it never pay for it.
    When the tests run in several processes (pytest -n), the first takes the machine's server
    and every other an embedded one of its own: a follower reads only below the oldest
    transaction still running anywhere on its server (docs/event-store.md), so one process's
    busy tests would hold back the followers another's are waiting on.
    """
    url = os.environ.get("EUCHRE_TEST_DATABASE_URL")
    if url and os.environ.get("PYTEST_XDIST_WORKER", "gw0") == "gw0":
        yield url
        return
    with EmbeddedPostgres(request.getfixturevalue("embedded_data_dir")) as server:
        yield server.url


@pytest.fixture(scope="session")
def redis_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A Redis-compatible server: `EUCHRE_TEST_REDIS_URL` when set, otherwise embedded Valkey."""
    url = os.environ.get("EUCHRE_TEST_REDIS_URL")
    if url:
        yield url
        return
    with EmbeddedValkey(request.getfixturevalue("embedded_data_dir")) as server:
        yield server.url


@contextmanager
def _new_database(base_database_url: str, template: str = "template1") -> Iterator[str]:
    """A database of its own on the server, a copy of `template` (by default PostgreSQL's
    empty one), dropped afterwards."""
    name = f"test_{uuid4().hex}"
    url = make_url(base_database_url).set(database=name).render_as_string(hide_password=False)
    with psycopg.connect(base_database_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    try:
        yield url
    finally:
        with psycopg.connect(base_database_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture
def empty_database_url(base_database_url: str) -> Iterator[str]:
    """A fresh database of the test's own with no schema yet, dropped afterwards."""
    with _new_database(base_database_url) as url:
        yield url


@pytest.fixture
def spare_database_url(base_database_url: str) -> Iterator[str]:
    """A second fresh database with no schema, for a test that needs two (a restore's
    target), dropped afterwards."""
    with _new_database(base_database_url) as url:
        yield url


@pytest.fixture(scope="session")
def migrated_template(base_database_url: str) -> Iterator[str]:
    """The name of a database migrated once for the whole run, copied for each test that wants
    a migrated one: a copy takes a tenth of the time the migrations take. Nothing connects to
    it after the migrations, as a copy needs."""
    with _new_database(base_database_url) as url:
        migrate(url)
        yield make_url(url).database or ""


@pytest.fixture
def database_url(base_database_url: str, migrated_template: str) -> Iterator[str]:
    """A fresh, migrated database of the test's own, dropped afterwards."""
    with _new_database(base_database_url, migrated_template) as url:
        yield url


@pytest.fixture(scope="module")
def module_database_url(base_database_url: str, migrated_template: str) -> Iterator[str]:
    """A fresh, migrated database for a module whose tests all look at one scene, set once
    (test_web_a11y plays one game and checks every page of it many ways)."""
    with _new_database(base_database_url, migrated_template) as url:
        yield url


def _rabbitmqctl(*args: str) -> None:
    subprocess.run(["rabbitmqctl", *args], check=True, capture_output=True, timeout=60)


@pytest.fixture
def rabbitmq_url() -> Iterator[str]:
    """A RabbitMQ vhost of the test's own on `EUCHRE_TEST_RABBITMQ_URL`'s server, made and
    deleted with `rabbitmqctl` (so the server must be on this machine).

    RabbitMQ has no embedded default: unset, the test skips, saying so; CI sets it.
    """
    base = os.environ.get("EUCHRE_TEST_RABBITMQ_URL")
    if not base:
        pytest.skip("no RabbitMQ: set EUCHRE_TEST_RABBITMQ_URL (CI does) to test on it")
    if shutil.which("rabbitmqctl") is None:
        pytest.fail("EUCHRE_TEST_RABBITMQ_URL is set but rabbitmqctl, to make vhosts, is missing")
    parts = urlsplit(base)
    vhost = f"test_{uuid4().hex}"
    _rabbitmqctl("add_vhost", vhost)
    try:
        _rabbitmqctl("set_permissions", "-p", vhost, parts.username or "guest", ".*", ".*", ".*")
        yield urlunsplit(parts._replace(path="/" + quote(vhost, safe="")))
    finally:
        _rabbitmqctl("delete_vhost", vhost)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest files first. Run in several processes, each file goes whole to one process
    in the order collected (`--dist loadfile`); the browser and whole-service files (tests/e2e,
    those with the most tests first) take most of the time, and one of them left to the end
    kept a process busy for minutes while the other had nothing to do. The many short files
    fill in around them instead."""
    e2e = Path(__file__).parent / "e2e"
    sizes = Counter(item.path for item in items)
    # A stable sort: each file's tests, and the short files, keep the order they were in.
    items.sort(key=lambda item: -sizes[item.path] if e2e in item.path.parents else 0)
