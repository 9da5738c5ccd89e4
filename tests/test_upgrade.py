"""Upgrades: a database made by the first released schema opens in this version, backed up first."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracker.cli import cli
from tracker.events.upcasters import UPCASTERS, upcast, upcaster
from tracker.store.revisions import HEAD_REVISION

FIXTURES = Path(__file__).parent.parent / "fixtures" / "db"


def test_a_first_schema_database_is_backed_up_migrated_and_reads_as_before(tmp_path):
    db = tmp_path / "old.db"
    shutil.copy(FIXTURES / "schema-0001.db", db)
    original = db.read_bytes()
    runner = CliRunner()
    verified = runner.invoke(cli, ["--db", str(db), "verify", "--json"])
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.stdout)["ok"] is True
    backups = list(tmp_path.glob("old.db.backup-0001-*"))
    assert len(backups) == 1
    assert backups[0].stat().st_mode & 0o777 == 0o600
    with sqlite3.connect(backups[0]) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == ("0001",)
    assert sqlite3.connect(backups[0]).execute("SELECT count(*) FROM events").fetchone()[0] > 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (
            HEAD_REVISION,
        )
    expected = [
        line for line in (FIXTURES / "schema-0001.replay.jsonl").read_text().splitlines() if line
    ]
    names = ["Ashes of Veyra", "Neon Drift", "Iron and Ink"]
    for name, line in zip(names, expected, strict=True):
        replay = runner.invoke(cli, ["--db", str(db), "--campaign", name, "replay", "1", "--json"])
        assert json.loads(replay.stdout) == json.loads(line)
    assert (FIXTURES / "schema-0001.db").read_bytes() == original  # the fixture is untouched


def test_the_upcaster_chain_lifts_an_old_payload_step_by_step():
    # A later version of NoteAdded that stores its text under "body"; a v1 payload is lifted.
    @upcaster("NoteAdded", 1)
    def upcast_note_v1_v2(payload: dict) -> dict:
        return {"body": payload.pop("text"), **payload}

    try:
        assert upcast("NoteAdded", 1, {"text": "the lamps gutter", "tags": []}, 2) == {
            "body": "the lamps gutter",
            "tags": [],
        }
        assert upcast("NoteAdded", 2, {"body": "x"}, 2) == {"body": "x"}
    finally:
        del UPCASTERS[("NoteAdded", 1)]


def test_a_payload_newer_than_this_tracker_is_not_guessed_at():
    with pytest.raises(ValueError, match="newer"):
        upcast("NoteAdded", 3, {}, 1)


def test_an_older_payload_reaches_every_reader_through_its_upcaster_alone(glintlock, monkeypatch):
    """An event stored in an older spelling (here a StressChanged of version 0 that said ``by``
    where version 1 says ``delta``) is lifted where the store reads it, by one registered
    upcaster: the fold, the log, replay, status as of an event, undo and verify all read it,
    and the stored row is never rewritten. Without the upcaster it is refused in a sentence."""
    from tracker.app.tracker import Tracker
    from tracker.events import NewEvent

    run = glintlock
    run.ok("session start")
    wren = run.json("status Wren")["character_id"]
    tracker = Tracker(str(run.db))
    row = tracker.campaign()
    head = tracker.store.head(row.campaign_id).version
    old = {"character_id": wren, "by": 2, "cause": "the drowned scribe"}
    tracker.store.append(
        row.campaign_id,
        [NewEvent("StressChanged", old, schema_version=0, session_id=1, character_id=wren)],
        head,
    )
    tracker.close()

    def upcast_stress_v0_v1(payload: dict) -> dict:
        return {"delta": payload.pop("by"), **payload}

    monkeypatch.setitem(UPCASTERS, ("StressChanged", 0), upcast_stress_v0_v1)
    assert run.json("status Wren")["stress"] == 2
    assert "Wren stress +2 (the drowned scribe)" in run.ok("log").stdout
    assert "Wren stress 0 → 2" in run.ok("replay 1").stdout
    assert run.json(f"status Wren --as-of {head + 1}")["stress"] == 2
    assert run.json("verify")["ok"]
    stored = json.loads(run.ok("export events").stdout.splitlines()[-1])
    assert (stored["schema_version"], stored["payload"]) == (0, old)  # never rewritten

    monkeypatch.delitem(UPCASTERS, ("StressChanged", 0))
    for command in ("status Wren", "undo", "roll Wren Grit --tag 1:gear"):
        refused = run(command)
        assert refused.exit_code == 1, command
        assert len(refused.stderr.strip().splitlines()) == 1
        assert "no upcaster for StressChanged from version 0" in refused.stderr
    assert "an event tracker cannot read" in run.ok("log").stdout

    monkeypatch.setitem(UPCASTERS, ("StressChanged", 0), upcast_stress_v0_v1)
    run.ok("undo")
    assert run.json("status Wren")["stress"] == 0


def test_project_days_logged_before_days_had_ids_count_one_each(tmp_path):
    """A project roll of an older release carries no day id: each one still counts a day, as
    it did, and a team's day logged now counts one however many worked it."""
    from tracker.app.tracker import Tracker
    from tracker.events import NewEvent

    db = tmp_path / "old.db"
    shutil.copy(FIXTURES / "schema-0001.db", db)
    runner = CliRunner()

    def run(*args: str) -> dict:
        result = runner.invoke(cli, ["--db", str(db), "--campaign", "Iron and Ink", *args])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    def project() -> dict:
        return run("project", "status", "--json")["projects"][0]

    assert (project()["days"], project()["done"]) == (1, 8)
    # A second day of the older release, stored as it wrote them: no day id in its inputs.
    tracker = Tracker(str(db))
    row = tracker.campaign("Iron and Ink")
    old = next(
        e for e in tracker.store.read(row.campaign_id) if getattr(e.data, "kind", "") == "project"
    )
    assert "day" not in old.data.inputs
    head = tracker.store.head(row.campaign_id).version
    again = NewEvent("RollMade", old.payload, schema_version=1, character_id=old.character_id)
    tracker.store.append(row.campaign_id, [again], head)
    tracker.close()
    assert (project()["days"], project()["done"]) == (2, 16)

    names = [c["name"] for c in run("status", "--json")["characters"]]
    day = run("project", "roll", "Archive catalogue", *names[:2], "--seed", "7", "--json")
    assert len(day["workers"]) == 2
    assert project()["days"] == 3
    assert run("verify", "--json")["ok"] is True
