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
    # Why the demo wrote where it did, when that is not the plain default.
    notes: list[str] = field(default_factory=list)

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


def make_demo(db: str | None, *, env_db: str | None = None) -> DemoReport:
    """Fill a new database (``db``, or a new demo file beside the default log) with the demo.

    ``env_db`` is $TRACKER_DB when it is set and no ``--db`` was given: it may be a real
    campaign's log, so the demo leaves it alone and says so.
    """
    notes = []
    if db is None:
        path = demo_path()
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if path.name != "demo.db":
            notes.append(
                f"{path.with_name('demo.db')} already exists and is kept as it is; "
                f"this demo is a new file, {path.name}."
            )
        if env_db:
            notes.append(
                f"$TRACKER_DB ({env_db}) is left alone: the demo writes only to a new file "
                "or to one given with --db."
            )
        db = str(path)
    tracker = Tracker(db)
    try:
        if tracker.store.campaigns():
            raise Refused(
                f"{tracker.location} already holds campaigns; give `tracker demo --db` a new file."
            )
        report = DemoReport(tracker.location, tracker.url, notes=notes)
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
