"""Engine set-up: where the database is, and how each connection is configured.

SQLite connections run in WAL mode (readers never block the writer), with foreign keys on, a busy
timeout so a second writer waits instead of failing, and ``synchronous=FULL`` so a logged roll is
on disk before its answer prints. Write transactions start with ``BEGIN IMMEDIATE`` to take the
write lock up front: a deferred transaction that reads first and then writes can fail with
"database is locked" when another writer got in between.

PostgreSQL has no such statement, so every transaction that appends events (or migrates) first
takes one transaction-scoped advisory lock (``lock_writers``). Writers then insert and commit one
after another, and positions are handed out in commit order: a reader tailing the log by position
never passes an event that commits later with a smaller position.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event, text
from sqlalchemy import create_engine as _create_engine
from sqlalchemy.engine import Connection
from sqlalchemy.exc import ArgumentError, DatabaseError, DisconnectionError, NoSuchModuleError

from tracker.errors import BadInput, StorageError

BUSY_TIMEOUT_MS = 10_000
WRITE = {"tracker_write": True}
# The key of tracker's advisory lock on PostgreSQL: any constant would do; this one spells
# "trackr" in ASCII, so it is easy to recognise in pg_locks.
WRITERS_LOCK_KEY = 0x747261636B72


def default_path() -> Path:
    """The database file in the user's data folder (e.g. ~/.local/share/tracker/tracker.db)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("tracker", appauthor=False)) / "tracker.db"


def resolve_url(db: str | None) -> str:
    """Turn ``--db``/``$TRACKER_DB`` into a SQLAlchemy URL: a plain path means SQLite."""
    if not db:
        db = os.environ.get("TRACKER_DB") or None
    if db and "://" in db:
        return db
    path = Path(db).expanduser() if db else default_path()
    if not db:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    return f"sqlite:///{resolved(path)}"


def resolved(path: Path) -> Path:
    """``path`` made absolute with its links followed, or one sentence when they loop."""
    try:
        return path.resolve()
    except (RuntimeError, OSError) as exc:  # a symbolic link that leads back to itself
        raise StorageError(
            f"{path} is a symbolic link that never reaches a file ({exc}); give --db the "
            "database file itself."
        ) from None


def sqlite_path(url: str) -> Path | None:
    """The file behind a SQLite URL, or None for another engine or an in-memory database."""
    if not url.startswith("sqlite:///"):
        return None
    raw = url.removeprefix("sqlite:///")
    return None if raw in ("", ":memory:") else Path(raw)


def prepare_sqlite_file(path: Path) -> bool:
    """Create the file owner-readable only if it is new; return whether it was created.

    SQLite gives its -wal and -shm files the database file's permissions, so the whole campaign
    stays private to its owner.
    """
    if path.exists():
        if path.is_dir():
            raise StorageError(f"{path} is a folder; give --db the path of a database file.")
        return False
    if not path.parent.is_dir():
        raise StorageError(
            f"The folder {path.parent} does not exist; create it or give --db another path."
        )
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return False
    except PermissionError:
        raise StorageError(
            f"Cannot create {path}: the folder is not writable; give --db a writable path."
        ) from None
    os.close(fd)
    return True


def refuse_foreign_sqlite(path: Path) -> None:
    """Refuse an existing SQLite file that holds tables but none of tracker's, having looked at
    it read-only: opening it for tracker would switch it to WAL mode before anything could say
    it is not ours, and a file that is not ours is left exactly as it was."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            listed = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            tables = {name for (name,) in listed}
        finally:
            conn.close()
    except sqlite3.Error:
        return  # not a database at all: opening it names what is wrong, writing nothing
    if tables and "alembic_version" not in tables:
        raise StorageError(
            f"{path} holds tables but no tracker schema; give --db a tracker database or a new "
            "file."
        )


def create_engine_for(url: str) -> Engine:
    """An engine for ``url`` with tracker's connection settings."""
    try:
        if url.startswith("sqlite"):
            engine = _create_engine(url)
            _configure_sqlite(engine)
            return engine
        engine = _create_engine(url)
        _ping_after_idle(engine)
        return engine
    except ValueError:  # a URL SQLAlchemy cannot take apart: a port that is no number, say
        raise BadInput(
            "The --db URL cannot be read; check its port and write @, : and / in the password "
            "as %40, %3A and %2F."
        ) from None
    except (ArgumentError, NoSuchModuleError, ImportError):
        # A URL naming no database SQLAlchemy knows, or a driver that is not installed. Only
        # the scheme is repeated: the rest of a URL may hold a password.
        scheme = url.partition("://")[0] or url
        raise BadInput(
            f"No installed database driver reads {scheme!r} URLs; give --db a file path, or "
            "install the driver for the URL."
        ) from None


