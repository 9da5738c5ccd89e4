"""Where things are: the database in use and why, the data folder, the current campaign, the
versions. It only looks: a database that does not exist is not made, an older one is not
upgraded, and one that cannot be opened is described rather than refused. The one thing it
removes is what killed exports left: their part files in the database's folder, the data
folder and the working folder (``tracker.app.partfiles``)."""

from __future__ import annotations

import contextlib
import os
import platform
import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tracker import __version__
from tracker.errors import TrackerError

# Why the database or the campaign is the one in use: what the user gave, or the fallback.
SOURCES = ("flag", "environment", "default")


@dataclass
class Database:
    location: str  # the file's path, or the URL with any password hidden
    source: str  # one of SOURCES
    engine: str  # sqlite | postgresql | ...
    exists: bool
    state: str  # current | older | newer | empty | missing | unreadable
    detail: str = ""  # the sentence that explains an older, newer or unreadable database
    revision: str | None = None  # the schema revision it is stamped with
    size_bytes: int | None = None
    campaigns: int | None = None
    events: int | None = None


@dataclass
class CampaignInUse:
    name: str
    system: str
    source: str  # one of SOURCES; "default" is the campaign made or chosen last
    events: int


@dataclass
class Whereabouts:
    version: str
    python: str
    database: Database
    schema_revision: str  # the revision this tracker writes
    data_folder: str
    data_files: list[str]
    shell_history: str
    campaign: CampaignInUse | None
    campaign_detail: str
    systems: list[str] = field(default_factory=list)
    swept: list[str] = field(default_factory=list)  # part files of killed exports, removed

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def data_folder() -> Path:
    """The folder tracker keeps its default database, the demos and the shell's history in."""
    import platformdirs

    return Path(platformdirs.user_data_dir("tracker", appauthor=False))


def where(
    db: str | None, db_source: str, campaign: str | None, campaign_source: str
) -> Whereabouts:
    """Where this invocation's things are. ``db`` and ``campaign`` are as given (``None`` when
    neither the flag nor the environment named one); the sources say which gave them."""
    from tracker.store.revisions import HEAD_REVISION
    from tracker.systems import registry

    folder = data_folder()
    database, store = _database(db, db_source)
    chosen: CampaignInUse | None = None
    detail = ""
    try:
        if store is not None:
            chosen, detail = _campaign(store, campaign, campaign_source)
        elif database.state in ("missing", "empty"):
            detail = "none yet: the database holds no campaigns"
        else:
            detail = "none can be read until the database can"
    finally:
        if store is not None:
            store.close()
    swept = _swept(database, folder)
    files = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    return Whereabouts(
        version=__version__,
        python=platform.python_version(),
        database=database,
        schema_revision=HEAD_REVISION,
        data_folder=str(folder),
        data_files=files,
        shell_history=str(folder / "shell_history"),
        campaign=chosen,
        campaign_detail=detail,
        systems=registry.names(),
        swept=swept,
    )


def _swept(database: Database, folder: Path) -> list[str]:
    """Sweep the part files killed exports left where exports are most often written: beside
    the database, in the data folder, in the working folder."""
    from tracker.app import partfiles

    places = [str(folder)]
    if database.engine == "sqlite":
        places.append(os.path.dirname(database.location))
    with contextlib.suppress(OSError):  # a working folder removed under the shell
        places.append(os.getcwd())
    seen: set[str] = set()
    swept: list[str] = []
    for place in places:
        real = os.path.realpath(place)
        if real not in seen:
            seen.add(real)
            swept += partfiles.sweep(real)
    return swept


def current(db: str | None) -> bool:
    """Whether ``db`` is a database of this tracker's schema as it stands: one that opening
    would neither make, nor upgrade, nor refuse."""
    found, store = _database(db, "flag")
    if store is not None:
        store.close()
    return found.state == "current"


def campaign_system(db: str | None, campaign: str | None) -> str | None:
    """The rule system of the campaign ``campaign`` names (by id or name, in any case), else
    of the current one, in the SQLite database ``db`` (None: the default), read from the file
    alone, read-only and with no database library loaded: a help page that says which
    system's options apply costs a glance. None when there is nothing to read: no file, one
    of another schema or revision, no such campaign; or ``db`` names a server, which this does
    not open."""
    from tracker.store.location import default_path, sqlite_path
    from tracker.store.revisions import HEAD_REVISION

    if db and db.startswith("sqlite:"):
        named = sqlite_path(db)
        db = str(named) if named is not None else None
    if db and "://" in db:
        return None
    path = Path(db).expanduser() if db else default_path()
    try:
        if not path.is_file():
            return None
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except (OSError, RuntimeError, sqlite3.Error):
        return None
    try:
        (revision,) = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        if revision != HEAD_REVISION:
            return None
        if not campaign:
            found = conn.execute(
                "SELECT value FROM settings WHERE key = 'current_campaign'"
            ).fetchone()
            campaign = found[0] if found else None
        rows = conn.execute("SELECT campaign_id, name, system FROM campaigns").fetchall()
    except (sqlite3.Error, TypeError):
        return None
    finally:
        conn.close()
    wanted = (campaign or "").casefold()
    return next((system for id_, name, system in rows if wanted in (id_, name.casefold())), None)


