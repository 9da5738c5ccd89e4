"""Exports, import, replay and the player view."""

from __future__ import annotations

import csv
import fcntl
import io
import json
import re
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from synthetic import generate

from tracker.app import Tracker
from tracker.app.export import RollFilter
from tracker.errors import Refused
from tracker.projections.rolls import FaceTest, columns


@pytest.fixture
def gloom_night(run):
    run.ok("campaign new Neon --system gloom")
    run.ok("character add Kade --skill Hacking=14 --stat Mind=12")
    run.ok("character add Juno --skill Piloting=15")
    run.ok("session start --title 'The relay'")
    run.ok("roll Kade Hacking --dl 5 --dice 12")  # success
    run.ok("roll Kade Hacking --dl 5 --dice 15")  # overshoot
    run.ok("roll Juno Piloting --secret --dice 9")  # a secret success
    run.ok("note 'The relay goes dark.'")
    run.ok("contest Kade Hacking ICE 10 --dice-a 13 --dice-b 4")
    return run


def test_a_name_typed_in_full_width_letters_finds_its_character_and_campaign(gloom_night):
    """Ｋａｄｅ, typed with a full-width keyboard, reads as Kade: the character, their rolls and
    the campaign are found as if typed plainly."""
    wide = "\uff2b\uff41\uff44\uff45"  # Ｋａｄｅ
    assert gloom_night.json(["status", wide])["name"] == "Kade"
    plain = gloom_night.ok("export rolls --format csv --character Kade").stdout
    typed = gloom_night.ok(["export", "rolls", "--format", "csv", "--character", wide])
    assert typed.stdout == plain
    assert "Kade" in plain
    gloom_night.ok(["campaign", "use", "\uff2e\uff45\uff4f\uff4e"])  # Ｎｅｏｎ


def test_one_roll_written_is_one_roll(gloom_night, tmp_path):
    out = tmp_path / "juno.csv"
    said = gloom_night.ok(f"export rolls --format csv --character Juno -o {out}").stdout
    assert said.startswith(f"Wrote {out}: 1 roll, log head ")


def test_csv_has_one_row_per_roll_with_the_contract_columns(gloom_night):
    out = gloom_night.ok("export rolls --format csv").stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == [*columns(), "log_head"]
    # The scripting contract's columns, with GURPS's margin and Glintlock's position, each a
    # system's own, where they have always been.
    assert list(rows[0]) == [
        *("time", "session", "character", "system", "kind", "trait", "base", "modifiers"),
        *("effective", "dice", "dice_source", "kept", "outcome", "margin", "position"),
        *("effects", "revoked", "secret", "success", "p_success", "event_id", "version"),
        *("bought_up_from", "log_head"),
    ]
    # Three rolls and both sides of the contest.
    assert [(r["character"], r["outcome"]) for r in rows] == [
        ("Kade", "success"),
        ("Kade", "overshoot"),
        ("Juno", "success"),
        ("Kade", "special"),
        ("ICE", "success"),
    ]
    head = gloom_night.json("log")["events"][-1]["hash"]
    assert {r["log_head"] for r in rows} == {head}
    assert rows[0]["p_success"] == "0.5"  # faces 5..14 of 20
    assert {r["dice_source"] for r in rows} == {"physical"}  # every die given with --dice
    assert [r["effects"] for r in rows[3:]] == ["won", "lost"]


def test_jsonl_names_the_head_and_filters_by_character_and_session(gloom_night):
    lines = gloom_night.ok("export rolls --format jsonl --character juno").stdout.splitlines()
    header = json.loads(lines[0])
    assert header["log_head"] == gloom_night.json("log")["events"][-1]["hash"]
    assert [json.loads(line)["trait"] for line in lines[1:]] == ["Piloting"]
    assert gloom_night.ok("export rolls --session 1 --format jsonl").stdout.count("\n") == 6
    assert gloom_night.ok("export rolls --since 2999-01-01 --format jsonl").stdout.count("\n") == 1


def test_player_view_keeps_a_secret_rolls_row_but_not_its_dice_or_outcome(gloom_night):
    out = gloom_night.ok("export rolls --format csv --player-view").stdout
    juno = next(r for r in csv.DictReader(io.StringIO(out)) if r["character"] == "Juno")
    assert juno["secret"] == "True"
    for column in (
        "dice",
        "dice_source",
        "kept",
        "effective",
        "margin",
        "outcome",
        "success",
        "effects",
    ):
        assert juno[column] == "", column
    jsonl = gloom_night.ok("export rolls --format jsonl --player-view").stdout
    secret = next(json.loads(x) for x in jsonl.splitlines()[1:] if "Juno" in x)
    assert secret["dice"] == []
    assert secret["dice_source"] is None
    assert secret["outcome"] is None


def test_a_rolls_export_says_where_each_rolls_dice_came_from(glintlock):
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --dice 15")
    glintlock.ok("roll Wren Grit --tag 1:gear --seed 4")
    glintlock.ok("roll Tomas Wits --tag 1:gear")
    lines = glintlock.ok("export rolls --format jsonl").stdout.splitlines()[1:]
    assert [json.loads(line)["dice_source"] for line in lines] == ["physical", "seeded", "system"]


