"""The batch append returns each event's hash in the chain beside its seq and position, so the
process that appended a move can sign the head its view shows without reading the log again
(docs/audit.md "Signed heads"). The function is 0013's otherwise, restated whole; a function's
result type can't be changed in place, so it is dropped and made anew in one transaction.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06
"""

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

APPEND_BATCH_FUNCTION = """
CREATE FUNCTION euchre_append_batch(
    p_streams text[], p_expected int[], p_counts int[], p_command_ids text[],
    p_types text[], p_data jsonb, p_canonical bytea[]
) RETURNS TABLE (item int, seq int, "position" bigint, outcome "char", hash bytea)
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
    hashes bytea[];
BEGIN
    FOR i IN 1 .. coalesce(cardinality(p_streams), 0) LOOP
        s := p_streams[i];
        expected := p_expected[i];
        n := p_counts[i];
        first := first + coalesce(p_counts[i - 1], 0);
        IF p_command_ids[i] IS NOT NULL THEN
            RETURN QUERY SELECT i, a.seq, a.position, 'd'::"char", NULL::bytea
                FROM euchre_appended(s, p_command_ids[i]) a;
            CONTINUE WHEN FOUND;
        END IF;
        prev := '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
        IF expected > 0 THEN
            SELECT x.xid, x.hash INTO before, prev
                FROM events x WHERE x.stream = s AND x.seq = expected;
            IF NOT FOUND THEN
                RETURN QUERY SELECT i, coalesce(max(x.seq), 0), NULL::bigint, 'c'::"char",
                    NULL::bytea FROM events x WHERE x.stream = s;
                CONTINUE;
            END IF;
            IF before > me THEN
                RETURN QUERY SELECT i, expected, NULL::bigint, 'r'::"char", NULL::bytea;
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
            RETURNING e.seq, e.position, e.hash
        )
        SELECT array_agg(a.seq ORDER BY a.seq), array_agg(a.position ORDER BY a.seq),
               array_agg(a.hash ORDER BY a.seq)
        INTO seqs, positions, hashes FROM added a;
        IF coalesce(cardinality(seqs), 0) = n THEN
            RETURN QUERY SELECT i, u.seq, u.position, 'a'::"char", u.hash
                FROM unnest(seqs, positions, hashes) u(seq, position, hash);
            CONTINUE;
        END IF;
        -- Another append took a seq or the command id first, and has committed: undo what
        -- this item wrote (only this item writes this stream in this transaction).
        DELETE FROM events x WHERE x.stream = s AND x.seq > expected AND x.xid = me;
        IF p_command_ids[i] IS NOT NULL THEN
            RETURN QUERY SELECT i, a.seq, a.position, 'd'::"char", NULL::bytea
                FROM euchre_appended(s, p_command_ids[i]) a;
            CONTINUE WHEN FOUND;
        END IF;
        RETURN QUERY SELECT i, coalesce(max(x.seq), 0), NULL::bigint, 'c'::"char", NULL::bytea
            FROM events x WHERE x.stream = s;
    END LOOP;
END
$fn$
"""


def upgrade() -> None:
    op.execute(
        "DROP FUNCTION euchre_append_batch(text[], int[], int[], text[], text[], jsonb, bytea[])"
    )
    op.execute(APPEND_BATCH_FUNCTION)


def downgrade() -> None:
    raise NotImplementedError("restore a backup taken before 0014")
