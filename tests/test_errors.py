"""What a careless GM types at the table, refused: one line that names the fix, exit 1 for a
refusal and 2 for bad usage, and nothing appended to the log."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Run

from tracker.cli import cli

SHEETS = Path(__file__).parent.parent / "fixtures" / "sheets"

SETUPS: dict[str, list[str | list[str]]] = {
    "glintlock": [
        'campaign new "Ashes of Veyra" --system glintlock',
        "character add Wren --stat Grit=3 --stat Wits=2 --trained Climb --class Seer",
        "character add Tomas --stat Grit=2 --stat Wits=4",
        "session start",
    ],
    "threat6": [
        'campaign new "Ashes of Veyra" --system glintlock',
        "character add Wren --stat Grit=3 --stat Wits=2",
        "session start",
        "threat add 6",
    ],
    "gurps": [
        "campaign new Iron --system gurps",
        ["character", "add", "--sheet", str(SHEETS / "gurps-mira.toml")],
        ["character", "add", "--sheet", str(SHEETS / "gurps-aldric.toml")],
        "session start",
        "project start Bridge --skill Engineer --hours 40",
    ],
    "cinematic": [
        "campaign new Iron --system gurps --cinematic",
        ["character", "add", "--sheet", str(SHEETS / "gurps-mira.toml")],
        "session start",
        "roll Mira Lockpicking --dice 3,4,5",
    ],
    "gloom": [
        "campaign new Neon --system gloom",
        ["character", "add", "--sheet", str(SHEETS / "gloom-kade.toml")],
        "session start",
    ],
    # An empty database, and beside it an export of another one to import (damaged or not).
    "import": ["campaign list"],
}

GO_TO_GURPS = "switch to a GURPS campaign with `tracker campaign use NAME`"
GO_TO_GLINTLOCK = "switch to a Glintlock campaign with `tracker campaign use NAME`"
CHANGED = "the file was changed since its export, so export it again from the source database"

# (setup, command, exit code, the fix the message names)
REFUSED = [
    # A. at the table
    ("glintlock", "points award Wren 1", 1, GO_TO_GURPS),
    ("glintlock", "fright Wren", 1, GO_TO_GURPS),
    ("gloom", "threat spend hard", 1, GO_TO_GLINTLOCK),
    ("gurps", "stress Mira +1", 1, "switch to a Gloom or Glintlock campaign"),
    ("glintlock", "roll Wren Grit --dice 9", 2, "give two, like --dice 9,14"),
    ("glintlock", "roll Wren Grit --tag 1:gear --dice 5,5", 2, "give one, like --dice 9"),
    ("gloom", "roll Kade Hacking --advantage --dice 4", 2, "give two, like --dice 9,14"),
    ("gurps", "roll Mira Lockpicking --dice 1,1", 2, "give three, like --dice 3,4,5"),
    ("glintlock", "spend Wren flashback", 1, "gain some first (`tracker gain`, or a hit"),
    ("threat6", "threat spend soft", 1, "use `tracker threat spend hard` (or dire)"),
    ("glintlock", "condition clear Wren stunned", 1, "see `tracker status Wren`"),
    ("glintlock", "spend Wren push", 2, "'push' is no Mettle spend; choose one of resist"),
    ("glintlock", "roll Wren Grit --tag 1:foo", 2, "choose one of power, gear"),
    ("glintlock", "roll Wren Grit --tag 2:gear", 2, "give it as --tag 1:gear"),
    ("gloom", "roll Kade Hacking --dl hardd", 2, "give a number or one of routine"),
    ("glintlock", "undo", 1, "name it (`tracker undo EVENT`, see `tracker log`)"),
    ("glintlock", "reveal 3", 1, "`tracker log` marks which events are secret"),
    ("glintlock", "reveal --session 1", 1, "check the session number with `tracker session list`"),
    ("glintlock", "undo --session 1", 1, "`tracker redo` to put back what was undone"),
    ("glintlock", "undo 1", 1, "`tracker log` shows the events you can undo"),
    ("glintlock", "breaking-point Wren crack scar", 1, "add stress with `tracker stress Wren +N`"),
    ("gurps", "spend Mira buy-up", 1, "turn them on with `tracker campaign set --cinematic`"),
    ("cinematic", "spend Mira buy-up", 1, "award points with `tracker points award`"),
    ("glintlock", "threat add 0", 2, "give 1 or more"),
    ("glintlock", "condition set Wren stunned --duration 0", 2, "give --duration 1 or more"),
    ("glintlock", "note ''", 2, "give it in quotes"),
    ("glintlock", "spend Wren class-feature --cost 7", 2, "give --cost 2 or --cost 3"),
    ("glintlock", "roll Wren Charm", 1, "tracker character update Wren --stat Charm=N"),
    ("glintlock", "character add Kade --stat Grit", 2, "give one like --stat Grit=3"),
    ("gurps", "contest Mira Lockpicking Guard 99", 2, "give a score from 0 to 40"),
    ("gurps", "campaign set --stress-limit 8", 2, "leave it out here"),
    ("gloom", "campaign set --stress-limit 99", 2, "give one from 1 to 20"),
    ("gurps", "campaign set --tech-level 20", 2, "give --tech-level from 0 to 12"),
    ("gurps", "character add Vex --stat IQ=99", 2, "give a value from 0 to 40"),
    ("gloom", "contest Kade Hacking ICE 14 --mode resistance", 2, "--mode quick or --mode dynamic"),
    ("gurps", "contest Mira Lockpicking Guard 12 --mode dynamic", 2, "use --mode quick, resist"),
    ("gurps", "roll Mira Lockpicking --feat running", 2, "roll HT or Running, or leave --feat out"),
    ("gurps", "roll Mira Lockpicking --danger", 2, "roll a sense, or leave --danger out"),
    ("gurps", "roll Mira Lockpicking --mod total-darkness", 2, "roll Vision, or use darkness:N"),
    ("gurps", 'roll Mira "Detect Lies" --mod influence:Spy', 2, "win a `tracker influence` roll"),
    ("gurps", "roll Mira Lockpicking --mod haste:100", 1, "give haste:99 or less"),
    ("gurps", "roll Mira Lockpicking --mod time:1x", 2, "give time:2x or more"),
    ("gurps", "roll Mira Lockpicking --mod encumbrance:5", 2, "give encumbrance:0 to"),
    ("gurps", "roll Mira Vision --mod darkness:10", 2, "give darkness:0 to darkness:9"),
    ("gurps", "effort Mira 0", 2, "give a percentage of 1 or more"),
    ("gurps", "effort Mira 50", 1, "ask for a smaller percentage, or give --motivated"),
    ("gurps", "influence Aldric Diplomacy Mira --indomitable", 1, "give --empathy"),
    ("gurps", "project roll Bridge Mira --supervisor Mira", 2, "name another character with"),
    ("gurps", "project start Tower --skill Engineer --hours 0", 2, "give --hours 1 or more"),
    # B. files
    ("glintlock", "export rolls -o {tmp}/gone/rolls.csv", 1, "give -o a path in a folder that"),
    ("glintlock", "export events -o {tmp}", 1, "give -o a file name, not a folder"),
    # C. import
    ("import", "import {tmp}/not-an-export.jsonl", 2, "make one with `tracker export events"),
    ("import", "import {tmp}/headless.jsonl", 2, "export it again from the source database"),
    ("import", "import {tmp}/garbled.jsonl", 2, "export it again, or restore the file from"),
    ("import", "import {tmp}/cut-short.jsonl", 2, "export it again from the source database"),
    ("import", "import {tmp}/reordered.jsonl", 2, CHANGED),
    ("import", "import {tmp}/edited.jsonl", 2, CHANGED),
]


def _run_all(db: Path, commands: list[str | list[str]]) -> Run:
    run = Run(db, CliRunner())
    for command in commands:
        run.ok(command)
    return run


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    """Each setup's database, made once: every case works on a copy of it."""
    made: dict[str, Path] = {}
    home = tmp_path_factory.mktemp("templates-home")

    def template(name: str) -> Path:
        if name not in made:
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("HOME", str(home))
                mp.setenv("XDG_DATA_HOME", str(home / "data"))
                mp.delenv("TRACKER_DB", raising=False)
                mp.delenv("TRACKER_CAMPAIGN", raising=False)
                db = tmp_path_factory.mktemp(name) / "template.db"
                _run_all(db, SETUPS[name])
            made[name] = db
        return made[name]

    return template


