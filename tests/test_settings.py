"""Campaign settings: given to `campaign new` or changed with `campaign set` as an event, read by
the rules from then on, refused where the campaign's system has no use for them."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHEETS = ROOT / "fixtures" / "sheets"
GENTLE = ROOT / "fixtures" / "tables" / "fright-gentle.toml"


def gurps(run, *flags: str):
    run.ok(["campaign", "new", "Salt", "--system", "gurps", *flags])
    for sheet in SHEETS.glob("gurps-*.toml"):
        run.ok(["character", "add", "--sheet", str(sheet)])
    run.ok("session start")
    return run


def refused(run, command, words: str, code: int = 1) -> None:
    before = run.event_count()
    result = run(command)
    assert result.exit_code == code, result.output
    assert words in result.stderr
    assert run.event_count() == before


def test_gloom_stress_at_the_campaigns_limit_gives_disadvantage(run):
    # Gloom: too much Stress gives Disadvantage; the limit is the campaign's (6 by default).
    run.ok("campaign new Neon --system gloom --stress-limit 4")
    run.ok("character add Kade --skill Hacking=16")
    run.ok("session start")
    run.ok("stress Kade +4")
    refused(run, "roll Kade Hacking --dice 9", "disadvantage (stress at the limit (4))", code=2)
    assert run.json("roll Kade Hacking --dice 9,14")["kept"] == 9
    said = run.ok("campaign set --stress-limit 6 --note 'a gentler Gloom'").stdout
    assert '"Neon": stress limit 4 → 6.' in said
    assert run.json("roll Kade Hacking --dice 9")["mode"] == "normal"
    assert "settings: stress limit 6 (a gentler Gloom)" in run.ok("log").stdout
    assert run.json("campaign set")["settings"] == {"tie_rule": "stat", "stress_limit": 6}


def test_glintlock_threat_carries_over_between_sessions_when_the_campaign_says_so(run):
    run.ok("campaign new Ashes --system glintlock --threat-carries-over")
    run.ok("session start")
    run.ok("threat add 3")
    run.ok("session end")
    run.ok("session start")
    assert run.json("status")["threat"] == 3
    run.ok("campaign set --threat-resets")
    run.ok("session end")
    run.ok("session start")
    assert run.json("status")["threat"] == 0


def test_threat_lasts_between_sessions_in_a_new_campaign_as_the_rulebook_says(run):
    """Glintlock, 'Mettle & Threat': "Mettle (player currency, 0–6, starts 0 per session)"
    against "Threat (GM currency, 0–6, starts 0)": the text resets Mettle per session and
    Threat only at the start. `campaign new` writes that Threat carries over; resetting it each
    session stays the table's setting (`--threat-resets`), and the help says which is which."""
    for command in ("campaign set --help", "campaign new --help"):
        said = " ".join(run.ok(command).stdout.split())
        assert "--threat-carries-over / --threat-resets" in said
        assert "tracker's default resets" not in said
    run.ok("campaign new Ashes --system glintlock")
    assert run.json("campaign set")["settings"]["threat_carries_over"] is True
    created = run.json("log")["events"][0]
    assert (created["type"], created["payload"]["threat_carries_over"]) == ("CampaignCreated", True)
    assert "Threat carries over: yes" in run.ok("campaign set").stdout
    run.ok("character add Wren --stat Grit=3")
    run.ok("session start")
    run.ok("gain Wren deep-cut")
    run.ok("threat add 3")
    run.ok("session end")
    said = run.ok("session start").stdout
    assert "Mettle reset to 0." in said
    assert "Threat" not in said
    assert (run.json("status")["threat"], run.json("status Wren")["mettle"]) == (3, 0)
    run.ok("campaign new Calm --system glintlock --threat-resets")
    run.ok("session start")
    run.ok("threat add 3")
    run.ok("session end")
    assert "Mettle and Threat reset to 0." in run.ok("session start").stdout
    assert run.json("status")["threat"] == 0


