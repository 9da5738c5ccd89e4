"""The GM's evening without surprises: what a GM is told as it happens, and nothing that looks
done but is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


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


def _dice_for(total: int) -> str:
    """Three d6 that add up to ``total`` (3 to 18)."""
    dice = [1, 1, 1]
    for i in range(total - 3):
        dice[i % 3] += 1
    return ",".join(map(str, dice))


def test_a_gurps_margin_is_said_in_the_sense_the_outcome_has(run):
    """Every 3d6 total against skills from 3 to 22: a success is never "by" how far the roll
    went over the skill, a failure never "by" how far it stayed under (a 3 or 4 always
    succeeds, a 17 or 18 always fails: the roll says so instead)."""
    import re

    run.ok("campaign new Margins --system gurps")
    run.ok("character add Ace --stat DX=10 --skill Acrobatics=22")
    run.ok("session start")
    for effective in (3, 10, 16, 22):
        for total in range(3, 19):
            out = run.ok(
                f"roll Ace Acrobatics --mod {effective - 22} --dice {_dice_for(total)}"
            ).stdout
            line = next(line for line in out.splitlines() if "3d6:" in line)
            said = re.search(r"(SUCCESS|FAILURE)( by (\d+))?", line)
            assert said, line
            if said.group(3):
                by = int(said.group(3))
                assert by == abs(effective - total), line
                if said.group(1) == "SUCCESS":
                    assert total <= effective, line
                else:
                    assert total > effective, line
            elif total != effective:
                assert "always" in line, line


def test_conditions_are_said_in_plain_words(run):
    run.ok("campaign new Iron --system gurps")
    run.ok("character add Vora --stat HT=12 --stat HP=12")
    run.ok("session start")
    assert run.ok("condition set Vora 'broken arm'").stdout.startswith("Vora: broken arm.")
    stunned = run.ok("condition set Vora stunned --duration 1 --unit seconds").stdout
    assert stunned.startswith("Vora: stunned for 1 second.")
    assert "Vora: broken arm has ended." in run.ok("condition clear Vora 'broken arm'").stdout
    log = run.ok("log").stdout
    assert "Vora: broken arm" in log
    assert "Vora: broken arm has ended" in log
    assert " is broken arm" not in log


def test_the_demo_goes_where_the_next_command_looks_and_never_into_campaigns(monkeypatch):
    """On a fresh machine the demo fills the default database, so the next plain command
    finds its campaigns; a database that holds campaigns (the default, or $TRACKER_DB) is
    left as it was, and the demo is a new file the output says to give $TRACKER_DB."""
    from click.testing import CliRunner

    from tracker.cli import cli
    from tracker.store.location import default_path

    first = CliRunner().invoke(cli, ["demo", "--json"])
    assert first.exit_code == 0, first.output
    assert Path(json.loads(first.stdout)["db"]) == default_path().resolve()
    listed = CliRunner().invoke(cli, ["campaign", "list", "--json"])
    assert [c["name"] for c in json.loads(listed.stdout)["campaigns"]] == [
        "Neon Drift",
        "Iron and Ink",
        "Ashes of Veyra",
    ]
    noted = CliRunner().invoke(cli, ["note", "the GM's own note"])
    assert noted.exit_code == 0, noted.output
    before = default_path().read_bytes()

    second = CliRunner().invoke(cli, ["demo"])
    assert second.exit_code == 0, second.output
    demo = default_path().with_name("demo.db")
    assert f"{default_path()} holds campaigns and is left alone" in second.stdout
    assert f"export TRACKER_DB={demo}" in second.stdout
    assert default_path().read_bytes() == before

    monkeypatch.setenv("TRACKER_DB", str(demo))
    third = CliRunner().invoke(cli, ["demo"])
    assert third.exit_code == 0, third.output
    assert f"$TRACKER_DB ({demo}) holds campaigns and is left alone" in third.stdout
    assert "demo-2.db" in third.stdout
    monkeypatch.delenv("TRACKER_DB")
    log = CliRunner().invoke(cli, ["log", "--json"])
    assert "the GM's own note" in log.stdout


NO_SESSION = [
    ("glintlock", "roll Wren Grit --tag 1:gear --dice 12"),
    ("glintlock", "gain Wren deep-cut"),
    ("glintlock", "threat add 1"),
    ("gloom", "roll Kade Hacking --dice 9"),
    ("gloom", "panic Kade Mind --dice 4"),
    ("gloom", "contest Kade Hacking ICE 14"),
    ("gurps", "roll Mira Lockpicking --dice 3,3,3"),
    ("gurps", "fright Mira --dice 3,3,3"),
    ("gurps", "effort Vora 20 --dice 3,3,3"),
    ("gurps", "influence Aldric Diplomacy 'Harbour master' 11 --dice-a 3,3,3 --dice-b 4,4,4"),
]


SHEETS = Path(__file__).resolve().parent.parent / "fixtures" / "sheets"


def campaign_of(run, system: str):
    if system == "glintlock":
        run.ok("campaign new Ashes --system glintlock")
        run.ok("character add Wren --stat Grit=3 --class Seer")
        return run
    run.ok(f"campaign new {system.title()} --system {system}")
    for sheet in SHEETS.glob(f"{system}-*.toml"):
        run.ok(["character", "add", "--sheet", str(sheet)])
    return run


@pytest.mark.parametrize(("system", "command"), NO_SESSION)
def test_play_after_the_session_ended_is_refused_with_the_fix(run, system, command):
    campaign_of(run, system)
    run.ok("session start")
    run.ok("session end")
    before = run.event_count()
    result = run(command)
    assert result.exit_code == 1, result.output
    [line] = result.stderr.strip().splitlines()
    assert "session 1 has ended" in line
    assert "tracker session start" in line
    assert run.event_count() == before


def test_bookkeeping_between_sessions_is_still_logged(run):
    campaign_of(run, "gurps")
    run.ok("hp Mira -3 --cause arrow")
    run.ok("points award Mira 2")
    run.ok("note 'the party rests a week'")
    run.ok("project start Treaty --skill Diplomacy --hours 40")
    run.ok("project roll Treaty Aldric --dice 3,3,3")  # downtime work


def test_a_raised_floor_says_the_threat_it_opened_at(glintlock):
    glintlock.ok("session start")
    glintlock.ok("threat add 4")
    glintlock.ok("threat add 2")
    [owed] = glintlock.json("obligations")["obligations"]
    assert owed["what"].startswith("Threat 6 (4 when this opened):")
    assert owed["data"]["opened_at"] == 4
    assert "Threat 6 (4 when this opened)" in glintlock.ok("obligations").stdout


def test_a_lasting_fright_result_is_on_the_sheet_rolls_use(run):
    """GURPS, 'Fright Check Results', row 40+: "As above, plus lose 1 point of IQ
    permanently." Will and Per are based on IQ, so they move with it, as they do when the sheet
    changes IQ (tracker/app/RULINGS.md, 'Sheets that change'); rolls and fright checks use them
    so, and a skill keeps the level its sheet gives while an IQ default follows IQ."""
    campaign_of(run, "gurps")
    run.ok("session start")
    run.ok("character default Mira Forgery IQ-5")
    # Will 12 -20 = -8: an 18 fails by 26; 18 + 26 = 44 is row 40: catatonia and IQ -1.
    said = run.ok("fright Mira --mod -20:horror --dice 6,6,6 --table-dice 6,6,6 --effect-dice 3")
    assert "skills keep their sheet levels" in said.stdout
    shown = run.ok("character show Mira").stdout
    assert "IQ 11 (12 on the sheet, -1 lasting)" in shown
    assert "Will 11 (12 on the sheet, -1 lasting)" in shown
    assert "Per 11 (12 on the sheet, -1 lasting)" in shown
    doc = run.json("character show Mira")
    assert doc["stats"]["IQ"] == 12  # the sheet as written
    assert [doc["current_stats"][s] for s in ("IQ", "Will", "Per")] == [11, 11, 11]
    assert doc["stat_changes"] == {"IQ": -1, "Will": -1, "Per": -1}
    assert run.json("roll Mira Will --dice 3,3,3")["base"] == 11
    assert run.json("roll Mira Vision --dice 3,3,3")["base"] == 11
    assert run.json("fright Mira --dice 1,1,2")["will"] == 11
    assert run.json("roll Mira Forgery --dice 3,3,3")["base"] == 11 - 5
    assert run.json("roll Mira Lockpicking --dice 3,3,3")["base"] == 12  # the sheet's level
    assert run.json("verify")["ok"] is True


def test_a_lasting_loss_of_st_or_ht_moves_hp_or_fp_with_it(run):
    """The same holds for every stat others are based on: HP on ST, FP on HT (no rulebook row
    lowers them yet; a campaign's own table or a later rule may). A change stored without
    ``derived`` was logged when a lasting change moved the stat alone, and still does."""
    from tracker.app import Tracker
    from tracker.events.effects import StatChanged
    from tracker.projections.campaign import _apply_effects, fold

    campaign_of(run, "gurps")
    tracker = Tracker(str(run.db))
    try:
        row = tracker.campaign()
        state = fold(list(tracker.store.read(row.campaign_id)), row.campaign_id)
    finally:
        tracker.close()
    vora = next(ch for ch in state.characters.values() if ch.name == "Vora")
    hp, fp, will = vora.hp_max, vora.fp_max, vora.stat("Will")
    lasting = [StatChanged("ST", -2, derived=True), StatChanged("HT", -1, derived=True)]
    _apply_effects(state, lasting, None, vora.character_id)
    assert (vora.hp_max, vora.fp_max, vora.stat("Will")) == (hp - 2, fp - 1, will)
    logged_before = [StatChanged("ST", -1), StatChanged("HT", -1)]
    _apply_effects(state, logged_before, None, vora.character_id)
    assert (vora.hp_max, vora.fp_max) == (hp - 2, fp - 1)
    assert (vora.stat("ST"), vora.stat("HT")) == (vora.stats["ST"] - 3, vora.stats["HT"] - 2)


def test_traits_gained_and_breaking_points_are_on_the_sheet(run, glintlock):
    campaign_of(run, "gurps")
    run.ok("session start")
    # Will 14 -12 +2 Combat Reflexes = 4: an 18 fails by 14; 8 + 14 = 22 owes a Delusion.
    run.ok("fright Aldric --mod -12:horror --dice 6,6,6 --table-dice 2,3,3")
    run.ok("trait assign Aldric 'Delusion: the stars whisper'")
    shown = run.ok("character show Aldric").stdout
    assert "Gained in play: Delusion: the stars whisper" in shown
    assert run.json("character show Aldric")["traits_gained"][0]["name"].startswith("Delusion")

    glintlock.ok("campaign use 'Ashes of Veyra'")
    glintlock.ok("session start")
    glintlock.ok("stress Tomas +6 --cause 'the drowned scribe'")
    glintlock.ok("breaking-point Tomas freezes 'fear of deep water'")
    assert "Breaking point: fear of deep water" in glintlock.ok("character show Tomas").stdout
    assert glintlock.json("character show Tomas")["consequences"] == ["fear of deep water"]


def test_undoing_a_catastrophe_takes_its_panic_check_along_or_is_refused(run):
    campaign_of(run, "gloom")
    run.ok("session start")
    catastrophe = run.json("roll Kade Hacking --dice 1")["event_id"]
    run.ok("panic Kade Mind --dice 19")  # a failed check: Kade is panicked
    before = run.event_count()
    refused = run(f"undo {catastrophe}")
    assert refused.exit_code == 1
    assert "panic check" in refused.stderr
    assert run.event_count() == before
    run.ok(f"undo {catastrophe} --cascade")
    assert run.json("status Kade")["conditions"] == []


def test_each_catastrophe_owes_a_panic_check_of_its_own(run):
    """Gloom, 'The Extreme Outcomes a.k.a The Criticals': "Natural 1: CATASTROPHE (The Panic
    Trigger)." Each natural 1 is a trigger: one panic check answers the oldest catastrophe owed
    and the next stays owed; a check names the one it answers, so undoing that catastrophe
    takes the check along (or is refused) and undoing another leaves it be."""
    campaign_of(run, "gloom")
    run.ok("session start")
    first = run.json("roll Kade Hacking --dice 1")["event_id"]
    second = run.json("roll Kade Hacking --dice 1")["event_id"]
    juno = run.json("roll Juno Hacking --dice 1")["event_id"]  # another character's stays owed
    assert len(run.json("obligations")["obligations"]) == 3
    check = run.json("panic Kade Mind --dice 9")  # Mind 15: a success, no panic
    assert [o["opened_by"] for o in check["obligations_discharged"]] == [first]
    owed = run.json("obligations")["obligations"]
    assert [o["opened_by"] for o in owed] == [second, juno]
    again = run.json("panic Kade Mind --dice 10")
    assert [o["opened_by"] for o in again["obligations_discharged"]] == [second]
    # Undoing the first catastrophe takes its check only (refused without --cascade).
    before = run.event_count()
    refused = run(f"undo {first}")
    assert refused.exit_code == 1
    assert "panic check" in refused.stderr
    assert run.event_count() == before
    undone = run.json(f"undo {first} --cascade")
    assert [e["event_id"] for e in undone["cascade"]] == [check["event_id"]]
    # The second check still answers the second catastrophe, which it names.
    assert [o["opened_by"] for o in run.json("obligations")["obligations"]] == [juno]


def test_a_panicked_character_owes_no_further_panic_check(run):
    """Gloom, 'Advantage and Disadvantage': "If you gain too much Stress and Panic, you gain
    Disadvantage." A failed check leaves Kade panicked: the catastrophes still owed, and one
    rolled while the panic lasts, are answered by the panic, saying so, each time alike."""
    campaign_of(run, "gloom")
    run.ok("session start")
    for _ in range(3):
        run.ok("roll Kade Hacking --dice 1")
    said = run.ok("panic Kade Mind --dice 16").stdout  # Mind 15: overshoot, panicked
    assert "done: the panic check (panic check: overshoot)." in said
    assert "done: the panic check (answered by the panic: Kade is panicked), 2 times." in said
    assert run.json("obligations")["obligations"] == []
    later = run.json("roll Kade Hacking --dice 1,20")  # disadvantage: the 1 is kept
    assert later["outcome"] == "catastrophe"
    assert [o["how"] for o in later["obligations_discharged"]] == [
        "answered by the panic: Kade is panicked"
    ]
    run.ok("condition clear Kade panicked")
    assert len(run.json("roll Kade Hacking --dice 1")["obligations_opened"]) == 1
    assert len(run.json("obligations")["obligations"]) == 1
    # Undoing the failed check takes the panic back, and the checks it answered are owed again.
    assert run.json("verify")["ok"] is True


def test_a_panic_check_logged_under_the_earlier_ruling_still_answers_every_catastrophe(run):
    """A panic check logged before one check per catastrophe (its inputs do not say it answers
    the oldest) answered every catastrophe its character owed, and a log holding one still
    folds so: what a stored event meant does not change."""
    import msgspec

    from tracker.app import Tracker
    from tracker.projections.campaign import fold

    campaign_of(run, "gloom")
    run.ok("session start")
    first = run.json("roll Kade Hacking --dice 1")["event_id"]
    second = run.json("roll Kade Hacking --dice 1")["event_id"]
    run.ok("panic Kade Mind --dice 9")
    tracker = Tracker(str(run.db))
    try:
        row = tracker.campaign()
        events = list(tracker.store.read(row.campaign_id))
    finally:
        tracker.close()
    *before, check = events
    inputs = {k: v for k, v in check.data.inputs.items() if k != "answering"}
    earlier = msgspec.structs.replace(
        check,
        data=msgspec.structs.replace(check.data, inputs={**inputs, "answers": [first, second]}),
    )
    assert [o.opened_by for o in fold(events, row.campaign_id).open_obligations()] == [second]
    assert fold([*before, earlier], row.campaign_id).open_obligations() == []


def test_the_chance_of_panic_over_two_triggers_is_one_less_the_chance_of_passing_both(run):
    """Gloom, 'The Extreme Outcomes a.k.a The Criticals': "Natural 1: CATASTROPHE (The Panic
    Trigger)." Two triggers, two checks: Kade (Mind 15, DL 0) ends panicked with chance
    1-(1-p)^2, p the chance one check fails (`odds gloom`), counted here face by face over the
    d20 of each check as the tool plays them (a failed first check answers the second by the
    panic; every passed first leaves the same one catastrophe owed, so the second check's faces
    are rolled from there once)."""
    from fractions import Fraction

    campaign_of(run, "gloom")
    run.ok("session start")
    run.ok("roll Kade Hacking --dice 1")
    run.ok("roll Kade Hacking --dice 1")

    def panicked() -> bool:
        return "panicked" in [c["name"] for c in run.json("status Kade")["conditions"]]

    first_fails, left_after_pass = 0, set()
    for face in range(1, 21):
        run.ok(f"panic Kade Mind --dice {face}")
        owed = [o["opened_by"] for o in run.json("obligations")["obligations"]]
        if panicked():
            first_fails += 1
            assert owed == []  # the panic answered the second trigger
        else:
            assert len(owed) == 1
            left_after_pass.add(tuple(owed))
        run.ok("undo")
    assert len(left_after_pass) == 1  # every pass leaves the same catastrophe owed
    passing = next(face for face in range(1, 21) if face not in (1, 16, 17, 18, 19, 20))
    run.ok(f"panic Kade Mind --dice {passing}")
    second_fails = 0
    for face in range(1, 21):
        run.ok(f"panic Kade Mind --dice {face}")
        second_fails += panicked()
        run.ok("undo")
    counted = Fraction(first_fails * 20 + (20 - first_fails) * second_fails, 20 * 20)
    odds = run.json("odds gloom --rank 15")["exact"]
    p = Fraction(odds["overshoot"]) + Fraction(odds["catastrophe"])
    assert p == Fraction(3, 10)  # faces 1 and 16-20
    assert counted == 1 - (1 - p) ** 2 == Fraction(51, 100)


def test_a_panic_check_without_a_catastrophe_depends_on_nothing(run):
    campaign_of(run, "gloom")
    run.ok("session start")
    first = run.json("roll Kade Hacking --dice 10")["event_id"]
    run.ok("panic Kade Mind --dice 15")  # the GM's call, with no catastrophe owed
    run.ok(f"undo {first}")


def test_undoing_round_one_of_a_regular_contest_takes_the_later_rounds(run):
    campaign_of(run, "gurps")
    run.ok("session start")
    contest = "contest Vora Broadsword Duellist 12 --mode regular --dice-a 6,6,5 --dice-b 6,6,5"
    first = run.json(contest)["event_id"]
    run.ok(contest)  # round 2, still undecided
    refused = run(f"undo {first}")
    assert refused.exit_code == 1
    assert "round 2" in refused.stderr
    undone = run.json(f"undo {first} --cascade")
    assert len(undone["cascade"]) == 1
    assert run.json("obligations")["obligations"] == []


def test_a_public_panic_check_does_not_link_to_a_secret_catastrophe(run):
    campaign_of(run, "gloom")
    run.ok("session start")
    run.ok("roll Kade Hacking --dice 1 --secret")
    run.ok("panic Kade Mind --dice 15")
    # The sealed roll's number and id stay in the players' view; what it was does not.
    assert '"answers"' not in run.ok("log --player-view --json").stdout
    assert '"answers"' not in run.ok("log --json").stdout  # nor in the public event itself


def test_log_and_session_list_show_what_was_undone(glintlock):
    glintlock.ok("session start")
    kept = glintlock.json("roll Wren Grit --tag 1:gear --dice 15")["event_id"]
    gone = glintlock.json("roll Wren Grit --tag 1:gear --dice 16")["event_id"]
    said = glintlock.ok("undo").stdout
    assert "Wren rolls Grit at 3: 16 → weak hit" in said  # the undo says what it took back
    lines = {ln.split()[0]: ln for ln in glintlock.ok("log").stdout.splitlines()}
    logged = glintlock.json("log")
    events = {e["event_id"]: e for e in logged["events"]}
    assert logged["undone"] == [events[gone]["version"]]
    assert "[undone]" in lines[str(events[gone]["version"])]
    assert "[undone]" not in lines[str(events[kept]["version"])]
    [session] = glintlock.json("session list")["sessions"]
    assert session["undone"] == 1
    assert "1 undone" in glintlock.ok("session list").stdout
    glintlock.ok("redo")
    assert glintlock.json("session list")["sessions"][0]["undone"] == 0


@pytest.mark.parametrize("system", ["glintlock", "gloom"])
def test_a_gurps_sheet_in_another_system_says_it_is_a_gurps_sheet(run, system):
    run.ok(f"campaign new Elsewhere --system {system}")
    before = run.event_count()
    result = run(["character", "add", "--sheet", str(SHEETS / "gurps-mira.toml")])
    assert result.exit_code == 1
    assert "gurps-mira.toml is a GURPS sheet" in result.stderr
    assert run.event_count() == before


def test_a_sheet_that_names_its_system_is_held_to_it(run, tmp_path):
    sheet = tmp_path / "wren.toml"
    sheet.write_text('name = "Wren"\nsystem = "glintlock"\n[stats]\nGrit = 3\n', "utf-8")
    run.ok("campaign new Neon --system gloom")
    result = run(["character", "add", "--sheet", str(sheet)])
    assert result.exit_code == 1
    assert "is a Glintlock sheet" in result.stderr
    run.ok("campaign new Ashes --system glintlock")
    run.ok(["character", "add", "--sheet", str(sheet)])


def test_gurps_status_shows_no_stress_track(run):
    campaign_of(run, "gurps")
    assert "stress" not in run.ok("status").stdout
    assert "stress" not in run.json("status Mira")
    campaign_of(run, "gloom")
    assert "stress 0" in run.ok("status").stdout


def test_dice_that_do_not_fit_a_forced_mode_are_told_why_it_was_forced(run):
    run.ok("campaign new Ashes --system glintlock")
    run.ok("character add Wren --stat Grit=3")
    run.ok("session start")
    untagged = run("roll Wren Grit --dice 4")
    assert "desperate roll (net tags +0: no --tag given)" in untagged.stderr
    run.ok("stress Wren +2")
    shaken = run("roll Wren Grit --tag 1:gear --dice 4")
    assert "stress 2 counts as a -1 condition" in shaken.stderr
    run.ok("campaign new Neon --system gloom")
    run.ok("character add Ace --skill Hacking=22")
    run.ok("session start")
    cancelled = run("roll Ace Hacking --disadvantage --dice 4,5")
    assert "mastery gives advantage; advantage and disadvantage cancel" in cancelled.stderr
    assert "disadvantage cancel" in run.ok("roll Ace Hacking --disadvantage --dice 4").stdout


def test_character_list_shows_every_sheet_as_rolls_use_it(run):
    run.ok("campaign new Empty --system gloom")
    assert "No characters" in run.ok("character list").stdout
    campaign_of(run, "gurps")
    run.ok("session start")
    run.ok("fright Mira --mod -20:horror --dice 6,6,6 --table-dice 6,6,6 --effect-dice 3")
    listed = {line.split()[0]: line for line in run.ok("character list").stdout.splitlines()}
    assert sorted(listed) == ["Aldric", "Mira", "Vora"]
    assert "IQ 11 (12 on the sheet, -1 lasting)" in listed["Mira"]
    doc = {c["name"]: c for c in run.json("character list")["characters"]}
    assert sorted(doc) == ["Aldric", "Mira", "Vora"]
    assert doc["Mira"]["current_stats"]["IQ"] == 11


def test_each_contest_side_shows_its_total_and_margin(run):
    campaign_of(run, "gurps")
    run.ok("session start")
    out = run.ok("contest Vora Broadsword Duellist 12 --dice-a 3,4,3 --dice-b 5,5,4").stdout
    assert "Vora (16): 3d6 3+4+3 = 10 → SUCCESS by 6" in out
    assert "Duellist (12): 3d6 5+5+4 = 14 → FAILURE by 2" in out
    assert "Vora wins by 8" in out


def _everywhere(run) -> str:
    """What the GM reads of the session afterwards: the log, and the replay in both views."""
    return "\n".join(
        run.ok(command).stdout for command in ("log", "replay", "replay --player-view")
    )


def test_contest_totals_margins_and_normalised_scores_reach_the_log_and_the_replay(run):
    campaign_of(run, "gurps")
    run.ok("session start")
    run.ok("contest Vora Broadsword Duellist 12 --dice-a 3,4,3 --dice-b 5,5,4")
    regular = "contest Vora Broadsword Duellist 18 --mode regular"
    said = run.ok(f"{regular} --dice-a 3,4,5 --dice-b 2,2,2")
    assert "scores 16 vs 18 normalised to 10 vs 12" in said.stdout
    run.ok("contest Aldric IQ Mira Will --mode resistance --dice-a 6,6,6 --dice-b 1,1,1")
    after = _everywhere(run)
    for view in after.split("Session 1"):
        assert "Vora at 16: 3+4+3 = 10 → success by 6 · Duellist at 12: 5+5+4 = 14 → " in view
        assert "quick contest Vora vs Duellist: Vora wins by 8" in view
        assert "Vora at 10: 3+4+5 = 12 → failure by 2" in view
        assert "Duellist at 12: 2+2+2 = 6 → success by 6" in view
        assert "scores 16 vs 18 normalised to 10 vs 12" in view
        # The defender of a failed resistance roll rolled nothing, and is still named.
        assert "resistance contest Aldric vs Mira: Mira wins" in view
        assert "the attack failed, so there was nothing to resist" in view


def test_a_gloom_contest_says_in_the_log_which_rule_settled_it(run):
    campaign_of(run, "gloom")
    run.ok("session start")
    shown = run.ok("contest Kade Hacking 'Corp netrunner' 14 --dice-a 14 --dice-b 5 --dl-a 2")
    assert "Kade's DL 2; higher die wins" in shown.stdout
    log = run.ok("log").stdout
    assert "Kade at 16: 14 → success · Corp netrunner at 14: 5 → success" in log
    assert "Kade's DL 2 · higher die wins" in log


def test_a_natural_20_and_an_override_are_said_in_the_text_the_log_and_the_replay(run):
    campaign_of(run, "glintlock")
    run.ok("session start")
    strong = run.ok("roll Wren Grit --tag 1 --dice 20").stdout
    assert "STRONG HIT (natural 20: maximum weapon damage)" in strong
    run.ok("threat add 6")
    forced = run.ok("roll Wren Grit --tag 1 --dice 9 --override").stdout
    assert "rolled with --override before the spend Threat 6 owes" in forced
    run.ok("threat spend hard")
    needless = run.ok("roll Wren Grit --tag 1 --dice 9 --override").stdout
    assert "--override was not needed" in needless
    after = _everywhere(run)
    assert after.count("natural 20: maximum weapon damage") == 3
    assert after.count("rolled with the GM's override") == 6


def test_a_contest_sides_dice_that_do_not_fit_its_forced_mode_are_told_why(run):
    run.ok("campaign new Neon --system gloom")
    run.ok("character add Ace --skill Piloting=21")
    run.ok("character add Kade --skill Hacking=16")
    run.ok("session start")
    mastery = run("contest Kade Hacking Ace Piloting --dice-a 14 --dice-b 2")
    assert mastery.exit_code == 2  # bad input, as the scripting contract numbers it
    mastery_said = "advantage (rank 21: mastery gives advantage) needs two d20 but --dice-b"
    assert mastery_said in mastery.stderr
    run.ok("condition set Kade panicked")
    before = run.event_count()
    panicked = run("contest Kade Hacking Ace Piloting --mode dynamic --dice-a 14 --dice-b 2,4")
    assert "disadvantage (panicked) needs two d20 but --dice-a" in panicked.stderr
    assert run.event_count() == before


LATER = SHEETS / "later"


def test_a_sheet_changes_as_an_event_and_earlier_play_keeps_the_sheet_it_was_rolled_with(run):
    campaign_of(run, "gurps")
    run.ok("session start")
    first = run.json("roll Vora Broadsword --dice 3,4,5")["version"]
    run.ok("session end")
    said = run.ok("character update Vora --skill Broadsword=17 --note '12 points spent'")
    assert "Updated Vora: Broadsword 16 → 17: 12 points spent." in said.stdout
    run.ok("session start")
    assert run.json("roll Vora Broadsword --dice 3,4,5")["effective"] == 17
    assert "Vora rolls Broadsword at 16: 3+4+5 = 12 → success by 4" in run.ok("replay 1").stdout
    assert "Vora rolls Broadsword at 17: 3+4+5 = 12 → success by 5" in run.ok("replay 2").stdout
    assert "Broadsword 16" in run.ok(f"character show Vora --as-of {first}").stdout
    then = {c["name"]: c for c in run.json(f"character list --as-of {first}")["characters"]}
    assert then["Vora"]["skills"]["Broadsword"] == 16
    assert "Broadsword 17" in run.ok("character show Vora").stdout
    log = run.ok("log").stdout
    assert "Vora's sheet updated: Broadsword 17: 12 points spent" in log
    update = next(e for e in run.json("log")["events"] if e["type"] == "CharacterUpdated")
    run.ok(f"undo {update['version']}")
    assert run.json("character show Vora")["skills"]["Broadsword"] == 16


def test_a_newer_sheet_logs_what_differs_and_a_wrong_one_is_refused(run):
    campaign_of(run, "gurps")
    said = run.ok(["character", "update", "Mira", "--sheet", str(LATER / "gurps-mira.toml")])
    assert "Lockpicking 12 → 13, Stealth 13 → 14, + Danger Sense" in said.stdout
    doc = run.json("character show Mira")
    assert (doc["skills"]["Stealth"], doc["traits"]) == (14, ["Danger Sense"])
    before = run.event_count()
    again = run(["character", "update", "Mira", "--sheet", str(LATER / "gurps-mira.toml")])
    assert again.exit_code == 1
    assert "Mira's sheet already reads so; nothing was logged" in again.stderr
    other = run(["character", "update", "Vora", "--sheet", str(LATER / "gurps-mira.toml")])
    assert 'is the sheet of "Mira", not Vora' in other.stderr
    wrong = run(["character", "update", "Mira", "--sheet", str(SHEETS / "glintlock-wren.toml")])
    assert "glintlock-wren.toml is a Glintlock sheet" in wrong.stderr
    assert run.event_count() == before


def test_hp_in_play_is_kept_at_most_the_new_maximum_unless_reset(run):
    campaign_of(run, "gurps")
    run.ok("hp Vora -5")
    raised = run.ok("character update Vora --stat ST=13").stdout
    assert "ST 12 → 13, HP 12 → 13, HP in play 7/13" in raised
    assert (run.json("status Vora")["hp"], run.json("status Vora")["hp_max"]) == (7, 13)
    run.ok("character update Vora --stat HP=5")
    assert run.json("status Vora")["hp"] == 5
    run.ok("character update Vora --stat HP=14 --reset-tracks")
    assert run.json("status Vora")["hp"] == 14


@pytest.mark.parametrize(
    ("command", "code", "said"),
    [
        ("character update Nobody --skill Stealth=12", 1, 'No character named "Nobody"'),
        ("character update Vora --skill Broadsword=16", 1, "already reads so"),
        ("character update Vora --drop-skill Knitting", 1, "Vora has no skill Knitting to drop"),
        ("character update Vora --drop-trait Wealthy", 1, "Vora has no trait Wealthy to drop"),
        ("character update Vora --stat ST=41", 2, "Stat ST is 41"),
        ("character update Vora --skill Broadsword=x", 2, "needs a whole number"),
        ("character retire Nobody", 1, 'No character named "Nobody"'),
    ],
)
def test_a_refused_sheet_change_appends_nothing(run, command, code, said):
    campaign_of(run, "gurps")
    before = run.event_count()
    result = run(command)
    assert result.exit_code == code, result.output
    assert said in result.stderr
    assert run.event_count() == before


def test_a_retired_character_is_refused_at_the_table_and_undo_brings_them_back(run):
    campaign_of(run, "gurps")
    run.ok("session start")
    said = run.ok("character retire Vora --note 'fell at the gate'").stdout
    version = run.json("log")["events"][-1]["version"]
    assert f"Vora retired (event {version}); `tracker undo {version}` brings them back." in said
    before = run.event_count()
    for command in (
        "roll Vora Broadsword",
        "contest Vora Broadsword Duellist 12",
        "contest Mira DX Vora DX",
        "hp Vora -2",
        "character retire Vora",
    ):
        refused = run(command)
        assert refused.exit_code == 1, command
        assert f"retired at event {version}" in refused.stderr, command
    assert run.event_count() == before
    assert f"(retired at event {version})" in run.ok("character list").stdout
    assert "Retired from play" in run.ok("character show Vora").stdout
    assert f"retired at event {version}" in run.ok("status").stdout
    assert run.json("character show Vora")["retired_at"] == version
    assert "Vora retired from play: fell at the gate" in run.ok("log").stdout
    run.ok(f"undo {version}")
    run.ok("roll Vora Broadsword --dice 3,3,3")


def test_a_newer_sheet_that_names_a_derived_stat_keeps_it_as_named(run, tmp_path):
    campaign_of(run, "gurps")
    # Vora: IQ 10, Will 11, Per 10. The new sheet raises IQ and names Will and Per as they were
    # bought: they stay as written, not moved with IQ.
    sheet = (SHEETS / "gurps-vora.toml").read_text("utf-8").replace("IQ = 10", "IQ = 11")
    assert "IQ = 11" in sheet
    assert "Will = 11" in sheet
    (tmp_path / "vora.toml").write_text(sheet, "utf-8")
    said = run.ok(["character", "update", "Vora", "--sheet", str(tmp_path / "vora.toml")]).stdout
    assert "IQ 10 → 11" in said
    assert "Will" not in said
    stats = run.json("character show Vora")["stats"]
    assert (stats["IQ"], stats["Will"], stats["Per"]) == (11, 11, 10)


@pytest.mark.parametrize(
    ("system", "command", "words"),
    [
        (
            "glintlock",
            "roll Wren Grit --dl 5 --dice 5",
            "--dl is Gloom's option; this campaign plays Glintlock",
        ),
        (
            "glintlock",
            "roll Wren Grit --tag 1 --advantage --dice 5",
            "--advantage is Gloom's option",
        ),
        ("glintlock", "roll Wren Grit --tag 1 --mod -2 --dice 5", "--mod is GURPS's option"),
        (
            "glintlock",
            "roll Wren Grit --tag 1 --task x --retry one-chance",
            "--task is GURPS's option",
        ),
        (
            "gurps",
            "roll Vora Broadsword --dl 5 --dice 3,3,3",
            "this campaign plays GURPS, so leave it out (see `tracker roll --help`)",
        ),
        ("gurps", "roll Vora Broadsword --tag 1:gear --dice 3,3,3", "--tag is Glintlock's option"),
        (
            "gurps",
            "roll Vora Broadsword --override --dice 3,3,3",
            "--override is Glintlock's option",
        ),
        ("gloom", "roll Kade Hacking --mod -2 --dice 9", "--mod is GURPS's option"),
        ("gloom", "roll Kade Hacking --story map --dice 9", "--story is Glintlock's option"),
        (
            "gurps",
            "contest Vora Broadsword Ogre 13 --dl-a 5",
            "--dl-a is Gloom's option; this campaign plays GURPS",
        ),
        ("gloom", "contest Kade Hacking ICE 13 --mod-a -2", "(see `tracker contest --help`)"),
        ("gloom", "contest Kade Hacking ICE 13 --supernatural", "--supernatural is GURPS's option"),
        ("gurps", "contest Vora Broadsword Ogre 13 --supernatural", "add --mode resistance"),
        ("gurps", "contest Vora Broadsword Vora Broadsword", "Vora cannot contest Vora"),
        ("gurps", "contest Vora Broadsword Ogre 99", "a GURPS score is 0 to 40"),
        ("gloom", "contest Kade Hacking ICE 31", "a Gloom score is 1 to 30"),
    ],
)
def test_an_option_the_campaigns_system_does_not_read_is_refused_not_ignored(
    run, system, command, words
):
    campaign_of(run, system)
    run.ok("session start")
    before = run.event_count()
    result = run(command)
    assert result.exit_code == 2, result.output
    assert words in result.stderr
    assert run.event_count() == before


@pytest.mark.parametrize(
    ("system", "command", "words"),
    [
        (
            "glintlock",
            "spend Wren steel-yourself --to success",
            "--to is GURPS's option; this campaign plays Glintlock, so leave it out "
            "(see `tracker spend --help`).",
        ),
        ("gurps", "spend Vora buy-up --note 'the gate holds'", "--note is Glintlock's option"),
        ("gurps", "spend Vora buy-up --cost 2", "--cost is Glintlock's option"),
    ],
)
def test_an_option_of_a_shared_command_line_another_system_reads_is_refused_by_its_name(
    run, system, command, words
):
    # `tracker spend` is declared by Glintlock and GURPS alike and parses both's options; the
    # campaign's own command has no place for the other's, which would be dropped unsaid.
    campaign_of(run, system)
    run.ok("session start")
    before = run.event_count()
    result = run(command)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == f"Error: {words}" or words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert run.event_count() == before


def test_a_sheet_without_a_system_line_lacking_every_gurps_attribute_is_refused(run, tmp_path):
    sheet = tmp_path / "kade.toml"
    sheet.write_text(
        'name = "Kade"\n[stats]\nBody = 11\nMind = 15\n[skills]\nHacking = 16\n', "utf-8"
    )
    campaign_of(run, "gurps")
    before = run.event_count()
    result = run(["character", "add", "--sheet", str(sheet)])
    assert result.exit_code == 1
    assert "kade.toml has none of DX, HT, IQ, ST, which a GURPS sheet has" in result.stderr
    assert run.event_count() == before


def test_what_moved_a_result_is_said_where_the_gm_reads_it(run):
    campaign_of(run, "glintlock")
    run.ok("session start")
    run.ok("condition set Wren poisoned")
    shown = run.ok("roll Wren Grit --tag 1 --tag 1 --dice 15").stdout
    assert "poisoned counts as a -1 condition tag" in shown
    assert "1 condition tag at -1" in run("roll Wren Grit --tag 1 --tag 1 --dice 15,4").stderr
    run.ok("gain Wren deep-cut")
    run.ok("spend Wren steel-yourself")
    run.ok("roll Wren Grit --tag 1 --tag 1 --dice 12")
    assert "12 → weak hit · +2 on the kept die (steel yourself)" in run.ok("log").stdout
    undone = run.ok("undo --session 1").stdout
    assert "`tracker redo` puts them back." in undone
    campaign_of(run, "gloom")
    run.ok("session start")
    floor = run.ok("contest Kade Interface Target 14 --mode dynamic --dice-a 11 --dice-b 11")
    assert "Kade must roll above the defence's 11" in floor.stdout
    campaign_of(run, "gurps")
    run.ok("session start")
    before = run.event_count()
    typo = run("roll Mira Lockpickign --dice 3,3,3")
    assert "Mira has no Lockpickign; did you mean Lockpicking? Check the spelling." in typo.stderr
    assert run.event_count() == before
    # The start of a skill's name is that skill, logged as the sheet spells it.
    run.ok("roll Mira lockpickin --dice 3,3,3")
    assert "Mira rolls Lockpicking at " in run.ok("log").stdout.splitlines()[-1]
    fright = run.ok("fright Mira --mod -2:alone --dice 6,6,2 --table-dice 5,5,2 --effect-dice 3")
    assert "5+5+2 + 4 (the margin of failure) = 16" in fright.stdout


def test_refusals_met_at_the_table_say_what_to_do(run):
    campaign_of(run, "glintlock")
    run.ok("session start")
    for command, words in (
        ("threat spend dire", "or add Threat first with `tracker threat add N`."),
        ("spend Wren class-feature", "give its base cost with --cost"),
        ("roll Wren Grit --tag 1 --spell --dice 1", "give those dice with --backlash-dice"),
        ("log --session 0", "No session 0; `tracker session list` shows them."),
        ("status --as-of '1999-01-01'", "give a later time, or an event number"),
    ):
        before = run.event_count()
        result = run(command)
        assert result.exit_code in (1, 2), command
        assert words in result.stderr, (command, result.stderr)
        assert run.event_count() == before
    shown = run("character show Nobody --as-of 1")
    assert shown.exit_code == 1
    assert shown.stdout == ""  # no "As of" header before the refusal


def test_undoing_a_sessions_end_says_the_session_runs_again(run):
    campaign_of(run, "glintlock")
    run.ok("session start")
    run.ok("note 'the archive floods'")
    assert "running again" not in run.ok("undo").stdout
    run.ok("session end")
    ended = next(e for e in run.json("log")["events"] if e["type"] == "SessionEnded")
    again = run.ok(f"undo {ended['version']}").stdout
    assert "! Session 1 is running again; `tracker session end` ends it" in again
    assert run.json("status")["session"] == 1