def _exports(tmp: Path) -> None:
    """An events export of a small campaign, and the damaged copies a careless GM might keep."""
    source = _run_all(tmp / "source.db", [*SETUPS["glintlock"], "roll Wren Grit --dice 9,14"])
    good = tmp / "events.jsonl"
    source.ok(["export", "events", "-o", str(good)])
    header, *lines = good.read_text(encoding="utf-8").splitlines()
    edited = json.loads(lines[1])
    edited["payload"]["name"] = "Wrenna"
    damaged = {
        "not-an-export": ["{}", *lines],
        "headless": [json.dumps({"format": json.loads(header)["format"]}), *lines],
        "garbled": [header, "{not json", *lines[1:]],
        "cut-short": [header, *lines[:-1]],
        "reordered": [header, lines[0], lines[2], lines[1], *lines[3:]],
        "edited": [header, lines[0], json.dumps(edited), *lines[2:]],
    }
    for name, rows in damaged.items():
        (tmp / f"{name}.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")


def _copy(src: Path, dst: Path) -> None:
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    a.close()
    b.close()


@pytest.mark.parametrize(
    ("setup", "command", "code", "fix"),
    [pytest.param(*case, id=f"{case[0]}: {case[1]}") for case in REFUSED],
)
def test_a_refusal_is_one_line_that_names_the_fix(
    run, templates, tmp_path, setup, command, code, fix
):
    _copy(templates(setup), run.db)
    if setup == "import":
        _exports(tmp_path)
    before = run.event_count()
    result = run(command.format(tmp=tmp_path))
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert fix in lines[0], lines[0]
    assert "Traceback" not in result.output
    assert run.event_count() == before


