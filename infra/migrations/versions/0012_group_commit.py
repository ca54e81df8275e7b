"""Appends to many tables in one statement and one commit (docs/event-store.md "Group
commit"): under load a process's appends share their round trip, their commit's flush and
their doorbell, instead of paying for each alone.

Each item of a batch is checked and written as 0010's append was, and comes back with its own
outcome, so one table's conflict leaves the others' appends standing:
  'a' appended: one row per event, with its seq and position;
  'd' a duplicate: the rows the command id's first append wrote;
  'c' a conflict: one row, the stream's last seq (the store raises ConcurrencyConflict);
  'r' retry: the event before it was written by a transaction younger than this one, so
      rows written here would sort before it in the followers' order (xid, position); nothing
      was written, and the caller sends it again in a transaction of its own.
A batch holds at most one append per stream: a command's rows are then exactly the stream's
rows of its transaction (euchre_appended), and the caller lists the streams in order, so two
batches waiting on each other's rows always wait in the same order and never deadlock.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

# p_counts[i] events belong to item i; p_types, p_data (a JSON array) and p_canonical hold
# every item's events one after another.
APPEND_BATCH_FUNCTION = """
CREATE FUNCTION euchre_append_batch(
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
        IF expected > 0 THEN
            SELECT x.xid INTO before FROM events x WHERE x.stream = s AND x.seq = expected;
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
            SELECT 1, sha256(coalesce(
                (SELECT x.hash FROM events x WHERE x.stream = s AND x.seq = expected),
                '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea
            ) || p_canonical[first + 1])
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
    op.execute("DROP FUNCTION euchre_append(text, int, text[], jsonb, text, bytea[])")


def downgrade() -> None:
    raise NotImplementedError("restore a backup taken before 0012")
