"""Registered names' look-alike keys, so a guest can't pass for a registered player.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

from infra.names import key

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("name_key", sa.Text, nullable=True))
    # Only registered names hold a key. Of two already registered that look alike, the older
    # keeps it (both still sign in by their own name); guests never share a key with either.
    conn = op.get_bind()
    rows = conn.execute(
        sa.text("SELECT id, name FROM players WHERE login IS NOT NULL ORDER BY created_at, id")
    )
    seen: set[str] = set()
    for player_id, name in rows.fetchall():
        k = key(name)
        if k not in seen:
            seen.add(k)
            conn.execute(
                sa.text("UPDATE players SET name_key = :k WHERE id = :id"),
                {"k": k, "id": player_id},
            )
    op.create_unique_constraint("players_name_key_key", "players", ["name_key"])


def downgrade() -> None:
    op.drop_constraint("players_name_key_key", "players")
    op.drop_column("players", "name_key")
