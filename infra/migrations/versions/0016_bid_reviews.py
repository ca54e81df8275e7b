"""The review after each hand judges the bids too (domain/bots/bid_review.py): the reviews are
emptied and their follower's checkpoint dropped, so the workers review every hand again from
the log's start, bids and all.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07
"""

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DELETE FROM hand_reviews")
    op.execute("DELETE FROM checkpoints WHERE name = 'reviews'")


def downgrade() -> None:
    """The rows reviewed with bids still read as reviews without them: nothing to undo."""
