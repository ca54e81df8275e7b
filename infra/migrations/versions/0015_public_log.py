"""The public log of finished games (docs/audit.md "The public log"): each game's final head,
in the order the log's GameWon events are read, as a leaf of one Merkle tree. A follower keeps
it; `leaf` is the leaf's hash (RFC 9162: SHA-256 of 0x00 and the leaf's statement), kept so a
process loads the tree without hashing every game again.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "public_log",
        sa.Column("idx", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("code", sa.Text, nullable=False, unique=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("hash", sa.Text, nullable=False),
        sa.Column("leaf", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("public_log")