def test_backlash_on_a_sheet_without_hp_is_exported_as_not_applied(glintlock):
    """The exports say of a roll's HP what its command said: backlash on a caster whose sheet
    had no HP then was not applied; once the sheet has HP, the next backlash is."""
    glintlock.ok("character add Isolde --stat Lore=3 --trained Arcana --class Seer")
    glintlock.ok("session start")
    said = glintlock.ok("roll Isolde Lore --skill Arcana --spell --dice 1,5 --backlash-dice 7,9")
    assert "16 HP of backlash, not applied" in said.stdout
    glintlock.ok("threat spend dire")
    glintlock.ok("character update Isolde --stat HP=20")
    glintlock.ok("roll Isolde Lore --skill Arcana --spell --dice 1,5 --backlash-dice 2,3")
    assert glintlock.json("status Isolde")["hp"] == 15
    first = "+3 threat; -16 hp not applied (no HP on the sheet)"
    second = "+3 threat; -5 hp"
    rows = list(csv.DictReader(io.StringIO(glintlock.ok("export rolls --format csv").stdout)))
    assert [r["effects"] for r in rows] == ["'" + first, "'" + second]
    lines = glintlock.ok("export rolls --format jsonl").stdout.splitlines()[1:]
    assert [json.loads(line)["effects"] for line in lines] == [first, second]
    page = glintlock.ok("export rolls --format html").stdout
    assert "-16 hp not applied (no HP on the sheet)" in page
    assert "-16 hp<" not in page


def test_a_roll_points_bought_up_reads_as_it_ended_in_replay_and_every_export(run):
    """A failed Climbing roll bought up to a success: its replay line and its row in every
    roll export, in both views, give the outcome it ended with and say it was bought up; its
    luck is still its dice's. Undoing the buy-up leaves the roll as first rolled."""
    run.ok("campaign new Salt --system gurps --cinematic")
    run.ok("character add Corwin --stat DX=12 --skill Climbing=12")
    run.ok("session start")
    run.ok("points award Corwin 3")
    run.ok("roll Corwin Climbing --dice 5,5,4")  # 14 on 12: failure by 2
    run.ok("spend Corwin buy-up")
    line = "Corwin rolls Climbing at 12: 5+5+4 = 14 → failure by 2 · bought up to success"
    for view in ("", " --player-view"):
        assert line in run.ok(f"replay 1{view}").stdout
        rolled = next(e for e in run.json(f"replay 1{view}")["events"] if e["type"] == "RollMade")
        assert rolled["bought_up_to"] == "success"
        text = run.ok(f"export rolls --format csv{view}").stdout
        row = next(csv.DictReader(io.StringIO(text)))
        assert (row["outcome"], row["success"], row["bought_up_from"]) == (
            "success",
            "True",
            "failure",
        )
        lines = run.ok(f"export rolls --format jsonl{view}").stdout.splitlines()
        doc = json.loads(lines[1])
        assert (doc["outcome"], doc["success"], doc["bought_up_from"]) == (
            "success",
            True,
            "failure",
        )
        page = run.ok(f"export rolls --format html{view}").stdout
        assert '<span class="outcome good">success</span>' in page
        assert "bought up from failure" in page
    luck = Tracker(str(run.db)).exports.roll_report(RollFilter())["luck"]["characters"][0]
    assert (luck["rolls"], luck["successes"]) == (1, 0)

    run.ok("undo")
    assert "bought up" not in run.ok("replay 1").stdout
    row = next(csv.DictReader(io.StringIO(run.ok("export rolls --format csv").stdout)))
    assert (row["outcome"], row["success"], row["bought_up_from"]) == ("failure", "False", "")


def test_a_buy_up_kept_secret_leaves_the_players_the_roll_as_first_rolled(run):
    """A buy-up sealed because a secret event about the character came between (a secret
    Fright Check): the players' log, replay and exports read the roll as they saw it."""
    run.ok("campaign new Salt --system gurps --cinematic")
    run.ok("character add Corwin --stat DX=12 --stat IQ=10 --skill Climbing=12")
    run.ok("session start")
    run.ok("points award Corwin 3")
    run.ok("roll Corwin Climbing --dice 5,5,4")
    run.ok("fright Corwin --secret --dice 3,3,3")
    assert run.json("spend Corwin buy-up")["secret"] is True
    assert "bought up to success" in run.ok("log").stdout
    for reader in ("log", "replay 1"):
        assert "bought up" not in run.ok(f"{reader} --player-view").stdout
    text = run.ok("export rolls --format csv --player-view").stdout
    row = next(csv.DictReader(io.StringIO(text)))
    assert (row["outcome"], row["bought_up_from"]) == ("failure", "")
    run.ok("reveal --session 1")
    assert "bought up to success" in run.ok("log --player-view").stdout


