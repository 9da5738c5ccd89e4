"""``tracker demo``: one campaign per system, sample characters, a session started in each."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from tracker.app.tracker import Tracker
from tracker.errors import Refused
from tracker.store.engine import default_path

DEMO_CAMPAIGNS = (
    ("Neon Drift", "gloom", ("gloom-kade.toml", "gloom-juno.toml"), "Ghosts in the relay"),
    (
        "Iron and Ink",
        "gurps",
        ("gurps-mira.toml", "gurps-aldric.toml", "gurps-vora.toml"),
        "The locked archive",
    ),
    (
        "Ashes of Veyra",
        "glintlock",
        ("glintlock-wren.toml", "glintlock-tomas.toml"),
        "The drowned archive",
    ),
)


@dataclass
class DemoReport:
    db: str
    url: str = ""
    campaigns: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"db": self.db, "campaigns": self.campaigns}


def demo_path() -> Path:
    return default_path().with_name("demo.db")


def sheet_file(name: str) -> Path:
    return Path(str(resources.files("tracker.fixtures") / "sheets" / name))


def session_script(system: str) -> Path:
    return Path(str(resources.files("tracker.fixtures") / "sessions" / f"{system}.txt"))


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
        for name, system, sheets, title in DEMO_CAMPAIGNS:
            tracker.campaign_new(name, system)
            added = [tracker.character_add(None, sheet_path=str(sheet_file(s))) for s in sheets]
            _, session = tracker.session_start(title)
            report.campaigns.append(
                {
                    "name": name,
                    "system": system,
                    "characters": [c.to_dict() for c in added],
                    "session": session.number,
                    "session_title": title,
                }
            )
        tracker.campaign_use(DEMO_CAMPAIGNS[-1][0])
        return report
    finally:
        tracker.close()
