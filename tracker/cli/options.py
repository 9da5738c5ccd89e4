"""Shared options, the tracker opened for a command, and how errors reach the user.

Every failure ends as one line on stderr and the scripting contract's exit code: 1 when the rules
or the state refuse (nothing appended), 2 for bad usage.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

import click

from tracker.app.names import ARGUMENT_MAX, HUGE_DIGITS, HUGE_NUMBER, NOT_UTF8, UNFIT
from tracker.errors import Refused, TrackerError

_INTERRUPTED = (
    "Interrupted; `tracker log` shows whether it was logged, so run it again only if it was not."
)


class TrackerGroup(click.Group):
    """A click group whose errors are one sentence, never a traceback or a usage dump, and whose
    commands are imported only when used (``lazy_commands`` names them, ``load_command`` loads)."""

    lazy_commands: dict[str, str] = {}  # noqa: RUF012 - set once on the root group
    load_command = None
    # The names of the commands the installed rule systems add (``tracker.cli.acts``): loaded
    # by ``load_command`` too, but made anew each time, as the systems installed may change.
    more_commands = None

    def list_commands(self, ctx: click.Context) -> list[str]:
        more = self.more_commands() if self.more_commands is not None else ()
        return sorted({*super().list_commands(ctx), *self.lazy_commands, *more})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and self.load_command is not None:
            command = self.load_command(cmd_name)
            if command is not None and cmd_name in self.lazy_commands:
                self.add_command(command)
        return command

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        problem = unfit_argument(sys.argv[1:] if args is None else args)
        if problem is not None:
            _fail(problem, 2)
        try:
            rv = super().main(
                args=args,
                prog_name=prog_name,
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
        except click.UsageError as exc:
            hint = f" See `{exc.ctx.command_path} --help`." if exc.ctx else ""
            _fail(f"{_sentence(exc.format_message())}{hint}", 2)
        except click.ClickException as exc:
            _fail(_sentence(exc.format_message()), exc.exit_code)
        except click.Abort as exc:
            if isinstance(exc.__cause__, KeyboardInterrupt):
                # click turns Ctrl-C into Abort. A change is all or nothing, but the stop may
                # come after its commit (an import's last snapshot, say), so say how to tell.
                _fail(_INTERRUPTED, 130)
            _fail("Stopped; nothing was changed.", 1)
        except TrackerError as exc:
            _fail(str(exc), exc.exit_code, refused=isinstance(exc, Refused))
        except KeyboardInterrupt:
            _fail(_INTERRUPTED, 130)
        except Exception as exc:
            storage = _storage_error(exc)
            if storage is None:
                raise
            _fail(str(storage), storage.exit_code)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


def _storage_error(exc: Exception) -> TrackerError | None:
    import sqlite3

    from tracker.store.location import storage_error

    if isinstance(exc, sqlite3.DatabaseError):
        return storage_error(exc, "the database")
    # SQLAlchemy's and psycopg's errors only if they were loaded (a server URL, or a
    # migration): a command on a SQLite file imports neither.
    alchemy = sys.modules.get("sqlalchemy.exc")
    if alchemy is not None and isinstance(exc, alchemy.DatabaseError):
        return storage_error(exc, "the database")
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None and isinstance(exc, psycopg.Error):
        return storage_error(exc, "the database")
    return None


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text.endswith((".", "?", "!")) else text + "."


def _fail(message: str, code: int, refused: bool = False) -> None:
    label = "Refused" if refused else "Error"
    click.echo(f"{label}: {_one_line(message)}", err=True)
    sys.exit(code)


def unfit_argument(args) -> str | None:
    """Why an argument cannot be taken, or None: text with control characters (an escape
    sequence in a name would clear or retitle the GM's terminal wherever it is shown, a newline
    would forge a line of the log) or text past any sane length."""
    for arg in args:
        if not isinstance(arg, str):
            continue
        if len(arg) > ARGUMENT_MAX:
            return (
                f"An argument of {len(arg):,} characters is too long; "
                f"keep each under {ARGUMENT_MAX:,}."
            )
        if HUGE_NUMBER.search(arg):
            return (
                f"{arg[:40]} is a number past anything tracker counts (at most "
                f"{HUGE_DIGITS - 1} digits); give a smaller one."
            )
        if NOT_UTF8.search(arg):
            raw = arg[:60].encode("utf-8", "surrogateescape")
            shown = raw.decode("utf-8", "backslashreplace")
            return (
                f"{_one_line(shown)} holds bytes that are not UTF-8 text; retype it (a file "
                "named so: rename it)."
            )
        if UNFIT.search(arg):
            return (
                f"{_one_line(arg[:60])} holds a control character (an escape, a newline); "
                "retype it as plain text on one line."
            )
    return None


def _one_line(text: str) -> str:
    """``text`` with any control or line-breaking character spelled as an escape: a name typed
    with a stray carriage return is echoed back visibly, and the refusal stays one line."""
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )


# What a mistyped option looks like: a dash and a letter (`-x`, `--caus`, `--cause=...`).
# Anything else that starts with a dash, `-5` or `-3 gold`, is a value the GM typed.
_OPTION_LIKE = re.compile(r"--?[^\W\d]")


class NumberArgs(click.Command):
    """A command taking a number that may be negative as an argument (`tracker hp Mira -3`,
    `tracker points award Mira -5`, `tracker replay -1`).

    click reads every word that starts with a dash as an option, so `-5` was refused as "No
    such option"; here it reaches the argument as the value it is, and the handler takes it or
    says in one sentence what to do instead. A mistyped option (`--caus`) is still refused by
    name, as on every other command, rather than taken for an extra argument.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["context_settings"] = {
            **(kwargs.get("context_settings") or {}),
            "ignore_unknown_options": True,
        }
        super().__init__(*args, **kwargs)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:
            # Parsed once without side effects, to find a word click let through as an
            # argument although it can only be a mistyped option.
            values, extra, _ = self.make_parser(ctx).parse_args(args=list(args))
            words = list(extra)
            for param in self.params:
                if isinstance(param, click.Argument) and param.name in values:
                    value = values[param.name]
                    words += list(value) if isinstance(value, (list, tuple)) else [value]
            for word in words:
                if isinstance(word, str) and _OPTION_LIKE.match(word):
                    known = [
                        o
                        for p in self.params
                        if isinstance(p, click.Option) and not p.hidden
                        for o in p.opts
                    ]
                    raise click.NoSuchOption(word.split("=", 1)[0], possibilities=known, ctx=ctx)
        return super().parse_args(ctx, args)


