"""Ratings, their history, each player's counts and each finished game's result: read models
a follower keeps from the log (docs/ratings.md). The follower reads only the games won, by an
index of their own in the log's order.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "events_games_won",
        "events",
        ["xid", "position"],
        postgresql_where=sa.text("type = 'GameWon'"),
    )
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.Text, primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
    )
    # The leaderboard's order: the displayed rating, best first.
    op.create_index("ratings_display", "ratings", [sa.text("(mu - 3 * sigma) DESC"), "player_id"])
    op.create_table(
        "rating_history",
        sa.Column("player_id", sa.Text, primary_key=True),
        sa.Column("position", sa.BigInteger, primary_key=True),
        sa.Column("code", sa.Text, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("left", sa.Boolean, nullable=False),
        sa.Column("before_mu", sa.Float, nullable=False),
        sa.Column("before_sigma", sa.Float, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
    )
    op.create_table(
        "player_stats",
        sa.Column("player_id", sa.Text, primary_key=True),
        sa.Column("stats", JSONB, nullable=False),
    )
    op.create_table(
        "game_ratings",
        sa.Column("code", sa.Text, primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("seats", JSONB, nullable=False),
    )


def downgrade() -> None:
    for table in ("game_ratings", "player_stats", "rating_history", "ratings"):
        op.drop_table(table)
    op.drop_index("events_games_won", "events")
