"""The batch append reads the event it follows on from once, for its transaction id and its
hash together: 0012 looked it up twice, once for each. At 8 clients in `bench/append.py` that
second lookup was 7% of the rate (docs/event-store.md "Group commit"). The function is 0012's
otherwise, outcomes and all; it is restated whole, as a migration must be.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05
"""

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

APPEND_BATCH_FUNCTION = """
CREATE OR REPLACE FUNCTION euchre_append_batch(
    p_streams text[], p_expected int[], p_counts int[], p_command_ids text[],
    p_types text[], p_data jsonb, p_canonical bytea[]
) RETURNS TABLE (item int, seq int, "position" bigint, outcome "char")
LANGUAGE plpgsql AS $fn$
DECLARE
    me xid8 := pg_current_xact_id();
    i int;
    first int := 0;
    n int;
    s text;
    expected int;
    before xid8;
    prev bytea;
    seqs int[];
    positions bigint[];
BEGIN
    FOR i IN 1 .. coalesce(cardinality(p_streams), 0) LOOP
        s := p_streams[i];
        expected := p_expected[i];
        n := p_counts[i];
        first := first + coalesce(p_counts[i - 1], 0);
        IF p_command_ids[i] IS NOT NULL THEN
            RETURN QUERY SELECT i, a.seq, a.position, 'd'::"char"
                FROM euchre_appended(s, p_command_ids[i]) a;
            CONTINUE WHEN FOUND;
        END IF;
        prev := '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
        IF expected > 0 THEN
            SELECT x.xid, x.hash INTO before, prev
                FROM events x WHERE x.stream = s AND x.seq = expected;
            IF NOT FOUND THEN
                RETURN QUERY SELECT i, coalesce(max(x.seq), 0), NULL::bigint, 'c'::"char"
                    FROM events x WHERE x.stream = s;
                CONTINUE;
            END IF;
            IF before > me THEN
                RETURN QUERY SELECT i, expected, NULL::bigint, 'r'::"char";
                CONTINUE;
            END IF;
        END IF;
        WITH RECURSIVE chain (k, hash) AS (
            SELECT 1, sha256(prev || p_canonical[first + 1])
            UNION ALL
            SELECT c.k + 1, sha256(c.hash || p_canonical[first + c.k + 1])
            FROM chain c WHERE c.k < n
        ), added AS (
            INSERT INTO events AS e (stream, seq, type, data, command_id, hash)
            SELECT s, expected + c.k, p_types[first + c.k], p_data -> (first + c.k - 1),
                   CASE WHEN c.k = 1 THEN p_command_ids[i] END, c.hash
            FROM chain c
            ON CONFLICT DO NOTHING
            RETURNING e.seq, e.position
        )
        SELECT array_agg(a.seq ORDER BY a.seq), array_agg(a.position ORDER BY a.seq)
        INTO seqs, positions FROM added a;
        IF coalesce(cardinality(seqs), 0) = n THEN
            RETURN QUERY SELECT i, u.seq, u.position, 'a'::"char"
                FROM unnest(seqs, positions) u(seq, position);
            CONTINUE;
        END IF;
        -- Another append took a seq or the command id first, and has committed: undo what
        -- this item wrote (only this item writes this stream in this transaction).
        DELETE FROM events x WHERE x.stream = s AND x.seq > expected AND x.xid = me;
        IF p_command_ids[i] IS NOT NULL THEN
            RETURN QUERY SELECT i, a.seq, a.position, 'd'::"char"
                FROM euchre_appended(s, p_command_ids[i]) a;
            CONTINUE WHEN FOUND;
        END IF;
        RETURN QUERY SELECT i, coalesce(max(x.seq), 0), NULL::bigint, 'c'::"char"
            FROM events x WHERE x.stream = s;
    END LOOP;
END
$fn$
"""


def upgrade() -> None:
    op.execute(APPEND_BATCH_FUNCTION)


def downgrade() -> None:
    raise NotImplementedError("restore a backup taken before 0013")
