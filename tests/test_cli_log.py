"""Campaigns, sessions, characters, the log and verify, driven through the CLI as a GM would."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest
from click.testing import CliRunner

from tracker.cli import cli


def test_campaign_new_selects_it_and_lists_it(run):
    made = run.json('campaign new "Ashes of Veyra" --system glintlock')
    assert made["system"] == "glintlock"
    run.ok("campaign new Gloomtown --system gloom")
    listed = run.json("campaign list")["campaigns"]
    assert [(c["name"], c["current"]) for c in listed] == [
        ("Ashes of Veyra", False),
        ("Gloomtown", True),
    ]
    run.ok('campaign use "ashes of veyra"')
    assert run.json("campaign list")["campaigns"][0]["current"] is True


def test_the_example_sessions_opening_reads_as_shown(glintlock):
    # The example's table resets Threat each session, the setting a campaign may choose; a new
    # campaign keeps Threat between sessions (Glintlock, 'Mettle & Threat': "starts 0").
    glintlock.ok("campaign set --threat-resets")
    result = glintlock.ok('session start --title "The drowned archive"')
    assert 'Session 1 "The drowned archive" started' in result.stdout
    assert "Mettle and Threat reset to 0." in result.stdout
    ended = glintlock.json("session end")
    assert ended["number"] == 1
    assert ended["ended_at"] is not None
    sessions = glintlock.json("session list")["sessions"]
    assert [(s["number"], s["title"]) for s in sessions] == [(1, "The drowned archive")]
    assert glintlock.json("session start")["number"] == 2


def test_events_in_a_session_carry_its_number(glintlock):
    glintlock.ok("session start")
    glintlock.ok("character add Ilse --stat Grit=1")
    events = glintlock.json("log --session 1")["events"]
    assert [e["type"] for e in events] == ["SessionStarted", "CharacterAdded"]
    assert all(e["session_id"] == 1 for e in events)


def test_a_sessions_log_names_characters_added_before_it(glintlock):
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --dice 15")
    glintlock.ok("roll Tomas Wits --secret --tag 1:gear --dice 15")
    shown = glintlock.ok("log --session 1").stdout
    assert "Wren rolls Grit at 3: 15 → weak hit" in shown
    hidden = glintlock.ok("log --session 1 --player-view").stdout
    assert "a secret event for Tomas" in hidden


def test_character_sheet_round_trips_keys_in_sheet_order(glintlock):
    wren = glintlock.json("character show wren")
    assert wren["name"] == "Wren"
    assert list(wren["stats"].items()) == [("Grit", 3), ("Wits", 2)]
    assert wren["trained"] == ["Climb"]
    assert wren["class"] == "Seer"


def test_character_from_a_sheet_file(run, tmp_path):
    run.ok("campaign new Iron --system gurps")
    sheet = tmp_path / "aldric.toml"
    sheet.write_text(
        'name = "Aldric"\n[stats]\nIQ = 14\nDX = 11\n[defaults]\nLockpicking = "IQ-5"\n'
    )
    added = run.json(["character", "add", "--sheet", str(sheet), "--skill", "Diplomacy=15"])
    # The sheet's scores, then Will and Per, which start at IQ when a sheet lists neither.
    assert added["stats"] == {"IQ": 14, "DX": 11, "Will": 14, "Per": 14}
    assert added["skills"] == {"Diplomacy": 15}
    assert added["defaults"] == {"Lockpicking": ["IQ-5"]}
    run.ok("character default Aldric Climbing DX-5")
    assert run.json("character show Aldric")["defaults"]["Climbing"] == ["DX-5"]


def test_log_shows_every_event_newest_last(glintlock):
    glintlock.ok("session start")
    lines = glintlock.ok("log").stdout.splitlines()
    assert "campaign" in lines[0]
    assert "Wren added" in lines[1]
    assert "session 1" in lines[-1]


def test_the_log_shows_a_roll_points_bought_up_as_it_ended(run):
    run.ok("campaign new Salt --system gurps --cinematic")
    run.ok("character add Corwin --stat DX=12 --skill Climbing=12")
    run.ok("session start")
    run.ok("points award Corwin 3")
    roll = run.json("roll Corwin Climbing --dice 5,5,4")  # 14 on 12: failure by 2
    run.ok("spend Corwin buy-up")
    for view in ("", " --player-view"):
        out = run.ok(f"log{view}").stdout
        assert "→ failure by 2 · bought up to success" in out
        assert run.json(f"log{view}")["bought_up"] == [
            {"version": roll["version"], "outcome": "success"}
        ]
    run.ok("undo")
    assert "bought up to" not in run.ok("log").stdout
    assert run.json("log")["bought_up"] == []


def test_verify_passes_on_an_intact_log(glintlock):
    report = glintlock.json("verify")
    assert report["ok"] is True
    assert report["campaigns"][0]["events"] == 3


def test_verify_names_the_first_tampered_event(glintlock):
    with sqlite3.connect(glintlock.db) as conn:
        conn.execute("DROP TRIGGER events_no_update")
        conn.execute(
            "UPDATE events SET payload = json_set(payload, '$.name', 'Mallory') WHERE version = 2"
        )
    result = glintlock("verify")
    assert result.exit_code == 1
    assert "broken at event 2" in result.stderr
    doc = json.loads(glintlock("verify --json").stdout)
    assert doc["ok"] is False
    assert doc["campaigns"][0]["problem"]["version"] == 2


def test_db_and_campaign_are_accepted_after_the_command(glintlock):
    result = glintlock.runner.invoke(
        cli,
        ["character", "show", "Wren", "--db", str(glintlock.db), "--json"],
    )
    assert result.exit_code == 0
    assert json.loads(result.stdout)["name"] == "Wren"


def test_tracker_db_environment_variable_picks_the_database(glintlock, monkeypatch):
    monkeypatch.setenv("TRACKER_DB", str(glintlock.db))
    result = CliRunner().invoke(cli, ["campaign", "list", "--json"])
    assert json.loads(result.stdout)["campaigns"][0]["name"] == "Ashes of Veyra"


BAD_INPUT = [
    # (command, exit code, words the sentence must contain)
    ("campaign use Nowhere", 1, "No campaign named"),
    ("character add Wren", 1, "already in"),
    ("character add wren", 1, "already in"),
    # Names that read as Wren's: a zero-width space in it, full-width letters.
    ("character add Wr\u200ben", 1, "already in"),
    ("character add \uff37\uff52\uff45\uff4e", 1, "already in"),
    ("character add Wr\u200den", 1, "already in"),
    ("character add Wren\ufe0f", 1, "already in"),
    ("character add Wren\u3164", 1, "already in"),
    # Names that show nothing at all.
    ("character add \u200b", 2, "a reader can see"),
    ("character add \u3164\u2800", 2, "a reader can see"),
    ("campaign new \u200d --system gloom", 2, "a reader can see"),
    ("character add \u0301", 2, "a reader can see"),
    ("character add Wren\u2065", 1, "already in"),
    # A direction mark would show a name as another that reads differently.
    (
        "character add \u062f\u0627\u0631\u06cc\u0648\u0634-\u200e\u0631\u0636\u0627",
        2,
        "direction mark",
    ),
    ("character add Bob --stat Grit", 2, "KEY=N"),
    ("character add Bob --stat Grit=high", 2, "whole number"),
    ("character add Bob --stat Grit=11", 2, "between 0 and 10"),
    ("character add Bob --sheet /no/such/sheet.toml", 2, "Cannot read the sheet"),
    ("character show Nobody", 1, "No character named"),
    ("character default Wren Lockpicking IQ-5", 1, "GURPS rule"),
    ("session end", 1, "No session is running"),
    ('campaign new "" --system gloom', 2, "needs a name"),
    ("campaign new X --system dnd", 2, "dnd"),
    ("campaign new X --system gloom --cinematic", 2, "GURPS setting"),
    ("log --session two", 2, "two"),
    ("frobnicate", 2, "No such command"),
]


@pytest.mark.parametrize(("command", "code", "words"), BAD_INPUT)
def test_bad_input_is_one_sentence_and_appends_nothing(glintlock, command, code, words):
    before = glintlock.event_count()
    result = glintlock(command)
    assert result.exit_code == code, result.output
    assert words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output
    assert glintlock.event_count() == before


@pytest.mark.parametrize(
    "name",
    ["ASHES of veyra", "Ashes of\u2060 Veyra"],
    ids=["in other case", "with a hidden word joiner"],
)
def test_a_campaign_name_cannot_be_taken_twice(glintlock, name):
    """Nor taken again by a name that reads the same: a hidden character does not make a second
    campaign that looks like the first."""
    before = glintlock.event_count()
    result = glintlock(["campaign", "new", name, "--system", "gloom"])
    assert result.exit_code == 1
    assert "already exists" in result.stderr
    assert glintlock.event_count() == before


def test_names_that_differ_by_an_emoji_joiner_or_a_flag_are_names_of_their_own(glintlock):
    """The joiners and tag letters that shape what is shown make names that read differently:
    a woman astronaut is not a woman and a rocket, nor Scotland's flag Wales'."""
    names = [
        "Wren \U0001f9d9\u200d\u2640\ufe0f",
        "Ash \U0001f469\u200d\U0001f680",
        "Ash \U0001f469\U0001f680",
        "Team \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
        "Team \U0001f3f4\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f",
    ]
    for name in names:
        glintlock.ok(["character", "add", name, "--stat", "Grit=1"])
    shown = [c["name"] for c in glintlock.json("status")["characters"]]
    assert set(names) <= set(shown)


def test_a_second_session_cannot_start_while_one_runs(glintlock):
    glintlock.ok("session start")
    before = glintlock.event_count()
    result = glintlock("session start")
    assert result.exit_code == 1
    assert "still running" in result.stderr
    assert glintlock.event_count() == before


def test_gurps_default_with_a_malformed_expression_is_refused(run):
    run.ok("campaign new Iron --system gurps")
    run.ok("character add Aldric --stat IQ=14")
    before = run.event_count()
    result = run("character default Aldric Lockpicking IQ-five")
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert run.event_count() == before


def test_no_campaign_yet_says_how_to_make_one(run):
    result = run("session start")
    assert result.exit_code == 1
    assert "tracker campaign new" in result.stderr


def test_a_file_that_is_not_a_database_is_refused_untouched(run, tmp_path):
    junk = tmp_path / "notes.db"
    junk.write_bytes(b"These are my session notes, not a database.\n" * 200)
    before = junk.read_bytes()
    result = run.runner.invoke(cli, ["--db", str(junk), "campaign", "list"])
    assert result.exit_code == 1
    assert "not a readable tracker database" in result.stderr
    assert junk.read_bytes() == before


def test_a_database_from_a_newer_tracker_is_refused(glintlock):
    with sqlite3.connect(glintlock.db) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    result = glintlock("campaign list")
    assert result.exit_code == 1
    assert "upgrade tracker" in result.stderr


def test_a_folder_that_does_not_exist_is_named(run, tmp_path):
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "no" / "x.db"), "campaign", "list"])
    assert result.exit_code == 1
    assert "does not exist" in result.stderr


def test_a_new_database_file_is_private_to_its_owner(run):
    run.ok("campaign list")
    assert run.db.stat().st_mode & 0o777 == 0o600


def test_demo_makes_a_campaign_per_system(tmp_path):
    target = tmp_path / "demo.db"
    result = CliRunner().invoke(cli, ["demo", "--db", str(target), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [c["system"] for c in report["campaigns"]] == ["gloom", "gurps", "glintlock"]
    assert all(c["characters"] for c in report["campaigns"])
    again = CliRunner().invoke(cli, ["demo", "--db", str(target)])
    assert again.exit_code == 1
    assert "already holds campaigns" in again.stderr


def test_verify_re_decides_every_roll_and_names_a_wrong_outcome(glintlock):
    from tracker.app import Tracker
    from tracker.events import NewEvent

    glintlock.ok("session start")
    roll = glintlock.json("roll Wren Grit --tag 1:gear --dice 15")
    assert glintlock.json("verify")["campaigns"][0]["rolls_redecided"] == 1
    tracker = Tracker(str(glintlock.db))
    stored = next(
        e
        for e in tracker.store.read(tracker.campaign().campaign_id)
        if e.event_id == roll["event_id"]
    )
    forged = dict(stored.payload, result=dict(stored.payload["result"], outcome="strong_hit"))
    head = tracker.store.head(stored.campaign_id).version
    tracker.store.append(
        stored.campaign_id,
        [NewEvent(type="RollMade", payload=forged, character_id=stored.character_id)],
        head,
    )
    tracker.close()
    result = glintlock("verify")
    assert result.exit_code == 1
    assert "stored as strong_hit but the rules give weak_hit" in result.stderr
    doc = json.loads(glintlock("verify --json").stdout)
    assert doc["campaigns"][0]["problem"] is None
    assert doc["campaigns"][0]["mismatches"][0]["version"] == head + 1


@pytest.mark.parametrize(
    ("system", "setup", "contest"),
    [
        (
            "gloom",
            ["character add Kade --skill Hacking=14"],
            "contest Kade Hacking Netrunner 14 --dice-a 14 --dice-b 5",
        ),
        (
            "gurps",
            ["character add Vora --stat DX=12 --skill Broadsword=12"],
            "contest Vora Broadsword Duellist 12 --dice-a 2,2,3 --dice-b 5,5,4",
        ),
    ],
)
def test_verify_names_a_contest_whose_stored_winner_the_rules_do_not_give(
    run, system, setup, contest
):
    """Both sides' outcomes may be right and the winner still forged: verify decides it again."""
    from tracker.app import Tracker
    from tracker.events import NewEvent

    run.ok(f"campaign new Forged --system {system}")
    for command in setup:
        run.ok(command)
    run.ok("session start")
    played = run.json(contest)
    assert played["winner"] != "Duellist"
    assert run.json("verify")["ok"]
    tracker = Tracker(str(run.db))
    campaign_id = tracker.campaign().campaign_id
    stored = list(tracker.store.read(campaign_id))[-1]
    forged = dict(stored.payload, winner="b")
    tracker.store.append(
        campaign_id, [NewEvent(type="ContestRolled", payload=forged)], stored.version
    )
    tracker.close()
    result = run("verify")
    assert result.exit_code == 1
    assert "the winner is stored as b but the rules give a" in result.stderr
    [report] = json.loads(run("verify --json").stdout)["campaigns"]
    assert report["problem"] is None
    assert report["mismatches"][0]["version"] == stored.version + 1


