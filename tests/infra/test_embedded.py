"""The embedded servers start in a directory, serve, keep their data, and leave no process behind.

These start their own servers whatever EUCHRE_TEST_* say, so they run on CI too, beside the
machine's PostgreSQL and Redis: the embedded ones listen on sockets in the temp directory only.
"""

import os
import pwd
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import redis
import sqlalchemy
from proc_kit import alive, family

from infra.embedded import EmbeddedError, EmbeddedPostgres, EmbeddedValkey, services
from infra.embedded.postgres import POSTGRES_BIN, _server_user
from infra.embedded.process import as_user
from infra.embedded.valkey import VALKEY_SERVER
from infra.settings import Settings

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc to find processes")


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """Outside pytest's private temp root, which PostgreSQL's user could not reach as root."""
    with tempfile.TemporaryDirectory(prefix="euchre-embedded-") as directory:
        yield Path(directory)


def test_servers_serve_and_leave_no_process_behind(data_dir: Path) -> None:
    with EmbeddedPostgres(data_dir) as postgres, EmbeddedValkey(data_dir) as valkey:
        with psycopg.connect(postgres.url, autocommit=True) as connection:
            assert connection.execute("SELECT 1").fetchone() == (1,)
            connection.execute("CREATE DATABASE scratch")
        engine = sqlalchemy.create_engine(
            sqlalchemy.make_url(postgres.url).set(drivername="postgresql+psycopg")
        )
        with engine.connect() as connection:
            assert connection.execute(sqlalchemy.text("SELECT current_database()")).scalar() == (
                "euchre"
            )
        engine.dispose()
        client = redis.Redis.from_url(valkey.url)
        client.set("greeting", "hello")
        assert client.get("greeting") == b"hello"
        client.close()
        started = family(postgres.pid) | family(valkey.pid)
        assert len(started) > 2, "PostgreSQL runs helper processes beside the postmaster"
    assert not [pid for pid in started if alive(pid)]


def test_data_survives_a_restart(data_dir: Path) -> None:
    with services(Settings(data_dir=data_dir)) as endpoints:
        with psycopg.connect(endpoints.database_url) as connection:
            connection.execute("CREATE TABLE note (text TEXT)")
            connection.execute("INSERT INTO note VALUES ('kept')")
        redis.Redis.from_url(endpoints.redis_url).set("note", "kept")
    with services(Settings(data_dir=data_dir)) as endpoints:
        with psycopg.connect(endpoints.database_url) as connection:
            assert connection.execute("SELECT text FROM note").fetchone() == ("kept",)
        assert redis.Redis.from_url(endpoints.redis_url).get("note") == b"kept"


def test_configured_urls_are_used_and_nothing_is_started(data_dir: Path) -> None:
    settings = Settings(
        database_url="postgresql://postgres@db.invalid/euchre",
        redis_url="redis://cache.invalid:6379/0",
        data_dir=data_dir / "unused",
    )
    with services(settings) as endpoints:
        assert endpoints.database_url == settings.database_url
        assert endpoints.redis_url == settings.redis_url
    assert not settings.data_dir.exists()


def test_a_deep_data_dir_gets_sockets_elsewhere(data_dir: Path) -> None:
    deep = data_dir / ("nested-" * 12) / "with space"
    with EmbeddedPostgres(deep) as postgres, EmbeddedValkey(deep) as valkey:
        assert str(deep) not in postgres.url and str(deep) not in valkey.url
        assert psycopg.connect(postgres.url).execute("SELECT 1").fetchone() == (1,)
        assert redis.Redis.from_url(valkey.url).ping()
    assert (deep / "postgres" / "PG_VERSION").exists()


def test_a_second_server_on_the_same_data_dir_is_refused(data_dir: Path) -> None:
    with EmbeddedPostgres(data_dir), EmbeddedValkey(data_dir):
        with pytest.raises(RuntimeError, match="already serving"):
            EmbeddedPostgres(data_dir).start()
        with pytest.raises(RuntimeError, match="already serving"):
            EmbeddedValkey(data_dir).start()