def test_no_player_facing_output_shows_a_secret_roll(run):
    run.ok("campaign new Hidden --system gurps")
    run.ok("character add Mira --stat Per=12")
    run.ok("session start")
    # A distinctive roll: 6+6+5 = 17 on Per 12, a critical failure.
    secret = run.json("roll Mira Per --secret --dice 6,6,5")
    assert secret["outcome"] == "critical_failure"
    status = run.json("status Mira --player-view")
    assert status["conditions"] == []
    outputs = [
        json.dumps(status),
        run.ok("status --player-view").stdout,
        run(
            ["shell"],
            input="replay --player-view\nstatus --player-view\n"
            "export rolls --player-view --format jsonl\n",
        ).stdout,
        run.ok("replay --player-view").stdout,
        run.ok("replay --player-view --json").stdout,
        run.ok("log --player-view").stdout,
        run.ok("log --player-view --json").stdout,
        run.ok("export rolls --player-view --format csv").stdout,
        run.ok("export rolls --player-view --format jsonl").stdout,
    ]
    for text in outputs:
        assert "critical" not in text
        assert "6,6,5" not in text
        assert "6 6 5" not in text
        assert "[6, 6, 5]" not in text
        assert '"total": 17' not in text
        assert "= 17" not in text


def test_replay_shows_notes_changes_and_undone_events(glintlock):
    glintlock.ok("session start --title 'The drowned archive'")
    glintlock.ok("roll Wren Grit --tag 1:gear --tag 1:power --dice 15")
    glintlock.ok("note 'The shelves groan.'")
    glintlock.ok("stress Tomas +2 --cause 'the scribe'")
    glintlock.ok("undo")
    out = glintlock.ok("replay").stdout
    assert 'Session 1 "The drowned archive"' in out
    assert "Wren Mettle 0 → 1" in out
    assert "Threat 0 → 1" in out
    assert "The shelves groan." in out
    stress_line = next(line for line in out.splitlines() if "stress +2" in line)
    assert "(undone)" in stress_line
    doc = glintlock.json("replay 1")
    undone = [e for e in doc["events"] if e["revoked"]]
    assert [e["type"] for e in undone] == ["StressChanged"]
    assert undone[0]["changes"] == []


def test_replay_reads_a_track_that_did_not_exist_as_a_dash_never_none(glintlock):
    """A character added mid-session had no Mettle before it, and a sheet that gains HP had
    none: the replay says so in the table's words, in both views; --json keeps null."""
    glintlock.ok("session start")
    glintlock.ok("character add Brannoc --stat Grit=2")
    glintlock.ok("character update Brannoc --stat HP=12")
    for view in ("", " --player-view"):
        out = glintlock.ok(f"replay 1{view}").stdout
        assert "None" not in out
        assert "Brannoc Mettle — → 0" in out
        assert "Brannoc conditions — → none" in out
        assert "Brannoc HP — → 12" in out
    updated = glintlock.json("replay 1")["events"][-1]
    assert updated["changes"] == [{"who": "Brannoc", "track": "HP", "before": None, "after": 12}]


def test_replay_of_an_unknown_session_is_refused(glintlock):
    result = glintlock("replay 3")
    assert result.exit_code == 1
    assert "No session" in result.stderr


def test_luck_on_a_small_log_equals_the_hand_count(gloom_night):
    tracker = Tracker(str(gloom_night.db))
    report = tracker.exports.roll_report(RollFilter())
    kade = next(c for c in report["luck"]["characters"] if c["character"] == "Kade")
    # Rank 14, DL 5: faces 5..14 succeed, 1/2 each; the contest side at DL 0: faces 2..14, 13/20.
    assert kade["rolls"] == 3
    assert kade["successes"] == 2
    assert kade["expected"] == pytest.approx(0.5 + 0.5 + 13 / 20)
    assert kade["luck"] == pytest.approx(2 - 1.65)
    assert report["trails"]["Kade"] == pytest.approx([0.5, 0.0, 0.35])
    d20 = next(f for f in report["luck"]["faces"] if f["faces"] == 20)
    assert d20["dice"] == 5  # 12, 15, 9, 13 and the opponent's 4
    assert d20["p_value"] is None  # too few dice to test
    tracker.close()


def test_chi_square_of_die_faces_by_hand():
    # 60 d6: expected 10 each; deviations 5,-5,0,0,3,-3 -> (25+25+9+9)/10 = 6.8 on 5 d.f.
    test = FaceTest(6, [15, 5, 10, 10, 13, 7])
    assert test.chi_square == pytest.approx(6.8)
    # P(chi2(5) >= 6.8) = 0.2359 (standard tables).
    assert test.p_value == pytest.approx(0.2359, abs=1e-4)
    assert FaceTest(6, [10] * 6).p_value == pytest.approx(1.0)


