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
from tracker.store.schema import HEAD_REVISION

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
