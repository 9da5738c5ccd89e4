"""``tracker demo``: a campaign per installed rule system (the evening its package describes),
sample characters, a session started in each."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tracker.app.tracker import Tracker
from tracker.errors import Refused
from tracker.store.engine import default_path
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

    def to_dict(self) -> dict:
        return {"db": self.db, "campaigns": self.campaigns}


def demo_path() -> Path:
    return default_path().with_name("demo.db")


def make_demo(db: str | None) -> DemoReport:
    """Fill a new database (``db``, or a fresh demo.db beside the default log) with the demo."""
    if db is None:
        path = demo_path()
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            stale.unlink(missing_ok=True)
        db = str(path)
    tracker = Tracker(db)
    try:
        if tracker.store.campaigns():
            raise Refused(
                f"{tracker.location} already holds campaigns; give `tracker demo --db` a new file."
            )
        report = DemoReport(tracker.location, tracker.url)
        featured: DemoEvening | None = None
        for system in registry.systems():
            evening = system.demo()
            if evening is None:
                continue
            tracker.campaigns.campaign_new(evening.campaign, system.name)
            added = [
                tracker.campaigns.character_add(None, sheet_path=str(s)) for s in evening.sheets
            ]
            _, session = tracker.campaigns.session_start(evening.title)
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
