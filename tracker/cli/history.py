"""``tracker undo`` and ``tracker redo``."""

from __future__ import annotations

import click

from tracker.cli.options import open_tracker, output_options
from tracker.cli.play import show_logged


@click.command("undo")
@click.argument("event", required=False, metavar="[EVENT]")
@click.option("--session", type=int, metavar="N", help="Undo every event of session N.")
@click.option("--cascade", is_flag=True, help="Also undo later events that depended on it.")
@click.option("--reason", help="Why, for the record.")
@output_options
def undo(event, session, cascade, reason, as_json) -> None:
    """Take back an event (default: the last one in the running session). Nothing is deleted.

    \b
    Examples:
      tracker undo                 the last event of the running session
      tracker undo 118             event 118 (its number in `tracker log`), or its id
      tracker undo --session 4     a whole bad night
    """
    logged = open_tracker().undo(event, session=session, cascade=cascade, reason=reason)
    revoked = logged.doc["revoked"]
    names = _names(logged.state)
    if len(revoked) == 1:
        line = f"Undid event {revoked[0]['version']} ({_what(logged, revoked[0], names)})."
    else:
        line = f"Undid {len(revoked)} events ({', '.join(str(r['version']) for r in revoked[:8])}"
        line += ", ...)." if len(revoked) > 8 else ")."
    line += " Nothing deleted; `tracker redo` puts it back."
    lines = [line]
    for extra in logged.doc["cascade"]:
        lines.append(f"  also undid {extra['version']}: {extra['reason']}")
    show_logged(logged, as_json, lines)


@click.command("redo")
@click.option("--reason", help="Why, for the record.")
@output_options
def redo(reason, as_json) -> None:
    """Put back what the last undo took back."""
    logged = open_tracker().redo(reason=reason)
    restored = logged.doc["restored"]
    show_logged(
        logged,
        as_json,
        [f"Restored {', '.join(str(r['version']) for r in restored)}."],
    )


def _names(state) -> dict[str, str]:
    return {c.character_id: c.name for c in state.characters.values()}


def _what(logged, brief, names) -> str:
    from tracker.cli.log import summarize

    tracker = open_tracker()
    for event in tracker.store.read(
        logged.state.campaign_id, after_version=brief["version"] - 1, until_version=brief["version"]
    ):
        return summarize(event, names)
    return brief["type"]


COMMANDS = [undo, redo]
