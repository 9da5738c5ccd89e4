"""``tracker where``: which database is in use and why, the data folder, the campaign, the
versions; it only looks, whatever the database is."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracker import __version__
from tracker.cli import cli
from tracker.store.revisions import HEAD_REVISION

FIXTURES = Path(__file__).parent.parent / "fixtures" / "db"


def where(*args: str, env: dict[str, str] | None = None) -> dict:
    result = CliRunner().invoke(cli, [*args, "where", "--json"], env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def data_folder() -> Path:
    return Path.home() / ".local" / "share" / "tracker"


def test_with_nothing_set_it_names_the_default_file_and_makes_nothing():
    found = where()
    assert found["database"]["location"] == str(data_folder() / "tracker.db")
    assert found["database"]["source"] == "default"
    assert found["database"]["state"] == "missing"
    assert "first command that logs something makes it" in found["database"]["detail"]
    assert found["campaign"] is None
    assert found["data_folder"] == str(data_folder())
    assert found["version"] == __version__
    assert found["schema_revision"] == HEAD_REVISION
    assert found["systems"] == ["gloom", "gurps", "glintlock"]
    assert not data_folder().exists()  # not even the folder


def test_a_flag_an_environment_variable_and_a_flag_after_the_command_are_each_named(run):
    run.ok('campaign new "Ashes of Veyra" --system glintlock')
    run.ok("character add Wren --stat Grit=3")
    run.ok('campaign new "Neon Drift" --system gloom')
    by_flag = where("--db", str(run.db))
    assert by_flag["database"]["source"] == "flag"
    assert by_flag["database"]["state"] == "current"
    assert by_flag["database"]["revision"] == HEAD_REVISION
    assert (by_flag["database"]["campaigns"], by_flag["database"]["events"]) == (2, 3)
    assert by_flag["database"]["size_bytes"] == run.db.stat().st_size
    assert by_flag["campaign"] == {
        "name": "Neon Drift",
        "system": "gloom",
        "source": "default",
        "events": 1,
    }

    by_env = where(env={"TRACKER_DB": str(run.db), "TRACKER_CAMPAIGN": "ashes of veyra"})
    assert by_env["database"]["source"] == "environment"
    assert by_env["campaign"]["name"] == "Ashes of Veyra"
    assert by_env["campaign"]["source"] == "environment"
    assert by_env["campaign"]["events"] == 2

    after = CliRunner().invoke(
        cli, ["where", "--db", str(run.db), "--campaign", "Ashes of Veyra", "--json"]
    )
    found = json.loads(after.stdout)
    assert (found["database"]["source"], found["campaign"]["source"]) == ("flag", "flag")

    unknown = where("--db", str(run.db), "--campaign", "Nowhere")
    assert unknown["campaign"] is None
    assert "tracker campaign list" in unknown["campaign_detail"]


def test_the_text_says_why_and_where_in_a_line_each(run):
    run.ok('campaign new "Neon Drift" --system gloom')
    result = CliRunner().invoke(cli, ["where"], env={"TRACKER_DB": str(run.db)})
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == f"tracker {__version__} ({lines[0].split('(')[1]}"
    assert f"database   {run.db}" in lines
    assert any(line.strip().startswith("from $TRACKER_DB; 1 campaign, 1 event,") for line in lines)
    assert any(line.startswith('campaign   "Neon Drift" (gloom, 1 event)') for line in lines)
    assert f"schema     {HEAD_REVISION} (this tracker writes {HEAD_REVISION})" in lines


def test_a_missing_default_points_at_the_demo_the_data_folder_holds():
    demo = data_folder() / "demo.db"  # an earlier tracker's demo, or one made with --db
    demo.parent.mkdir(parents=True)
    assert CliRunner().invoke(cli, ["demo", "--db", str(demo)]).exit_code == 0
    result = CliRunner().invoke(cli, ["where"])
    assert f"the data folder holds demo.db: `export TRACKER_DB={demo}`" in result.output


def test_an_older_database_is_described_not_upgraded(tmp_path):
    db = tmp_path / "old.db"
    shutil.copy(FIXTURES / "schema-0001.db", db)
    before = db.read_bytes()
    found = where("--db", str(db))["database"]
    assert (found["state"], found["revision"]) == ("older", "0001")
    assert "backs it up and upgrades it" in found["detail"]
    assert db.read_bytes() == before
    assert list(tmp_path.iterdir()) == [db]  # no backup, no -wal


def test_a_newer_database_says_to_upgrade_tracker(run):
    run.ok('campaign new "Neon Drift" --system gloom')
    with sqlite3.connect(run.db) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    found = where("--db", str(run.db))
    assert (found["database"]["state"], found["database"]["revision"]) == ("newer", "9999")
    assert "upgrade tracker" in found["database"]["detail"]
    assert found["campaign"] is None


@pytest.mark.parametrize(
    ("content", "state", "says"),
    [
        (b"", "empty", "makes the schema"),
        (b"a GM's notes, not a database\n" * 40, "unreadable", "give --db another file"),
        (None, "unreadable", "no tracker schema"),
    ],
)
def test_a_file_that_is_not_a_tracker_database_is_described_and_left_alone(
    tmp_path, content, state, says
):
    db = tmp_path / "other.db"
    if content is None:
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE recipes (name TEXT)")
    else:
        db.write_bytes(content)
    before = db.read_bytes()
    found = where("--db", str(db))["database"]
    assert found["state"] == state
    assert says in found["detail"]
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_a_folder_given_as_the_database_is_named_as_one(tmp_path):
    found = where("--db", str(tmp_path))["database"]
    assert found["state"] == "unreadable"
    assert "a folder, not a file" in found["detail"]


def test_a_server_that_cannot_be_reached_is_described_and_its_password_hidden():
    url = "postgresql+psycopg://gm:hunter2@127.0.0.1:1/campaigns"
    result = CliRunner().invoke(cli, ["--db", url, "where"])
    assert result.exit_code == 0
    assert "hunter2" not in result.output
    assert "postgresql+psycopg://gm:***@127.0.0.1:1/campaigns" in result.output
    assert "check the --db URL and that the server is running" in result.output
    found = where("--db", url)["database"]
    assert (found["engine"], found["state"]) == ("postgresql", "unreadable")


def test_inside_the_shell_it_says_what_the_shell_was_started_on(run):
    run.ok('campaign new "Neon Drift" --system gloom')
    run.ok('campaign new "Iron and Ink" --system gurps')
    lines = 'where --json\ncampaign use "Neon Drift"\nwhere --json\n'
    result = CliRunner().invoke(cli, ["shell"], input=lines, env={"TRACKER_DB": str(run.db)})
    assert result.exit_code == 0, result.output
    first, second = (json.loads(line) for line in result.stdout.splitlines() if line[:1] == "{")
    assert first["database"]["location"] == str(run.db)  # a path, as given, not a URL
    assert first["database"]["source"] == "environment"
    assert first["campaign"]["name"] == "Iron and Ink"
    assert second["campaign"]["name"] == "Neon Drift"


def test_the_shells_campaign_is_the_one_it_plays_after_campaign_use(run):
    run.ok('campaign new "Neon Drift" --system gloom')
    run.ok('campaign new "Iron and Ink" --system gurps')
    lines = 'where --json\ncampaign use "Neon Drift"\nwhere --json\n'
    result = CliRunner().invoke(
        cli, ["--db", str(run.db), "--campaign", "Iron and Ink", "shell"], input=lines
    )
    first, second = (json.loads(line) for line in result.stdout.splitlines() if line[:1] == "{")
    assert (first["campaign"]["name"], first["campaign"]["source"]) == ("Iron and Ink", "flag")
    assert (second["campaign"]["name"], second["campaign"]["source"]) == ("Neon Drift", "default")


def test_paths_that_lead_nowhere_are_described_in_a_sentence(tmp_path):
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    looped = where("--db", str(tmp_path / "loop1"))["database"]
    assert looped["state"] == "unreadable"
    assert "is a symbolic link that never reaches a file" in looped["detail"]
    refused = CliRunner().invoke(cli, ["--db", str(tmp_path / "loop1"), "campaign", "list"])
    assert refused.exit_code == 1
    assert refused.stderr.count("\n") == 1
    assert "give --db the database file itself" in refused.stderr

    nowhere = where("--db", str(tmp_path / "no-such-folder" / "x.db"))["database"]
    assert nowhere["detail"].endswith("does not exist; create it or give --db another path")
    os.mkfifo(tmp_path / "pipe")
    piped = where("--db", str(tmp_path / "pipe"))["database"]
    assert (piped["state"], piped["detail"]) == (
        "unreadable",
        "not a regular file: give --db the path of a database file",
    )


def test_a_name_past_the_systems_length_is_described_in_the_words_status_refuses_it_with(
    tmp_path,
):
    path = tmp_path / ("A" * 300 + ".db")
    refused = CliRunner().invoke(cli, ["--db", str(path), "status"])
    assert refused.exit_code == 1
    [sentence] = refused.stderr.strip().splitlines()
    sentence = sentence.removeprefix("Error: ")
    assert "cannot be a database file (File name too long)" in sentence
    for given in (str(path), f"sqlite:///{path}"):
        found = where("--db", given)["database"]
        assert (found["state"], found["detail"]) == ("unreadable", sentence), given
        result = CliRunner().invoke(cli, ["--db", given, "where"])
        assert result.exit_code == 0, result.output
        assert f"           {sentence}\n" in result.stdout
        assert result.stderr == ""
    assert list(tmp_path.iterdir()) == []


def test_a_sqlite_url_is_described_as_its_file(run):
    run.ok('campaign new "Neon Drift" --system gloom')
    found = where("--db", f"sqlite:///{run.db}")["database"]
    assert (found["location"], found["state"]) == (str(run.db), "current")


def test_a_url_that_cannot_be_taken_apart_is_one_sentence_everywhere():
    url = "postgresql+psycopg://gm:p@ss:w/rd@127.0.0.1:5999/camp"
    assert where("--db", url)["database"]["state"] == "unreadable"
    refused = CliRunner().invoke(cli, ["--db", url, "campaign", "list"])
    assert refused.exit_code == 2
    assert "%40, %3A and %2F" in refused.stderr
    assert "p@ss" not in refused.stderr + refused.stdout