def test_sigterm_stops_the_servers_before_the_parent_exits(data_dir: Path) -> None:
    parent, started = start_parent(data_dir)
    parent.send_signal(signal.SIGTERM)
    parent.wait(60)
    assert not [pid for pid in started if alive(pid)]


def test_servers_stop_when_their_parent_is_killed(data_dir: Path) -> None:
    """Nothing in the parent runs on SIGKILL: the kernel's parent-death signal stops them."""
    parent, started = start_parent(data_dir)
    parent.kill()
    parent.wait(60)
    deadline = time.monotonic() + 30
    while [pid for pid in started if alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in started if alive(pid)]


def start_parent(data_dir: Path) -> tuple[subprocess.Popen[str], set[int]]:
    """A Python process holding `services()` open, as `euchre serve` does; returns it and the
    server processes it started."""
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(data_dir)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    assert parent.stdout is not None
    assert parent.stdout.readline() == "ready\n"
    started = family(parent.pid) - {parent.pid}
    assert len(started) > 2
    return parent, started


PARENT = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from infra.embedded import services
    from infra.settings import Settings

    with services(Settings(data_dir=Path(sys.argv[1]))):
        print("ready", flush=True)
        time.sleep(600)
    """
)


def test_a_server_left_by_a_gone_service_is_taken_over(data_dir: Path) -> None:
    """A server restarted by hand gets no parent-death signal, so it outlives a killed
    service; nobody holds the data directory's lock, so the next start stops it and serves."""
    with EmbeddedPostgres(data_dir) as postgres, EmbeddedValkey(data_dir) as valkey:
        urls = (postgres.url, valkey.url)
    strays = [
        subprocess.Popen(argv, start_new_session=True, stdout=subprocess.DEVNULL, **as_user(user))
        for argv, user in by_hand(data_dir)
    ]
    try:
        wait_for(lambda: answers(*urls))
        with EmbeddedPostgres(data_dir) as postgres, EmbeddedValkey(data_dir) as valkey:
            assert (postgres.url, valkey.url) == urls
            assert [stray.wait(30) for stray in strays] == [0, 0]
            assert answers(postgres.url, valkey.url)
    finally:
        for stray in strays:
            if stray.poll() is None:
                stray.kill()
                stray.wait()


def test_a_server_that_dies_is_restarted_on_the_same_url(data_dir: Path) -> None:
    with EmbeddedPostgres(data_dir) as postgres, EmbeddedValkey(data_dir) as valkey:
        for server in (postgres, valkey):
            url, pid = server.url, server.pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            wait_for(lambda server=server: server.exited() is not None)
            assert server.exited() == -signal.SIGKILL
            deadline = time.monotonic() + 60
            while True:  # PostgreSQL's orphaned backends may hold its memory for a moment
                try:
                    server.restart(timeout=30)
                    break
                except EmbeddedError:
                    assert time.monotonic() < deadline
                    time.sleep(0.5)
            assert server.url == url and server.pid != pid and server.exited() is None
        assert answers(postgres.url, valkey.url)


def by_hand(data_dir: Path) -> list[tuple[list, pwd.struct_passwd | None]]:
    """The servers' command lines as an operator would type them to restart them by hand."""
    pgdata, valkey = data_dir / "postgres", data_dir / "valkey"
    postgres = [POSTGRES_BIN / "postgres", "-D", pgdata, "-k", pgdata, "-p", "5432"]
    postgres += ["-c", "listen_addresses="]
    socket = valkey / "valkey.sock"
    valkey_argv = [VALKEY_SERVER, "--port", "0", "--unixsocket", socket, "--dir", valkey]
    return [(postgres, _server_user()), (valkey_argv, None)]


def answers(database_url: str, redis_url: str) -> bool:
    try:
        psycopg.connect(database_url, connect_timeout=2).close()
        return bool(redis.Redis.from_url(redis_url).ping())
    except (psycopg.OperationalError, redis.ConnectionError):
        return False


def wait_for(condition, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds} s"
        time.sleep(0.1)
