"""What tracker guarantees about the log: tamper evidence, damaged storage, hostile input."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3

import pytest
from click.testing import CliRunner
from conftest import Run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracker.app import Tracker
from tracker.cli import cli
from tracker.errors import StorageError


@pytest.fixture
def played(glintlock):
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --dice 15")
    glintlock.ok("note 'first'")
    glintlock.ok("note 'second'")
    glintlock.ok("stress Tomas +1")
    return glintlock


def tamper(db, *statements):
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER events_no_update")
        conn.execute("DROP TRIGGER events_no_delete")
        for statement in statements:
            conn.execute(statement)


@pytest.mark.parametrize(
    ("statements", "version", "words"),
    [
        (
            ["UPDATE events SET payload = replace(payload, 'first', 'forged') WHERE version = 6"],
            6,
            "no longer match",
        ),
        (["DELETE FROM events WHERE version = 6"], 7, "version 6 is missing"),
        (
            [
                "UPDATE events SET version = 100 WHERE version = 6",
                "UPDATE events SET version = 6 WHERE version = 7",
                "UPDATE events SET version = 7 WHERE version = 100",
            ],
            6,
            "does not follow",
        ),
        (
            [
                "UPDATE events SET version = version + 1000 WHERE version >= 6",
                "UPDATE events SET version = version - 999 WHERE version >= 1006",
                "INSERT INTO events (event_id, campaign_id, version, type, schema_version, "
                "payload, recorded_at, visibility, prev_hash, hash) SELECT 'forged', campaign_id,"
                " 6, 'NoteAdded', 1, '{\"text\": \"forged\"}', recorded_at, 'public', prev_hash,"
                " hash FROM events WHERE version = 7",
            ],
            6,
            "no longer match",
        ),
    ],
    ids=["edited", "removed", "reordered", "inserted"],
)
def test_verify_names_an_edited_removed_reordered_or_inserted_event(
    played, statements, version, words
):
    tamper(played.db, *statements)
    result = played("verify")
    assert result.exit_code == 1
    assert f"broken at event {version}" in result.stderr
    assert words in result.stderr


@pytest.mark.parametrize("fmt", ["events", "csv", "jsonl"])
def test_verify_against_an_export_says_whether_the_log_still_matches(played, tmp_path, fmt):
    out = tmp_path / f"export.{fmt}"
    command = ["export", "events"] if fmt == "events" else ["export", "rolls", "--format", fmt]
    played.ok([*command, "-o", str(out)])
    assert played(["verify", "--against", str(out)]).exit_code == 0
    played.ok("note 'later play is fine'")
    assert played(["verify", "--against", str(out)]).exit_code == 0
    tamper(played.db, "UPDATE events SET hash = 'x' || substr(hash, 2) WHERE version = 8")
    result = played(["verify", "--against", str(out)])
    assert result.exit_code == 1
    assert "Does not match the export" in result.stderr or "does not match" in result.stderr


def test_verify_against_something_that_is_not_an_export(played, tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("shopping list\n")
    result = played(["verify", "--against", str(junk)])
    assert result.exit_code == 2
    assert "names no log head" in result.stderr


def test_a_truncated_database_is_refused_and_left_as_it_was(played, tmp_path):
    broken = tmp_path / "broken.db"
    data = played.db.read_bytes()
    broken.write_bytes(data[: len(data) // 2])
    before = broken.read_bytes()
    result = CliRunner().invoke(cli, ["--db", str(broken), "status"])
    assert result.exit_code == 1
    assert len(result.stderr.strip().splitlines()) == 1
    assert "restore a backup" in result.stderr or "not a readable" in result.stderr
    assert broken.read_bytes() == before


def test_an_event_whose_payload_is_not_json_is_named_and_nothing_runs_past_it(played):
    """Event 6 (the first note) mangled by hand: verify names that link once, and every command
    that needs the campaign's state refuses in one sentence, appending nothing."""
    tamper(played.db, "UPDATE events SET payload = '{not json' WHERE version = 6")
    checked = played("verify")
    assert checked.exit_code == 1
    # The broken link, and not a second line for the same event.
    [line] = checked.stderr.strip().splitlines()
    assert "broken at event 6" in line
    assert "not JSON" in line
    before = played.event_count()
    for command in ("status", "export rolls", "replay 1", "undo", "roll Wren Grit --dice 15"):
        result = played(command)
        assert result.exit_code == 1, (command, result.output)
        [line] = result.stderr.strip().splitlines()
        assert "Event 6" in line
        assert "tracker verify" in line
    assert played.event_count() == before