def test_import_into_an_empty_database_reproduces_every_event(gloom_night, tmp_path):
    dump = gloom_night.ok("export events").stdout
    target = tmp_path / "copy.db"
    result = gloom_night.runner.invoke(
        __import__("tracker.cli", fromlist=["cli"]).cli,
        ["--db", str(target), "import", "-"],
        input=dump,
    )
    assert result.exit_code == 0, result.output
    again = gloom_night.runner.invoke(
        __import__("tracker.cli", fromlist=["cli"]).cli, ["--db", str(target), "export", "events"]
    )
    assert again.stdout == dump


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda lines: [*lines[:1], "{not json", *lines[2:]], "is not an event"),
        (lambda lines: ["{}", *lines[1:]], "not a tracker events export"),
        (lambda lines: lines[:2] + lines[3:], "does not follow"),
        (
            lambda lines: [*lines[:2], lines[2].replace("Kade", "Mallory"), *lines[3:]],
            "does not match its hash",
        ),
    ],
)
def test_a_damaged_export_imports_nothing(gloom_night, tmp_path, damage, words):
    from click.testing import CliRunner

    from tracker.cli import cli

    lines = gloom_night.ok("export events").stdout.splitlines()
    target = tmp_path / "copy.db"
    result = CliRunner().invoke(
        cli, ["--db", str(target), "import", "-"], input="\n".join(damage(lines)) + "\n"
    )
    assert result.exit_code == 2
    assert words in result.stderr
    tracker = Tracker(str(target))
    assert tracker.store.count() == 0
    assert tracker.store.campaigns() == []
    tracker.close()


def test_import_into_a_database_with_campaigns_is_refused(gloom_night):
    dump = gloom_night.ok("export events").stdout
    result = gloom_night(["import", "-"], input=dump)
    assert result.exit_code == 1
    assert "already holds campaigns" in result.stderr


def test_an_import_raced_by_another_writer_is_refused_as_such(gloom_night, tmp_path):
    """The database was empty when the import looked, and was not when it came to write (a
    second import, a `campaign new` meanwhile): nothing is imported, and the refusal says so
    rather than blaming the file."""
    import io

    dump = gloom_night.ok("export events").stdout
    target = Tracker(str(tmp_path / "raced.db"))
    target.campaigns.campaign_new("Meanwhile", "gloom")
    looked = target.store.campaigns
    target.store.campaigns = lambda: []  # what it saw before the other writer's commit
    with pytest.raises(Refused, match="another command logged to it while the file was read"):
        target.exports.import_events(io.StringIO(dump), "dump.jsonl")
    target.store.campaigns = looked
    assert [c.name for c in target.store.campaigns()] == ["Meanwhile"]
    assert target.store.count() == 1
    target.close()


@pytest.mark.slow
def test_export_import_round_trip_of_a_generated_campaign(tmp_path):
    source = Tracker(str(tmp_path / "source.db"))
    generate(source, "Long", "gurps", events=10_000, seed=21)
    dump = io.StringIO()
    source.exports.export_events(dump)
    copy = Tracker(str(tmp_path / "copy.db"))
    copy.exports.import_events(iter(io.StringIO(dump.getvalue())), "dump")
    again = io.StringIO()
    copy.exports.export_events(again)
    assert again.getvalue() == dump.getvalue()
    assert all(report.ok for report in copy.verifier.verify())
    originals = {e.event_id: e for e in source.store.read_all()}
    assert len(originals) >= 10_000
    for event in copy.store.read_all():
        assert event == originals[event.event_id]
    source.close()
    copy.close()


def _csv_of_rows(rows: Iterable[Any], player_view: bool, head: str | None) -> str:
    """The roll export's CSV as it was first written: each row built whole (``RollRow``), then
    every cell guarded that is text. The export now writes straight from each roll's facts,
    and must write these very bytes."""
    formula = ("=", "+", "-", "@", "\t", "\r")
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([*columns(), "log_head"])
    for row in rows:
        doc = row.to_dict(player_view)
        values = [doc[c] for c in columns()]
        values[columns().index("dice")] = " ".join(map(str, values[columns().index("dice")]))
        values.append(head)
        writer.writerow(
            [
                ""
                if value is None
                else "'" + value
                if isinstance(value, str) and value.startswith(formula)
                else value
                for value in values
            ]
        )
    return out.getvalue()


_ROW_KINDS = {
    "gloom": [
        "character add =Evil --skill Hacking=12",
        "roll =Evil Hacking --dice 5",
        "undo",
        "roll Kade Hacking --secret --dice 9",
    ],
    "gurps": [
        "character add =Evil --stat IQ=12 --skill Lockpicking=12",
        "roll =Evil Lockpicking --dice 3,4,5",
        "undo",
        "roll Mira Lockpicking --secret --dice 3,5,4",
    ],
    "glintlock": [
        "character add =Evil --stat Grit=2",
        "roll =Evil Grit --dice 12,4 --override",
        "undo",
        "roll Wren Grit --tag 1:gear --secret --seed 3 --override",
    ],
}


