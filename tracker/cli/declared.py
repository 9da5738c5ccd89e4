"""Click commands made from declarations (``tracker.systems.commands``).

A declaration says what a command takes; this makes the click command that parses it, with the
completion each argument and option names, and calls the handler with what was given. Help,
Tab, ``tracker shell`` and ``COMMANDS.md`` then read that one command.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Iterable
from typing import Any

import click

from tracker.cli import complete
from tracker.cli.options import (
    QUIET_HELP,
    Difficulty,
    SystemName,
    db_params,
    output_params,
    use_db,
)
from tracker.systems.commands import Argument, Command, Option

QUIET = Option("--quiet", QUIET_HELP, "bool", short="-q")
"""``-q/--quiet`` after a long command (an export, an import, verify): no progress bar, even on
a terminal. The command's handler hands its value to ``options.hush``."""

# What each name a declaration gives for ``complete`` is completed by; the ones that take a
# character read it from the argument named after the colon ("traits:a"), else "character".
# Any other name is of what the campaign's system keeps (``complete.named``).
_COMPLETIONS: dict[str, Callable[[str], complete.Completions]] = {
    "characters": lambda _: complete.characters,
    "traits": complete.traits_of,
    "conditions": complete.conditions_of,
    "spend_kinds": lambda _: complete.spend_kinds,
    "difficulties": lambda _: complete.difficulties,
    "campaigns": lambda _: complete.campaigns,
}


def completion(name: str | None) -> complete.Completions | None:
    """The completion a declaration names, or None."""
    if name is None:
        return None
    what, _, of = name.partition(":")
    if what not in _COMPLETIONS:
        return complete.named(what)
    return _COMPLETIONS[what](of or "character")


def _type(
    kind: str,
    choices: Iterable[str] | None,
    case_sensitive: bool = True,
    limits: tuple[int, int] | None = None,
) -> Any:
    if kind == "choice":
        return click.Choice(list(choices or ()), case_sensitive=case_sensitive)
    if kind == "int" and choices is not None:
        # One of some numbers: given as its digits, taken as the number.
        return click.Choice([int(c) for c in choices], case_sensitive=case_sensitive)
    if kind == "int" and limits is not None:
        return click.IntRange(*limits)
    if kind == "difficulty":
        return Difficulty()
    if kind == "file":
        return click.Path(dir_okay=False)
    if kind == "input":
        return click.Path(exists=True, dir_okay=False, allow_dash=True)
    if kind == "system":
        return SystemName()
    return int if kind == "int" else str


class SignedChange(click.ParamType):
    """A change given as +N or -N, read as a form's is (``signed_change``)."""

    name = "change"

    def __init__(self, what: str) -> None:
        self.what = what

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        from tracker.errors import BadInput
        from tracker.systems.commands import signed_change

        try:
            return signed_change(value, self.what)
        except BadInput as exc:
            # The sentence a form's refusal says, not click's "Invalid value for '+N|-N'".
            raise click.UsageError(str(exc).rstrip("."), ctx) from None


def labelled(option: Option, help: str) -> str:
    """``help`` led by what a form calls the option, where its label is words of its own: "the
    table's dice: physical dice rolled at the table, as shown."; where the help starts with the
    system that reads the option ("Gloom: ..."), the system follows the label: "difficulty
    (Gloom): the floor the die must roll above, ...". So the words a player reads on the console
    and the phone find their flag here."""
    if option.label is None or option.label == option.flag.removeprefix("--").replace("-", " "):
        return help
    if option.system is not None:
        from tracker.systems import registry

        title = registry.get(option.system).title
        if help.startswith(f"{title}: "):
            return f"{option.label} ({title}): {_continued(help.removeprefix(title + ': '))}"
    return f"{option.label}: {_continued(help)}"


