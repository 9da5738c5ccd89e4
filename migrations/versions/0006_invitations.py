"""The table's invitations: who may open the GM's console, a character's phone or the players'
page, each by a key the GM handed out, so that a link lasts across restarts and servers.

Not part of the log (the log keeps what was played, not who was let in): a row holds a hash of
its key, never the key, and says whom it lets in, until when, and whether the GM revoked it.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "invitations",
        sa.Column("invitation_id", sa.String(16), primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False, unique=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("campaign_id", sa.String(36)),
        sa.Column("character_id", sa.String(36)),
        sa.Column("made_at", sa.String(40), nullable=False),
        sa.Column("expires_at", sa.String(40)),
        sa.Column("revoked_at", sa.String(40)),
    )


def downgrade() -> None:
    op.drop_table("invitations")
