"""Crash safety and concurrent writers, proven with real processes killed and raced."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from synthetic import generate

from tracker.app import Tracker
from tracker.projections.campaign import to_snapshot

PLAYER = """
import sys
from tracker.app import Tracker
from tracker.systems.registry import roll_request
tracker = Tracker(sys.argv[1], "Crash")
names = ["Wren", "Tomas"]
i = 0
while True:
    who = names[i % 2]
    if i % 5 == 0:
        tracker.tracks.stress(who, 1 if i % 10 else -1, cause="the dark")
    elif i % 7 == 0:
        tracker.tracks.note("the lamps gutter " * 20)
    else:
        try:
            tracker.rolls.roll(who, roll_request("Grit", tags=["1:gear"], seed=str(i)))
        except Exception:
            tracker.acting.run(("threat", "spend"), tier="hard")
    i += 1
    print(i, flush=True)
"""


def start_player(db: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", PLAYER, str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_lines(proc: subprocess.Popen, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    seen = 0
    while seen < count:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        seen += 1
        assert time.monotonic() < deadline, "the writer made no progress"


pytest_plugins = ("pg",)


def prepare(db: str) -> None:
    tracker = Tracker(db)
    tracker.campaigns.campaign_new("Crash", "glintlock")
    tracker.campaigns.character_add("Wren", stats=["Grit=3"])
    tracker.campaigns.character_add("Tomas", stats=["Grit=2"])
    tracker.campaigns.session_start("Until the power fails")
    tracker.close()


@pytest.fixture
def crash_db(tmp_path) -> Path:
    db = tmp_path / "crash.db"
    prepare(str(db))
    return db


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_db(request, tmp_path) -> str:
    """One campaign's log on each backend, for writers racing from several processes."""
    if request.param == "sqlite":
        db = str(tmp_path / "shared.db")
    else:
        db = request.getfixturevalue("pg_database")
    prepare(db)
    return db


def assert_sound(db: Path) -> int:
    """The log opens, its chain verifies, every event is whole, and the projections agree."""
    tracker = Tracker(str(db))
    reports = tracker.verifier.verify()
    assert all(r.ok for r in reports), [r.to_dict() for r in reports]
    row = tracker.campaign("Crash")
    events = list(tracker.store.read(row.campaign_id))
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    assert to_snapshot(tracker.state(row)) == to_snapshot(tracker.rebuild(row))
    tracker.close()
    return len(events)


@pytest.mark.slow
def test_killing_a_stream_of_appends_leaves_a_sound_log(crash_db):
    rng = random.Random(7)
    total = 4
    for _ in range(6):
        proc = start_player(crash_db)
        wait_for_lines(proc, rng.randint(5, 60))
        # Let it get into the middle of the next write, at a random moment.
        time.sleep(rng.random() * 0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        count = assert_sound(crash_db)
        assert count > total
        total = count


# A child that imports, and is killed (SIGKILL, from a thread of its own) a set time after the
# import's transaction begins to commit: inside the commit, or just after it while snapshots
# are written, never before the last event is inserted.
KILL_IN_COMMIT = """
import os, signal, sys, threading
from tracker.store.eventstore import EventStore
from tracker.store.sqlite import SqliteBackend
from tracker.cli import cli

delay = float(sys.argv[1])
importing = False
commit = SqliteBackend.commit

def killing_commit(self, conn):
    if importing:
        threading.Timer(delay, os.kill, (os.getpid(), signal.SIGKILL)).start()
    return commit(self, conn)

def watched(self, stream, _import=EventStore.import_events):
    global importing
    importing = True
    return _import(self, stream)

SqliteBackend.commit = killing_commit
EventStore.import_events = watched
cli.main(sys.argv[2:], prog_name="tracker")
"""


@pytest.fixture(scope="module")
def crash_dump(tmp_path_factory) -> tuple[Path, int]:
    """An export of a long campaign, made once for every kill below, and its event count."""
    folder = tmp_path_factory.mktemp("crash-dump")
    source = Tracker(str(folder / "source.db"))
    generate(source, "Crash", "glintlock", events=10_000, seed=4)
    dump = folder / "dump.jsonl"
    with dump.open("w") as out:
        source.exports.export_events(out)
    total = source.store.count()
    source.close()
    return dump, total


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.0, 0.0005, 0.002, 0.01, 0.05])
def test_killing_a_bulk_import_leaves_either_nothing_or_everything(tmp_path, delay, crash_dump):
    dump, total = crash_dump
    target = tmp_path / "copy.db"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            KILL_IN_COMMIT,
            str(delay),
            "--db",
            str(target),
            "import",
            str(dump),
        ],
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    tracker = Tracker(str(target))
    count = tracker.store.count()
    print(f"killed {delay * 1000:g} ms into the commit: {count} of {total} events")
    assert count in (0, total)
    assert all(r.ok for r in tracker.verifier.verify())
    if count:
        assert tracker.state(tracker.campaign("Crash")).version == total
    tracker.close()


