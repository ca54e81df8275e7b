"""The event log and the followers' checkpoints.

Revision ID: 0001
Revises:
Create Date: 2025-11-30
"""

import sqlalchemy as sa
from alembic import op

APPEND_FUNCTION = """
CREATE FUNCTION euchre_append(
    p_stream text, p_expected int, p_types text[], p_data jsonb, p_command_id text, p_lock bigint
) RETURNS TABLE (seq int, "position" bigint, duplicate boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    actual int;
    first_at timestamptz;
    first_seq int;
BEGIN
    PERFORM pg_advisory_xact_lock(p_lock);
    IF p_command_id IS NOT NULL THEN
        SELECT e.at, e.seq INTO first_at, first_seq FROM events e
        WHERE e.command_id = p_command_id AND e.stream = p_stream;
        IF FOUND THEN
            -- The rest of that append are the stream's next events from the same transaction.
            RETURN QUERY SELECT e.seq, e.position, true FROM events e
            WHERE e.stream = p_stream AND e.seq >= first_seq AND e.at = first_at
            ORDER BY e.seq;
            RETURN;
        END IF;
    END IF;
    SELECT coalesce(max(e.seq), 0) INTO actual FROM events e WHERE e.stream = p_stream;
    IF actual <> p_expected THEN
        RAISE EXCEPTION USING ERRCODE = 'EU409', MESSAGE = actual::text;
    END IF;
    RETURN QUERY INSERT INTO events (stream, seq, type, data, command_id)
        SELECT p_stream, p_expected + d.n::int, p_types[d.n], d.value,
               CASE WHEN d.n = 1 THEN p_command_id END
        FROM jsonb_array_elements(p_data) WITH ORDINALITY AS d(value, n)
        ORDER BY d.n
        RETURNING events.seq, events.position, false;
    PERFORM pg_notify('euchre_events', p_stream || ':' || (p_expected + cardinality(p_types)));
END
$fn$
"""

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    # (stream, seq) is the optimistic-concurrency check; position is the followers' global order
    # and its unique constraint is also the index they read by.
    op.create_table(
        "events",
        sa.Column("stream", sa.Text, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("position", sa.BigInteger, sa.Identity(always=True), nullable=False),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("data", sa.dialects.postgresql.JSONB, nullable=False),
        sa.Column("command_id", sa.Text, nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("stream", "seq", name="events_pkey"),
        sa.UniqueConstraint("position", name="events_position_key"),
        sa.UniqueConstraint("command_id", name="events_command_id_key"),
    )
    # The whole append in one statement: the lock is held only from inside the server to the
    # commit that follows the statement, never across a round trip to the client.
    op.execute(APPEND_FUNCTION)
    op.create_table(
        "checkpoints",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.execute("DROP FUNCTION euchre_append")
    op.drop_table("checkpoints")
    op.drop_table("events")
