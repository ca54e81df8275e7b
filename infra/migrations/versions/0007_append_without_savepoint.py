"""Appends without a subtransaction: a lost race is an insert that did nothing, not an error
caught in an EXCEPTION block (each of which opens a subtransaction on every call).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from alembic import op

# Concurrent appends to one stream meet at the primary key: the later waits for the earlier's
# commit, then inserts nothing at that seq. Fewer rows than asked means the expected seq was
# taken (EU409) or, for a retried command, its first rows are there (returned as a duplicate);
# rows that did go in past a taken seq are undone by the RAISE.
APPEND_FUNCTION = """
CREATE OR REPLACE FUNCTION euchre_append(
    p_stream text, p_expected int, p_types text[], p_data jsonb, p_command_id text
) RETURNS TABLE (seq int, "position" bigint, duplicate boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    added int;
    actual int;
BEGIN
    IF p_command_id IS NOT NULL THEN
        RETURN QUERY SELECT * FROM euchre_appended(p_stream, p_command_id);
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    RETURN QUERY
        INSERT INTO events AS e (stream, seq, type, data, command_id)
        SELECT p_stream, p_expected + d.n::int, p_types[d.n], d.value,
               CASE WHEN d.n = 1 THEN p_command_id END
        FROM jsonb_array_elements(p_data) WITH ORDINALITY AS d(value, n)
        WHERE p_expected = 0
           OR EXISTS (SELECT 1 FROM events x WHERE x.stream = p_stream AND x.seq = p_expected)
        ON CONFLICT DO NOTHING
        RETURNING e.seq, e.position, false;
    GET DIAGNOSTICS added = ROW_COUNT;
    IF added = jsonb_array_length(p_data) THEN
        RETURN;
    END IF;
    IF added = 0 AND p_command_id IS NOT NULL THEN
        RETURN QUERY SELECT * FROM euchre_appended(p_stream, p_command_id);
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    -- Not counting rows of this call's own, which the RAISE is about to undo.
    SELECT coalesce(max(x.seq), 0) INTO actual FROM events x
    WHERE x.stream = p_stream AND x.xid IS DISTINCT FROM pg_current_xact_id_if_assigned();
    RAISE EXCEPTION USING ERRCODE = 'EU409', MESSAGE = actual::text;
END
$fn$
"""

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(APPEND_FUNCTION)


def downgrade() -> None:
    raise NotImplementedError("0004's function is the same contract, only slower")
