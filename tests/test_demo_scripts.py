"""The scripted sessions in fixtures/ play cleanly, and the demo shows the evening."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracker.cli import cli
from tracker.cli.script import script_lines

SESSIONS = Path(__file__).parent.parent / "fixtures" / "sessions"


def test_demo_plays_a_session_in_every_campaign(tmp_path):
    db = tmp_path / "demo.db"
    result = CliRunner().invoke(cli, ["demo", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "WEAK HIT" in result.stdout
    assert "Threat 4: the GM owes a hard or dire spend." in result.stdout
    for system in ("gloom", "gurps", "glintlock"):
        played = len(script_lines(SESSIONS / f"{system}.txt"))
        assert f"{played} commands played" in result.stdout
    verified = CliRunner().invoke(cli, ["--db", str(db), "verify", "--json"])
    assert json.loads(verified.stdout)["ok"] is True


@pytest.mark.parametrize("campaign", ["Ashes of Veyra", "Neon Drift", "Iron and Ink"])
def test_demo_state_after_the_scripted_evening(tmp_path, campaign):
    db = tmp_path / "demo.db"
    CliRunner().invoke(cli, ["demo", "--db", str(db)])
    status = json.loads(
        CliRunner()
        .invoke(cli, ["--db", str(db), "--campaign", campaign, "status", "--json"])
        .stdout
    )
    by_name = {c["name"]: c for c in status["characters"]}
    owed = json.loads(
        CliRunner()
        .invoke(cli, ["--db", str(db), "--campaign", campaign, "obligations", "--json"])
        .stdout
    )["obligations"]
    if campaign == "Ashes of Veyra":
        # Weak hit +1, natural 1 +3, hard spend -2; Wren's steel-yourself came and went.
        assert status["threat"] == 2
        assert status["spending_floor"] == "none"
        assert by_name["Wren"]["mettle"] == 1
        assert by_name["Tomas"]["mettle"] == 1
        assert by_name["Tomas"]["stress"] == 2
        assert by_name["Tomas"]["story_tags"] == []
        assert by_name["Wren"]["next_roll"]["bonus"] == 0
    elif campaign == "Neon Drift":
        # The catastrophe's panic check was made and passed: nothing owed, nobody panicked.
        assert by_name["Kade"]["stress"] == 1
        assert by_name["Kade"]["conditions"] == []
    else:
        # Row 16 of the fright table: stunned for 1d (4) seconds and a quirk, since assigned.
        assert [c["name"] for c in by_name["Mira"]["conditions"]] == ["stunned"]
        assert by_name["Mira"]["conditions"][0]["duration"] == 4
        assert by_name["Mira"]["traits_gained"][0]["kind"] == "quirk"
        assert status["projects"][0]["done"] == 8
    assert owed == []