class SystemName(click.ParamType):
    """A rule system's name, checked against the systems installed (found when first needed,
    so a command that does not take one never loads them)."""

    name = "system"

    def _names(self) -> list[str]:
        from tracker.systems import registry

        return registry.names()

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return f"[{'|'.join(self._names())}]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        names = self._names()
        wanted = str(value).casefold()
        if wanted in names:
            return wanted
        self.fail(f"{value!r} is not one of {', '.join(map(repr, names))}", param, ctx)

    def get_missing_message(self, param: click.Parameter, ctx: click.Context | None) -> str:
        # Worded as click words a missing choice, so the one-line error reads the same.
        return "Choose from:\n\t" + ",\n\t".join(self._names())

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str):
        from click.shell_completion import CompletionItem

        return [CompletionItem(n) for n in self._names() if n.startswith(incomplete.casefold())]


class Difficulty(click.ParamType):
    """A Gloom DL: a number, or a difficulty's name the rule system reads ("hard"), read as a
    form's is (``tracker.systems.commands.difficulty``)."""

    name = "dl"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None):
        from tracker.systems.commands import difficulty

        return difficulty(value)


JSON_HELP = "Print one JSON document for scripts."


def output_options(fn: Callable) -> Callable:
    """Add ``--json`` (one JSON document on stdout) and ``--db``/``--campaign`` to a command."""

    @click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
    @db_options
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return wrapper