def _database(db: str | None, source: str) -> tuple[Database, Any]:
    """The database described, and its store when it can be read as it stands."""
    from tracker.store.location import default_path, resolved, sqlite_path, unusable_path

    if db and db.startswith("sqlite:"):
        named = sqlite_path(db)
        db = str(named) if named is not None else db
    if db and "://" in db:
        return _server(db, source)
    given = Path(db).expanduser() if db else default_path()
    try:
        path = resolved(given)
    except TrackerError as exc:
        return Database(str(given), source, "sqlite", False, "unreadable", str(exc)), None
    found = Database(str(path), source, "sqlite", False, "missing")
    try:
        found.exists = path.is_file()
        if not found.exists:
            found.detail = "not made yet: the first command that logs something makes it"
            if path.exists():
                found.state = "unreadable"
                found.detail = "not a regular file: give --db the path of a database file"
                if path.is_dir():
                    found.detail = "a folder, not a file: give --db the path of a database file"
            elif db and not path.parent.is_dir():  # the default's folder is made with it
                found.detail = (
                    f"its folder {path.parent} does not exist; create it or give --db another path"
                )
            return found, None
        found.size_bytes = path.stat().st_size
    except OSError as exc:  # a name past the system's length, a folder that may not be entered
        found.state, found.detail = "unreadable", str(unusable_path(path, exc))
        return found, None
    try:
        # Read-only, straight from the file: opening it as tracker does would switch a
        # foreign file to WAL mode, and would upgrade an older one.
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
        try:
            tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master")}
            revision = (
                conn.execute("SELECT version_num FROM alembic_version").fetchone()
                if "alembic_version" in tables
                else None
            )
        finally:
            conn.close()
    except sqlite3.Error as exc:
        found.state = "unreadable"
        found.detail = f"not a database tracker can read ({exc}); give --db another file"
        return found, None
    if revision is None:
        found.state = "empty" if not tables else "unreadable"
        found.detail = (
            "an empty file: the first command that logs something makes the schema"
            if not tables
            else "holds tables but no tracker schema; give --db a tracker database"
        )
        return found, None
    return _stamped(found, revision[0], f"sqlite:///{path}")


def _server(url: str, source: str) -> tuple[Database, Any]:
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        shown = make_url(url).render_as_string(hide_password=True)
        engine = make_url(url).get_backend_name()
    except (ArgumentError, ValueError):
        shown, engine = url.partition("://")[0] + "://…", "unknown"
    found = Database(shown, source, engine, True, "unreadable")
    try:
        from tracker.store.engine import create_engine_for
        from tracker.store.migrate import current_revision

        handle = create_engine_for(url)
        try:
            revision = current_revision(handle)
        finally:
            handle.dispose()
    except TrackerError as exc:
        found.detail = str(exc)
        return found, None
    except Exception as exc:  # a look never fails: it says what it saw
        found.detail = f"cannot be read: {str(exc).splitlines()[0] if str(exc) else exc!r}"
        return found, None
    if revision is None:
        found.state = "empty"
        found.detail = "no tracker schema yet: the first command that logs something makes it"
        return found, None
    return _stamped(found, revision, url)


def _stamped(found: Database, revision: str, url: str) -> tuple[Database, Any]:
    """A database stamped with ``revision``: read through the store when its schema is this
    tracker's, else described."""
    from tracker.store.engine import AlchemyBackend, create_engine_for
    from tracker.store.eventstore import EventStore
    from tracker.store.revisions import HEAD_REVISION, KNOWN_REVISIONS

    found.revision = revision
    if revision != HEAD_REVISION:
        older = revision in KNOWN_REVISIONS
        found.state = "older" if older else "newer"
        found.detail = (
            "written by an earlier tracker: the next command backs it up and upgrades it"
            if older
            else "written by a newer tracker: upgrade tracker to open it"
        )
        return found, None
    found.state = "current"
    store = EventStore(AlchemyBackend(create_engine_for(url)))
    found.campaigns = len(store.campaigns())
    found.events = store.count()
    return found, store


def _campaign(store: Any, name: str | None, source: str) -> tuple[CampaignInUse | None, str]:
    from tracker.app.table import CURRENT

    if name:
        row = store.find_campaign(name)
        if row is None:
            return None, f'no campaign named "{name}"; see `tracker campaign list`'
    else:
        current = store.get_setting(CURRENT)
        row = store.find_campaign(current) if current else None
        if row is None:
            return None, "none chosen yet: `tracker campaign new` or `tracker campaign use`"
    return CampaignInUse(row.name, row.system, source, store.head(row.campaign_id).version), ""
