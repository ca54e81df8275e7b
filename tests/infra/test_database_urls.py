"""A database URL of libpq's multi-host form, a replicated PostgreSQL's, reaches every reader:
SQLAlchemy's engine and Alembic, psycopg, the Redis key prefixes, the operator's messages."""

import psycopg.conninfo

from infra.db import conninfo, database_name, driver_url, parse
from infra.outages import where

MULTI = (
    "postgresql://postgres:p%40ss@10.0.0.1:5432,10.0.0.2:6432/euchre"
    "?target_session_attrs=read-write&connect_timeout=2"
)


def test_a_multi_host_url_is_read_by_sqlalchemy_as_hosts_in_its_query():
    url = driver_url(MULTI)
    assert url.drivername == "postgresql+psycopg" and url.host is None
    assert url.database == "euchre" and url.password == "p@ss"
    assert url.query["host"] == ("10.0.0.1:5432", "10.0.0.2:6432")
    assert url.query["target_session_attrs"] == "read-write"
    assert "p@ss" not in parse(MULTI).render_as_string(hide_password=True)


def test_psycopg_is_given_every_host_and_port_in_order():
    found = psycopg.conninfo.conninfo_to_dict(conninfo(MULTI))
    assert found["host"] == "10.0.0.1,10.0.0.2" and found["port"] == "5432,6432"
    assert found["dbname"] == "euchre" and found["password"] == "p@ss"
    assert found["target_session_attrs"] == "read-write"


def test_one_host_and_a_socket_read_as_before():
    assert conninfo("postgresql+psycopg://u:p@h:5433/db") == "postgresql://u:p@h:5433/db"
    assert database_name("postgresql://u@/db?host=/run/postgresql") == "db"
    assert database_name(MULTI) == "euchre"
    assert where(MULTI) == "10.0.0.1:5432,10.0.0.2:6432"
    assert where("postgresql://u:p@h:5433/db") == "h:5433"
