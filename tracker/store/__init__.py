"""Persistence: SQLAlchemy Core tables, engine set-up, the append-only event store, migrations."""
