"""Schema: the first migration builds exactly the expected objects; newer databases are refused."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import inspect

from tracker.errors import StorageError
from tracker.store.engine import create_engine_for
from tracker.store.location import prepare_sqlite_file
from tracker.store.migrate import backup_sqlite, current_revision, ensure_schema, script_head
from tracker.store.revisions import HEAD_REVISION, KNOWN_REVISIONS


@pytest.fixture
def engine(tmp_path):
    path = tmp_path / "blank.db"
    prepare_sqlite_file(path)
    engine = create_engine_for(f"sqlite:///{path}")
    yield engine
    engine.dispose()


def test_a_blank_database_upgraded_to_head_has_exactly_the_expected_schema(engine):
    ensure_schema(engine)
    inspector = inspect(engine)
    assert set(inspector.get_table_names()) == {
        "alembic_version",
        "asked",
        "campaigns",
        "events",
        "invitations",
        "requests",
        "settings",
        "snapshots",
    }
    # The invitations: a hash of each key, never the key itself.
    assert {c["name"] for c in inspector.get_columns("invitations")} == {
        "invitation_id",
        "digest",
        "kind",
        "campaign_id",
        "character_id",
        "made_at",
        "expires_at",
        "revoked_at",
    }
    # The web app's memory of requests answered: by a hash of the key, never the key itself.
    assert {c["name"] for c in inspector.get_columns("requests")} == {
        "holder",
        "nonce",
        "until_at",
        "answer",
    }
    assert {c["name"] for c in inspector.get_columns("events")} == {
        "position",
        "event_id",
        "campaign_id",
        "version",
        "session_id",
        "character_id",
        "type",
        "schema_version",
        "payload",
        "recorded_at",
        "visibility",
        "prev_hash",
        "hash",
    }
    assert {i["name"] for i in inspector.get_indexes("events")} == {
        "ix_events_campaign_session",
        "ix_events_campaign_type",
    }
    uniques = {tuple(u["column_names"]) for u in inspector.get_unique_constraints("events")}
    assert ("campaign_id", "version") in uniques
    assert ("event_id",) in uniques
    fks = inspector.get_foreign_keys("events")
    assert [(fk["referred_table"], fk["constrained_columns"]) for fk in fks] == [
        ("campaigns", ["campaign_id"])
    ]
    with engine.connect() as conn:
        triggers = {
            name
            for (name,) in conn.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE type = 'trigger'"
            )
        }
    assert triggers == {
        "events_no_update",
        "events_no_delete",
        "events_no_replace",
        "campaigns_no_update",
        "campaigns_no_delete",
        "campaigns_no_replace",
    }
    assert current_revision(engine) == HEAD_REVISION


def test_the_code_knows_the_head_of_the_shipped_migrations():
    assert script_head() == HEAD_REVISION
    assert KNOWN_REVISIONS[-1] == HEAD_REVISION


def test_a_database_stamped_with_a_newer_revision_is_refused(engine):
    ensure_schema(engine)
    with engine.connect() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
        conn.commit()
    with pytest.raises(StorageError, match=r"newer tracker.*upgrade tracker"):
        ensure_schema(engine)


def test_a_foreign_database_is_not_taken_over(engine):
    with engine.connect() as conn:
        conn.exec_driver_sql("CREATE TABLE recipes (id INTEGER PRIMARY KEY)")
        conn.commit()
    with pytest.raises(StorageError, match="no tracker schema"):
        ensure_schema(engine)


def test_opening_a_current_database_changes_nothing(engine, tmp_path):
    ensure_schema(engine)
    assert ensure_schema(engine) is None
    assert not list(tmp_path.glob("*.backup-*"))


def test_a_backup_is_a_consistent_private_copy(engine, tmp_path, monkeypatch):
    ensure_schema(engine)
    # Private from the first byte, not made so afterwards: with every later chmod a no-op and
    # a umask that would leave a new file open to all, the copy is still its owner's alone.
    monkeypatch.setattr(Path, "chmod", lambda self, mode: None)
    old = os.umask(0)
    try:
        backup = backup_sqlite(engine, HEAD_REVISION)
    finally:
        os.umask(old)
    assert backup is not None
    assert backup.stat().st_mode & 0o777 == 0o600
    with sqlite3.connect(backup) as conn:
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    assert row == (HEAD_REVISION,)


def test_a_database_at_the_first_revision_is_backed_up_then_upgraded(tmp_path):
    from tracker.store.migrate import upgrade

    path = tmp_path / "old.db"
    prepare_sqlite_file(path)
    engine = create_engine_for(f"sqlite:///{path}")
    upgrade(engine, "0001")
    assert current_revision(engine) == "0001"
    backup = ensure_schema(engine)
    assert current_revision(engine) == HEAD_REVISION
    assert backup is not None
    with sqlite3.connect(backup) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == ("0001",)
    engine.dispose()
