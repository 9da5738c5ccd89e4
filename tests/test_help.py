"""Help a person can act on: every command's help shows it used, every example in any help is
one the command line takes as typed, and every option says what it is for."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
from test_docs import COMMANDS

from tracker.cli import cli

ROOT = Path(__file__).resolve().parent.parent
HEADING = re.compile(r"^\s*Examples?\b.*:\s*(tracker .*)?$")


def examples(help_text: str) -> list[str]:
    """The command lines a help text shows: each `tracker ...` line (or `$(tracker ...)`), up to
    what it says about itself two spaces on, or the next command in the line."""
    found = []
    for line in help_text.splitlines():
        for shown in re.findall(r"(?:^\s*(?:Examples?:\s*)?|\$\()(tracker [^)\n]*)", line):
            shown = re.split(r"\s{2,}| && | \| | #", shown)[0]
            found.append(shown.strip())
    return found


def parse(words: list[str]) -> click.Command:
    """Parse ``words`` as `tracker` would, down to the command they name, without running it."""
    ctx = cli.make_context("tracker", list(words))
    command: click.Command = cli
    while isinstance(command, click.Group):
        rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
        name, command, rest = command.resolve_command(ctx, rest)
        ctx = command.make_context(name, rest, parent=ctx)
    return command


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[p for p, _ in COMMANDS])
def test_every_commands_help_shows_it_used(path, command):
    text = command.help or ""
    assert any(HEADING.match(line) for line in text.splitlines()), f"tracker {path}: no example"
    assert any(e.startswith(f"tracker {path}") or f" {path}" in e for e in examples(text)), (
        f"tracker {path}: its examples do not use it"
    )


ALL_EXAMPLES = sorted({e for _, command in COMMANDS for e in examples(command.help or "")})


@pytest.mark.parametrize("example", ALL_EXAMPLES)
def test_every_example_is_a_line_tracker_takes(example, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    words = shlex.split(example)[1:]
    for word in words:  # a file an example reads: there, as it would be at the table
        if re.fullmatch(r"[\w.-]+\.(jsonl|txt|toml|json|gcs|csv)", word):
            (tmp_path / word).touch()
    try:
        parse(words)
    except click.ClickException as exc:
        pytest.fail(f"{example!r} is refused: {exc.format_message()}")


def test_the_examples_are_read_from_every_help():
    assert len(ALL_EXAMPLES) > len(COMMANDS)
    assert 'tracker condition set Vora "broken arm" --duration 2 --unit sessions' in ALL_EXAMPLES
    assert "tracker completion bash" in ALL_EXAMPLES  # from eval "$(...)"
    with pytest.raises(click.NoSuchOption):
        parse(["roll", "Wren", "Grit", "--frobnicate"])


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[p for p, _ in COMMANDS])
def test_every_option_says_what_it_is_for(path, command):
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            assert param.help, f"tracker {path} {param.opts[0]} has no help"


def test_an_options_help_leads_with_what_the_forms_call_it():
    """The console and the phones name a field in words ("the table's dice", "difficulty");
    `--help` says the same words beside the flag, so one leads to the other."""
    from click.testing import CliRunner

    shown = CliRunner().invoke(cli, ["roll", "--help"], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    lines = {
        line.split()[0]: " ".join(line.split()[1:])
        for line in shown.output.splitlines()
        if line.strip().startswith("--")
    }
    assert lines["--dice"].endswith(
        "the table's dice: physical dice rolled at the table, as shown."
    )
    # A system's option: its label, under the heading of the system that reads it.
    assert "difficulty: the floor the die must roll above" in lines["--dl"]
    assert lines["--override"].startswith("roll past Threat 6: the GM lets the roll stand")
    # The flag's own words are no label to repeat.
    assert lines["--advantage"] == "roll 2d20, keep the best."


def sections(text: str) -> dict[str, list[str]]:
    """A help page's option headings ("Options", "GURPS options"), each with its flags."""
    found: dict[str, list[str]] = {}
    heading = None
    for line in text.splitlines():
        if re.fullmatch(r"(\S.* )?[Oo]ptions:", line):
            heading = found.setdefault(line.removesuffix(":"), [])
        elif heading is not None and line.strip().startswith("-"):
            heading.append(line.split()[0].rstrip(","))
    return found


def test_with_no_campaign_roll_help_lists_each_systems_options_under_its_own_heading(run):
    shown = sections(run.ok("roll --help").stdout)
    assert list(shown) == ["Options", "Gloom options", "GURPS options", "Glintlock options"]
    assert shown["Options"] == ["--secret", "--dice", "--seed", "--json", "-h"]
    assert {"--dl", "--advantage", "--no-panic"} <= set(shown["Gloom options"])
    assert {"--mod", "--defense", "--danger"} <= set(shown["GURPS options"])
    assert {"--tag", "--story", "--override"} <= set(shown["Glintlock options"])
    contest = sections(run.ok("contest --help").stdout)
    assert list(contest) == ["Options", "Gloom options", "GURPS options"]
    assert "--dl-a" in contest["Gloom options"]
    assert "--mod-a" in contest["GURPS options"]
    # A command line two systems declare says whose each option is, as a roll's does.
    spend = sections(run.ok("spend --help").stdout)
    assert spend == {
        "Options": ["--json", "-h"],
        "GURPS options": ["--to"],
        "Glintlock options": ["--cost", "--condition", "--note"],
    }


@pytest.mark.parametrize(
    ("words", "heading", "other"),
    [
        ("--db {db} roll --help", "GURPS options", "--dl"),
        ("--db {db} --campaign Drift roll --help", "Gloom options", "--mod"),
        ("roll --db {db} --campaign drift --help", "Gloom options", "--tag"),
        ("roll --help --db {db} --campaign Drift", "Gloom options", "--mod"),
        ("--db {db} contest --help", "GURPS options", "--dl-a"),
        ("--db {db} spend --help", "GURPS options", "--cost"),
    ],
)
def test_with_a_campaign_roll_help_lists_its_systems_options_alone(run, words, heading, other):
    from click.testing import CliRunner

    run.ok("campaign new Drift --system gloom")
    run.ok("campaign new Vora --system gurps")  # the current one, made last
    shown = CliRunner().invoke(cli, shlex.split(words.format(db=run.db)))
    assert shown.exit_code == 0, shown.output
    found = sections(shown.stdout)
    assert list(found) == ["Options", heading]
    assert "--json" in found["Options"]
    assert other not in [flag for flags in found.values() for flag in flags]
    if " roll " in f" {words} ":
        # Nor does an example show it: the help and examples are its system's own.
        assert other not in shown.stdout
        assert "Examples:" in shown.stdout
