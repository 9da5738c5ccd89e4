"""Declared commands run by name, with the values a form sent: how a front door other than
the command line (the web console, a player's phone) acts at the table.

Each action is a declaration and the call the command line makes for it: one of the core's
bindings (``tracker.app.declared.BINDINGS``, the one table of them), or a rule system's own
command (``SystemCommand``, run by ``tracker.app.acting.Acting.run``). The values
are read as the declaration says (``tracker.systems.commands.taken``: what click's parser
does for the command line), then handed to the same handler, decided under the store's write
lock; a refusal is a ``TrackerError`` with one sentence, and nothing is appended.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tracker.app import declared as d
from tracker.app.declared import Done
from tracker.app.names import unfit_value
from tracker.errors import BadInput, NotFound
from tracker.systems import registry
from tracker.systems.base import RuleSystem
from tracker.systems.capabilities import OwnCommands, able
from tracker.systems.commands import Command, taken

if TYPE_CHECKING:
    from tracker.app.tracker import Tracker


def declaration(rules: RuleSystem, path: tuple[str, ...]) -> Command:
    """What the action at ``path`` takes in a campaign of ``rules``: a roll or a contest with
    the options that system reads, a system's own command as it declares it."""
    if path == d.ROLL.path:
        return registry.with_options(d.ROLL, "roll_options", "--secret", rules)
    if path == d.CONTEST.path:
        return registry.with_options(d.CONTEST, "contest_options", "--seed", rules)
    if path in d.BINDINGS:
        return d.BINDINGS[path].declared
    for command in able(rules, OwnCommands).commands:
        if command.path == path and command.declared is not None and command.logs:
            return command.declared
    raise NotFound(f"There is no command {' '.join(path)[:60]!r} here; pick one the page offers.")


def declarations(rules: RuleSystem) -> list[Command]:
    """Every action a campaign of ``rules`` offers: the core's, then its system's own that log
    (a listing such as ``project status`` is the command line's)."""
    found = [
        declaration(rules, path)
        for path, action in d.BINDINGS.items()
        if action.needs is None or rules.has(action.needs)
    ]
    seen = set(d.BINDINGS)
    for command in able(rules, OwnCommands).commands:
        if command.declared is not None and command.logs and command.path not in seen:
            seen.add(command.path)
            found.append(command.declared)
    return found


def fit(path: tuple[str, ...], values: Mapping[str, Any]) -> None:
    """Refuse, naming it, a value the command line would refuse as typed: text too long, with
    a control character or one that cannot be stored, a number past any count."""
    for name, value in values.items():
        for one in value if isinstance(value, list) else [value]:
            problem = unfit_value(one)
            if problem is not None:
                said = " ".join(path)[:40]
                raise BadInput(f"{said}: {str(name)[:40].replace('_', ' ')} {problem}.")


def perform(tracker: Tracker, path: tuple[str, ...], values: Mapping[str, Any]) -> Done:
    """Run the action at ``path`` with ``values`` (by argument and option name) in the
    tracker's campaign, as the command line runs it."""
    fit(path, values)
    rules = tracker.state().rules
    given = taken(declaration(rules, path), values)
    if path in d.BINDINGS:
        return d.BINDINGS[path].run(tracker, given)
    command = registry.command(rules, path, given)
    if command.taken is not None:
        given = command.taken(given)
    return tracker.acting.run(path, **given)
