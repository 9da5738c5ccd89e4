"""The event log: campaigns, the append-only events table with its immutability triggers, settings.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

IMMUTABLE = "events are immutable: undo appends a compensating event instead"


def upgrade() -> None:
    op.create_table(
        "campaigns",
        sa.Column("campaign_id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("system", sa.String(16), nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "events",
        sa.Column("position", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("event_id", sa.String(36), nullable=False, unique=True),
        sa.Column(
            "campaign_id",
            sa.String(36),
            sa.ForeignKey("campaigns.campaign_id"),
            nullable=False,
        ),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("session_id", sa.Integer),
        sa.Column("character_id", sa.String(36)),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("schema_version", sa.Integer, nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("recorded_at", sa.String(40), nullable=False),
        sa.Column("visibility", sa.String(8), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.UniqueConstraint("campaign_id", "version", name="uq_events_campaign_version"),
        sa.CheckConstraint("visibility IN ('public', 'gm')", name="ck_events_visibility"),
        sa.CheckConstraint("version >= 1", name="ck_events_version"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_events_campaign_session", "events", ["campaign_id", "session_id"])
    op.create_table(
        "settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )

    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER events_no_{action.lower()} BEFORE {action} ON events "
                f"BEGIN SELECT RAISE(ABORT, '{IMMUTABLE}'); END"
            )
    elif dialect == "postgresql":
        op.execute(
            "CREATE FUNCTION events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$ "
            f"BEGIN RAISE EXCEPTION '{IMMUTABLE}'; END $$"
        )
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER events_no_{action.lower()} BEFORE {action} ON events "
                "FOR EACH ROW EXECUTE FUNCTION events_immutable()"
            )
        op.execute(
            "CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events "
            "FOR EACH STATEMENT EXECUTE FUNCTION events_immutable()"
        )


def downgrade() -> None:
    # The log is the campaign: there is deliberately no way back from the first revision.
    raise RuntimeError("The first revision holds the event log and cannot be downgraded.")