@pytest.mark.slow
def test_several_processes_logging_at_once_lose_and_duplicate_nothing(shared_db):
    crash_db = shared_db
    env = {**os.environ, "TRACKER_DB": str(crash_db), "TRACKER_CAMPAIGN": "Crash"}
    shells = [
        subprocess.Popen(
            [sys.executable, "-m", "tracker", "shell"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(3)
    ]
    one_shots = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import subprocess, sys\n"
                "for i in range(8):\n"
                "    done = subprocess.run([sys.executable, '-m', 'tracker', 'note',"
                f" 'one-shot {n} ' + str(i)], capture_output=True, text=True)\n"
                "    print(done.returncode, done.stderr.strip(), flush=True)",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    # Every shell gets its whole evening at once, so all of them write at the same time.
    for n, shell in enumerate(shells):
        shell.stdin.write("".join(f"note 'shell {n} line {i}'\n" for i in range(40)) + "exit\n")
        shell.stdin.close()
    outputs = [(shell.stdout.read(), shell.stderr.read()) for shell in shells]
    for shell in shells:
        shell.wait(timeout=180)
    landed = 0
    for proc in one_shots:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        for line in out.splitlines():
            code, _, message = line.partition(" ")
            if code == "0":
                landed += 1
            else:
                # A writer that kept colliding gives up with one sentence, having logged nothing.
                assert code == "1", line
                assert "run the command again" in message
    for shell, (_, err) in zip(shells, outputs, strict=True):
        assert shell.returncode == 0
        refused = [line for line in err.splitlines() if line]
        assert all("run the command again" in line for line in refused), refused
        landed += 40 - len(refused)
    tracker = Tracker(str(crash_db))
    row = tracker.campaign("Crash")
    notes = [e for e in tracker.store.read(row.campaign_id) if e.type == "NoteAdded"]
    # Every note reported as logged is there once; none reported as refused is. A writer that
    # keeps colliding decides under the write lock, so none is refused at all.
    assert len(notes) == landed
    assert landed == 3 * 40 + 2 * 8
    assert len({e.event_id for e in notes}) == len(notes)
    assert len({e.payload["text"] for e in notes}) == len(notes)
    tracker.close()
    assert_sound(crash_db)


def test_a_writer_decides_on_the_head_it_holds_the_lock_on(tmp_path):
    """Another writer logs between this one's read of the state and its lock: what it logged
    is folded on under the lock, the command decides on that head, and nothing collides."""
    path = str(tmp_path / "busy.db")
    mine, other = Tracker(path), Tracker(path)
    mine.campaigns.campaign_new("Busy", "glintlock")
    mine.campaigns.character_add("Wren", stats=["Grit=3"])
    mine.campaigns.session_start("Crowded table")
    other.tracks.stress("Wren", 1, cause="the cold")
    read_state = mine.loader.state

    def state_then_someone_else_writes(row):
        state = read_state(row)
        other.tracks.stress("Wren", 2, cause="someone else was quicker")
        return state

    mine.loader.state = state_then_someone_else_writes
    logged = mine.tracks.stress("Wren", 2, cause="the dark")
    mine.loader.state = read_state
    events = list(mine.store.read(mine.campaign().campaign_id))
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    assert events[-1].event_id == logged.event.event_id
    assert [e.type for e in events].count("StressChanged") == 3  # one attempt, no retry
    # Decided on the other writer's stress: 1 + 2 + 2.
    assert logged.state.character("Wren").stress == 5
    assert mine.state().character("Wren").stress == 5
    mine.close()
    other.close()


def test_a_long_decision_holds_no_other_writer_up(tmp_path):
    """A command decides first without the lock (an undo asking every later event whether it
    still stands can take a while): another writer logs meanwhile without waiting for it, and
    the command decides again on the head it then holds the lock on."""
    from tracker.app.deciding import Decision, new_event
    from tracker.events import play as ev

    path = str(tmp_path / "busy.db")
    mine, other = Tracker(path), Tracker(path)
    mine.campaigns.campaign_new("Busy", "glintlock")
    mine.campaigns.session_start("Crowded table")
    before = mine.state().version
    decided: list[int] = []

    def decide(state):
        decided.append(state.version)
        if len(decided) == 1:
            # With the lock held here this would wait out SQLite's busy timeout, then fail.
            started = time.monotonic()
            other.tracks.note("logged while the first decision was being made")
            assert time.monotonic() - started < 5
        return Decision([new_event(ev.NoteAdded(text="mine"), state=state)])

    _, stored, _ = mine.decide_and_append(decide)
    assert decided == [before, before + 1]
    assert [e.version for e in stored] == [before + 2]
    assert all(report.ok for report in mine.verifier.verify())
    mine.close()
    other.close()


def test_a_shell_whose_database_was_restored_under_it_appends_to_the_restored_log(tmp_path):
    """The state a shell keeps is checked against the log under the lock: after a backup is
    restored under it, the next command folds the restored log and chains onto it."""
    import sqlite3

    path = tmp_path / "live.db"
    shell = Tracker(str(path))
    shell.warm = True
    shell.campaigns.campaign_new("Restored", "glintlock")
    shell.campaigns.session_start("Before the backup")
    shell.tracks.note("kept")
    backup = tmp_path / "backup.db"
    with sqlite3.connect(path) as source, sqlite3.connect(backup) as copy:
        source.backup(copy)
    kept = shell.state().version
    shell.tracks.note("lost with the restore")
    shell.tracks.note("lost too")
    with sqlite3.connect(backup) as source, sqlite3.connect(path) as live:
        source.backup(live)
    logged = shell.tracks.note("after the restore")
    assert logged.event.version == kept + 1
    assert [e.payload.get("text") for e in shell.store.read(logged.event.campaign_id)][-2:] == [
        "kept",
        "after the restore",
    ]
    assert all(report.ok for report in shell.verifier.verify())
    assert shell.state().version == kept + 1
    shell.close()