def test_a_write_that_fails_after_the_file_opened_says_so(glintlock):
    """A full disk while writing is not reported as a file that could not be opened."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    before = glintlock.event_count()
    result = glintlock("export events -o /dev/full")
    assert result.exit_code == 1
    [line] = result.stderr.strip().splitlines()
    assert "Cannot write /dev/full (No space left on device)" in line
    assert "free some space or give -o another path" in line
    assert glintlock.event_count() == before


def test_an_export_to_a_full_standard_output_says_so_in_a_sentence(glintlock):
    import subprocess
    import sys

    tracker = Path(sys.executable).with_name("tracker")
    for command in (["export", "events"], ["export", "rolls"]):
        with open("/dev/full", "w") as full:
            done = subprocess.run(
                [tracker, "--db", str(glintlock.db), *command],
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
            )
        assert done.returncode == 1, command
        assert done.stderr.count("\n") == 1, done.stderr  # no traceback
        assert "Cannot write the export to standard output (No space left on device)" in (
            done.stderr
        )


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_a_roll_to_an_output_without_utf8_says_it_logged(glintlock, encoding):
    """What the terminal cannot show stands in as a mark: a roll that was logged never ends in
    a traceback and exit 1, which would have the GM roll it again."""
    import os
    import subprocess
    import sys

    glintlock.ok("session start")
    before = glintlock.event_count()
    tracker = Path(sys.executable).with_name("tracker")
    done = subprocess.run(
        [tracker, "--db", str(glintlock.db), "roll", "Wren", "Grit", "--tag", "1:gear"],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": encoding},
    )
    assert done.returncode == 0, done.stderr
    assert b"Wren" in done.stdout
    assert done.stderr == b""
    assert glintlock.event_count() == before + 1


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("[1, 2]", "holds a list, not a character; give a table of name, stats and skills"),
        ('{"name": 5}', 'The sheet\'s name must be text like "Mira"; fix it.'),
        (None, "is not a regular file; give the sheet itself"),
    ],
)
def test_a_sheet_of_the_wrong_shape_is_one_sentence(glintlock, tmp_path, content, says):
    import os

    sheet = tmp_path / "sheet.json"
    if content is None:
        os.mkfifo(sheet)  # reading it would wait for a writer that never comes
    else:
        sheet.write_text(content)
    before = glintlock.event_count()
    result = glintlock(["character", "add", "--sheet", str(sheet)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert says in result.stderr
    assert glintlock.event_count() == before


def test_ctrl_c_says_how_to_tell_whether_the_change_was_made(glintlock, monkeypatch):
    from tracker.app.tracks import Tracks

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Tracks, "note", interrupted)
    result = glintlock(["note", "the lamps gutter"])
    assert result.exit_code == 130
    assert result.stderr.strip() == (
        "Error: Interrupted; `tracker log` shows whether it was logged, so run it again only if "
        "it was not."
    )


def test_the_shell_and_the_live_view_take_the_database_after_the_command_too(glintlock):
    result = CliRunner().invoke(cli, ["shell", "--db", str(glintlock.db)], input="status\n")
    assert result.exit_code == 0, result.output
    assert "Ashes of Veyra" in result.stdout
    assert "--db PATH_OR_URL" not in CliRunner().invoke(cli, ["serve", "--help"]).stdout
    refused = CliRunner().invoke(cli, ["serve", "--db", str(glintlock.db), "--port", "99999"])
    assert "No such option" not in refused.stderr


@pytest.mark.parametrize("content", [b"\n", b"x", b"a note, not a database\n"])
def test_a_small_file_that_is_no_database_is_refused_and_left_as_it_was(tmp_path, content):
    """SQLite takes a file shorter than its header as empty and writes a database over it."""
    from click.testing import CliRunner

    from tracker.cli import cli

    notes = tmp_path / "notes.db"
    notes.write_bytes(content)
    for command in (["campaign", "list"], ["campaign", "new", "X", "--system", "gloom"]):
        result = CliRunner().invoke(cli, ["--db", str(notes), *command])
        assert result.exit_code == 1, result.output
        assert "is not a readable tracker database (it is no SQLite file)" in result.stderr
        assert notes.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


def test_an_empty_file_given_as_the_database_becomes_its_owners_alone(tmp_path):
    from click.testing import CliRunner

    from tracker.cli import cli

    empty = tmp_path / "empty.db"
    empty.touch(mode=0o644)
    empty.chmod(0o644)
    result = CliRunner().invoke(
        cli, ["--db", str(empty), "campaign", "new", "E", "--system", "gloom"]
    )
    assert result.exit_code == 0, result.output
    assert empty.stat().st_mode & 0o777 == 0o600


def test_a_data_folder_that_cannot_be_made_is_one_sentence(tmp_path, monkeypatch):
    """A service account's HOME that is missing or not its own gives no traceback."""
    from click.testing import CliRunner

    from tracker.cli import cli

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.delenv("TRACKER_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(blocked / "share"))
    monkeypatch.setenv("HOME", str(blocked))
    result = CliRunner().invoke(cli, ["status"])
    assert result.exit_code == 1, result.output
    [line] = result.stderr.strip().splitlines()
    assert "Cannot make the data folder" in line
    assert "give --db (or TRACKER_DB)" in line


def test_a_database_in_a_read_only_folder_is_said_to_be_the_folders(tmp_path, monkeypatch):
    """The file may be writable while its folder is not: SQLite's journal goes beside it."""
    import sqlite3

    from tracker.store import location

    db = tmp_path / "a.db"
    db.touch()
    folder_writable = {str(db): True, str(tmp_path): False}
    monkeypatch.setattr(location.os, "access", lambda path, mode: folder_writable[str(path)])
    said = str(location.storage_error(sqlite3.OperationalError("readonly database"), str(db)))
    assert said.startswith(f"The folder {tmp_path} is read-only")
    assert "make the folder writable" in said
    folder_writable[str(db)] = False
    said = str(location.storage_error(sqlite3.OperationalError("readonly database"), str(db)))
    assert said.startswith(f"{db} is read-only; make it writable")


@pytest.mark.parametrize("command", [["export", "events"], ["export", "rolls"]])
def test_an_export_to_the_terminal_takes_no_json(glintlock, command):
    """--json promises one JSON document; on the terminal the export itself goes there."""
    result = glintlock([*command, "--json"])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    [line] = result.stderr.strip().splitlines()
    assert "give -o FILE with it" in line


def test_an_export_whose_reader_stops_reading_stops_quietly(glintlock, tmp_path):
    import subprocess
    import sys

    sheet = tmp_path / "long.toml"
    skills = [f'"Skill {i:05d} of a long list" = 2' for i in range(4000)]
    sheet.write_text('name = "Ilse"\n[stats]\nGrit = 2\n[skills]\n' + "\n".join(skills) + "\n")
    glintlock.ok(f"character add --sheet {sheet}")
    tracker = Path(sys.executable).with_name("tracker")
    reading = subprocess.Popen(
        [tracker, "--db", str(glintlock.db), "export", "events"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reading.stdout.read(10) == b'{"format":'
    reading.stdout.close()
    assert reading.wait() == 141
    assert reading.stderr.read() == b""


def test_exports_to_one_path_each_write_a_file_of_their_own(glintlock, tmp_path):
    """Two exports at once to one path never write in one file; a name as long as the system
    allows still takes an export; nothing is left beside the file."""
    from tracker.cli.export import _beside

    target = str(tmp_path / "same.jsonl")
    first, second = _beside(target, True), _beside(target, True)
    assert first is not None
    assert second is not None
    assert first[1] != second[1]
    assert first[2] == second[2] == os.path.realpath(target)
    for fd, part, _ in (first, second):
        os.close(fd)
        os.unlink(part)
    longest = tmp_path / ("x" * 249 + ".json")  # 254 bytes: one short of the limit
    glintlock.ok(f"export events -o {longest}")
    assert longest.read_text().startswith('{"format": "tracker-events/1"')
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_an_export_to_dev_stdout_is_written_through_the_standard_output(glintlock, tmp_path):
    """Opened again, /dev/stdout would write over what the shell wrote into the same file
    before and after the command."""
    import subprocess
    import sys

    tracker = Path(sys.executable).with_name("tracker")
    kept = tmp_path / "kept.txt"
    script = f'{{ echo header; "{tracker}" --db "{glintlock.db}" export events -o /dev/stdout; '
    script += f'echo footer; }} > "{kept}"'
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = kept.read_text().splitlines()
    assert lines[0] == "header"
    assert lines[-1] == "footer"
    assert all(json.loads(line) for line in lines[1:-1])
    assert len(lines) == glintlock.event_count() + 3


def test_a_stop_asked_by_the_system_while_exporting_ends_as_ctrl_c_does():
    import signal

    from tracker.cli.export import _stopped_cleanly

    with pytest.raises(KeyboardInterrupt), _stopped_cleanly():
        os.kill(os.getpid(), signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("when.toml", '[[rows]]\nfirst = 4\ntext = "a"\nwhen = 1979-05-27T07:32:00Z\n'),
        ("at.toml", '[[rows]]\nfirst = 4\ntext = "a"\nat = 12:30:00\n'),
        ("nan.toml", '[[rows]]\nfirst = nan\ntext = "a"\n'),
        ("big.json", '{"rows": [{"first": 1e999, "text": "a"}]}'),
        ("lone.json", '{"rows": [{"first": 4, "text": "\\ud800"}]}'),
    ],
)
def test_a_table_holding_a_value_no_log_keeps_is_one_sentence(run, tmp_path, name, text):
    table = tmp_path / name
    table.write_text(text)
    for command in (
        ["campaign", "new", "S", "--system", "gurps", "--fright-table", str(table)],
        ["character", "add", "--sheet", str(table)],
    ):
        result = run(command)
        assert result.exit_code == 2, (command, result.output)
        [line] = result.stderr.strip().splitlines()
        assert "holds a value no log can keep" in line
    assert not (tmp_path / "campaign.db").exists() or run.event_count() == 0


@pytest.mark.parametrize(
    "command",
    [
        ["note", "x\udcffy"],
        ["campaign", "new", "x\udcffy", "--system", "gurps"],
        ["character", "add", "x\udcffy"],
    ],
)
def test_an_argument_of_bytes_that_are_not_utf8_is_one_sentence(glintlock, command):
    """A terminal's bytes that are not UTF-8 reach the command as lone surrogates, which no
    hash or output can spell: refused before anything is logged."""
    glintlock.ok("session start")
    before = glintlock.event_count()
    result = glintlock(command)
    assert result.exit_code == 2, result.output
    [line] = result.stderr.strip().splitlines()
    assert "x\\xffy holds bytes that are not UTF-8 text" in line
    assert glintlock.event_count() == before


def test_a_path_past_the_systems_length_is_one_sentence(glintlock, tmp_path):
    long = "A" * 300
    result = glintlock(["verify", "--against", long])
    assert result.exit_code == 2, result.output
    assert "is neither a file nor a receipt" in result.stderr
    result = glintlock(["--db", str(tmp_path / f"{long}.db"), "status"])
    assert result.exit_code == 1, result.output
    [line] = result.stderr.strip().splitlines()
    assert "cannot be a database file (File name too long)" in line
