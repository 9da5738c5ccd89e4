"""The shell: the same commands at one prompt, surviving every error, with names completed."""

from __future__ import annotations

import json
import os
import shlex

import pytest
from test_completion import TRACKER, Typist

from tracker.app import Tracker
from tracker.cli.shell import Completer


def test_a_whole_evening_through_the_shell_survives_errors(glintlock):
    script = "\n".join(
        [
            "session start --title 'At the prompt'",
            "roll Wren Grit --tag 1:gear --tag 1:power --dice 15",
            "roll Nobody Grit",  # refused: the prompt comes back
            "roll Wren Grit --tag 1:gear --dice 99",  # bad dice: the prompt comes back
            '"unclosed',  # a quoting slip
            "frobnicate",  # no such command
            "spend Wren steel-yourself",
            "status Wren --json",
            "undo",
            "exit",
            "roll Wren Grit --tag 1:gear --dice 15",  # after exit: never run
        ]
    )
    result = glintlock(["shell"], input=script + "\n")
    assert result.exit_code == 0, result.output
    assert "WEAK HIT" in result.stdout
    assert 'No character named "Nobody"' in result.stderr
    assert "not 99" in result.stderr
    assert "quotes" in result.stderr
    assert "No such command" in result.stderr
    assert '"mettle": 0' in result.stdout
    assert "Undid event" in result.stdout
    events = glintlock.json("log")["events"]
    rolls = [e for e in events if e["type"] == "RollMade"]
    assert len(rolls) == 1  # the line after exit did not run
    assert events[-1]["type"] == "EventsRevoked"


def test_the_shell_sees_what_another_writer_logged(glintlock):
    glintlock.ok("session start")
    other = Tracker(str(glintlock.db))
    result = glintlock(
        ["shell"],
        input="status Tomas --json\n",
    )
    assert '"stress": 0' in result.stdout
    tracker = Tracker(str(glintlock.db))
    tracker.warm = True
    tracker.state()
    other.tracks.stress("Tomas", 2, cause="from another terminal")
    assert tracker.state().character("Tomas").stress == 2
    other.close()
    tracker.close()


def test_the_shell_never_refuses_on_what_another_writer_has_changed_since(glintlock, capsys):
    """Its state is kept warm between lines: a line it would refuse on that state is decided
    again on the log's head, so another terminal's Threat or character counts at once."""
    from tracker.cli.shell import run_line

    glintlock.ok("session start")
    shell = Tracker(str(glintlock.db))
    shell.warm = True
    obj = {"tracker": shell, "db": shell.url, "campaign": None}
    assert run_line("status --json", obj) == 0
    glintlock.ok("threat add 4 --reason 'from another terminal'")
    glintlock.ok("character add Ilse --stat Grit=1 --stat Wits=3")
    capsys.readouterr()
    assert run_line("threat spend hard --note 'the floor gives'", obj) == 0
    assert run_line("roll Ilse Wits --tag 1:gear --dice 12", obj) == 0
    assert capsys.readouterr().err == ""
    # What stays refused on the head is refused as before, and logs nothing.
    count = len(glintlock.json("log")["events"])
    assert run_line("spend Ilse resist", obj) != 0
    assert "Mettle" in capsys.readouterr().err
    assert len(glintlock.json("log")["events"]) == count
    shell.close()


