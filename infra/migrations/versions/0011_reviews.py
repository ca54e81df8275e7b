"""Each scored hand's review (domain/bots/review.py, docs/bots.md "The review after each hand"): a
read model a follower keeps from the log. The follower reads only the hands scored, by an
index of their own in the log's order. A change to how hands are reviewed must come with a
migration that empties `hand_reviews`: a rebuild keeps the reviews it finds (see
infra/reviews.py).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "events_hands_scored",
        "events",
        ["xid", "position"],
        postgresql_where=sa.text("type = 'HandScored'"),
    )
    op.create_table(
        "hand_reviews",
        sa.Column("code", sa.Text, primary_key=True),
        sa.Column("hand_no", sa.Integer, primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("review", JSONB, nullable=False),
    )
    # The HandScored each row reviews: a rebuild keeps the rows it has and looks them up by it.
    op.create_index("hand_reviews_position", "hand_reviews", ["position"], unique=True)


def downgrade() -> None:
    op.drop_table("hand_reviews")
    op.drop_index("events_hands_scored", "events")
