"""``tracker demo``: a campaign per installed rule system (the evening its package describes),
sample characters, a session started in each."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tracker.app.tracker import Tracker
from tracker.errors import Refused
from tracker.store.location import default_path
from tracker.systems import registry
from tracker.systems.base import DemoEvening


@dataclass
class DemoReport:
    db: str
    url: str = ""
    campaigns: list[dict] = field(default_factory=list)
    # Each campaign's scripted evening and commands to try, and the one the demo leaves selected.
    scripts: dict[str, Path] = field(default_factory=dict)
    tries: dict[str, tuple[str, ...]] = field(default_factory=dict)
    featured: str | None = None
    # Why the demo wrote where it did, when that is not where the next command looks.
    notes: list[str] = field(default_factory=list)
    # The file to give $TRACKER_DB for the next commands to find the demo; None when they do
    # without it.
    export: str | None = None

    def to_dict(self) -> dict:
        return {"db": self.db, "campaigns": self.campaigns, "notes": self.notes}


def demo_path() -> Path:
    """demo.db beside the default log, or demo-2.db, demo-3.db, ... when that one is taken.

    A GM may have logged into an earlier demo (the tour works there), so an existing file is
    never replaced: the demo goes to the first name no file, journal or WAL holds.
    """
    folder = default_path().parent
    for n in range(1, 10_000):
        path = folder / ("demo.db" if n == 1 else f"demo-{n}.db")
        taken = (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-journal"))
        if not any(p.exists() for p in taken):
            return path
    raise Refused(f"{folder} holds 9,999 demo databases; remove some or give `tracker demo --db`.")


def _taken(db: str | None) -> str | None:
    """Why the database the next plain command uses (``db``: $TRACKER_DB, or None for the
    default file) may not take the demo, or None when it may: it holds campaigns, or it cannot
    be written as it stands (another tracker's, not a database). Looked at without opening it
    for writing, so a file that is not tracker's stays exactly as it was."""
    from tracker.app.where import _database

    found, store = _database(db, "default")
    if store is not None:
        store.close()
    if found.state in ("missing", "empty") or (found.state == "current" and not found.campaigns):
        return None
    if found.state == "current":
        return "holds campaigns"
    if found.state == "older":
        return "holds a log of an earlier tracker"
    return found.detail or "cannot take it"


def make_demo(db: str | None, *, env_db: str | None = None) -> DemoReport:
    """Fill a database with the demo: ``db`` when given, else the one the next plain command
    uses ($TRACKER_DB, ``env_db``, else the default file), so that command finds it. A database
    that holds campaigns never takes it: the demo is then a new file beside the default log,
    and the report says to give it to $TRACKER_DB."""
    notes = []
    export = None
    if db is None:
        taken = _taken(env_db)
        if taken is None:
            db = env_db or str(default_path())
            if env_db is None:
                default_path().parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        else:
            path = demo_path()
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            where = f"$TRACKER_DB ({env_db})" if env_db else str(default_path())
            notes.append(
                f"{where} {taken} and is left alone; this demo is a new file, {path.name}."
            )
            db = export = str(path)
    tracker = Tracker(db)
    try:
        if tracker.store.campaigns():
            raise Refused(
                f"{tracker.location} already holds campaigns; give `tracker demo --db` a new file."
            )
        report = DemoReport(tracker.location, tracker.url, notes=notes, export=export)
        featured: DemoEvening | None = None
        for system in registry.systems():
            evening = system.demo()
            if evening is None:
                continue
            tracker.campaigns.campaign_new(evening.campaign, system.name)
            added = [
                tracker.campaigns.character_add(None, sheet_path=str(s)) for s in evening.sheets
            ]
            _, session, _ = tracker.campaigns.session_start(evening.title)
            report.campaigns.append(
                {
                    "name": evening.campaign,
                    "system": system.name,
                    "characters": [c.to_dict() for c in added],
                    "session": session.number,
                    "session_title": evening.title,
                }
            )
            report.scripts[evening.campaign] = Path(str(evening.script))
            report.tries[evening.campaign] = evening.tries
            if evening.featured or featured is None:
                featured = evening
        if featured is not None:
            tracker.campaigns.campaign_use(featured.campaign)
            report.featured = featured.campaign
        return report
    finally:
        tracker.close()
