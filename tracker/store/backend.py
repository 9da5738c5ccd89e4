"""What the event store asks of a database: one connection at a time, in a transaction.

The store writes its statements once, as SQL text with ``:name`` parameters, which both backends
take as they are:

- ``tracker.store.sqlite.SqliteBackend`` talks to a SQLite file through the standard ``sqlite3``
  module. A command on the default database then starts without importing SQLAlchemy, whose
  import alone costs more than the rest of a roll.
- ``tracker.store.engine.AlchemyBackend`` runs them through a SQLAlchemy engine: PostgreSQL, and
  any other URL. The schema and its migrations stay SQLAlchemy's and Alembic's for every backend.

``tests/test_store.py`` runs the store's whole contract against each, so they behave alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any, Protocol

Params = Mapping[str, Any]

# The key of tracker's writers' lock on a server (PostgreSQL's advisory lock): any constant would
# do; this one spells "trackr" in ASCII, so it is easy to recognise in pg_locks.
WRITERS_LOCK_KEY = 0x747261636B72
# The channel an append notifies on PostgreSQL, with the campaign's id as the payload.
APPENDED = "tracker_appended"


class Link(Protocol):
    """One connection inside one transaction."""

    def rows(self, sql: str, params: Params | None = None) -> Iterable[Sequence[Any]]:
        """Run one statement; its rows as tuples, in order."""
        ...

    def run_many(self, sql: str, params: Sequence[Params]) -> None:
        """Run one statement once for each set of parameters."""
        ...


class Backend(Protocol):
    """A database: connections lent for reading, or for writing under tracker's writers' lock."""

    # "sqlite" or "postgresql" (or another SQLAlchemy dialect's name)
    dialect: str
    # What the driver raises when the database fails; ``integrity`` when a constraint stops
    # a statement.
    errors: tuple[type[BaseException], ...]
    integrity: type[BaseException]

    def reading(self) -> AbstractContextManager[Link]:
        """A connection in a read transaction (one consistent view), ended with the block."""
        ...

    def writing(
        self, appending_to: str | None = None, *, locked: bool = True
    ) -> AbstractContextManager[Link]:
        """A connection holding the writers' lock from its first statement; the transaction
        commits when the block ends and rolls back if it raises. ``appending_to`` names the
        campaign whose log the block appends to, for those who follow it. A block that writes
        only a cache (a snapshot) is not ``locked`` where the database allows: it never waits
        behind a long writer on a server."""
        ...

    def close(self) -> None:
        """Close every connection the backend holds."""
        ...


def placeholders(prefix: str, values: Sequence[Any]) -> tuple[str, dict[str, Any]]:
    """``(:p0, :p1, ...)`` for an ``IN`` list, and the parameters it names."""
    names = [f"{prefix}{i}" for i in range(len(values))]
    return "(" + ", ".join(f":{n}" for n in names) + ")", dict(zip(names, values, strict=True))


def now_utc() -> str:
    """The time an event is recorded: UTC, ISO 8601 with microseconds (2026-11-29T19:02:00.000000
    +00:00, pendulum's spelling too). The standard library's clock keeps pendulum out of the
    write path; pendulum reads these stamps back for local times and --as-of."""
    return datetime.now(UTC).isoformat(timespec="microseconds")