# A pooled server connection idle this long is asked whether it still works before it is used
# again (the server may have restarted meanwhile, or a firewall dropped it). One used moments ago
# is not: a writer logging one event after another would otherwise pay a round trip each time.
IDLE_PING_S = 10.0


def _ping_after_idle(engine: Engine) -> None:
    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection, record) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection, record, _proxy) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since < IDLE_PING_S:
            return
        try:
            cursor = dbapi_connection.cursor()
            cursor.execute("SELECT 1")
            cursor.close()
            dbapi_connection.rollback()
        except Exception as exc:
            # The pool drops this connection and checks out a fresh one.
            raise DisconnectionError() from exc


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        # Let SQLAlchemy's "begin" event decide how each transaction starts.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA synchronous = FULL")
        mode = cursor.execute("PRAGMA journal_mode").fetchone()[0]
        if mode != "wal" and mode != "memory":
            cursor.execute("PRAGMA journal_mode = WAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get("tracker_write"):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.exec_driver_sql("BEGIN")


def lock_writers(conn: Connection, appending_to: str | None = None) -> None:
    """Wait for, and hold until the transaction ends, the lock that serializes tracker's writers.

    Called first in every transaction that inserts events or migrates. On PostgreSQL it takes a
    transaction-scoped advisory lock, so statements after it see every earlier writer's commit
    and sequence values follow commit order; on SQLite ``BEGIN IMMEDIATE`` already holds the
    database's single write lock, so there is nothing to do.

    A transaction that appends to the campaign ``appending_to`` also tells whoever listens
    (``tracker serve``) that its log grew, in the same statement: PostgreSQL delivers the
    notification when the transaction commits, and never if it rolls back. SQLite has no such
    thing; a follower looks at the file instead.
    """
    if conn.dialect.name != "postgresql":
        return
    if appending_to is None:
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": WRITERS_LOCK_KEY})
    else:
        conn.execute(
            text("SELECT pg_advisory_xact_lock(:key), pg_notify(:channel, :campaign)"),
            {"key": WRITERS_LOCK_KEY, "channel": APPENDED, "campaign": appending_to},
        )


# The channel an append notifies on PostgreSQL, with the campaign's id as the payload.
APPENDED = "tracker_appended"


def listen_appended(url: str) -> Any:
    """A PostgreSQL connection (psycopg, autocommit) listening for what appends notify
    (``lock_writers``)."""
    import psycopg
    from sqlalchemy.engine import make_url

    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    conn = psycopg.connect(conninfo, autocommit=True)
    conn.execute(f"LISTEN {APPENDED}")
    return conn


def after_explicit_positions(conn: Connection) -> None:
    """Make the next appended event follow the highest position inserted explicitly (an import).

    SQLite's AUTOINCREMENT already counts explicit values; a PostgreSQL sequence does not, and
    would hand out positions the import already used.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(
            text(
                "SELECT setval(pg_get_serial_sequence('events', 'position'), max(position)) "
                "FROM events HAVING max(position) IS NOT NULL"
            )
        )


def storage_error(exc: DatabaseError, location: str) -> StorageError:
    """One sentence for a database the driver cannot use: driver errors become tracker's own
    at the store's boundary."""
    message = str(exc.orig) if exc.orig is not None else str(exc)
    # Server drivers explain over several lines; the first says what happened.
    message = message.strip().splitlines()[0] if message.strip() else type(exc).__name__
    if "file is not a database" in message or "malformed" in message:
        return StorageError(
            f"{location} is not a readable tracker database ({message}); "
            "check the --db path or restore a backup."
        )
    if "readonly" in message or "read-only" in message:
        return StorageError(
            f"{location} is read-only; make it writable or copy it somewhere you can write."
        )
    if "unable to open" in message:
        if _read_only(location):
            return StorageError(
                f"{location} is on a read-only disk or in a read-only folder; tracker writes its "
                "journal beside it, so copy it somewhere writable."
            )
        return StorageError(f"Cannot open {location}; check that the path and folder exist.")
    if "disk is full" in message or "database or disk is full" in message:
        return StorageError(f"The disk holding {location} is full; free some space and retry.")
    return StorageError(
        f"The database at {location} failed ({message}) and nothing was changed; run the command "
        "again, and if it keeps failing check the --db path or restore a backup."
    )


def _read_only(location: str) -> bool:
    path = Path(location)
    if not path.exists():
        return False
    return not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK)
