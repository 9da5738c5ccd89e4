"""The database tables, as SQLAlchemy Core.

The Alembic migrations in ``migrations/versions`` create these; this module mirrors the head
revision, for Alembic's tests and anyone reading the schema as code; the store's own statements
are SQL text (``tracker.store.eventstore``), which the tests hold to these tables.
"""

from sqlalchemy import (
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

campaigns = Table(
    "campaigns",
    metadata,
    Column("campaign_id", String(36), primary_key=True),
    Column("name", String(200), nullable=False, unique=True),
    Column("system", String(16), nullable=False),
    Column("created_at", String(40), nullable=False),
)

events = Table(
    "events",
    metadata,
    Column("position", Integer, primary_key=True, autoincrement=True),
    Column("event_id", String(36), nullable=False, unique=True),
    Column("campaign_id", String(36), ForeignKey("campaigns.campaign_id"), nullable=False),
    Column("version", Integer, nullable=False),
    Column("session_id", Integer),
    Column("character_id", String(36)),
    Column("type", String(64), nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("payload", Text, nullable=False),
    Column("recorded_at", String(40), nullable=False),
    Column("visibility", String(8), nullable=False),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
    UniqueConstraint("campaign_id", "version", name="uq_events_campaign_version"),
    CheckConstraint("visibility IN ('public', 'gm')", name="ck_events_visibility"),
    CheckConstraint("version >= 1", name="ck_events_version"),
    sqlite_autoincrement=True,
)
Index("ix_events_campaign_session", events.c.campaign_id, events.c.session_id)
# The few events that decide what the rest mean (undos, reveals, sessions), read without a walk
# of the whole campaign (``EventStore.read(sparse=True)``).
Index("ix_events_campaign_type", events.c.campaign_id, events.c.type, events.c.version)

# A disposable cache: one row per campaign and projection version, replaced as the log grows.
snapshots = Table(
    "snapshots",
    metadata,
    Column("campaign_id", String(36), ForeignKey("campaigns.campaign_id"), primary_key=True),
    Column("projection", String(32), primary_key=True),
    Column("projection_version", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
    Column("head_hash", String(64), nullable=False),
    Column("state", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
)

settings = Table(
    "settings",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

# The requests the web app answered, by holder (a hash of its key) and nonce: what refuses a
# request sent again. Not the log; a row goes when the page token that could resend it expires.
requests = Table(
    "requests",
    metadata,
    Column("holder", String(64), primary_key=True),
    Column("nonce", String(64), primary_key=True),
    Column("until_at", Integer, nullable=False),
    Column("answer", Text),
)
Index("ix_requests_until", requests.c.until_at)


# The table's invitations: a hash of each key the GM handed out (the console's, a phone's, the
# players' page's) and whom it lets in, until when, and whether it was revoked. Not the log.
invitations = Table(
    "invitations",
    metadata,
    Column("invitation_id", String(16), primary_key=True),
    Column("digest", String(64), nullable=False, unique=True),
    Column("kind", String(16), nullable=False),
    Column("campaign_id", String(36)),
    Column("character_id", String(36)),
    Column("made_at", String(40), nullable=False),
    Column("expires_at", String(40)),
    Column("revoked_at", String(40)),
)

# The rolls the GM asked of the phones, not yet rolled: one per character. Not the log.
asked = Table(
    "asked",
    metadata,
    Column("character_id", String(36), primary_key=True),
    Column("request_id", String(16), nullable=False),
    Column("request", Text, nullable=False),
)