def test_help_in_the_shell_names_commands_as_the_shell_takes_them(glintlock):
    """`help` lists what to type at the prompt, not `tracker ...` lines and --db, which the
    shell would refuse; a command's help shows its usage and examples the same way."""
    lines = ["help", "roll --help", "help import", "threat add -h", "help frobnicate"]
    result = glintlock(["shell"], input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    shown = result.stdout
    assert "Usage: tracker" not in shown
    assert [line for line in shown.splitlines() if line.lstrip().startswith("tracker ")] == []
    assert "--db" not in shown
    assert "--campaign" not in shown
    assert "`help COMMAND` (or `COMMAND --help`)" in shown
    assert "  roll            Roll a character's skill or stat and log it." in shown
    assert "  shell " not in shown  # refused inside the shell
    assert "Usage: roll [OPTIONS] CHARACTER TRAIT" in shown
    assert "    roll Wren Grit --tag 1:gear --tag 1:power" in shown
    assert "Usage: import [OPTIONS] FILE" in shown
    assert "Usage: threat add [OPTIONS] AMOUNT" in shown
    assert "    threat add 1 --reason" in shown
    assert "No such command 'frobnicate'" in result.stderr


def test_a_rolls_help_in_the_shell_lists_the_options_of_the_campaign_in_use(glintlock):
    """The shell's campaign, followed through `campaign use`, says which options apply."""
    glintlock.ok("campaign new Drift --system gloom")
    glintlock.ok("campaign use 'Ashes of Veyra'")
    lines = ["roll --help", "campaign use Drift", "help roll"]
    result = glintlock(["shell"], input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    ashes, drift = result.stdout.split("Drift", 1)
    assert "Glintlock options:" in ashes
    assert "--tag N[:KIND]" in ashes
    assert "Gloom options:" not in ashes
    assert "Gloom options:" in drift
    assert "Glintlock options:" not in drift


def _completer(db) -> tuple[Tracker, Completer]:
    tracker = Tracker(str(db))
    return tracker, Completer({"tracker": tracker, "db": str(db), "campaign": None})


def test_completion_offers_commands_then_characters_then_traits(glintlock):
    tracker, complete = _completer(glintlock.db)
    assert {"roll", "spend", "status", "undo"} <= set(complete.words([]))
    assert complete.words(["roll"]) == ["Tomas", "Wren"]
    assert complete.words(["roll", "Wren"]) == ["Grit", "Wits"]
    assert complete.words(["roll", "Wren"], "g") == ["Grit"]
    assert complete.words(["spend"]) == ["Tomas", "Wren"]
    tracker.close()


def test_completion_offers_what_fits_each_position(glintlock):
    glintlock.ok('campaign new "Second Table" --system glintlock')
    glintlock.ok("campaign use 'Ashes of Veyra'")
    glintlock.ok("session start")
    glintlock.ok("condition set Wren 'broken arm'")
    tracker, complete = _completer(glintlock.db)
    kinds = complete.words(["spend", "Wren"])
    assert {"steel-yourself", "advantage-die", "class-feature"} <= set(kinds)
    assert "Grit" not in kinds
    assert complete.words(["spend", "Wren"], "st") == ["steel-yourself"]
    assert complete.words(["threat", "spend"]) == ["free", "soft", "hard", "dire"]
    assert complete.words(["gain", "Wren"]) == [
        "deep-cut",
        "lean-into-condition",
        "invoke-weakness",
    ]
    assert complete.words(["campaign", "use"]) == ["Ashes of Veyra", "Second Table"]
    assert complete.words(["contest", "Wren", "Grit", "Tomas"]) == ["Grit", "Wits"]
    assert complete.words(["condition", "clear", "Wren"]) == ["broken arm"]
    options = complete.words(["roll", "Wren", "Grit"], "--")
    assert {"--tag", "--dice", "--secret", "--json"} <= set(options)
    assert "--db" not in options  # given when the shell starts, never on a line
    assert complete.words(["frobnicate"]) == []
    tracker.close()


def test_the_shell_refuses_db_and_campaign_on_a_line_and_follows_campaign_use(glintlock):
    glintlock.ok('campaign new "Second Table" --system glintlock')
    glintlock.ok("campaign use 'Ashes of Veyra'")
    other = glintlock.db.parent / "other.db"
    script = "\n".join(
        [
            "note 'for the second table' --campaign 'Second Table'",
            f"note 'for another file' --db {other}",
            f"note 'again' --db={other}",
            "campaign use 'Second Table'",
            "note 'now at the second table'",
        ]
    )
    result = glintlock(["--campaign", "Ashes of Veyra", "shell"], input=script + "\n")
    assert result.stderr.count("--db and --campaign are given when the shell starts") == 3
    assert 'Now playing "Second Table"' in result.stdout
    notes = {
        name: [
            e["payload"]["text"]
            for e in glintlock.json(["--campaign", name, "log"])["events"]
            if e["type"] == "NoteAdded"
        ]
        for name in ("Ashes of Veyra", "Second Table")
    }
    assert notes == {"Ashes of Veyra": [], "Second Table": ["now at the second table"]}
    assert not other.exists()


@pytest.mark.slow
def test_at_a_terminal_a_completed_word_is_followed_by_a_space_and_ctrl_d_ends_the_line(
    glintlock, tmp_path
):
    """Typed as at the table: `roll Wr<Tab>Gr<Tab>` is `roll Wren Grit `, not `WrenGr`; and
    Ctrl-D leaves the terminal on a line of its own, not after the prompt."""
    glintlock.ok("session start")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ["HOME"],
        "XDG_DATA_HOME": os.environ["XDG_DATA_HOME"],
        "TERM": "xterm",
    }
    typist = Typist([str(TRACKER), "--db", str(glintlock.db), "shell"], env, tmp_path)
    try:
        typist.wait_for("Ashes of Veyra> ")
        typist.type("roll Wr\t")
        typist.wait_for("roll Wren ", timeout=10)
        typist.type("Gr\t")
        typist.wait_for("roll Wren Grit ", timeout=10)
        typist.type("--tag 1:gear --dice 15\r")
        typist.wait_for("+1 Threat (1)\nAshes of Veyra> ")  # the prompt again
        typist.type("\x04")
        shown = typist.until_closed()
    finally:
        typist.close()
    assert shown.endswith("Ashes of Veyra> \n"), shown[-80:]
    rolled = json.loads(glintlock.ok("export rolls --format jsonl").stdout.splitlines()[-1])
    assert (rolled["character"], rolled["trait"], rolled["dice"]) == ("Wren", "Grit", [15])


@pytest.fixture
def spaced(run):
    """Names and traits with spaces and parentheses, as a GCS import makes them."""
    run.ok('campaign new "Iron and Ink" --system gurps')
    run.ok(
        'character add "Ilsa Varga" --stat IQ=11 --skill "Guns (Pistol)=14" '
        '--skill "Guns (Rifle)=13"'
    )
    run.ok("character add Kade --stat IQ=10")
    run.ok("session start")
    return run


@pytest.mark.parametrize(
    ("typed", "completed"),
    [
        ("roll Il", ['roll "Ilsa Varga" ']),
        ("roll il", ['roll "Ilsa Varga" ']),
        ('roll "Ilsa V', ['roll "Ilsa Varga" ']),
        ("roll 'Ilsa V", ["roll 'Ilsa Varga' "]),
        ("roll Ilsa\\ V", ['roll "Ilsa Varga" ']),
        ('roll "Ilsa Varga" "Guns (P', ['roll "Ilsa Varga" "Guns (Pistol)" ']),
        ("roll Ilsa\\ Varga Guns\\ \\(R", ['roll Ilsa\\ Varga "Guns (Rifle)" ']),
        (
            "roll 'Ilsa Varga' Gu",
            ["roll 'Ilsa Varga' \"Guns (Pistol)\" ", "roll 'Ilsa Varga' \"Guns (Rifle)\" "],
        ),
        ('roll "Ilsa Varga" I', ['roll "Ilsa Varga" IQ ']),
        ("roll K", ["roll Kade "]),
        ('roll "Nobody', []),
    ],
)
def test_tab_completes_names_and_traits_with_spaces_quoted_or_not(spaced, typed, completed):
    """Tab is given the line before the cursor and gives back whole lines: the word under the
    cursor completed, in the quotes the GM opened, else quoted when it holds a space."""
    tracker, complete = _completer(spaced.db)
    assert complete.lines(typed) == completed
    for line in completed:  # each completed line reads as the words it shows
        assert shlex.split(line)[1] in ("Ilsa Varga", "Kade")
    tracker.close()


@pytest.mark.slow
def test_at_a_terminal_tab_completes_a_quoted_name_and_trait_with_spaces(spaced, tmp_path):
    """Typed as at the table, quoted and unquoted: the line completed runs as it reads, and
    a second Tab lists the words that fit, not the lines readline holds."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ["HOME"],
        "XDG_DATA_HOME": os.environ["XDG_DATA_HOME"],
        "TERM": "xterm",
    }
    typist = Typist([str(TRACKER), "--db", str(spaced.db), "shell"], env, tmp_path)
    try:
        typist.wait_for("Iron and Ink> ")
        typist.type('roll "Ilsa V\t')
        typist.wait_for('roll "Ilsa Varga" ', timeout=10)
        # Readline redraws a line a completion changed before its end: the screen is read
        # where text is only added, and the log says what the lines did.
        typist.type("Gu\t\t\t")  # the common start, a bell, then the list
        typist.wait_for("Guns (Pistol)  Guns (Rifle)\nIron and Ink> ", timeout=10)
        typist.type("R\t--dice 3,3,4\r")
        typist.wait_for("Guns (Rifle) 13 = effective 13")
        typist.type("roll Ilsa\\ V\tIQ --dice 3,3,3\r")
        typist.wait_for("SUCCESS by 2")
    finally:
        typist.close()
    rows = spaced.ok("export rolls --format jsonl").stdout.splitlines()[-2:]
    rolled = [(r["character"], r["trait"]) for r in map(json.loads, rows)]
    assert rolled == [("Ilsa Varga", "Guns (Rifle)"), ("Ilsa Varga", "IQ")]
