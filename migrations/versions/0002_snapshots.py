"""Projection snapshots: a disposable cache of folded state, tagged with its projection's version.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "snapshots",
        sa.Column(
            "campaign_id",
            sa.String(36),
            sa.ForeignKey("campaigns.campaign_id"),
            primary_key=True,
        ),
        sa.Column("projection", sa.String(32), primary_key=True),
        sa.Column("projection_version", sa.Integer, primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("head_hash", sa.String(64), nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("snapshots")