@pytest.mark.parametrize("url", ["bogus://x", "mysql://gm:hunter2@db.example/campaign"])
def test_a_database_url_no_installed_driver_reads_is_a_sentence(url):
    result = CliRunner().invoke(cli, ["--db", url, "status"])
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert "No installed database driver reads" in line
    assert "hunter2" not in result.output


def test_a_full_disk_appends_nothing_and_says_so(played):
    tracker = Tracker(str(played.db))
    tracker.backend.close()
    connect = tracker.backend.connect

    def small():
        conn = connect()
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    tracker.backend.connect = small

    before = played.event_count()
    huge = "x" * 200_000
    with pytest.raises(StorageError, match="full"):
        tracker.tracks.note(huge)
    tracker.close()
    assert played.event_count() == before
    assert played("verify").exit_code == 0


NASTY = [
    'O\'Brien "the Quick"',
    "Robert'); DROP TABLE events;--",
    "<script>alert('x')</script> & co",
    "Zoë Ångström 龍",
    '=HYPERLINK("http://x","y")',
    "x" * 100,
]


@pytest.mark.parametrize("name", NASTY, ids=range(len(NASTY)))
def test_hostile_names_round_trip_through_log_replay_and_exports(run, name):
    run.ok("campaign new Nasty --system gloom")
    run.ok(["character", "add", name, "--skill", "Hacking=14"])
    run.ok("session start")
    run.ok(["roll", name, "Hacking", "--dice", "9"])
    run.ok(["note", f"{name} was here"])
    assert run.json(["status", name])["name"] == name
    log = run.json("log")["events"]
    assert log[1]["payload"]["name"] == name
    assert name in run.ok("replay").stdout
    rows = run.ok("export rolls --format jsonl").stdout.splitlines()[1:]
    assert json.loads(rows[0])["character"] == name
    html = run.ok("export rolls --format html").stdout
    if "<" in name or "&" in name:
        assert name not in html
    assert "<script>alert" not in html
    # A cell a spreadsheet would run as a formula starts with a quote, the usual guard.
    csv_rows = list(csv.DictReader(io.StringIO(run.ok("export rolls --format csv").stdout)))
    assert csv_rows[0]["character"] == ("'" + name if name.startswith("=") else name)
    assert run("verify").exit_code == 0


UNFIT = [
    "Evil\x1b]0;pwned\x07",  # retitles a terminal's window
    "Clear\x1b[2J\x1b[H",  # clears the GM's screen
    "bell\x07char",
    "two\nlines",
    "Right\u202eto left",
    "x" * 101,
]


@pytest.mark.parametrize("name", UNFIT, ids=range(len(UNFIT)))
def test_a_name_with_control_characters_or_past_its_length_is_refused(run, name):
    run.ok("campaign new Nasty --system gloom")
    run.ok("character add Kade --skill Hacking=14")
    before = run.event_count()
    for command in (
        ["character", "add", name],
        ["campaign", "new", name, "--system", "gloom"],
        ["contest", "Kade", "Hacking", name, "12"],
        *([] if len(name) > 100 else [["note", name]]),  # a note may be longer than a name
    ):
        result = run(command)
        assert result.exit_code == 2, (command, result.output)
        assert len(result.stderr.strip().splitlines()) == 1
        assert "\x1b" not in result.stderr
    assert run.event_count() == before
    assert run.ok("campaign list").exit_code == 0


def test_a_name_that_reached_the_log_another_way_is_shown_escaped_on_a_terminal(run):
    """An older log, or one edited by hand, may hold what the command line refuses today."""
    from test_tamper import rewrite

    run.ok("campaign new Nasty --system gloom")
    run.ok("character add Kade --skill Hacking=14")
    run.ok("session start")
    run.ok("roll Kade Hacking --dice 9")
    run.ok("note 'Kade was here'")

    def nasty(events):
        for event in events:
            payload = json.loads(event["payload"])
            if event["type"] == "CharacterAdded":
                payload["name"] = "Kade\x1b[2J"
            if event["type"] == "NoteAdded":
                payload["text"] = "gone\x1b]0;pwned\x07"
            event["payload"] = json.dumps(payload)
        return events

    rewrite(run.db, nasty)
    for command in ("log", "replay 1", "status", "log --player-view"):
        shown = run.ok(command).stdout
        assert "\x1b[2J" not in shown, command
        assert "\x1b]0" not in shown, command
        assert "\\x1b" in shown, command
    assert "cannot hold control characters" in run("verify").stderr