def test_another_programs_sqlite_file_is_refused_and_left_exactly_as_it_was(run, tmp_path):
    recipes = tmp_path / "recipes.db"
    with sqlite3.connect(recipes) as conn:
        conn.execute("CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("INSERT INTO recipes (name) VALUES ('bread')")
    conn.close()
    before = recipes.read_bytes()
    result = run.runner.invoke(cli, ["--db", str(recipes), "campaign", "list"])
    assert result.exit_code == 1
    assert "no tracker schema" in result.stderr
    # Untouched: same bytes, still in its own journal mode (opening it for tracker would have
    # switched it to WAL), and no -wal or -shm file beside it.
    assert recipes.read_bytes() == before
    with sqlite3.connect(recipes) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert sorted(p.name for p in tmp_path.glob("recipes.db*")) == ["recipes.db"]


def test_an_export_holding_secrets_is_private_from_its_first_byte(glintlock, tmp_path):
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --secret --dice 12")
    old = os.umask(0)  # a umask that would leave a new file open to everyone
    try:
        for command, private in (
            ("export events", True),
            ("export rolls --format csv", True),
            ("export rolls --format html", True),
            ("export rolls --format csv --player-view", False),
        ):
            path = tmp_path / f"{command.replace(' ', '_')}.out"
            glintlock.ok(f"{command} -o {path}")
            mode = path.stat().st_mode & 0o777
            assert (mode == 0o600) if private else (mode & 0o044), (command, oct(mode))
    finally:
        os.umask(old)
