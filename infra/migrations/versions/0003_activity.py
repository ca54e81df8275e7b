"""Tables in play and when each last moved: what the bots' sweeper looks through.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A read model like the lobby: rebuilt from the log, checkpoint in `checkpoints`.
    op.create_table(
        "activity",
        sa.Column("code", sa.Text, primary_key=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("activity_at", "activity", ["at"])


def downgrade() -> None:
    op.drop_table("activity")