@pytest.mark.parametrize("system", sorted(_ROW_KINDS))
def test_the_csv_written_from_each_rolls_facts_is_the_csv_of_its_rows(tmp_path, system):
    from test_every_event import Table, play_tour

    table = Table(tmp_path)
    play_tour(table, system)
    # After the tour (whose secrets end revealed): a name a spreadsheet would run, a roll
    # undone and one kept secret.
    table("session start")
    for step in _ROW_KINDS[system]:
        table.ok(step)
    tracker = Tracker(str(table.db))
    try:
        for player_view in (False, True):
            for flt in (RollFilter(), RollFilter(session=1), RollFilter(since="2000-01-01")):
                state, rows = tracker.exports.roll_rows(flt, player_view=player_view)
                expected = _csv_of_rows(rows, player_view, state.head_hash)
                _, cells = tracker.exports.csv_rows(flt, player_view=player_view)
                out = io.StringIO()
                writer = csv.writer(out)
                writer.writerow([*columns(), "log_head"])
                writer.writerows(cells)
                assert out.getvalue() == expected, (player_view, flt)
            view = " --player-view" if player_view else ""
            target = tmp_path / f"rolls{view.strip()}.csv"
            table.ok(f"export rolls --format csv{view} -o {target}")
            written = target.read_bytes().decode("utf-8")
            assert written == _csv_of_rows(*_rows(tracker, player_view))
            found = list(csv.DictReader(io.StringIO(written)))
            # The tour holds what the rows must carry through: undone rolls, secret ones (sealed
            # in the players' view), and text a spreadsheet would run, guarded.
            assert any(r["revoked"] == "True" for r in found)
            assert any(r["secret"] == "True" for r in found)
            assert any(r["kind"] == "secret" for r in found) == player_view
            assert any(r["character"] == "'=Evil" for r in found)
    finally:
        tracker.close()


def _rows(tracker: Tracker, player_view: bool) -> tuple[Iterable[Any], bool, str | None]:
    state, rows = tracker.exports.roll_rows(RollFilter(), player_view=player_view)
    return list(rows), player_view, state.head_hash


def test_luck_counts_only_rolls_in_force(glintlock):
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --dice 15")
    glintlock.ok("undo")
    tracker = Tracker(str(glintlock.db))
    report = tracker.exports.roll_report(RollFilter())
    assert report["rows"][0]["revoked"] is True
    assert report["luck"]["characters"] == []
    tracker.close()


def test_glintlock_roll_chance_is_the_exact_odds():
    from tracker.systems import registry

    # Stat 3 untrained, risky: weak DC 14 -> faces 14..20 hit: 7/20.
    assert registry.get("glintlock").chance((3, False, "risky", 0)) == Fraction(7, 20)


def test_player_view_tracks_do_not_give_a_secret_roll_away(glintlock):
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --dice 15")  # weak hit: Threat 1
    glintlock.ok("roll Tomas Wits --tag 1:gear --secret --dice 2")  # secret miss: Threat 3
    glintlock.ok("roll Wren Grit --tag 1:gear --dice 15")  # weak hit: Threat 4
    tracker = Tracker(str(glintlock.db))
    player = tracker.exports.roll_report(RollFilter(), player_view=True)
    gm = tracker.exports.roll_report(RollFilter())
    tracker.close()
    assert [p["threat"] for p in gm["shared"]] == [1, 3, 4]
    assert [p["threat"] for p in player["shared"]] == [1, 2]
    assert glintlock.json("status")["threat"] == 4
    assert glintlock.json("status --player-view")["threat"] == 2


def test_an_import_leaves_each_campaign_folded_for_the_first_command(tmp_path):
    from synthetic import generate

    from tracker.app import Tracker
    from tracker.app.loading import CAMPAIGN_SNAPSHOT
    from tracker.projections.campaign import PROJECTION_VERSION, to_snapshot

    source = Tracker(str(tmp_path / "source.db"))
    row = generate(source, "Long", "gloom", events=1_200, seed=2)
    export = tmp_path / "log.jsonl"
    with export.open("w", encoding="utf-8") as out:
        source.exports.export_events(out)
    copy = Tracker(str(tmp_path / "copy.db"))
    with export.open(encoding="utf-8") as lines:
        copy.exports.import_events(lines, str(export))
    stored = copy.store.load_snapshot(row.campaign_id, CAMPAIGN_SNAPSHOT, PROJECTION_VERSION)
    assert stored is not None
    assert stored[0] == copy.store.head(row.campaign_id).version
    assert to_snapshot(copy.state(row)) == to_snapshot(source.rebuild(row))
    source.close()
    copy.close()


