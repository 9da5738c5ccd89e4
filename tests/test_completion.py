"""Tab completion in bash, zsh and fish, outside `tracker shell`: the scripts `tracker completion`
prints, the answers the installed command gives them, and each shell typing a real line."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shlex
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracker.cli import cli

TRACKER = Path(sys.executable).with_name("tracker")
SHELLS = {
    # argv, and the line that turns completion on (as the completion command's help says)
    "bash": (["bash", "--norc", "--noprofile", "-i"], 'eval "$(tracker completion bash)"'),
    "zsh": (
        ["zsh", "-f", "-i"],
        'autoload -Uz compinit && compinit -u; eval "$(tracker completion zsh)"',
    ),
    "fish": (["fish", "--no-config", "-i"], "tracker completion fish | source"),
}


@pytest.fixture
def table(run):
    """A GURPS campaign beside a Gloom one, with names that need quoting on a command line."""
    run.ok('campaign new "Neon Drift" --system gloom')
    run.ok("character add Kade --stat Body=2 --skill Hacking=3")
    run.ok('campaign new "Iron and Ink" --system gurps')
    run.ok(
        'character add "Old Mira" --stat ST=10 --stat DX=12 --stat IQ=11 --stat HT=10 '
        '--skill "Guns (Rifle)=14"'
    )
    run.ok("session start")
    return run


def answers(db: Path, shell: str, words: str) -> list[str]:
    """What `tracker` answers a shell's completion function for ``words``, the last word being
    the one under the cursor. (In this process, as the entry point would: the typed lines below
    and tests/test_install.py go through the installed command itself.)"""
    parts = shlex.split(words) + ([""] if words.endswith(" ") else [])
    env = {"TRACKER_DB": str(db), "_TRACKER_COMPLETE": f"{shell}_complete"}
    if shell == "fish":  # fish passes the line before the cursor, and the word being typed
        env |= {"COMP_WORDS": words, "COMP_CWORD": parts[-1]}
    else:
        env |= {"COMP_WORDS": words, "COMP_CWORD": str(len(parts) - 1)}
    result = CliRunner().invoke(cli, [], env=env, prog_name="tracker")
    assert result.exit_code == 0, result.output
    out = result.stdout
    if shell in ("bash", "fish"):  # type,value (fish: a tab, then the help)
        return [line.partition(",")[2].partition("\t")[0] for line in out.splitlines() if line]
    # zsh: type, value and description, a line each
    lines = out.splitlines() if out.strip() else []
    return [lines[i + 1] for i in range(0, len(lines), 3)]


@pytest.mark.parametrize("shell", list(SHELLS))
def test_each_shell_is_offered_what_fits_each_position(table, shell):
    db = table.db
    assert answers(db, shell, "tracker ro") == ["roll"]
    assert answers(db, shell, "tracker campaign use ") == ["Neon Drift", "Iron and Ink"]
    assert answers(db, shell, "tracker --campaign N") == ["Neon Drift"]
    assert answers(db, shell, "tracker roll ") == ["Old Mira"]
    traits = answers(db, shell, 'tracker roll "Old Mira" ')
    assert {"ST", "DX", "IQ", "HT", "Guns (Rifle)"} <= set(traits)
    assert answers(db, shell, 'tracker roll "Old Mira" Gu') == ["Guns (Rifle)"]
    assert answers(db, shell, "tracker --campaign 'Neon Drift' roll Kade ") == ["Body", "Hacking"]
    assert answers(db, shell, 'tracker spend "Old Mira" ') == ["buy-up"]
    assert answers(db, shell, "tracker --campaign 'Neon Drift' spend Kade ") == []
    assert {"--dice", "--secret", "--json"} <= set(answers(db, shell, "tracker roll Kade Body --"))


@pytest.mark.parametrize("shell", list(SHELLS))
def test_after_a_dash_each_system_is_offered_the_options_it_reads(table, shell):
    """A Glintlock roll is not offered --dl or --mod, which it would refuse: only its own
    options and those every system takes."""
    table.ok('campaign new "Ashes of Veyra" --system glintlock')
    table.ok("character add Wren --stat Grit=3")
    common = {"--dice", "--seed", "--secret", "--json"}
    others = {"--dl", "--advantage", "--no-panic", "--mod", "--defense", "--task", "--public"}
    offered = set(answers(table.db, shell, "tracker roll Wren Grit --"))
    assert {"--tag", "--story", "--trained", "--spell", *common} <= offered
    assert not offered & others
    gloom = set(answers(table.db, shell, "tracker --campaign 'Neon Drift' roll Kade Hacking --"))
    assert {"--dl", "--advantage", "--no-panic", *common} <= gloom
    assert not gloom & {"--tag", "--mod", "--trained"}
    gurps = set(answers(table.db, shell, "tracker --campaign 'Iron and Ink' contest X 9 Y 9 --"))
    assert {"--mod-a", "--supernatural", "--mode", "--dice-a"} <= gurps
    assert not gurps & {"--dl-a", "--advantage-a"}
    # A command line two systems declare: each campaign is offered its own system's options.
    spend = set(answers(table.db, shell, "tracker spend Wren steel-yourself --"))
    assert {"--cost", "--condition", "--note", "--json"} <= spend
    assert "--to" not in spend
    buy = set(answers(table.db, shell, "tracker --campaign 'Iron and Ink' spend Mira buy-up --"))
    assert {"--to", "--json"} <= buy
    assert not buy & {"--cost", "--condition", "--note"}
    settings = set(answers(table.db, shell, "tracker campaign set --"))
    assert {"--threat-carries-over", "--breaking-table", "--note"} <= settings
    assert not settings & {"--tie-rule", "--cinematic", "--tech-level"}


def test_a_database_that_does_not_exist_is_not_made_by_a_tab(tmp_path):
    db = tmp_path / "nowhere.db"
    assert answers(db, "bash", "tracker roll ") == []
    assert not db.exists()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish", None])
def test_the_completion_command_prints_each_shells_script(shell, monkeypatch):
    env = {**os.environ, "SHELL": f"/usr/bin/{shell or 'sh'}"}
    done = subprocess.run(
        [TRACKER, "completion"], env=env, capture_output=True, text=True, check=False
    )
    if shell is None:
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1
        assert "tracker completion bash|zsh|fish" in done.stderr
        return
    assert done.returncode == 0, done.stderr
    assert "_TRACKER_COMPLETE" in done.stdout
    named = subprocess.run([TRACKER, "completion", shell], capture_output=True, text=True)
    assert named.stdout == done.stdout


ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07|\r")


class Typist:
    """An interactive shell on a terminal of its own, typed into as a person would."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # pragma: no cover - the child becomes the shell
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        self.seen = ""

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def wait_for(self, text: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in ANSI.sub("", self.seen).replace("\x08", ""):
            left = deadline - time.monotonic()
            if left <= 0:
                shown = self.seen[-600:]
                raise AssertionError(f"never saw {text!r}; the terminal showed {shown!r}")
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.2))
            if ready:
                try:
                    self.seen += os.read(self.fd, 65536).decode(errors="replace")
                except OSError:
                    break

    def until_closed(self, timeout: float = 30.0) -> str:
        """What the terminal shows once the program on it has ended, escapes left out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                self.seen += chunk.decode(errors="replace")
        return ANSI.sub("", self.seen).replace("\x08", "")

    def close(self) -> None:
        try:
            os.kill(self.pid, 9)
        finally:
            os.waitpid(self.pid, 0)
            os.close(self.fd)


@pytest.mark.slow
@pytest.mark.parametrize("shell", list(SHELLS))
def test_a_line_completed_by_tab_in_each_shell_runs_as_meant(table, shell, tmp_path):
    """Names with spaces and parentheses come out quoted, so the completed line does what the
    words say: it switches the campaign, then logs a roll of Old Mira's Guns (Rifle)."""
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed (.ci/run installs it)")
    argv, turn_on = SHELLS[shell]
    env = {
        "PATH": f"{TRACKER.parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": os.environ["HOME"],
        "XDG_DATA_HOME": os.environ["XDG_DATA_HOME"],
        "TERM": "xterm",
        "TRACKER_DB": str(table.db),
        "PS1": "$ ",
    }
    typist = Typist(argv, env, tmp_path)
    try:
        typist.type(f"{turn_on}; echo COMPLETION-ON | tr A-Z a-z\r")
        typist.wait_for("completion-on")
        typist.type("tracker campaign use Ne\t")
        typist.wait_for("Neon\\ Drift")
        typist.type(" && echo USED-OK | tr A-Z a-z\r")
        typist.wait_for("used-ok")
        typist.type("tracker campaign use Ir\t")
        typist.wait_for("Iron\\ and\\ Ink")
        typist.type("\r")
        typist.type("tracker roll Ol\t")
        typist.wait_for("Old\\ Mira")
        typist.type("Gu\t")
        typist.wait_for("Guns\\ \\(Rifle\\)")
        typist.type(" --dice 3,3,4 && echo ROLLED-OK | tr A-Z a-z\r")
        typist.wait_for("rolled-ok")
    finally:
        typist.close()
    rows = table.ok("export rolls --format jsonl").stdout.splitlines()
    rolled = json.loads(rows[-1])
    assert (rolled["character"], rolled["trait"]) == ("Old Mira", "Guns (Rifle)")
    assert rolled["dice"] == [3, 3, 4]


