"""Docs cannot drift: every command has help text and is in the README, which names only files
of the project."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from tracker.cli import cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def leaf_commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    out = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        path = f"{prefix}{name}"
        if isinstance(command, click.Group):
            out.extend(leaf_commands(command, path + " "))
        else:
            out.append((path, command))
    return out


COMMANDS = leaf_commands(cli)


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[p for p, _ in COMMANDS])
def test_every_command_has_help_and_is_in_the_readme(path, command):
    assert (command.help or "").strip(), f"tracker {path} has no help text"
    assert f"tracker {path}" in README, f"tracker {path} is missing from the README"


def test_every_help_page_renders(run):
    for path, _ in COMMANDS:
        result = run([*path.split(), "--help"])
        assert result.exit_code == 0, path
        assert "Usage:" in result.stdout


def test_every_command_module_is_mapped_so_lazy_loading_finds_it():
    import importlib

    from tracker.cli import COMMAND_MODULES

    for module_name in set(COMMAND_MODULES.values()):
        module = importlib.import_module(f"tracker.cli.{module_name}")
        for command in module.COMMANDS:
            assert COMMAND_MODULES.get(command.name) == module_name, command.name


def test_the_readme_names_no_path_outside_the_project():
    assert "../" not in README, "README.md points outside the project"
    for path in re.findall(r"`([^`\s]+)`", README):
        path = path.split("::", 1)[0]
        assert not path.startswith("/"), f"README.md names {path}, outside the project"
        if path.split("/", 1)[0] in {".ci", "fixtures", "migrations", "tests", "tracker"}:
            assert (ROOT / path).exists(), f"README.md names {path}, which the project lacks"


def test_the_command_reference_is_what_the_command_line_says():
    from tracker.cli.reference import reference

    written = (ROOT / "tracker" / "cli" / "COMMANDS.md").read_text(encoding="utf-8")
    assert written == reference(), (
        "tracker/cli/COMMANDS.md is stale; run "
        "`python -m tracker.cli.reference --write tracker/cli/COMMANDS.md`"
    )
    assert "[tracker/cli/COMMANDS.md](tracker/cli/COMMANDS.md)" in README


def test_the_reference_names_every_command_and_option():
    from tracker.cli.reference import reference

    text = reference()
    for path, command in COMMANDS:
        assert f"\ntracker {path}" in text, path
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                assert f"`{param.opts[0]}" in text or f", {param.opts[0]}" in text, (
                    path,
                    param.opts,
                )
