"""Alembic's entry point: runs the migrations against the URL `infra.db.migrate` hands over."""

from alembic import context
from sqlalchemy import create_engine, pool, text

# Any constant will do, as long as nothing else in the database takes the same advisory lock.
MIGRATION_LOCK = 0x6575_6368_6D69_6772  # "euchmigr"


def run() -> None:
    """Hold an advisory lock so the API and the workers starting together migrate one at a time."""
    engine = create_engine(context.config.attributes["url"], poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection)
        with context.begin_transaction():
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
            context.run_migrations()
    engine.dispose()


run()
