"""The embedded default: a private PostgreSQL and Valkey, started for a run and stopped after it.

`services(settings)` hands out the URLs to use: the configured ones, with an embedded server
started for each left unset (docs/operations.md).
"""

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import msgspec

from infra.embedded.postgres import DATABASE, SUPERUSER, EmbeddedPostgres
from infra.embedded.process import DataDirInUse, Embedded, EmbeddedError, sigterm_interrupts
from infra.embedded.valkey import EmbeddedValkey
from infra.settings import Settings

__all__ = [
    "DATABASE",
    "SUPERUSER",
    "DataDirInUse",
    "Embedded",
    "EmbeddedError",
    "EmbeddedPostgres",
    "EmbeddedValkey",
    "Endpoints",
    "database",
    "services",
]


class Endpoints(msgspec.Struct, frozen=True):
    """Where the service finds its servers: libpq and redis-py URLs; and the embedded servers
    started, for `euchre serve` to restart one that dies."""

    database_url: str
    redis_url: str
    started: tuple[Embedded, ...] = ()


@contextmanager
def database(settings: Settings) -> Iterator[str]:
    """The database to read for a command of its own (an export, a check): the configured
    one, else the one a running `euchre serve` has in the data directory, else an embedded
    one started for the block."""
    if settings.database_url is not None:
        yield settings.database_url
        return
    server = EmbeddedPostgres(settings.data_dir)
    running = server.running()
    if running is not None:
        yield running
        return
    with sigterm_interrupts(), server:
        yield server.url


@contextmanager
def services(settings: Settings) -> Iterator[Endpoints]:
    """The servers to use: the configured URLs, with embedded ones started for any left unset.

    Everything started here is stopped on leaving the block, including by Ctrl-C or SIGTERM.
    """
    with ExitStack() as stack:
        stack.enter_context(sigterm_interrupts())
        started: list[Embedded] = []
        database_url = settings.database_url
        if database_url is None:
            started.append(stack.enter_context(EmbeddedPostgres(settings.data_dir)))
            database_url = started[-1].url
        redis_url = settings.redis_url
        if redis_url is None:
            started.append(stack.enter_context(EmbeddedValkey(settings.data_dir)))
            redis_url = started[-1].url
        yield Endpoints(database_url, redis_url, tuple(started))