def test_a_stored_creation_without_the_threat_setting_still_resets_threat(run):
    """The default changed where a campaign is made, not in the stored event: a creation
    logged without ``threat_carries_over`` (before the setting was stored) reads as it did,
    Threat reset at each session start."""
    import msgspec

    from tracker.app import Tracker
    from tracker.events.catalog import CampaignCreated
    from tracker.projections.campaign import fold

    run.ok("campaign new Ashes --system glintlock")
    tracker = Tracker(str(run.db))
    try:
        row = tracker.campaign()
        created, *rest = list(tracker.store.read(row.campaign_id))
    finally:
        tracker.close()
    older = msgspec.json.decode(b'{"name": "Ashes", "system": "glintlock"}', type=CampaignCreated)
    assert older.threat_carries_over is False
    state = fold([msgspec.structs.replace(created, data=older), *rest], row.campaign_id)
    assert state.rules.session_resets(state) == {"mettle", "threat"}
    now = fold([created, *rest], row.campaign_id)
    assert now.rules.session_resets(now) == {"mettle"}


def test_best_equipment_takes_the_campaigns_tech_level_or_the_rolls_own(run):
    # GURPS, 'Equipment Modifiers': best equipment is +TL/2, minimum +2.
    gurps(run)
    refused(
        run,
        "roll Mira Lockpicking --mod equipment:best --dice 3,4,5",
        "campaign set --tech-level",
        code=2,
    )
    run.ok("campaign set --tech-level 3")
    low = run.json("roll Mira Lockpicking --mod equipment:best --dice 3,4,5")
    assert low["effective"] == 12 + 2  # TL3: 3/2 is 1, the minimum is +2
    own = run.json("roll Mira Lockpicking --mod equipment:best:8 --dice 3,4,5")
    assert own["effective"] == 12 + 4
    run.ok("campaign set --tech-level 9")
    assert run.json("roll Mira Lockpicking --mod equipment:best --dice 3,4,5")["effective"] == 16
    contest = run.json("contest Mira Lockpicking Lock 12 --mod-a equipment:best --dice-a 3,4,5")
    assert contest["a"]["effective"] == 16


def test_a_campaigns_own_fright_table_is_read_and_verified(run):
    gurps(run)
    run.ok(["campaign", "set", "--fright-table", str(GENTLE)])
    # Will 12 -10 = 2: a 17 fails by 15; 3+3+3 + 15 = 24 is the gentle table's last row.
    fright = run.json(
        "fright Mira --mod -10:horror --dice 6,6,5 --table-dice 3,3,3 --effect-dice 4"
    )
    assert (fright["table"]["row"], fright["table"]["text"]) == (
        21,
        "Flee in panic for 1d minutes.",
    )
    assert [c["name"] for c in run.json("status Mira")["conditions"]] == ["panicked"]
    assert "chain intact" in run.ok("verify").stdout
    run.ok("campaign set --fright-table rulebook")
    rulebook = run.json("fright Vora --mod -8:horror --dice 6,6,5 --table-dice 1,1,2")
    assert rulebook["table"]["row"] == 18  # the rulebook's row 18: faint


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("not = [toml", "is not valid TOML"),
        ("[[rows]]\nfirst = 10\ntext = 'a'\n[[rows]]\nfirst = 8\ntext = 'b'\n", "rising order"),
        (
            "[[rows]]\nfirst = 10\ntext = 'a'\neffects = [{ kind = 'curse' }]\n",
            "effect kind 'curse' is unknown",
        ),
        ("title = 'no rows'\n", "rows as a list named rows"),
    ],
)
def test_a_fright_table_that_cannot_be_read_is_refused(run, tmp_path, text, words):
    gurps(run)
    table = tmp_path / "table.toml"
    table.write_text(text, encoding="utf-8")
    refused(run, ["campaign", "set", "--fright-table", str(table)], words, code=2)


@pytest.mark.parametrize(
    ("system", "command", "words"),
    [
        ("gurps", "campaign set --stress-limit 8", "--stress-limit is a Gloom setting"),
        ("gurps", "campaign set --tie-rule defender", "--tie-rule is a Gloom setting"),
        ("gloom", "campaign set --tech-level 8", "--tech-level is a GURPS setting"),
        ("glintlock", "campaign set --cinematic", "--cinematic is a GURPS setting"),
        ("gloom", "campaign set --threat-carries-over", "is a Glintlock setting"),
        ("gloom", "campaign set --stress-limit 0", "--stress-limit is 1 to 20, not 0"),
        ("gurps", "campaign set --tech-level 13", "A tech level is 0 to 12, not 13"),
    ],
)
def test_a_setting_the_system_has_no_use_for_or_cannot_take_is_refused(run, system, command, words):
    run.ok(f"campaign new Table --system {system}")
    refused(run, command, words, code=2)


