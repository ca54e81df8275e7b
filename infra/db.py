"""The database engine and schema migrations."""

from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec
from alembic import command
from alembic.config import Config
from sqlalchemy import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

MIGRATIONS = Path(__file__).with_name("migrations")


def parse(url: str) -> URL:
    """A libpq URL as SQLAlchemy reads it. libpq's multi-host form, which a client of a
    replicated PostgreSQL uses to find the primary
    (`postgresql://user:pw@host1:5432,host2:5432/db?target_session_attrs=read-write`), has
    its hosts moved to `host` parameters, SQLAlchemy's form of the same; SQLAlchemy's own
    parser refuses the first."""
    parts = urlsplit(url)
    user, at, hosts = parts.netloc.rpartition("@")
    if "," not in hosts:
        return make_url(url)
    query = [("host", host) for host in hosts.split(",")] + parse_qsl(parts.query)
    return make_url(urlunsplit((parts.scheme, user + at, parts.path, urlencode(query), "")))


def database_name(url: str) -> str:
    """The database a URL names: keys in Redis are kept apart by it."""
    return str(parse(url).database)


def driver_url(url: str) -> URL:
    """Name psycopg 3 as the driver, so settings can hold the plain libpq-style URL.

    Unix-socket URLs (`postgresql://user@/db?host=/run/postgresql`) pass through unchanged:
    psycopg takes `host` from the query string.
    """
    return parse(url).set(drivername="postgresql+psycopg")


def conninfo(url: str) -> str:
    """The URL as psycopg itself takes it, whatever driver name it was written with (a
    multi-host URL as libpq writes it, which psycopg reads itself)."""
    parts = urlsplit(url)
    if "," in parts.netloc.rpartition("@")[2]:
        return urlunsplit(("postgresql", *parts[1:]))
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def server_options(settings: dict[str, str]) -> str:
    """Server settings for each new connection, as libpq's `options` parameter carries them."""
    return " ".join(f"-c {name}={value}" for name, value in settings.items())


def create_engine(url: str, **options: object) -> AsyncEngine:
    """Encode JSON with msgspec so event data round-trips exactly as the domain encodes it.

    Each connection is pinged as it leaves the pool: after the server restarts (`euchre serve`
    restarts a dead embedded one), every pooled connection is dead, and without the ping each
    would fail one request or one read model's catch-up before the pool let it go."""
    return create_async_engine(
        driver_url(url),
        json_serializer=msgspec.json.encode,
        json_deserializer=msgspec.json.decode,
        pool_pre_ping=True,
        **options,
    )


def migrate(url: str, revision: str = "head") -> None:
    """Bring the schema to `revision` (the newest by default); configured here so no
    alembic.ini is needed.

    Synchronous, as Alembic is; from async code call it through `asyncio.to_thread`.
    """
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["url"] = driver_url(url)
    command.upgrade(config, revision)
