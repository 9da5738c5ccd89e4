"""Docs cannot drift: every command has help text and appears in the README's tour."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from tracker.cli import cli

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def leaf_commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    out = []
    for name, command in sorted(group.commands.items()):
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