def test_a_setting_that_changes_nothing_is_refused_and_new_refuses_before_making(run):
    run.ok("campaign new Neon --system gloom")
    refused(run, "campaign set --stress-limit 6", "has those settings already")
    result = run("campaign new Other --system gurps --stress-limit 4")
    assert result.exit_code == 2
    assert "Other" not in run.ok("campaign list").stdout


def test_undoing_a_setting_puts_the_one_before_back(run):
    run.ok("campaign new Neon --system gloom")
    run.ok("campaign set --stress-limit 3")
    version = run.json("log")["events"][-1]["version"]
    run.ok(f"undo {version}")
    assert run.json("campaign set")["settings"]["stress_limit"] == 6


BREAKING = ROOT / "fixtures" / "tables" / "breaking-d6.toml"


def test_a_breaking_point_rolls_on_the_campaigns_breaking_table(run):
    # Glintlock, 'Stress': "Breaking point. Roll table, clear 3, lasting consequence."
    run.ok("campaign new Ashes --system glintlock")
    run.ok("character add Tomas --stat Wits=3")
    run.ok("session start")
    run.ok("stress Tomas +6")
    refused(run, "breaking-point Tomas 'fear of deep water'", "no breaking table", code=2)
    run.ok(["campaign", "set", "--breaking-table", str(BREAKING)])
    for die, text in ((1, "Freeze"), (3, "Flee"), (4, "Lash out"), (6, "Steel")):
        broke = run.json(f"breaking-point Tomas 'fear of deep water' --dice {die}")
        assert broke["result"].startswith(text), die
        assert broke["roll"] == {"dice": [die], "total": die, "text": broke["result"]}
        run.ok("undo")
    said = run.ok("breaking-point Tomas 'fear of deep water' --dice 2").stdout
    assert "Tomas: breaking table 2: Flee from the source of the stress; lasting: fear" in said
    assert run.json("status Tomas")["stress"] == 3


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('dice = "1d6"\n[[rows]]\nfirst = 1\nlast = 5\ntext = "a"\n', "exactly one row"),
        ('dice = "d"\n[[rows]]\nfirst = 1\ntext = "a"\n', 'like dice = "1d6"'),
        ('dice = "1d2"\n[[rows]]\nfirst = 1\nlast = 2\n', "needs first, last and text"),
    ],
)
def test_a_breaking_table_that_cannot_be_read_is_refused(run, tmp_path, text, words):
    run.ok("campaign new Ashes --system glintlock")
    table = tmp_path / "breaking.toml"
    table.write_text(text, encoding="utf-8")
    refused(run, ["campaign", "set", "--breaking-table", str(table)], words, code=2)


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("--system gloom --tie-rule bogus", "'bogus' is not one of 'stat', 'defender'"),
        ("--system gloom --stress-limit 21", "--stress-limit is 1 to 20, not 21"),
        ("--system gurps --tech-level 13", "A tech level is 0 to 12, not 13"),
        ("--system gurps --tie-rule defender", "--tie-rule is a Gloom setting"),
        ("--system gloom --cinematic", "--cinematic is a GURPS setting"),
        ("--system gurps --threat-carries-over", "--threat-carries-over is a Glintlock"),
        ("--system glintlock --breaking-table x.toml", "No such option '--breaking-table'"),
    ],
)
def test_campaign_new_refuses_a_setting_it_cannot_take_and_makes_nothing(run, command, words):
    result = run(f"campaign new Bad {command}")
    assert result.exit_code == 2, result.output
    assert words in result.stderr
    assert "Bad" not in run.ok("campaign list").stdout


def test_campaign_new_refuses_a_folder_for_a_fright_table(run, tmp_path):
    result = run(["campaign", "new", "Salt", "--system", "gurps", "--fright-table", str(tmp_path)])
    assert result.exit_code == 2
    assert "is a directory" in result.stderr
    assert "Salt" not in run.ok("campaign list").stdout


def test_campaign_new_logs_the_settings_given_and_set_shows_them_in_its_words(run):
    run.ok(["campaign", "new", "Salt", "--system", "gurps", "--cinematic", "--tech-level", "3"])
    run.ok(["campaign", "set", "--fright-table", str(GENTLE)])
    assert run.json("campaign set")["settings"]["tech_level"] == 3
    shown = run.ok("campaign set").stdout
    assert "cinematic: yes" in shown
    assert "tech level: 3" in shown
    assert "fright table: the campaign's own (" in shown
    said = run.ok("campaign set --no-cinematic --fright-table rulebook").stdout
    assert "cinematic yes → no" in said
    assert "fright table the campaign's own (" in said
    assert "→ the rulebook's" in said
    refused(run, "campaign set --fright-table none", "has those settings already")


