"""Schema version check and migration through Alembic's API.

Opening a database costs one query on the happy path (read ``alembic_version``); Alembic itself is
imported only when a database is new or older than this tracker. An older SQLite file is copied
aside before it is upgraded (a PostgreSQL server keeps its own backups: it is migrated in one
transaction without a copy); a newer one is refused.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import DatabaseError, OperationalError, ProgrammingError

from tracker.errors import StorageError
from tracker.store.engine import WRITE, lock_writers
from tracker.store.revisions import HEAD_REVISION, KNOWN_REVISIONS

UNDEFINED_TABLE = "42P01"  # PostgreSQL's SQLSTATE for a relation that does not exist


def current_revision(engine: Engine) -> str | None:
    """The revision the database is stamped with, or None when it has no Alembic table.

    SQLite says "no such table"; PostgreSQL raises undefined_table and aborts the transaction,
    which closing the connection rolls back before the pool hands it out again. A server that
    cannot be reached raises ``StorageError``.
    """
    try:
        conn = engine.connect()
    except OperationalError as exc:
        if engine.dialect.name == "sqlite":
            raise  # the caller names the file and what is wrong with it
        raise StorageError(
            f"Cannot connect to the database ({first_line(exc.orig)}); "
            "check the --db URL and that the server is running."
        ) from None
    with conn:
        try:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        except (OperationalError, ProgrammingError) as exc:
            sqlstate = getattr(exc.orig, "sqlstate", None)
            if sqlstate == UNDEFINED_TABLE or "no such table" in str(exc.orig):
                return None
            raise


def first_line(error: BaseException | None) -> str:
    """The first line of a driver's message (PostgreSQL adds DETAIL and HINT lines)."""
    return next(iter(str(error).splitlines()), "").strip() or "no reason given"


def ensure_schema(engine: Engine) -> str | None:
    """Bring the database to the head revision, refusing one written by a newer tracker.

    Returns the path of the backup made before an upgrade, if one was made.
    """
    revision = current_revision(engine)
    if revision == HEAD_REVISION:
        return None
    if revision is not None and revision not in KNOWN_REVISIONS:
        raise StorageError(
            f"This database was written by a newer tracker (schema {revision}); "
            "upgrade tracker to open it."
        )
    backup = None
    if revision is None:
        with engine.connect() as conn:
            tables = set(inspect(conn).get_table_names())
        if tables - {"alembic_version"}:
            raise StorageError(
                "This database holds tables but no tracker schema; "
                "give --db a tracker database or a new file."
            )
    else:
        backup = backup_sqlite(engine, revision)
    upgrade(engine)
    return str(backup) if backup else None


def backup_sqlite(engine: Engine, revision: str) -> Path | None:
    """Copy a SQLite database aside (consistently, through SQLite's backup API)."""
    name = engine.url.database
    if engine.dialect.name != "sqlite" or name in (None, "", ":memory:"):
        return None
    path = Path(name)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.backup-{revision}-{stamp}")
    # Private from the first byte: the copy holds the GM's secrets as the log does.
    os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600))
    source = sqlite3.connect(path)
    try:
        dest = sqlite3.connect(target)
        with dest:
            source.backup(dest)
        dest.close()
    finally:
        source.close()
    target.chmod(0o600)
    return target


def alembic_config(connection=None):
    """An Alembic Config pointing at the migrations shipped inside the package."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(resources.files("tracker.migrations")))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Run the migrations up to ``revision`` in one transaction."""
    from alembic import command

    try:
        with engine.connect().execution_options(**WRITE) as conn:
            # Two trackers opening a new PostgreSQL database at once: the second waits, then
            # finds the schema at head and has nothing to do.
            lock_writers(conn)
            command.upgrade(alembic_config(conn), revision)
            conn.commit()
    except DatabaseError as exc:
        raise StorageError(
            f"Could not prepare the database: {first_line(exc.orig)}; check the --db path."
        ) from None


def script_head() -> str:
    """The head revision of the shipped migration scripts (tests hold it equal to the schema's)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()
