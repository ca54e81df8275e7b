"""The first reply to each Idempotency-Key, per player, kept for a day.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "idempotent_replies",
        sa.Column("player_id", sa.Text, primary_key=True),
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("fingerprint", sa.Text, nullable=False),
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("media_type", sa.Text, nullable=False),
        sa.Column("body", sa.LargeBinary, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
    )
    # For sweeping expired replies across all players.
    op.create_index("idempotent_replies_at", "idempotent_replies", ["at"])


def downgrade() -> None:
    op.drop_table("idempotent_replies")
