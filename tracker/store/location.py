"""Where a tracker database is, and what its driver's failures mean to the person using it.

Nothing here imports a database library: a command on the default SQLite file starts without
SQLAlchemy (``tracker.store.sqlite``), and only a server URL or a migration loads it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from tracker.errors import StorageError


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
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            # A service account's HOME that is missing or not its own.
            raise StorageError(
                f"Cannot make the data folder {path.parent} ({exc.strerror}); give --db (or "
                "TRACKER_DB) the path of a database file in a folder you can write to."
            ) from None
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


def unusable_path(path: Path, exc: OSError) -> StorageError:
    """One sentence for a path the system refuses even to look at (a name past its length, a
    folder that may not be entered): the words a command refuses it with and `tracker where`
    describes it with."""
    return StorageError(
        f"{str(path)[:80]}… cannot be a database file ({exc.strerror}); give --db another path."
    )


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
    try:
        exists = path.exists()
    except OSError as exc:  # a name past the system's length, a path through a file
        raise unusable_path(path, exc) from None
    if exists:
        if path.is_dir():
            raise StorageError(
                f"{path} is a folder; give --db (or TRACKER_DB) the path of a database file."
            )
        if path.is_file() and path.stat().st_size == 0:
            # An empty file given to be the database: SQLite makes one in it, as private as a
            # file tracker creates.
            with contextlib.suppress(OSError):
                os.chmod(path, 0o600)
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


SQLITE_HEADER = b"SQLite format 3\x00"


def refuse_foreign_sqlite(path: Path) -> None:
    """Refuse an existing SQLite file that holds tables but none of tracker's, having looked at
    it read-only: opening it for tracker would switch it to WAL mode before anything could say
    it is not ours, and a file that is not ours is left exactly as it was."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        with open(path, "rb") as file:
            start = file.read(len(SQLITE_HEADER))
    except OSError:
        return  # unreadable: opening it names what is wrong
    if start != SQLITE_HEADER:
        # SQLite would take a file shorter than its header as empty, and write a database
        # over it: a file that is not one is left exactly as it was.
        raise StorageError(
            f"{path} is not a readable tracker database (it is no SQLite file); check the --db "
            "path or restore a backup."
        )
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


def storage_error(exc: BaseException, location: str) -> StorageError:
    """One sentence for a database the driver cannot use: driver errors become tracker's own
    at the store's boundary."""
    # SQLAlchemy wraps the driver's error as ``orig``; the standard sqlite3 raises it bare.
    orig = getattr(exc, "orig", None)
    message = str(orig) if orig is not None else str(exc)
    # Server drivers explain over several lines; the first says what happened.
    message = message.strip().splitlines()[0] if message.strip() else type(exc).__name__
    if "file is not a database" in message or "malformed" in message:
        return StorageError(
            f"{location} is not a readable tracker database ({message}); "
            "check the --db path or restore a backup."
        )
    if "readonly" in message or "read-only" in message:
        folder = os.path.dirname(os.path.abspath(location))
        if os.access(location, os.W_OK) and not os.access(folder, os.W_OK):
            return StorageError(
                f"The folder {folder} is read-only and tracker writes its journal beside "
                f"{os.path.basename(location)}; make the folder writable or copy the file "
                "somewhere you can write."
            )
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
