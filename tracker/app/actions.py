"""Declared commands run by name, with the values a form sent: how a front door other than
the command line (the web console, a player's phone) acts at the table.

Each action is a declaration (``tracker.app.declared``, or a rule system's own
``SystemCommand.declared``) and the app-layer call the command line makes for it. The values
are read as the declaration says (``tracker.systems.commands.taken``: what click's parser
does for the command line), then handed to the same handler, decided under the store's write
lock; a refusal is a ``TrackerError`` with one sentence, and nothing is appended.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tracker.app import declared as d
from tracker.app.declared import Done
from tracker.app.names import unfit_value
from tracker.errors import BadInput, NotFound
from tracker.systems import registry
from tracker.systems.base import Feature, RuleSystem
from tracker.systems.commands import Command, taken

if TYPE_CHECKING:
    from tracker.app.tracker import Tracker

Runner = Callable[["Tracker", dict[str, Any]], Done]


CORE: dict[tuple[str, ...], tuple[Command, Runner]] = {
    path: (action.declared, action.run) for path, action in d.LOGGING.items()
}
"""The core's actions, by path (``tracker.app.declared.LOGGING``), each run as the command line
runs it."""

NEEDS: dict[tuple[str, ...], str] = {
    d.CONTEST.path: Feature.CONTESTS,
    d.STRESS.path: Feature.STRESS,
}
"""The core's actions only a system with the feature plays: a page offers no form that could
only be refused (a Glintlock table has no contests); run anyway, each is refused as the command
line refuses it."""


def declaration(rules: RuleSystem, path: tuple[str, ...]) -> Command:
    """What the action at ``path`` takes in a campaign of ``rules``: a roll or a contest with
    the options that system reads, a system's own command as it declares it."""
    if path == d.ROLL.path:
        return registry.with_options(d.ROLL, "roll_options", "--secret", rules)
    if path == d.CONTEST.path:
        return registry.with_options(d.CONTEST, "contest_options", "--seed", rules)
    if path in CORE:
        return CORE[path][0]
    for command in rules.commands:
        if command.path == path and command.declared is not None and command.logs:
            return command.declared
    raise NotFound(f"There is no command {' '.join(path)[:60]!r} here; pick one the page offers.")


def declarations(rules: RuleSystem) -> list[Command]:
    """Every action a campaign of ``rules`` offers: the core's, then its system's own that log
    (a listing such as ``project status`` is the command line's)."""
    found = [
        declaration(rules, path) for path in CORE if path not in NEEDS or rules.has(NEEDS[path])
    ]
    seen = set(CORE)
    for command in rules.commands:
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
    if path in CORE:
        return CORE[path][1](tracker, given)
    command = registry.command(rules, path, given)
    if command.taken is not None:
        given = command.taken(given)
    return tracker.acting.run(path, **given)