def test_a_glintlock_campaign_shows_its_breaking_table_and_threat(run):
    run.ok("campaign new Ashes --system glintlock --threat-carries-over")
    shown = run.ok("campaign set").stdout
    assert "Threat carries over: yes" in shown
    assert "breaking table: none (the GM reads the result)" in shown
    said = run.ok(["campaign", "set", "--breaking-table", str(BREAKING)]).stdout
    assert "breaking table none (the GM reads the result) → the campaign's own (1d6)" in said


def test_a_setting_refuses_a_value_its_option_does_not_take_in_one_sentence():
    from tracker.systems.commands import Option, Setting

    weather = Setting(
        "weather",
        "weather",
        Option("--weather", "the sky.", "choice", choices=("sun", "rain", "fog")),
    )
    assert weather.problem("hail") == "--weather must be sun, rain or fog; give one of those."
    assert weather.problem("fog") is None
    depth = Setting("depth", "depth", Option("--depth", "how deep.", "int"), limits=(1, 3))
    assert depth.problem(4) == "--depth is 1 to 3, not 4; give one from 1 to 3."
    assert depth.problem("2") is not None
    assert (depth.text(None), depth.text(2), weather.text(True)) == ("none", "2", "yes")


# A change of settings as the tracker wrote it while each setting was a field of the event:
# every one of tracker's own, in the fields' order, then the note.
OLD_FORM = (
    '{"tie_rule": "defender", "cinematic": true, "stress_limit": 8, '
    '"threat_carries_over": true, "tech_level": null, '
    '"fright_table": [{"roll": "3-15", "result": "no effect"}], "breaking_table": null, '
    '"note": "from the old days"}'
)


def test_a_change_of_settings_stored_with_a_field_each_reads_as_settings_by_name():
    """Each setting was a field of its own; the event now holds them by name, and writes them
    back as they were stored, key for key, so the log's text and hashes hold."""
    import json

    from tracker.events.catalog import CampaignSettingsChanged, decode

    event = decode("CampaignSettingsChanged", 1, OLD_FORM)
    assert isinstance(event, CampaignSettingsChanged)
    assert event.settings == {
        "tie_rule": "defender",
        "cinematic": True,
        "stress_limit": 8,
        "threat_carries_over": True,
        "tech_level": None,
        "fright_table": [{"roll": "3-15", "result": "no effect"}],
        "breaking_table": None,
    }
    assert event.note == "from the old days"
    assert json.dumps(event.to_payload()) == OLD_FORM


def test_a_change_logs_its_settings_in_the_order_the_fields_had_however_given(run):
    """The payload is the text it was when each setting was a field: in the fields' order,
    which is the order the system declares them in, whatever order they were given in."""
    from tracker.app import Tracker

    run.ok("campaign new Salt --system gurps")
    tracker = Tracker(str(run.db))
    try:
        tracker.campaigns.campaign_set(note="late", tech_level=3, cinematic=True)
        last = list(tracker.store.read(tracker.campaign().campaign_id))[-1]
    finally:
        tracker.close()
    assert list(last.payload) == ["cinematic", "tech_level", "note"]


def test_a_campaign_whose_log_holds_a_change_written_by_hand_the_old_way_reads_it(run):
    """A GURPS campaign whose change of settings was stored as an older tracker stored it
    (hashed as it was): `campaign set` shows it, the log says it, and it verifies."""
    import json

    from test_tamper import rewrite

    run.ok("campaign new Salt --system gurps")
    run.ok("campaign set --tech-level 3")
    old = '{"cinematic": true, "tech_level": 5, "note": "an old table"}'

    def as_written_then(events):
        changed = next(e for e in events if e["type"] == "CampaignSettingsChanged")
        changed["payload"] = old
        return events

    rewrite(run.db, as_written_then, snapshots=False)
    settings = run.json("campaign set")["settings"]
    assert (settings["cinematic"], settings["tech_level"]) == (True, 5)
    assert "settings: cinematic yes, tech level 5 (an old table)" in run.ok("log").stdout
    logged = [e for e in run.json("log")["events"] if e["type"] == "CampaignSettingsChanged"]
    assert [e["payload"] for e in logged] == [json.loads(old)]
    assert run.json("verify")["ok"] is True
