"""Close the ways around the immutability triggers: a replacing insert, and the campaigns.

``INSERT OR REPLACE`` (and ``REPLACE INTO``) on SQLite deletes the row it collides with without
firing a DELETE trigger, so a stored event could be swapped for another with both triggers in
place; an insert that collides with a stored event is now refused before it can replace
anything (an upsert's ``DO UPDATE`` already meets the UPDATE trigger). A campaign's row, which
names its stream, can no longer be updated or deleted either.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

IMMUTABLE = "events are immutable: undo appends a compensating event instead"
KEPT = "campaigns are kept with their logs; nothing in a log is removed"


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute(
            "CREATE TRIGGER events_no_replace BEFORE INSERT ON events "
            "WHEN EXISTS (SELECT 1 FROM events WHERE event_id = NEW.event_id "
            "OR (campaign_id = NEW.campaign_id AND version = NEW.version) "
            "OR position = NEW.position) "
            f"BEGIN SELECT RAISE(ABORT, '{IMMUTABLE}'); END"
        )
        op.execute(
            "CREATE TRIGGER campaigns_no_replace BEFORE INSERT ON campaigns "
            "WHEN EXISTS (SELECT 1 FROM campaigns WHERE campaign_id = NEW.campaign_id "
            "OR name = NEW.name) "
            f"BEGIN SELECT RAISE(ABORT, '{KEPT}'); END"
        )
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER campaigns_no_{action.lower()} BEFORE {action} ON campaigns "
                f"BEGIN SELECT RAISE(ABORT, '{KEPT}'); END"
            )
    elif dialect == "postgresql":
        op.execute(
            "CREATE FUNCTION campaigns_kept() RETURNS trigger LANGUAGE plpgsql AS $$ "
            f"BEGIN RAISE EXCEPTION '{KEPT}'; END $$"
        )
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER campaigns_no_{action.lower()} BEFORE {action} ON campaigns "
                "FOR EACH ROW EXECUTE FUNCTION campaigns_kept()"
            )
        op.execute(
            "CREATE TRIGGER campaigns_no_truncate BEFORE TRUNCATE ON campaigns "
            "FOR EACH STATEMENT EXECUTE FUNCTION campaigns_kept()"
        )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("DROP TRIGGER events_no_replace")
        op.execute("DROP TRIGGER campaigns_no_replace")
    for action in ("update", "delete", "truncate"):
        if dialect == "postgresql" or action != "truncate":
            on = " ON campaigns" if dialect == "postgresql" else ""
            op.execute(f"DROP TRIGGER campaigns_no_{action}{on}")
    if dialect == "postgresql":
        op.execute("DROP FUNCTION campaigns_kept()")
