"""An index of each campaign's events by type: the few that decide what the rest mean.

Undos and redos decide which events are in force, reveals what the players may see, session
starts and ends which sessions were held, additions who is in play. Each is a small part of a
long log; without this index every read of them walked the whole campaign (a million rows for a
look back, a session list or the players' view), with it a read touches only those events.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_events_campaign_type", "events", ["campaign_id", "type", "version"])


def downgrade() -> None:
    op.drop_index("ix_events_campaign_type", table_name="events")
