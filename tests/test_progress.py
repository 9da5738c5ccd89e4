"""Progress on long work: a bar on a terminal for an import, an export, a verify and a fold of a
whole log; nothing at all into a pipe or with --quiet; and the work's own output the same either
way."""

from __future__ import annotations

import os
import pty
import select
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from synthetic import generate

from tracker.app import Tracker
from tracker.app.progress import FROM, STEP, metered

TRACKER = Path(sys.executable).with_name("tracker")


def test_metered_reports_the_whole_in_steps_and_passes_every_item_through():
    told: list[tuple[str, int] | int] = []

    class Meter:
        def __call__(self, label: str, total: int):
            told.append((label, total))
            return self

        def __enter__(self):
            return told.append

        def __exit__(self, *exc):
            told.append("closed")

    total = FROM + STEP + 7
    assert list(metered(range(total), Meter(), "Counting", total)) == list(range(total))
    assert told[0] == ("Counting", total)
    assert told[-1] == "closed"
    steps = told[1:-1]
    assert sum(steps) == total
    assert len(steps) == total // STEP + 1  # one report per STEP items, and the rest at the end
    told.clear()
    assert list(metered(range(FROM - 1), Meter(), "Short", FROM - 1)) == list(range(FROM - 1))
    assert told == []  # too short to be worth a bar
    assert list(metered(range(total), None, "Unwatched", total)) == list(range(total))


@pytest.fixture(scope="module")
def long_log(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("long") / "long.db"
    tracker = Tracker(str(db))
    generate(tracker, "Long Road", "gloom", events=FROM + 500, seed=3)
    tracker.close()
    return db


def on_a_terminal(
    args: list[str], cwd: Path, interrupt_at: str | None = None
) -> tuple[int, bytes, str]:
    """Run tracker with stderr on a terminal and stdout into a pipe, as `tracker ... > file` in
    a terminal does: its exit code, its stdout, and what the terminal showed. With
    ``interrupt_at``, Ctrl-C (SIGINT) once the terminal shows that text."""
    main, secondary = pty.openpty()
    env = {**os.environ, "COLUMNS": "100"}
    stdout = cwd / "stdout"
    with stdout.open("wb") as into:
        process = subprocess.Popen(
            [TRACKER, *args], stdout=into, stderr=secondary, cwd=cwd, env=env
        )
    os.close(secondary)
    shown = b""
    while True:
        ready, _, _ = select.select([main], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal's far end closed: the command is done
            break
        if not chunk:
            break
        shown += chunk
        if interrupt_at is not None and interrupt_at.encode() in shown:
            process.send_signal(signal.SIGINT)
            interrupt_at = None
    code = process.wait(timeout=60)
    os.close(main)
    return code, stdout.read_bytes(), shown.decode(errors="replace")


def piped(args: list[str], cwd: Path) -> tuple[int, bytes, str]:
    done = subprocess.run([TRACKER, *args], capture_output=True, cwd=cwd)
    return done.returncode, done.stdout, done.stderr.decode()


@pytest.mark.slow
def test_long_work_shows_a_bar_on_a_terminal_and_nothing_elsewhere(long_log, tmp_path):
    db = ["--db", str(long_log)]
    events = sqlite3.connect(long_log).execute("SELECT count(*) FROM events").fetchone()[0]

    code, out, shown = on_a_terminal([*db, "export", "events"], tmp_path)
    assert code == 0
    assert "Exporting" in shown
    assert f"{events}/{events}" in shown  # the bar ran to the end
    quiet_code, quiet_out, quiet_shown = on_a_terminal([*db, "export", "events", "-q"], tmp_path)
    assert (quiet_code, quiet_out) == (0, out)  # the same export, byte for byte
    assert "Exporting" not in quiet_shown
    assert "[" not in quiet_shown
    root_quiet = on_a_terminal([*db, "--quiet", "export", "events"], tmp_path)
    assert "Exporting" not in root_quiet[2]
    pipe_code, pipe_out, pipe_err = piped([*db, "export", "events"], tmp_path)
    assert (pipe_code, pipe_out) == (0, out)
    assert "Exporting" not in pipe_err
    assert pipe_err.count("\n") == 1  # the summary line alone

    (tmp_path / "log.jsonl").write_bytes(out)
    code, said, shown = on_a_terminal(["--db", "copy.db", "import", "log.jsonl"], tmp_path)
    assert code == 0
    assert "Importing" in shown
    assert f"{events}/{events}" in shown
    assert said.startswith(b"Imported")

    # Ctrl-C while the bar is drawn: all or nothing imported, the cursor given back, one line.
    code, _, shown = on_a_terminal(
        ["--db", "stopped.db", "import", "log.jsonl"], tmp_path, interrupt_at="Importing"
    )
    assert code == 130
    assert shown.rfind("\x1b[?25h") > shown.rfind("\x1b[?25l") >= 0
    assert "Interrupted; `tracker log` shows whether it was logged" in shown
    assert "Traceback" not in shown
    with sqlite3.connect(tmp_path / "stopped.db") as conn:
        kept = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    assert kept in (0, events)

    code, said, shown = on_a_terminal(["--db", "copy.db", "verify"], tmp_path)
    assert code == 0
    assert "Verifying Long Road" in shown
    assert b"chain intact" in said
    assert "Verifying" not in piped(["--db", "copy.db", "verify"], tmp_path)[2]

    # No snapshot to start from (as after an upgrade): the first command folds the whole log.
    with sqlite3.connect(tmp_path / "copy.db") as conn:
        conn.execute("DELETE FROM snapshots")
    code, status, shown = on_a_terminal(["--db", "copy.db", "status"], tmp_path)
    assert code == 0
    assert "Folding Long Road" in shown
    assert status == piped(["--db", "copy.db", "status"], tmp_path)[1]

    # The players' rows are made from their whole stream, which is long enough for a bar.
    rolls = [*db, "export", "rolls", "--format", "csv", "--player-view"]
    code, rows, shown = on_a_terminal(rolls, tmp_path)
    assert "Exporting Long Road's rolls" in shown
    assert rows == piped(rolls, tmp_path)[1]


def test_a_short_job_on_a_terminal_draws_no_bar(run, tmp_path):
    run.ok('campaign new "Neon Drift" --system gloom')
    code, out, shown = on_a_terminal(["--db", str(run.db), "export", "events"], tmp_path)
    assert code == 0
    assert b"CampaignCreated" in out
    assert "Exporting" not in shown