@pytest.mark.parametrize(
    ("forge", "why"),
    [
        (lambda p: {**p, "dice": ["twelve"]}, "does not fit RollMade"),
        (lambda p: {**p, "effects": [{"track": "mettle"}]}, "does not fit RollMade"),
        (lambda p: {**p, "effects": [{"luck": 3}]}, "an effect must name one of"),
    ],
    ids=["a die that is text", "an effect without its delta", "an effect of no known shape"],
)
def test_an_import_whose_event_does_not_fit_its_type_is_refused_whole(gloom_night, forge, why):
    """A forged event rehashed so the chain checks out still has to be an event tracker can read:
    the import names its line and imports nothing."""
    from tracker.events.envelope import chain_fields, event_hash

    lines = gloom_night.ok("export events").stdout.splitlines()
    docs = [json.loads(line) for line in lines[1:]]
    at = next(i for i, d in enumerate(docs) if d["type"] == "RollMade")
    prev = docs[at]["prev_hash"]
    for doc in docs[at:]:
        if doc is docs[at]:
            doc["payload"] = forge(doc["payload"])
        doc["prev_hash"] = prev
        doc["hash"] = prev = event_hash(chain_fields(**{k: doc[k] for k in CHAINED}))
    header = json.loads(lines[0])
    header["campaigns"] = {docs[0]["campaign_id"]: prev}
    forged = "\n".join([json.dumps(header), *map(json.dumps, docs)]) + "\n"
    copy = gloom_night.db.with_name("copy.db")
    result = gloom_night(["--db", str(copy), "import", "-"], input=forged)
    assert result.exit_code == 2, result.output
    assert f"line {at + 2} is no event this tracker can read" in result.stderr
    assert why in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    nothing = Tracker(str(copy))
    assert nothing.store.count() == 0
    nothing.close()


@pytest.mark.parametrize("value", ["1e400", "NaN", '"\\ud800"'])
def test_an_import_line_holding_what_json_cannot_spell_is_refused_whole(gloom_night, value):
    lines = gloom_night.ok("export events").stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if '"type":"NoteAdded"' in line)
    lines[at] = re.sub(r'"text":"[^"]*"', lambda _: f'"text":{value}', lines[at], count=1)
    copy = gloom_night.db.with_name("copy.db")
    result = gloom_night(["--db", str(copy), "import", "-"], input="\n".join(lines) + "\n")
    assert result.exit_code == 2, result.output
    assert f"line {at + 1} is not an event" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    nothing = Tracker(str(copy))
    assert nothing.store.count() == 0
    nothing.close()


def _undo_twice(docs: list[dict]) -> None:
    """A second undo of what the last undo took back, logged after it."""
    undo = next(d for d in reversed(docs) if d["type"] == "EventsRevoked")
    docs.append({**undo, "event_id": str(uuid.uuid4())})


def _redo_of_what_stands(docs: list[dict]) -> None:
    """A redo of a note no undo took back."""
    note = next(d for d in docs if d["type"] == "NoteAdded")
    undo = next(d for d in reversed(docs) if d["type"] == "EventsRevoked")
    payload = {"event_ids": [note["event_id"]], "revocation": undo["event_id"], "reason": None}
    redo = {"event_id": str(uuid.uuid4()), "type": "EventsRestored", "payload": payload}
    docs.append({**undo, **redo})


def _undo_of(pick) -> Callable[[list[dict]], None]:
    """An undo, after the last one, of the events ``pick`` names given the rows and its id."""

    def forge(docs: list[dict]) -> None:
        undo = next(d for d in reversed(docs) if d["type"] == "EventsRevoked")
        ident = str(uuid.uuid4())
        payload = {**undo["payload"], "event_ids": pick(docs, ident)}
        docs.append({**undo, "event_id": ident, "payload": payload})

    return forge


def _note(docs: list[dict]) -> str:
    return next(d for d in docs if d["type"] == "NoteAdded")["event_id"]


def _redo_of_another_undo(docs: list[dict]) -> None:
    """A redo of the last undo's events, naming a roll as the undo it takes back."""
    undo = next(d for d in reversed(docs) if d["type"] == "EventsRevoked")
    roll = next(d for d in docs if d["type"] == "RollMade")
    payload = {
        "event_ids": undo["payload"]["event_ids"],
        "revocation": roll["event_id"],
        "reason": None,
    }
    redo = {"event_id": str(uuid.uuid4()), "type": "EventsRestored", "payload": payload}
    docs.append({**undo, **redo})


def _reveal_of(pick) -> Callable[[list[dict]], None]:
    """A reveal, after the last undo, of the events ``pick`` names given the rows."""

    def forge(docs: list[dict]) -> None:
        undo = next(d for d in reversed(docs) if d["type"] == "EventsRevoked")
        payload = {"event_ids": pick(docs), "session": None}
        reveal = {"event_id": str(uuid.uuid4()), "type": "EventsRevealed", "payload": payload}
        docs.append({**undo, **reveal})

    return forge


def _secret_roll(docs: list[dict]) -> str:
    return next(d for d in docs if d["visibility"] == "gm")["event_id"]


def _undo_in_secret(docs: list[dict]) -> None:
    _undo_of(lambda docs, _: [_note(docs)])(docs)
    docs[-1]["visibility"] = "gm"


def _redo_of_another_undo_of_rules_not_here(docs: list[dict]) -> None:
    """The undo rules hold whether or not the campaign's rule system is installed."""
    docs[0]["payload"]["system"] = "d6"
    _redo_of_another_undo(docs)


