"""The PostgreSQL backend, through psycopg 3.

PostgreSQL has no ``BEGIN IMMEDIATE``, so every transaction that appends events first takes one
transaction-scoped advisory lock, and tells those who follow the campaign (``tracker serve``)
that its log grew, in the same statement: the notification goes out when the transaction
commits, and never if it rolls back. Writers then insert and commit one after another, and
positions are handed out in commit order: a reader tailing the log by position never passes an
event that commits later with a smaller position.

Connections are pooled. One idle for ``IDLE_PING_S`` is asked whether it still works before it
is lent again (the server may have restarted, or a firewall dropped it); one used moments ago is
not, so a writer logging one event after another pays no extra round trip. The schema and its
migrations go through SQLAlchemy and Alembic (``tracker.store.engine``) as on every database.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import psycopg

from tracker.store.backend import APPENDED, WRITERS_LOCK_KEY, Params

IDLE_PING_S = 10.0

# ``:name`` (not ``::type``, not inside a word) becomes psycopg's ``%(name)s``.
_PARAMETER = re.compile(r"(?<![:\w]):(\w+)")


@lru_cache(maxsize=256)
def _pyformat(sql: str) -> str:
    return _PARAMETER.sub(r"%(\1)s", sql.replace("%", "%%"))


def connect_args(url: str) -> dict[str, Any]:
    """psycopg's keywords for a ``postgresql+psycopg://`` URL, read as SQLAlchemy reads it (which
    set the database up): a password with a space or a bare % in it, and the URL's query (its
    ``sslmode``, a socket's ``host``), mean what they meant there."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    args: dict[str, Any] = parsed.translate_connect_args(username="user", database="dbname")
    args.update(parsed.query)
    return args


class _Link:
    __slots__ = ("conn",)

    def __init__(self, conn: psycopg.Connection) -> None:
        self.conn = conn

    def rows(self, sql: str, params: Params | None = None) -> psycopg.Cursor:
        # Always parameters, even none: the statement is then read for placeholders, so its
        # ``%%`` stands for ``%`` whether or not it has any.
        return self.conn.execute(_pyformat(sql), params if params is not None else {})

    def run_many(self, sql: str, params: Sequence[Params]) -> None:
        with self.conn.cursor() as cursor:
            cursor.executemany(_pyformat(sql), params)


class PostgresBackend:
    """A PostgreSQL database."""

    dialect = "postgresql"
    errors: tuple[type[BaseException], ...] = (psycopg.Error,)
    integrity = psycopg.IntegrityError

    def __init__(self, url: str) -> None:
        self.connect_args = connect_args(url)
        self._idle: list[tuple[psycopg.Connection, float]] = []
        self._guard = threading.Lock()

    def connect(self) -> psycopg.Connection:
        return psycopg.connect(**self.connect_args)

    def _take(self) -> psycopg.Connection:
        while True:
            with self._guard:
                conn, since = self._idle.pop() if self._idle else (None, 0.0)
            if conn is None:
                return self.connect()
            if time.monotonic() - since < IDLE_PING_S:
                return conn
            try:
                conn.execute("SELECT 1")
                conn.rollback()
                return conn
            except psycopg.Error:
                conn.close()  # the server let it go; the next idle one, or a new one

    @contextmanager
    def _lent(self) -> Iterator[psycopg.Connection]:
        conn = self._take()
        try:
            yield conn
        except BaseException:
            if not conn.closed and not conn.broken:
                try:
                    conn.rollback()
                except psycopg.Error:
                    conn.close()
            if not conn.closed:
                self._give_back(conn)
            raise
        self._give_back(conn)

    def _give_back(self, conn: psycopg.Connection) -> None:
        with self._guard:
            self._idle.append((conn, time.monotonic()))

    @contextmanager
    def reading(self) -> Iterator[_Link]:
        with self._lent() as conn:
            yield _Link(conn)
            conn.rollback()  # a read changes nothing; this ends its transaction

    @contextmanager
    def writing(self, appending_to: str | None = None, *, locked: bool = True) -> Iterator[_Link]:
        with self._lent() as conn:
            if locked and appending_to is None:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITERS_LOCK_KEY,))
            elif locked:
                conn.execute(
                    "SELECT pg_advisory_xact_lock(%s), pg_notify(%s, %s)",
                    (WRITERS_LOCK_KEY, APPENDED, appending_to),
                )
            yield _Link(conn)
            self.commit(conn)

    def commit(self, conn: psycopg.Connection) -> None:
        """End a write block: its events are in the log when this returns."""
        conn.commit()

    def close(self) -> None:
        with self._guard:
            idle, self._idle = self._idle, []
        for conn, _ in idle:
            conn.close()


def listen_appended(url: str) -> Any:
    """A connection (autocommit) listening for what appends notify."""
    conn = psycopg.connect(**connect_args(url), autocommit=True)
    conn.execute(f"LISTEN {APPENDED}")
    return conn
