"""Players and the lobby read model.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        # Registered names are unique whatever their case; guests' names are not.
        sa.Column("login", sa.Text, nullable=True),
        sa.Column("password_hash", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.UniqueConstraint("login", name="players_login_key"),
    )
    op.create_table(
        "tokens",
        sa.Column("token_hash", sa.Text, primary_key=True),
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
    )
    # Rebuilt from the log by `euchre rebuild`; its checkpoint lives in `checkpoints`.
    op.create_table(
        "lobby",
        sa.Column("code", sa.Text, primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("row", sa.dialects.postgresql.JSONB, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("lobby")
    op.drop_table("tokens")
    op.drop_table("players")