@pytest.mark.parametrize(
    ("forge", "why"),
    [
        (_undo_twice, "it undoes an event that is undone already"),
        (_redo_of_what_stands, "it redoes an event that is not undone"),
        (
            _undo_of(lambda docs, _: [str(uuid.uuid4())]),
            "which is no event logged before it in its campaign",
        ),
        (_undo_of(lambda _, ident: [ident]), "which is no event logged before it"),
        (_undo_of(lambda docs, _: []), "it names no event"),
        (_undo_of(lambda docs, _: [_note(docs), _note(docs)]), "it names an event twice"),
        (_redo_of_another_undo, "it redoes other than the newest undo still open to a redo"),
        (
            _redo_of_another_undo_of_rules_not_here,
            "it redoes other than the newest undo still open to a redo",
        ),
        (_undo_in_secret, "it is secret, which no undo, redo or reveal is"),
        (_reveal_of(lambda docs: [_note(docs)]), "it reveals an event that was never secret"),
        (_reveal_of(lambda docs: [str(uuid.uuid4())]), "which is no event logged before it"),
        (_reveal_of(lambda docs: [_secret_roll(docs)] * 2), "it names an event twice"),
    ],
    ids=[
        "an event undone twice",
        "a redo of an event in force",
        "an undo of no event",
        "an undo of itself",
        "an undo of nothing",
        "an undo naming an event twice",
        "a redo of another undo",
        "a redo of another undo in a campaign whose rules are not here",
        "a secret undo",
        "a reveal of a public event",
        "a reveal of no event",
        "a reveal naming a secret twice",
    ],
)
def test_an_import_whose_undos_tracker_could_not_have_logged_is_refused_whole(
    gloom_night, forge, why
):
    """An undo takes back only events in force and a redo only events taken back: a look back
    in time relies on it, so an export that breaks it, rehashed to chain, is refused whole."""
    docs, result = _import_forged_undo(gloom_night, forge)
    assert f"line {len(docs) + 1} is not an event tracker would have logged (" in result.stderr
    assert why in result.stderr


@pytest.mark.parametrize(
    ("target", "kind"),
    [(lambda docs: docs[0], "CampaignCreated"), (lambda docs: docs[-1], "EventsRevoked")],
    ids=["the campaign's creation", "an undo"],
)
def test_an_import_that_undoes_what_no_undo_takes_back_is_refused_at_it(gloom_night, target, kind):
    """The first read knows what the undos take back: an event of a kind no undo takes back
    that a later undo names is refused at its own line, before a fold without it goes wrong."""
    undone: list[dict] = []

    def forge(docs: list[dict]) -> None:
        undone.append(target(docs))
        _undo_of(lambda _, __: [undone[0]["event_id"]])(docs)

    docs, result = _import_forged_undo(gloom_night, forge)
    line = docs.index(undone[0]) + 2
    assert f"line {line} is undone by a later line, yet no undo takes back a {kind}" in (
        result.stderr
    )


def _import_forged_undo(run, forge) -> tuple[list[dict], Any]:
    """The evening's export after an undo, with the event ``forge`` appends chained as a forger
    would, imported into a new database: refused in one sentence, nothing imported."""
    from tracker.events.envelope import GENESIS_HASH, chain_fields, event_hash

    run.ok("undo")
    lines = run.ok("export events").stdout.splitlines()
    docs = [json.loads(line) for line in lines[1:]]
    forge(docs)
    last, before = docs[-1], docs[-2]
    last.update(version=before["version"] + 1, position=before["position"] + 1)
    prev = GENESIS_HASH
    for doc in docs:  # a forger rehashes the whole chain
        doc["prev_hash"] = prev
        doc["hash"] = prev = event_hash(chain_fields(**{k: doc[k] for k in CHAINED}))
    header = json.loads(lines[0])
    header.update(campaigns={docs[0]["campaign_id"]: last["hash"]}, events=len(docs))
    forged = "\n".join([json.dumps(header), *map(json.dumps, docs)]) + "\n"
    copy = run.db.with_name("copy.db")
    result = run(["--db", str(copy), "import", "-"], input=forged)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1
    nothing = Tracker(str(copy))
    assert nothing.store.count() == 0
    nothing.close()
    return docs, result


CHAINED = (
    "event_id",
    "campaign_id",
    "version",
    "session_id",
    "character_id",
    "type",
    "schema_version",
    "payload",
    "recorded_at",
    "visibility",
    "prev_hash",
)


