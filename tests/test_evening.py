"""The GM's evening without surprises: what a GM is told as it happens, and nothing that looks
done but is not."""

from __future__ import annotations


def test_a_roll_that_makes_a_spend_owed_at_once_says_so_then(glintlock):
    glintlock.ok("session start")
    glintlock.ok("threat add 4")  # a spend is owed, but player rolls may go on
    result = glintlock.ok("roll Wren Grit --tag 1:gear --dice 5")  # a miss: Threat +2, to 6
    assert "Threat 6" in result.stdout
    assert "now" in result.stdout.lower()
    doc = glintlock.json("threat add 1 --reason 'still 6'")
    assert doc["obligations_changed"] == []  # nothing more is owed than before


def test_the_raised_floor_is_in_the_json_too(glintlock):
    glintlock.ok("session start")
    glintlock.ok("threat add 4")
    doc = glintlock.json("roll Wren Grit --tag 1:gear --dice 5")
    assert [o["severity"] for o in doc["obligations_changed"]] == ["immediate"]


def test_verify_against_an_html_report_reads_its_log_head(glintlock, tmp_path):
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --dice 15")
    report = tmp_path / "report.html"
    glintlock.ok(f"export rolls --format html -o {report}")
    result = glintlock(f"verify --against {report}")
    assert result.exit_code == 0, result.output
    assert "matches the export" in result.stdout


def test_as_of_an_event_past_the_log_is_refused_not_read_as_a_year(glintlock):
    glintlock.ok("session start")
    result = glintlock("status --as-of 9999")
    assert result.exit_code == 1
    assert "No event 9999" in result.stderr


def test_an_import_selects_a_campaign_to_play(glintlock, tmp_path):
    from click.testing import CliRunner
    from conftest import Run

    glintlock.ok("session start")
    export = tmp_path / "log.jsonl"
    glintlock.ok(f"export events -o {export}")
    copy = Run(tmp_path / "copy.db", CliRunner())
    result = copy.ok(f"import {export}")
    assert 'now playing "Ashes of Veyra"' in result.stdout
    assert "Ashes of Veyra" in copy.ok("status").stdout


def test_backlash_on_a_sheet_without_hp_does_not_claim_damage(glintlock):
    glintlock.ok("character add Seer --stat Lore=4 --class Seer")
    glintlock.ok("character add Healer --stat Lore=4 --stat HP=12 --class Seer")
    glintlock.ok("session start")
    spell = "--spell --tag 1:power --dice 1 --backlash-dice 3,4"
    without = glintlock.ok(f"roll Seer Lore {spell}").stdout
    assert "-7 HP" not in without
    assert "7 HP of backlash, not applied: Seer's sheet has no HP" in without
    glintlock.ok("threat spend dire")  # the natural 1's Threat, so the next roll may go
    with_hp = glintlock.ok(f"roll Healer Lore {spell}").stdout
    assert "-7 HP (backlash)" in with_hp
    assert glintlock.json("status Healer")["hp"] == 5