def _continued(sentence: str) -> str:
    """``sentence`` as it reads after a colon: its first word in lower case, unless it is a
    name ("GURPS", "A's", "Danger Sense")."""
    if re.match(r"(A|[A-Z][a-z]+)(?![\w'-])", sentence):
        return sentence[0].lower() + sentence[1:]
    return sentence


def click_option(option: Option, help: str | None = None) -> click.Option:
    """``option`` as click takes it; ``help`` for words other than the declaration's own. The
    help is led by the option's label (``labelled``)."""
    settings: dict[str, Any] = {"help": labelled(option, option.help if help is None else help)}
    flags = option.flag if option.off is None else f"{option.flag}/{option.off}"
    if option.off is not None:
        # Given in neither form, it is None: a change of setting is only what the GM said.
        settings["default"] = None
    if option.is_flag:
        settings["is_flag"] = True
    else:
        settings["type"] = _type(option.kind, option.choices, option.case_sensitive, option.limits)
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
    given = [flags, option.short] if option.short else [flags]
    return click.Option([*given, option.name], **settings)


def click_argument(argument: Argument) -> click.Argument:
    kind = _type(argument.kind, argument.choices, limits=argument.limits)
    settings: dict[str, Any] = {
        "type": SignedChange(argument.shown) if argument.kind == "change" else kind
    }
    if argument.nargs != 1:
        settings["nargs"] = argument.nargs
    if not argument.required or argument.nargs == -1:
        # click takes every word left (nargs -1) as optional unless told.
        settings["required"] = argument.required
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
    db: bool = False,
    later: Callable[[Command], Command] | None = None,
    **settings: Any,
) -> click.Command:
    """The click command ``declared`` describes, calling ``handler`` with its arguments and
    options by name. ``output`` adds ``--json`` and ``--db``/``--campaign`` (as
    ``output_options`` does); ``db``, without ``output``, only ``--db``/``--campaign`` (as
    ``db_options`` does), for a command that prints no JSON document. ``later`` completes the
    declaration: its parameters when they are first read (a help page, a parse, a Tab), not
    when the command is listed, and its help each time it is read: the options of every
    installed system (``with_systems``), whose loading a command that lists ``roll`` among
    others does not pay for."""

    def params(whole: Command) -> list[click.Parameter]:
        made: list[click.Parameter] = [click_argument(a) for a in whole.arguments]
        made += [click_option(o) for o in whole.options]
        return made + (output_params() if output else db_params() if db else [])

    callback = handler
    if output or db:

        @functools.wraps(handler)
        def callback(*args: Any, db_override=None, campaign_override=None, **kwargs: Any) -> Any:
            use_db(db_override, campaign_override)
            return handler(*args, **kwargs)

    if later is not None:
        cls = type(cls.__name__, (_Later, cls), {})
        settings["later"] = (lambda: later(declared), params)
    return cls(
        declared.name,
        callback=callback,
        params=None if later is not None else params(declared),
        help=inspect.cleandoc(declared.help),
        short_help=declared.short_help,
        **settings,
    )


class _Later(click.Command):
    """A command whose parameters are made when first read (``make_command``'s ``later``), and
    made again when the declaration they come from has changed since (a system installed or
    removed: ``registry.refresh``)."""

    def __init__(
        self,
        *args: Any,
        later: tuple[Callable[[], Command], Callable[[Command], list[click.Parameter]]],
        **kwargs: Any,
    ) -> None:
        self._declare, self._make = later
        self._made: tuple[Command, list[click.Parameter]] | None = None
        super().__init__(*args, **kwargs)

    @property  # type: ignore[override]
    def params(self) -> list[click.Parameter]:
        whole = self._declare()
        if self._made is None or self._made[0] != whole:
            self._made = (whole, self._make(whole))
        return self._made[1]

    @params.setter
    def params(self, value: list[click.Parameter]) -> None:
        """click sets the parameters it was given (none): they are made from the declaration."""

    @property  # type: ignore[override]
    def help(self) -> str:
        """The help of the declaration as it is now: it may be made of what the installed
        systems declare (``tracker roll``'s examples)."""
        return inspect.cleandoc(self._declare().help)

    @help.setter
    def help(self, value: str | None) -> None:
        """click sets the help it was given: it is read from the declaration."""