def db_options(fn: Callable) -> Callable:
    """``--db`` and ``--campaign`` accepted after the command too (``tracker log --db x.db``)."""

    @click.option("--db", "db_override", metavar="PATH_OR_URL", hidden=True, default=None)
    @click.option("--campaign", "campaign_override", metavar="NAME", hidden=True, default=None)
    @functools.wraps(fn)
    def wrapper(*args: Any, db_override=None, campaign_override=None, **kwargs: Any) -> Any:
        use_db(db_override, campaign_override)
        return fn(*args, **kwargs)

    return wrapper


def output_params() -> list[click.Parameter]:
    """What ``output_options`` adds, for a command made from a declaration: ``--json``, and
    ``--db``/``--campaign`` (``use_db`` takes them)."""
    return [click.Option(["--json", "as_json"], is_flag=True, help=JSON_HELP), *db_params()]


def db_params() -> list[click.Parameter]:
    """What ``db_options`` adds, for a command made from a declaration: ``--db`` and
    ``--campaign`` after the command, hidden (``use_db`` takes them)."""
    return [
        click.Option(["--db", "db_override"], metavar="PATH_OR_URL", hidden=True, default=None),
        click.Option(
            ["--campaign", "campaign_override"], metavar="NAME", hidden=True, default=None
        ),
    ]


def use_db(db_override: str | None, campaign_override: str | None) -> None:
    """The database and campaign given after the command, for the tracker it opens."""
    obj = click.get_current_context().find_root().ensure_object(dict)
    if db_override:
        obj["db"] = db_override
    if campaign_override:
        obj["campaign"] = campaign_override


def open_tracker():
    """The tracker for this invocation's database, opened once and closed when the command ends."""
    ctx = click.get_current_context()
    root = ctx.find_root()
    obj = root.ensure_object(dict)
    if obj.get("tracker") is None:
        from tracker.app import Tracker

        obj["tracker"] = Tracker(obj.get("db"), obj.get("campaign"))
        root.call_on_close(obj["tracker"].close)
        # Kept for the command, as the shell keeps it for the evening: one that asks for the
        # state more than once (a replay asks three times) loads its snapshot once and reads
        # only the log's tail after.
        obj["tracker"].warm = True
        # A bar only where a person watches: never into a pipe, a file or a script's capture.
        if not obj.get("quiet") and sys.stderr.isatty():
            obj["tracker"].meter = progress_bar
    return obj["tracker"]


@contextlib.contextmanager
def progress_bar(label: str, total: int) -> Iterator[Callable[[int], None]]:
    """A bar on stderr for long work (see ``tracker.app.progress``), gone when the work is.

    The bar hides the cursor while it draws. Work stopped by Ctrl-C may leave the bar's
    generator unfinished (one-shot commands leave without collecting it), so the cursor is
    given back when the command ends, whatever ended it. The label is cut and the bar narrowed
    to fit the terminal, so each redraw overwrites the last instead of wrapping."""
    import os

    # The terminal the bar draws on is stderr's, though stdout may go to a file; $COLUMNS
    # first, as shutil does, and 80 when neither says (a terminal that gives no size).
    try:
        columns = int(os.environ.get("COLUMNS", "")) or 0
    except ValueError:
        columns = 0
    if not columns:
        with contextlib.suppress(OSError, ValueError):
            columns = os.get_terminal_size(sys.stderr.fileno()).columns
    columns = columns or 80
    room = columns - len(f"  {total}/{total}  00:00:00") - 6
    label = label if len(label) <= room // 2 else label[: max(room // 2 - 1, 0)] + "…"
    width = max(min(36, room - len(label)), 4)
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.call_on_close(lambda: click.echo("\x1b[?25h", file=sys.stderr, nl=False))
    with click.progressbar(
        length=total, label=label, file=sys.stderr, show_pos=True, width=width
    ) as bar:
        yield bar.update


QUIET_HELP = "Draw no progress bar."
"""The help of ``-q/--quiet`` after a long command (``tracker.cli.declared.QUIET``)."""


def hush(quiet: bool) -> None:
    """No progress bar for this command, even on a terminal, when ``quiet`` (given
    ``-q/--quiet``)."""
    if quiet:
        click.get_current_context().find_root().ensure_object(dict)["quiet"] = True


def emit_json(document: Any) -> None:
    click.echo(json.dumps(document, ensure_ascii=False, sort_keys=False))
