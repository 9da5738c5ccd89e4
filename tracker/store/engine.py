"""The SQLAlchemy backend: PostgreSQL (and any URL SQLAlchemy reads), and the engine Alembic
migrates every database through.

Commands on PostgreSQL run through psycopg directly (``tracker.store.postgres``); this backend
serves the rest, and any engine handed to the store. Every transaction that appends events (or
migrates) here first takes the same advisory lock (``lock_writers``).

A SQLite engine gets the settings ``tracker.store.sqlite`` gives its own connections, and starts
write transactions with ``BEGIN IMMEDIATE`` the same way.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache

from sqlalchemy import Engine, TextClause, event, text
from sqlalchemy import create_engine as _create_engine
from sqlalchemy.engine import URL, Connection, Result
from sqlalchemy.exc import (
    ArgumentError,
    DatabaseError,
    DisconnectionError,
    IntegrityError,
    NoSuchModuleError,
)

from tracker.errors import BadInput
from tracker.store.backend import APPENDED, WRITERS_LOCK_KEY, Params
from tracker.store.location import sqlite_path
from tracker.store.sqlite import configure

WRITE = {"tracker_write": True}


def create_engine_for(url: str) -> Engine:
    """An engine for ``url`` with tracker's connection settings."""
    try:
        if url.startswith("sqlite"):
            # The file is the path as written (``sqlite_path``), as the sqlite3 backend opens
            # it: SQLAlchemy would read %41 in a file's name as "A", and cut it at "?".
            path = sqlite_path(url)
            engine = _create_engine(
                url if path is None else URL.create("sqlite", database=str(path))
            )
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
        configure(dbapi_connection)

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


@lru_cache(maxsize=256)
def _statement(sql: str) -> TextClause:
    # The store's statements are a fixed few: each is parsed for its parameters once.
    return text(sql)


class _Link:
    __slots__ = ("conn",)

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def rows(self, sql: str, params: Params | None = None) -> Result:
        return self.conn.execute(_statement(sql), params or {})

    def run_many(self, sql: str, params: Sequence[Params]) -> None:
        self.conn.execute(_statement(sql), list(params))


class AlchemyBackend:
    """A database behind a SQLAlchemy engine."""

    errors: tuple[type[BaseException], ...] = (DatabaseError,)
    integrity = IntegrityError

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name

    @contextmanager
    def reading(self) -> Iterator[_Link]:
        with self.engine.connect() as conn:
            yield _Link(conn)

    @contextmanager
    def writing(self, appending_to: str | None = None, *, locked: bool = True) -> Iterator[_Link]:
        with self.engine.connect().execution_options(**WRITE) as conn:
            conn.begin()  # on SQLite, BEGIN IMMEDIATE: the lock is taken here, not later
            if locked:
                lock_writers(conn, appending_to=appending_to)
            yield _Link(conn)
            self.commit(conn)

    def commit(self, conn: Connection) -> None:
        conn.commit()

    def close(self) -> None:
        self.engine.dispose()
