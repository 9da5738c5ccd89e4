"""``tracker recap``: a session's recap as Markdown, a self-contained HTML page, or JSON.

The recap itself is made in ``tracker.app.recap``; this only writes it. Every string from the
log is escaped for what it is written in, so a name or a note cannot turn into markup.
"""

from __future__ import annotations

import click

from tracker.cli.declared import make_command
from tracker.cli.options import emit_json, open_tracker
from tracker.cli.recap_text import markdown
from tracker.errors import BadInput
from tracker.systems.commands import Command, Option
from tracker.words import plural

RECAP = Command(
    ("recap",),
    """A session's recap: the GM's notes, the rolls, luck against the odds, what changed for
    each character, and what was still owed when it ended.

    The players' view unless --gm: a secret event the GM has not revealed (a secret roll, or
    what one led to) reads "a secret event" and changes nothing in it, as in `tracker log
    --player-view`. Markdown unless --html; -o writes it to a file (a GM's recap only its owner
    may read). --json prints the recap as one JSON document, or with -o what was written.

    \b
    Examples:
      tracker recap                          the running (or last) session
      tracker recap --session 4 --html -o session4.html
      tracker recap --session 4 --gm         secrets and all, for the GM
    """,
    short_help="A session's notes, rolls, luck, changes and what is owed.",
    options=(
        Option(
            "--session",
            "The session to recap (default: the running or last one).",
            "int",
            metavar="N",
        ),
        Option("--gm", "The GM's recap: secret rolls in full, and what they changed.", "bool"),
        Option(
            "--format",
            "Markdown, or a self-contained HTML page.",
            "choice",
            dest="fmt",
            choices=("md", "html"),
            default="md",
            show_default=True,
        ),
        Option("--html", "The same as --format html.", "bool"),
        Option("--output", "Write to FILE instead of the terminal.", metavar="FILE", short="-o"),
    ),
)


def _recap(
    session: int | None, gm: bool, fmt: str, html: bool, output: str | None, as_json: bool
) -> None:
    from tracker.cli.export import STANDARD_OUTPUT, _target

    if html:
        fmt = "html"
    to_file = output is not None and output not in STANDARD_OUTPUT
    if as_json and fmt == "html" and not to_file:
        raise BadInput(
            "--json prints the recap as JSON; give -o FILE to write the HTML page, or leave "
            "--html out."
        )
    if session is not None and session < 1:
        raise BadInput(f"Sessions are numbered from 1, not {session}; see `tracker session list`.")
    recap = open_tracker().recaps.recap(session, player_view=not gm)
    if as_json and not to_file:
        emit_json(recap.to_dict())
        return
    if fmt == "html":
        from tracker.cli.recap_html import render

        text = render(recap)
    else:
        text = markdown(recap)
    with _target(output, private=gm) as out:
        out.write(text)
    if not to_file:
        return
    doc = {
        "output": output,
        "format": fmt,
        "session": recap.session.number,
        "view": recap.view,
        "rolls": recap.rolls_shown,
        "sealed": recap.sealed,
        "log_head": recap.log_head or None,
    }
    if as_json:
        emit_json(doc)
        return
    view = "the players' view" if recap.player_view else "the GM's view"
    sealed = f" and {plural(recap.sealed, 'secret event')} sealed" if recap.sealed else ""
    click.echo(
        f"Wrote {output}: session {recap.session.number}, {plural(recap.rolls_shown, 'roll')}"
        f"{sealed}, {view}."
    )


recap = make_command(RECAP, _recap)
COMMANDS = [recap]