COMMANDS = st.sampled_from(
    [
        "roll",
        "spend",
        "gain",
        "stress",
        "threat add",
        "threat spend",
        "condition set",
        "note",
        "tag add",
        "contest",
        "undo",
        "status",
    ]
)
WORDS = st.one_of(
    st.sampled_from(["Wren", "Tomas", "Grit", "Wits", "--dice", "--tag", "--cost", "+2", "-1"]),
    st.sampled_from(["1:gear", "9:gear", "0", "21", "1,2", "--json", "--seed", "x", "''"]),
    st.text(min_size=0, max_size=12),
)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command=COMMANDS, words=st.lists(WORDS, max_size=6))
def test_no_argument_makes_a_traceback_or_a_half_written_refusal(glintlock, command, words):
    before = glintlock.event_count()
    result = glintlock([*command.split(), *words])
    assert result.exit_code in (0, 1, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.output
    if result.exit_code != 0:
        assert result.stderr.strip(), "a refusal says why"
        assert len(result.stderr.strip().splitlines()) == 1
        assert glintlock.event_count() == before


def test_backups_and_copies_of_a_database_are_private(played, tmp_path):
    copy = tmp_path / "copy.db"
    shutil.copy(played.db, copy)
    assert played.db.stat().st_mode & 0o077 == 0


def _unshare_works() -> bool:
    import shutil as sh
    import subprocess

    if sh.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="needs a private mount namespace (unshare -m)")
@pytest.mark.parametrize("command", ["status", "roll Wren Grit --tag 1:gear --dice 12"])
def test_a_database_on_a_read_only_disk_is_refused_with_a_sentence(played, tmp_path, command):
    import subprocess
    import sys

    folder = tmp_path / "ro"
    folder.mkdir()
    shutil.copy(played.db, folder / "campaign.db")
    before = (folder / "campaign.db").read_bytes()
    script = (
        f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} && "
        f"{sys.executable} -m tracker --db {folder / 'campaign.db'} {command}"
    )
    result = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True)
    assert result.returncode == 1, result.stderr
    assert "read-only" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert (folder / "campaign.db").read_bytes() == before


def test_a_control_character_in_a_name_is_echoed_as_an_escape_on_one_line(glintlock):
    result = glintlock(["roll", "Wren", "Gr\rit\n"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "Gr\\rit\\n" in result.stderr


@pytest.mark.parametrize(
    "command",
    [
        "log --session 99999999999999999999",
        "log --session=99999999999999999999",
        "undo --session 99999999999999999999",
        "undo 99999999999999999999",
        "status --as-of 99999999999999999999",
        "replay 99999999999999999999",
        "stress Wren +99999999999999999999",
        "threat add 99999999999999999999",
        "roll Wren Grit --tag 99999999999999999999:gear",
    ],
)
def test_a_number_past_any_table_is_refused_with_a_sentence(glintlock, command):
    glintlock.ok("session start")
    before = glintlock.event_count()
    result = glintlock(command)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code in (1, 2)
    assert len(result.stderr.strip().splitlines()) == 1
    assert glintlock.event_count() == before


@pytest.mark.parametrize("name", ["camp%41.db", "what?.db", "100%.db"])
def test_a_database_path_with_a_percent_or_a_question_mark_is_that_file(tmp_path, name):
    """A path is a file's name as written: the schema is made in it and every command reads
    it, owner-only, and no other file appears."""
    run = Run(tmp_path / name, CliRunner())
    run.ok("campaign new Ash --system glintlock")
    run.ok("character add Wren --stat Grit=3")
    assert "Wren" in run.ok("status").stdout
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(name)) == []
    assert (tmp_path / name).stat().st_mode & 0o777 == 0o600
