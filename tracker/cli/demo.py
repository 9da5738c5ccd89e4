"""``tracker demo``."""

from __future__ import annotations

import os
import shlex

import click
from click.core import ParameterSource

from tracker.cli.declared import make_command
from tracker.cli.options import JSON_HELP, emit_json
from tracker.cli.render import bold
from tracker.cli.script import play_script
from tracker.systems.commands import Command, Option

DEMO = Command(
    ("demo",),
    """Make a demo (a campaign per system, sample characters) and show what to try.

    It goes where the next command looks ($TRACKER_DB, else tracker.db in your data folder),
    so `tracker campaign list` finds it, or to --db PATH. A database that already holds
    campaigns never takes it: the demo is then a new file, demo.db in your data folder (demo-2.db
    and on when that is taken), and it says what to give $TRACKER_DB.

    Example: tracker demo && tracker campaign list
    """,
    options=(
        Option("--db", "Where to make the demo (a new or empty database).", metavar="PATH"),
        Option("--json", JSON_HELP, "bool", dest="as_json"),
    ),
    short_help="Make a demo database and show what to try.",
)


def _demo(db: str | None, as_json: bool) -> None:
    from tracker.app.demo import make_demo

    root = click.get_current_context().find_root()
    # A --db before the command is as good as one after it.
    if db is None and root.get_parameter_source("db") == ParameterSource.COMMANDLINE:
        db = root.params.get("db")
    report = make_demo(db, env_db=os.environ.get("TRACKER_DB") or None)
    played = {}
    for c in report.campaigns:
        played[c["name"]] = play_script(report.url, c["name"], report.scripts[c["name"]])
        c["commands_played"] = played[c["name"]][0]
    if as_json:
        emit_json(report.to_dict())
        return
    for note in report.notes:
        click.echo(note)
    click.echo(f"Made a demo database at {report.db}:")
    for c in report.campaigns:
        names = ", ".join(ch["name"] for ch in c["characters"])
        click.echo(
            f"  {bold(c['name'])} ({c['system']}): {names}; "
            f'session {c["session"]} "{c["session_title"]}" running, '
            f"{c['commands_played']} commands played"
        )
    if report.featured is None:
        return
    script = report.scripts[report.featured]
    shown = "/".join(script.parts[-3:])  # fixtures/sessions/NAME.txt, installed or not
    click.echo(f'\nThe evening so far in "{report.featured}" ({shown}):')
    for line in played[report.featured][1].splitlines():
        click.echo(f"  {line}")
    # Suggest moving to the campaign made just before the featured one, and what to try there.
    others = [c["name"] for c in report.campaigns if c["name"] != report.featured][-1:]
    click.echo(f'\nThe current campaign is "{report.featured}". Try:')
    tries = [
        *([f"export TRACKER_DB={shlex.quote(report.export)}"] if report.export else []),
        "tracker campaign list",
        "tracker status",
        "tracker obligations",
        *report.tries[report.featured],
        *(line for name in others for line in report.tries[name]),
        "tracker log",
        "tracker verify",
        *(f'tracker campaign use "{name}"' for name in others),
        "tracker session list",
    ]
    for line in tries:
        click.echo(f"  {line}")


demo = make_command(DEMO, _demo, output=False)
COMMANDS = [demo]
