"""`tracker log --follow`, driven from outside: commands logged by other processes, as at the
table, appear as they are logged."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

FOLLOW = ("log", "--follow", "--player-view")
SHEETS = Path(__file__).resolve().parent.parent / "fixtures" / "sheets"
CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"


def tracker(db: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """One tracker command in a process of its own, as the GM types it in another terminal."""
    done = subprocess.run(
        [sys.executable, "-m", "tracker", "--db", str(db), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if check:
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def table(tmp_path) -> Path:
    db = tmp_path / "live.db"
    tracker(db, "campaign", "new", "Iron", "--system", "gurps")
    for name in ("mira", "vora"):
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"gurps-{name}.toml"))
    tracker(db, "session", "start", "--title", "The salt mines")
    return db


# -- log --follow ------------------------------------------------------------------------------


def test_log_follow_prints_each_event_as_it_is_logged(table):
    follow = subprocess.Popen(
        [sys.executable, "-m", "tracker", "--db", str(table), *FOLLOW],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert "session 1" in follow.stdout.readline()
        tracker(table, "roll", "Mira", "Vision", "--dice", "1,2,3")
        tracker(table, "roll", "Mira", "Lockpicking", "--dice", "3,4,5")
        assert "a secret roll for Mira" in follow.stdout.readline()
        assert "Lockpicking at 12" in follow.stdout.readline()
    finally:
        follow.send_signal(signal.SIGINT)
        assert follow.wait(timeout=10) == 0