@pytest.mark.slow
@pytest.mark.parametrize("shell", list(SHELLS))
@pytest.mark.parametrize("quote", ['"', "'"])
def test_a_name_begun_in_quotes_is_completed_inside_them(table, shell, quote, tmp_path):
    """A GM who opens a quote before a name with spaces gets it completed inside the quote:
    `"Old M<Tab>` is `"Old Mira"`, never `"Old\\ Mira"`, whose backslash would be part of the
    name; the roll it completes logs Old Mira's Guns (Rifle)."""
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed (.ci/run installs it)")
    argv, turn_on = SHELLS[shell]
    env = {
        "PATH": f"{TRACKER.parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": os.environ["HOME"],
        "XDG_DATA_HOME": os.environ["XDG_DATA_HOME"],
        "TERM": "xterm",
        "TRACKER_DB": str(table.db),
        "PS1": "$ ",
    }
    typist = Typist(argv, env, tmp_path)
    try:
        typist.type(f"{turn_on}; echo COMPLETION-ON | tr A-Z a-z\r")
        typist.wait_for("completion-on")
        typist.type(f"tracker roll {quote}Old M\t")
        typist.wait_for(f"{quote}Old Mira{quote}")
        typist.type(f" {quote}Guns (R\t")
        typist.wait_for(f"{quote}Guns (Rifle){quote}")
        typist.type(" --dice 3,3,4 && echo ROLLED-OK | tr A-Z a-z\r")
        typist.wait_for("rolled-ok")
    finally:
        typist.close()
    rows = table.ok("export rolls --format jsonl").stdout.splitlines()
    rolled = json.loads(rows[-1])
    assert (rolled["character"], rolled["trait"]) == ("Old Mira", "Guns (Rifle)")


