"""The installed rule systems' own commands on the command line, made from their declarations.

A system's command (``tracker.systems.acts.SystemCommand``) that declares a command line
(``declared``) is offered as ``tracker WORD ...``: its first word a command of the root group,
a group when it has words after it (``tracker momentum spend``). A word tracker has a command
of its own for is tracker's: such a command is written by hand. The commands are made when
asked for (the root group's ``load_command``), anew each time, so a system installed or
removed since is seen (``registry.refresh``).
"""

from __future__ import annotations

from typing import Any

import click

from tracker.cli.declared import BySystem, make_command
from tracker.cli.options import NumberArgs, emit_json, open_tracker
from tracker.cli.render import warn
from tracker.errors import BadInput
from tracker.systems.acts import SystemCommand
from tracker.systems.base import RuleSystem
from tracker.systems.capabilities import OwnCommands, able


def _declared(built_in: bool = False) -> list[tuple[RuleSystem, SystemCommand]]:
    from tracker.cli.index import MODULES
    from tracker.systems import registry

    found = []
    for system, command in registry.command_lines():
        if command.path[0] in MODULES or (built_in and not registry.built_in(system)):
            continue
        found.append((system, command))
    return found


def names(*, built_in: bool = False) -> list[str]:
    """The first words of every installed system's commands tracker does not have already;
    ``built_in``: of tracker's own systems only."""
    return sorted({command.path[0] for _, command in _declared(built_in)})


def load(name: str) -> click.Command | None:
    """The command (or group) the installed systems declare as ``name``; None if none does."""
    mine = [(s, c) for s, c in _declared() if c.path[0] == name]
    return _made(mine, 0) if mine else None


def _made(commands: list[tuple[RuleSystem, SystemCommand]], depth: int) -> click.Command:
    """The command at ``depth`` words into the paths of ``commands`` (which share those):
    the one command ending there, else a group of the words that follow."""
    here = [(s, c) for s, c in commands if len(c.path) == depth + 1]
    if here:
        return _leaf(here[0][1])  # the first system's declaration of a path counts
    name = commands[0][1].path[depth]
    below: dict[str, list[tuple[RuleSystem, SystemCommand]]] = {}
    for system, command in commands:
        below.setdefault(command.path[depth + 1], []).append((system, command))
    titles = " and ".join(dict.fromkeys(s.title for s, _ in commands))
    whats = ", ".join(dict.fromkeys(c.what for _, c in commands))
    said = next((c.declared.group_help for _, c in commands if c.declared.group_help), None)
    group = click.Group(name, help=said or f"{titles}: {whats}.")
    for word, theirs in sorted(below.items()):
        group.add_command(_made(theirs, depth + 1), word)
    return group


def _leaf(command: SystemCommand) -> click.Command:
    path = command.path

    def handler(as_json: bool = False, **values: Any) -> None:
        from tracker.cli.play import CommandTerminal, done_lines
        from tracker.systems import registry

        if command.taken is not None:
            try:
                values = command.taken(values)
            except BadInput as exc:
                raise click.UsageError(str(exc)) from None
        tracker = open_tracker()
        # Several systems may declare this command line: a value only another system's command
        # takes is refused by name, not dropped.
        registry.refuse_others(registry.get(tracker.campaign().system), path, values)
        logged = tracker.acting.run(path, **values)
        if as_json:
            emit_json(logged.doc)
            return
        # The campaign's system's command at the path, as the values choose it (``spend``).
        rules = logged.state.rules
        render = registry.command(rules, path, values).render
        if render is not None:
            lines = render(logged.doc, CommandTerminal(rules))
        else:
            lines = [f"Logged: tracker {' '.join(path)}."]
        for line in lines:
            click.echo(line)
        for ob in [*logged.opened, *logged.raised]:
            click.echo(warn(ob.what))
        for line in done_lines(logged.discharged, rules, lambda kind: kind.replace("-", " ")):
            click.echo(line)

    assert command.declared is not None
    declared = command.declared
    numbers = declared.negative or any(a.kind == "int" for a in declared.arguments)
    # A number given as an argument may be negative (`-2`): the command's own rules say no.
    cls: type[click.Command] = NumberArgs if numbers else click.Command
    readers = _readers(path)
    if not readers:
        return make_command(declared, handler, cls=cls)
    # A command line several systems declare (`tracker spend`): its help and Tab say whose
    # each option is, as `tracker roll`'s do.
    shared = type(cls.__name__, (cls, BySystem), {}) if cls is not click.Command else BySystem
    return make_command(declared, handler, cls=shared, reads=lambda: _readers(path))


def _readers(path: tuple[str, ...]) -> dict[str, set[str]]:
    """The systems whose commands at ``path`` take each option some but not all of them take,
    by the option's name (a field of the command's request); none where one system alone
    declares the path."""
    from tracker.systems import registry

    having = [
        s for s in registry.systems() if any(c.path == path for c in able(s, OwnCommands).commands)
    ]
    if len(having) < 2:
        return {}
    found: dict[str, set[str]] = {}
    for system in having:
        for c in able(system, OwnCommands).commands:
            if c.path == path:
                for name in c.request.__struct_fields__:
                    found.setdefault(name, set()).add(system.name)
    return {name: whose for name, whose in found.items() if len(whose) < len(having)}
