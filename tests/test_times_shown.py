"""The times tracker prints: stored in UTC, shown in the GM's local time zone."""

import os
import subprocess
import sys

import pytest

from tracker.cli.render import duration, local_time

SHOW = (
    "from tracker.cli.render import local_time; "
    "print(local_time('2026-07-02T10:40:44.123456+00:00'), "
    "local_time('2026-12-02T10:40:44+00:00', 'HH:mm'))"
)


@pytest.mark.parametrize(
    ("zone", "shown"),
    [
        ("UTC", "2026-07-02 10:40 10:40"),
        ("America/New_York", "2026-07-02 06:40 05:40"),  # summer time, then winter time
        ("Asia/Kolkata", "2026-07-02 16:10 16:10"),
    ],
)
def test_a_stored_time_is_shown_in_the_local_zone_with_its_summer_time(zone, shown):
    env = {**os.environ, "TZ": zone}
    run = subprocess.run([sys.executable, "-c", SHOW], env=env, capture_output=True, text=True)
    assert run.stdout.split() == shown.split()


def test_each_format_the_commands_ask_for():
    stamp = "2026-12-02T21:05:09+00:00"
    shown = {fmt: local_time(stamp, fmt) for fmt in ("YYYY-MM-DD HH:mm", "YYYY-MM-DD HH:mm:ss")}
    assert len(shown["YYYY-MM-DD HH:mm"]) == 16
    assert shown["YYYY-MM-DD HH:mm:ss"].startswith(shown["YYYY-MM-DD HH:mm"])
    assert shown["YYYY-MM-DD HH:mm:ss"].endswith(":09")


def test_a_time_edited_in_by_hand_is_shown_as_stored_never_a_traceback():
    assert local_time("yesterday at noon") == "yesterday at noon"
    assert local_time("\x1b[31mred") == "\\x1b[31mred"
    assert local_time(None) == ""
    assert duration("2026-12-02T21:00:00+00:00", "soon") == "an unreadable time"


def test_a_session_lasts_what_its_times_say():
    assert duration("2026-12-02T19:00:00+00:00", "2026-12-02T22:25:59+00:00") == "3 h 25 min"
    assert duration("2026-12-02T19:00:00+00:00", "2026-12-02T19:45:00+00:00") == "45 min"
    # A time with no zone was written by hand; it is read as UTC, as tracker writes every time.
    assert duration("2026-12-02 19:00", "2026-12-02T20:00:00+00:00") == "1 h 0 min"
