"""An operator's ban of a player site-wide, and when each token was last used, for
`euchre players ban` and `euchre tokens list` (docs/operations.md "Commands").

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("banned_reason", sa.Text, nullable=True))
    op.add_column("players", sa.Column("banned_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("tokens", sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("tokens_by_player", "tokens", ["player_id"])


def downgrade() -> None:
    op.drop_index("tokens_by_player", "tokens")
    op.drop_column("tokens", "last_used_at")
    op.drop_column("players", "banned_at")
    op.drop_column("players", "banned_reason")
