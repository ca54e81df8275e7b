"""A registered host's house rules, kept to pre-fill the next table they open.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("house_rules", JSONB, nullable=True))


def downgrade() -> None:
    op.drop_column("players", "house_rules")