def test_a_tab_never_changes_a_file(run, tmp_path):
    """Completing reads a database of this tracker's schema as it stands, and nothing else: an
    older one is not upgraded, an empty file not made a database, no snapshot is written."""
    older = tmp_path / "older.db"
    shutil.copy(Path(__file__).parent.parent / "fixtures" / "db" / "schema-0001.db", older)
    empty = tmp_path / "empty.db"
    empty.touch()
    before = {p.name: p.read_bytes() for p in (older, empty)}
    assert answers(older, "bash", "tracker roll ") == []
    assert answers(empty, "bash", "tracker roll ") == []
    assert {p.name: p.read_bytes() for p in (older, empty)} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db", "older.db"]

    run.ok('campaign new "Neon Drift" --system gloom')
    run.ok("character add Kade --stat Body=2")
    with sqlite3.connect(run.db) as conn:
        conn.execute("DELETE FROM snapshots")
    assert answers(run.db, "bash", "tracker roll ") == ["Kade"]
    with sqlite3.connect(run.db) as conn:
        assert conn.execute("SELECT count(*) FROM snapshots").fetchone() == (0,)


def test_the_database_and_campaign_given_after_the_command_are_the_ones_completed(table):
    other = str(table.db) + ".none"
    line = f"tracker roll --db {table.db} --campaign 'Neon Drift' "
    assert answers(Path(other), "bash", line) == ["Kade"]
    assert not Path(other).exists()
    assert answers(table.db, "bash", "tracker roll --campaign 'Neon Drift' Kade ") == [
        "Body",
        "Hacking",
    ]
    assert not (Path.home() / ".local" / "share" / "tracker").exists()


def test_a_campaign_without_projects_is_offered_none_and_one_with_them_its_own(table):
    """What a system keeps by name (GURPS's projects) is asked of the campaign's system: a
    Gloom campaign, which keeps none, is offered nothing, never an error."""
    assert answers(table.db, "bash", "tracker project roll --campaign 'Neon Drift' ") == []
    table.ok("project start 'The Bridge' --skill Engineer --hours 400")
    line = "tracker project roll --campaign 'Iron and Ink' "
    assert answers(table.db, "bash", line) == ["The Bridge"]