def with_systems(declared: Command, what: str, before: str) -> Command:
    """``declared`` with the options every installed system declares as ``what``
    (``registry.with_options``)."""
    from tracker.systems import registry

    return registry.with_options(declared, what, before)


def with_options(declared: Command, options: Iterable[Option], before: str | None) -> Command:
    """``declared`` with ``options`` (``registry.with_options``)."""
    from tracker.systems import registry

    return registry.with_options(declared, options, before)


def readers(what: str) -> dict[str, set[str]]:
    """The systems that read each option declared as ``what``, by the option's name."""
    from tracker.systems import registry

    found: dict[str, set[str]] = {}
    for option in registry.declared(what):
        found.setdefault(option.name, set()).add(option.system or "")
    return found


class BySystem(complete.SystemOptions):
    """A command some of whose options are one system's own (``tracker roll``, ``tracker
    contest``): its help lists the options every system takes, then the campaign's system's
    under a heading naming it ("GURPS options:"); with no campaign to read, every installed
    system's, each under its own. The line still parses them all, so that another system's
    option is refused in a sentence naming its system (``registry.not_theirs``), not as a word
    click does not know."""

    def __init__(
        self, *args: Any, helped: Callable[[str], str | None] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.helped = helped

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[complete.ARGS] = list(args)
        return super().parse_args(ctx, args)

    def _system(self, ctx: click.Context) -> str | None:
        """The campaign's system, read once for the page (``complete.campaign_system``)."""
        if _SYSTEM not in ctx.meta:
            ctx.meta[_SYSTEM] = complete.campaign_system(ctx)
        return ctx.meta[_SYSTEM]

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The help as the campaign's system words it (``helped``: its own paragraphs and
        examples, none of another system's options), else as the command declares it."""
        system = self._system(ctx)
        text = self.helped(system) if self.helped is not None and system is not None else None
        if text is None:
            super().format_help_text(ctx, formatter)
            return
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(inspect.cleandoc(text).partition("\f")[0])

    def sections(
        self, ctx: click.Context, system: str | None
    ) -> list[tuple[str, list[tuple[str, str]]]]:
        """The help's headings and the options under each, as (flags, help): "Options" for
        those every system takes, then ``system``'s (None: each installed system's), whose
        help no longer says the system the heading names."""
        from tracker.systems import registry

        readers = self._readers()
        options = [p for p in self.get_params(ctx) if isinstance(p, click.Option)]
        found = [("Options", [p for p in options if p.name not in readers], "")]
        for s in registry.systems():
            if system is None or s.name == system:
                theirs = [p for p in options if s.name in readers.get(p.name or "", ())]
                found.append((f"{s.title} options", theirs, s.title))
        made = []
        for heading, params, title in found:
            records = [r for p in params if (r := p.get_help_record(ctx)) is not None]
            if records:
                made.append((heading, [(o, _unheaded(h, title)) for o, h in records]))
        return made

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        for heading, records in self.sections(ctx, self._system(ctx)):
            with formatter.section(heading):
                formatter.write_dl(records)


_SYSTEM = "tracker.help_system"


def _unheaded(help: str, title: str) -> str:
    """An option's help under a heading naming its system ``title``, without saying it
    again: "Gloom: roll 2d20" reads "roll 2d20", "difficulty (Gloom): the floor" reads
    "difficulty: the floor"."""
    if not title:
        return help
    if help.startswith(f"{title}: "):
        return help.removeprefix(f"{title}: ")
    label, said, rest = help.partition(": ")
    if said and label.endswith(f" ({title})"):
        return f"{label.removesuffix(f' ({title})')}: {rest}"
    return help
