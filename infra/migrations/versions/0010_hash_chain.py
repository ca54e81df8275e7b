"""Each event's hash, chained to the one before it in its table's log (domain/chain.py,
docs/audit.md): the append computes it, and existing logs get theirs here.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from alembic import op

from domain.chain import GENESIS, canonical, link

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

# As 0007's, and each new row's hash: the caller sends every event's canonical bytes (the
# server can't make them: jsonb forgets the text it was given), and the chain runs on from the
# hash of the event at the expected seq, which the same statement proves is there.
APPEND_FUNCTION = """
CREATE FUNCTION euchre_append(
    p_stream text, p_expected int, p_types text[], p_data jsonb, p_command_id text,
    p_canonical bytea[]
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
        WITH RECURSIVE chain (n, hash) AS (
            SELECT 1, sha256(coalesce(
                (SELECT x.hash FROM events x WHERE x.stream = p_stream AND x.seq = p_expected),
                '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea
            ) || p_canonical[1])
            UNION ALL
            SELECT c.n + 1, sha256(c.hash || p_canonical[c.n + 1])
            FROM chain c WHERE c.n < cardinality(p_canonical)
        )
        INSERT INTO events AS e (stream, seq, type, data, command_id, hash)
        SELECT p_stream, p_expected + d.n::int, p_types[d.n], d.value,
               CASE WHEN d.n = 1 THEN p_command_id END, c.hash
        FROM jsonb_array_elements(p_data) WITH ORDINALITY AS d(value, n)
        JOIN chain c ON c.n = d.n
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
FILL_BATCH = 5000


def _fill() -> None:
    """Every existing event's hash, stream by stream in seq order, written through a
    temporary table in batches."""
    conn = op.get_bind().connection.driver_connection
    conn.execute("CREATE TEMPORARY TABLE chained (stream text, seq int, hash bytea) ON COMMIT DROP")
    previous: tuple[str, bytes] = ("", GENESIS)
    rows: list[tuple[str, int, bytes]] = []

    def flush() -> None:
        with conn.cursor().copy("COPY chained (stream, seq, hash) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        rows.clear()

    with conn.cursor(name="chain_fill") as events:
        events.itersize = FILL_BATCH
        events.execute("SELECT stream, seq, type, data FROM events ORDER BY stream, seq")
        for stream, seq, kind, data in events:
            start = previous[1] if previous[0] == stream else GENESIS
            h = link(start, canonical(stream, seq, kind, data))
            previous = (stream, h)
            rows.append((stream, seq, h))
            if len(rows) >= FILL_BATCH:
                flush()
    flush()
    conn.execute(
        "UPDATE events e SET hash = c.hash FROM chained c WHERE e.stream = c.stream "
        "AND e.seq = c.seq"
    )


def upgrade() -> None:
    op.execute("ALTER TABLE events ADD COLUMN hash bytea")
    _fill()
    op.execute("ALTER TABLE events ALTER COLUMN hash SET NOT NULL")
    op.execute("DROP FUNCTION euchre_append(text, int, text[], jsonb, text)")
    op.execute(APPEND_FUNCTION)


def downgrade() -> None:
    raise NotImplementedError("a log without its chain can't be checked; restore a backup")
