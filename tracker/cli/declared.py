"""Click commands made from declarations (``tracker.systems.commands``).

A declaration says what a command takes; this makes the click command that parses it, with the
completion each argument and option names, and calls the handler with what was given. Help,
Tab, ``tracker shell`` and ``COMMANDS.md`` then read that one command.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Any

import click

from tracker.cli import complete
from tracker.cli.options import Difficulty, output_params, use_db
from tracker.systems.commands import Argument, Command, Option

# What each name a declaration gives for ``complete`` is completed by; the ones that take a
# character read it from the argument named after the colon ("traits:a"), else "character".
_COMPLETIONS: dict[str, Callable[[str], complete.Completions]] = {
    "characters": lambda _: complete.characters,
    "traits": complete.traits_of,
    "conditions": complete.conditions_of,
    "spend_kinds": lambda _: complete.spend_kinds,
    "difficulties": lambda _: complete.difficulties,
    "campaigns": lambda _: complete.campaigns,
    "projects": lambda _: complete.projects,
}


def completion(name: str | None) -> complete.Completions | None:
    """The completion a declaration names, or None."""
    if name is None:
        return None
    what, _, of = name.partition(":")
    return _COMPLETIONS[what](of or "character")


def _type(kind: str, choices: Iterable[str] | None) -> Any:
    if kind == "choice":
        return click.Choice(list(choices or ()))
    if kind == "difficulty":
        return Difficulty()
    return int if kind == "int" else str


def click_option(option: Option, help: str | None = None) -> click.Option:
    """``option`` as click takes it; ``help`` for words other than the declaration's own."""
    settings: dict[str, Any] = {"help": option.help if help is None else help}
    if option.is_flag:
        settings["is_flag"] = True
    else:
        settings["type"] = _type(option.kind, option.choices)
    if option.show_default:
        settings["show_default"] = True
    if option.required:
        settings["required"] = True
    # Only a default that is there is given: click tells "no default" from a default of None.
    if option.default is not None:
        settings["default"] = option.default
    if option.multiple:
        settings["multiple"] = True
    if option.metavar:
        settings["metavar"] = option.metavar
    if option.complete:
        settings["shell_complete"] = completion(option.complete)
    return click.Option([option.flag, option.name], **settings)


def click_argument(argument: Argument) -> click.Argument:
    settings: dict[str, Any] = {"type": _type(argument.kind, argument.choices)}
    if argument.nargs != 1:
        settings["nargs"] = argument.nargs
    if not argument.required:
        settings["required"] = False
    if argument.default is not None:
        settings["default"] = argument.default
    if argument.metavar:
        settings["metavar"] = argument.metavar
    if argument.complete:
        settings["shell_complete"] = completion(argument.complete)
    return click.Argument([argument.name], **settings)


def make_command(
    declared: Command,
    handler: Callable[..., Any],
    *,
    cls: type[click.Command] = click.Command,
    output: bool = True,
    params: Iterable[click.Parameter] = (),
    **settings: Any,
) -> click.Command:
    """The click command ``declared`` describes, calling ``handler`` with its arguments and
    options by name. ``output`` adds ``--json`` and ``--db``/``--campaign`` (as
    ``output_options`` does); ``params`` are made by the caller (options worded per system)
    and stand after the declared options."""
    made: list[click.Parameter] = [click_argument(a) for a in declared.arguments]
    made += [click_option(o) for o in declared.options]
    made += params
    callback = handler
    if output:
        made += output_params()

        @functools.wraps(handler)
        def callback(*args: Any, db_override=None, campaign_override=None, **kwargs: Any) -> Any:
            use_db(db_override, campaign_override)
            return handler(*args, **kwargs)

    return cls(
        declared.name,
        callback=callback,
        params=made,
        help=inspect.cleandoc(declared.help),
        short_help=declared.short_help,
        **settings,
    )
