"""The ``tracker`` command line: thin click commands that parse, call one handler, and render.

Heavy modules (SQLAlchemy, Alembic, pendulum) are imported inside the commands that need them, so
``tracker odds`` and ``--help`` answer without loading a database layer.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import sys

import click

from tracker import __version__
from tracker.cli.complete import campaigns
from tracker.cli.index import MODULES
from tracker.cli.options import TrackerGroup


@click.group(cls=TrackerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    metavar="PATH_OR_URL",
    envvar="TRACKER_DB",
    help="Database file or URL (default: $TRACKER_DB, else tracker.db in your data folder).",
)
@click.option(
    "--campaign",
    metavar="NAME",
    envvar="TRACKER_CAMPAIGN",
    shell_complete=campaigns,
    help="Campaign to act on (default: the one made or chosen last).",
)
@click.option(
    "--quiet",
    "-q",
    is_flag=True,
    help="Draw no progress bars (drawn only on a terminal, for long work, in any case).",
)
@click.version_option(__version__, prog_name="tracker")
@click.pass_context
def cli(ctx: click.Context, db: str | None, campaign: str | None, quiet: bool) -> None:
    """Log a tabletop campaign as an immutable event log: rolls, sessions, characters.

    \b
    Start here:
      tracker demo                 make a demo database and see what to try
      tracker campaign new NAME --system gloom|gurps|glintlock
      tracker character add NAME --stat KEY=N --skill KEY=N
      tracker session start --title "The drowned archive"
    """
    ctx.ensure_object(dict)
    ctx.obj.setdefault("db", db)
    ctx.obj.setdefault("campaign", campaign)
    ctx.obj.setdefault("quiet", quiet)


# Each command lives in one module, imported only when the command runs: a roll at the table
# loads the play commands, not the exporters or the odds tables. The index of which module
# that is (``tracker.cli.index``) is made from the modules' own lists.


def _load(name: str) -> click.Command | None:
    module_name = MODULES.get(name)
    if module_name is None:
        # A word of tracker's own is never a system's: a system adds only words it lacks.
        from tracker.cli import acts

        return acts.load(name)
    module = importlib.import_module(f"tracker.cli.{module_name}")
    return next((c for c in module.COMMANDS if c.name == name), None)


def _more() -> list[str]:
    from tracker.cli import acts

    return acts.names()


cli.lazy_commands = MODULES
cli.load_command = _load
cli.more_commands = _more


def known(name: str) -> bool:
    """Whether ``name`` is a command here: tracker's own, or an installed system's."""
    return name in MODULES or name in _more()


def main() -> None:
    """Console entry point for one-shot commands.

    A one-shot command makes few reference cycles, so the cyclic collector is off; and once the
    command has closed its database (every commit already on disk), the process leaves without
    tearing down every module, which cost as long as the command itself. ``tracker shell``
    turns the collector back on for its long evening.
    """
    gc.disable()
    for stream in (sys.stdout, sys.stderr):
        # A terminal or pipe that takes no UTF-8 (PYTHONIOENCODING=latin-1, an old locale)
        # gets a stand-in for what it cannot show, never a traceback after the command logged.
        if getattr(stream, "encoding", "utf-8").lower().replace("-", "") != "utf8":
            with contextlib.suppress(AttributeError, ValueError):
                stream.reconfigure(errors="replace")
    try:
        cli.main(prog_name="tracker")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    # What could not be written was said already (a full disk under an export, say).
    with contextlib.suppress(OSError):
        sys.stdout.flush()
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    os._exit(code)
