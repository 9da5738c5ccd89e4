"""The SQLite backend, through the standard ``sqlite3`` module.

Every connection runs in WAL mode (readers never block the writer), with foreign keys on, a busy
timeout so a second writer waits instead of failing, and ``synchronous=FULL`` so a logged roll is
on disk before its answer prints. A write transaction starts with ``BEGIN IMMEDIATE``, taking
SQLite's single write lock up front: a deferred transaction that reads first and then writes can
fail with "database is locked" when another writer got in between. That lock is tracker's
writers' lock on SQLite.

Connections are pooled: one lent for a block goes back when the block ends, so a shell's evening
opens one or two and reuses them.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tracker.store.backend import Params

BUSY_TIMEOUT_MS = 10_000


def configure(conn: Any) -> None:
    """Tracker's settings on a new SQLite connection (a ``sqlite3`` one, or the one SQLAlchemy
    wraps): WAL, foreign keys, the busy timeout and durable commits."""
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    if mode != "wal" and mode != "memory":
        conn.execute("PRAGMA journal_mode = WAL")


class _Link:
    __slots__ = ("conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def rows(self, sql: str, params: Params | None = None) -> sqlite3.Cursor:
        return self.conn.execute(sql, params or ())

    def run_many(self, sql: str, params: Sequence[Params]) -> None:
        self.conn.executemany(sql, params)


class SqliteBackend:
    """A SQLite database file."""

    dialect = "sqlite"
    errors: tuple[type[BaseException], ...] = (sqlite3.DatabaseError,)
    integrity = sqlite3.IntegrityError

    def __init__(self, path: Path) -> None:
        self.path = path
        self._idle: list[sqlite3.Connection] = []
        self._guard = threading.Lock()

    def connect(self) -> sqlite3.Connection:
        """A new connection with tracker's settings."""
        # No transaction is begun behind our back (isolation_level None): each block says how
        # its own begins. A pooled connection may serve another thread than the one that made it.
        conn = sqlite3.connect(
            self.path,
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,
            check_same_thread=False,
        )
        try:
            configure(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    @contextmanager
    def _lent(self, begin: str) -> Iterator[sqlite3.Connection]:
        with self._guard:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = self.connect()
        try:
            conn.execute(begin)
            yield conn
        except BaseException:
            try:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            except sqlite3.Error:
                conn.close()  # a connection that cannot roll back is not lent again
                raise
            self._give_back(conn)
            raise
        self._give_back(conn)

    def _give_back(self, conn: sqlite3.Connection) -> None:
        with self._guard:
            self._idle.append(conn)

    @contextmanager
    def reading(self) -> Iterator[_Link]:
        with self._lent("BEGIN") as conn:
            yield _Link(conn)
            if conn.in_transaction:
                conn.execute("COMMIT")

    @contextmanager
    def writing(self, appending_to: str | None = None, *, locked: bool = True) -> Iterator[_Link]:
        # Nobody follows a SQLite log by notification: a follower watches the file. Any write
        # takes SQLite's one write lock, waiting at most the busy timeout.
        with self._lent("BEGIN IMMEDIATE") as conn:
            yield _Link(conn)
            self.commit(conn)

    def commit(self, conn: sqlite3.Connection) -> None:
        """End a write block: its events are on disk when this returns."""
        conn.execute("COMMIT")

    def close(self) -> None:
        """Close the idle connections; the next block opens a new one."""
        with self._guard:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


def stamped_revision(backend: SqliteBackend) -> str | None:
    """The schema revision the file is stamped with, or None when it has none (a new file).

    The one query opening a database at head costs; anything else goes to
    ``tracker.store.migrate``, which loads Alembic."""
    with backend.reading() as link:
        try:
            return next(iter(link.rows("SELECT version_num FROM alembic_version")), (None,))[0]
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return None
            raise
