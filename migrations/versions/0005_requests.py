"""The requests the table's web app has answered: each holder's nonces, so a request sent again
is refused however many others came between, and across a restart.

Not part of the log (the log keeps what was played, not who was let in): a row names a holder by
a hash of its key, never the key, and goes once the page token that could send it again has
expired.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "requests",
        sa.Column("holder", sa.String(64), primary_key=True),
        sa.Column("nonce", sa.String(64), primary_key=True),
        sa.Column("until_at", sa.Integer, nullable=False),
        sa.Column("answer", sa.Text),
    )
    op.create_index("ix_requests_until", "requests", ["until_at"])


def downgrade() -> None:
    op.drop_index("ix_requests_until", table_name="requests")
    op.drop_table("requests")