def test_every_event_a_command_logs_reads_back_from_its_export(run, tmp_path):
    """A sheet too large for one export line is refused when added, not found out at import;
    one just inside the bound goes out and comes back whole."""

    def sheet(name: str, skills: int) -> str:
        path = tmp_path / f"{name}.toml"
        lines = [f'name = "{name}"', 'system = "gurps"', "[stats]", "ST = 10", "[skills]"]
        lines += [f'"Skill {i:06d} of a long and careful list" = 12' for i in range(skills)]
        path.write_text("\n".join(lines) + "\n")
        return str(path)

    run.ok("campaign new Sheets --system gurps")
    before = run.event_count()
    refused = run(["character", "add", "--sheet", sheet("Huge", 40_000)])
    assert refused.exit_code == 2, refused.output
    assert "more than the 1,044,480 one event may hold" in refused.stderr
    assert run.event_count() == before
    run.ok(f"character add --sheet {sheet('Big', 20_000)}")
    dump = tmp_path / "all.jsonl"
    run.ok(f"export events -o {dump}")
    assert max(len(line) for line in dump.read_bytes().splitlines()) > 900_000
    copy = run(["--db", str(tmp_path / "copy.db"), "import", str(dump)])
    assert copy.exit_code == 0, copy.output


# A writer that starts an export to argv[1] as tracker does, writes a little of it, and then is
# killed outright (argv[2] == "killed") or keeps writing until its standard input closes.
WRITER = """
import os, signal, sys
from tracker.cli.export import _beside
fd, part, _ = _beside(sys.argv[1], True)
os.write(fd, b'{"format": "tracker-events/1"')
print(part, flush=True)
if sys.argv[2] == "killed":
    os.kill(os.getpid(), signal.SIGKILL)
sys.stdin.read()
"""


class Writer:
    """An export in a process of its own, stopped where its part file is half written."""

    def __init__(self, target: Path, how: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(target), how],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.part = Path(self.proc.stdout.readline().strip())
        if how == "killed":
            assert self.proc.wait(timeout=30) == -signal.SIGKILL

    def stop(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def test_an_export_killed_outright_leaves_a_part_file_the_next_export_sweeps(glintlock, tmp_path):
    target = tmp_path / "campaign.jsonl"
    running = Writer(target, "running")
    killed = Writer(target, "killed")
    assert killed.part.parent == tmp_path
    assert killed.part.name.startswith(".campaign.jsonl.tracker-")
    assert oct(killed.part.stat().st_mode & 0o777) == "0o600"
    assert running.part.exists()  # the killed writer's start swept nothing still writing
    other = Writer(tmp_path / "other.jsonl", "killed")
    # Not tracker's part files of this target: another program's, an older tracker's.
    foreign = [".campaign.jsonl.part", "campaign.jsonl.part", ".campaign.jsonl.ab12cd34.part"]
    for name in foreign:
        (tmp_path / name).write_text("kept")
    try:
        glintlock.ok(f"export events -o {target}")
        assert target.read_text().startswith('{"format": "tracker-events/1"')
        assert not killed.part.exists()
        assert running.part.exists()  # an export still writing is never swept
        assert other.part.exists()  # nor is another target's, by this export
        assert all((tmp_path / name).read_text() == "kept" for name in foreign)
    finally:
        running.stop()


def test_tracker_where_sweeps_what_killed_exports_left_and_names_it(
    glintlock, tmp_path, monkeypatch
):
    working = tmp_path / "work"
    working.mkdir()
    monkeypatch.chdir(working)
    running = Writer(tmp_path / "rolls.csv", "running")
    beside = Writer(tmp_path / "rolls.csv", "killed")  # beside the database
    here = Writer(working / "table.html", "killed")  # in the working folder
    # A part file whose writer's process number means nothing here (another machine writing to
    # a shared folder) but which it holds locked, is not swept either.
    held = tmp_path / f".rolls.csv.tracker-{beside.proc.pid}.zz99zz99.part"
    held.write_text("half")
    lock = open(held)  # noqa: SIM115 - held until the end
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        result = glintlock.ok("where")
        assert not beside.part.exists()
        assert not here.part.exists()
        assert running.part.exists()
        assert held.exists()
        [line] = [ln for ln in result.stdout.splitlines() if ln.startswith("swept")]
        assert line == (
            f"swept      2 part files that killed exports left: {beside.part}, {here.part}"
        )
        # Once the lock is let go and the writer is gone, both are what a killed export left.
        fcntl.flock(lock, fcntl.LOCK_UN)
        running.stop()
        assert sorted(glintlock.json("where")["swept"]) == sorted([str(held), str(running.part)])
        assert "swept" not in glintlock.ok("where").stdout
    finally:
        lock.close()
        running.stop()


def test_a_set_of_effects_is_worded_alike_each_time_it_is_met():
    """A roll's effects are worded once per set and then looked up: every later roll with the
    same set reads the same words, a list as a tuple does, and an effect holding data (an
    obligation's) is worded without being kept."""
    from tracker.events.effects import (
        ConditionApplied,
        ObligationOpened,
        TrackChange,
        effects_text,
    )

    effects = (TrackChange("threat", 2), ConditionApplied("shaken", note="a"))
    assert effects_text(effects) == "+2 threat; shaken"
    assert effects_text(effects) == effects_text(list(effects)) == "+2 threat; shaken"
    assert effects_text((TrackChange("threat", -2),)) == "-2 threat"
    owed = (TrackChange("stress", 1), ObligationOpened("panic-check", "roll", data={"a": 1}))
    assert effects_text(owed) == effects_text(owed) == "+1 stress; owes panic-check"
