"""The rolls the GM asked of the players' phones and they have not rolled yet: one per
character, kept where a restart of the web app and every other server of the database find it,
so a phone shows the request whichever server it is on.

Not part of the log: a request logs nothing until the phone rolls it.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "asked",
        sa.Column("character_id", sa.String(36), primary_key=True),
        sa.Column("request_id", sa.String(16), nullable=False),
        sa.Column("request", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("asked")
