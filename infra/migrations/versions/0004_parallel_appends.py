"""Appends without a global lock: each event records its transaction, and followers read below
the oldest transaction still running (docs/event-store.md).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from alembic import op

# Concurrent appends to one stream meet at the primary key: the loser waits for the winner's
# commit, then finds its expected seq taken (EU409) or, for a retried command, the winner's
# rows (returned as a duplicate). Nothing else serialises appends.
APPEND_FUNCTION = """
CREATE FUNCTION euchre_append(
    p_stream text, p_expected int, p_types text[], p_data jsonb, p_command_id text
) RETURNS TABLE (seq int, "position" bigint, duplicate boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    actual int;
    seqs int[];
    positions bigint[];
BEGIN
    IF p_command_id IS NOT NULL THEN
        RETURN QUERY SELECT * FROM euchre_appended(p_stream, p_command_id);
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    BEGIN
        -- Collected, not returned row by row: a conflict on a later row must not leave the
        -- earlier ones in the result.
        WITH added AS (
            INSERT INTO events (stream, seq, type, data, command_id)
            SELECT p_stream, p_expected + d.n::int, p_types[d.n], d.value,
                   CASE WHEN d.n = 1 THEN p_command_id END
            FROM jsonb_array_elements(p_data) WITH ORDINALITY AS d(value, n)
            WHERE coalesce(
                (SELECT max(e.seq) FROM events e WHERE e.stream = p_stream), 0
            ) = p_expected
            RETURNING events.seq, events.position
        )
        SELECT array_agg(a.seq ORDER BY a.seq), array_agg(a.position ORDER BY a.seq)
        INTO seqs, positions FROM added a;
    EXCEPTION WHEN unique_violation THEN
        -- Someone appended at the same seq (or under the same command id) and committed first.
        seqs := NULL;
    END;
    IF seqs IS NOT NULL THEN
        RETURN QUERY SELECT s.seq, s.position, false
            FROM unnest(seqs, positions) AS s(seq, position);
        RETURN;
    END IF;
    -- Lost a race: to a retry of this very command (its first result is the answer), or to
    -- another command (a conflict).
    IF p_command_id IS NOT NULL THEN
        RETURN QUERY SELECT * FROM euchre_appended(p_stream, p_command_id);
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    SELECT coalesce(max(e.seq), 0) INTO actual FROM events e WHERE e.stream = p_stream;
    RAISE EXCEPTION USING ERRCODE = 'EU409', MESSAGE = actual::text;
END
$fn$
"""

# A command's events are the stream's rows from the transaction that logged its id.
APPENDED_FUNCTION = """
CREATE FUNCTION euchre_appended(p_stream text, p_command_id text)
RETURNS TABLE (seq int, "position" bigint, duplicate boolean)
LANGUAGE sql STABLE AS $fn$
    SELECT e.seq, e.position, true FROM events e
    JOIN events first ON first.command_id = p_command_id AND first.stream = p_stream
    WHERE e.stream = p_stream AND e.seq >= first.seq AND e.xid = first.xid
    ORDER BY e.seq
$fn$
"""

OLD_APPEND_FUNCTION_SIGNATURE = "euchre_append(text, int, text[], jsonb, text, bigint)"

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Events logged before this revision all committed long ago: transaction 0 sorts them
    # first, in position order, which is the order followers already read them in.
    op.execute("ALTER TABLE events ADD COLUMN xid xid8 NOT NULL DEFAULT '0'")
    op.execute("ALTER TABLE events ALTER COLUMN xid SET DEFAULT pg_current_xact_id()")
    op.execute("ALTER TABLE events DROP CONSTRAINT events_position_key")
    op.execute('CREATE UNIQUE INDEX events_global_order ON events (xid, "position")')
    op.execute("ALTER TABLE checkpoints ADD COLUMN xid xid8 NOT NULL DEFAULT '0'")
    op.execute(f"DROP FUNCTION {OLD_APPEND_FUNCTION_SIGNATURE}")
    op.execute(APPENDED_FUNCTION)
    op.execute(APPEND_FUNCTION)


def downgrade() -> None:
    raise NotImplementedError("the log's global order can't go back to positions alone")
