"""The ``tracker`` command line: thin click commands that parse, call one handler, and render.

Heavy modules (SQLAlchemy, Alembic, pendulum) are imported inside the commands that need them, so
``tracker odds`` and ``--help`` answer without loading a database layer.
"""

from __future__ import annotations

import sys

import click

from tracker import __version__
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
    help="Campaign to act on (default: the one made or chosen last).",
)
@click.version_option(__version__, prog_name="tracker")
@click.pass_context
def cli(ctx: click.Context, db: str | None, campaign: str | None) -> None:
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


def _register() -> None:
    from tracker.cli import campaign, demo, export, history, log, odds, play

    for module in (campaign, play, history, export, log, demo, odds):
        for command in module.COMMANDS:
            cli.add_command(command)


_register()


def main() -> None:
    """Console entry point."""
    cli.main(prog_name="tracker")
    sys.exit(0)
