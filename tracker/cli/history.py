"""``tracker undo``, ``redo``, ``replay`` and ``reveal``."""

from __future__ import annotations

import json
from typing import Any

import click

from tracker.app.declared import REDO, REVEAL, UNDO, run
from tracker.cli.declared import make_command
from tracker.cli.options import NumberArgs, open_tracker
from tracker.cli.play import show_logged
from tracker.cli.render import warn
from tracker.systems.commands import Argument, Command, Option


def _undo(as_json: bool, **values: Any) -> None:
    logged = run(open_tracker(), UNDO.path, values)
    revoked = logged.doc["revoked"]
    names = _names(logged.state)
    if len(revoked) == 1:
        line = f"Undid event {revoked[0]['version']} ({_what(logged, revoked[0], names)})."
    else:
        line = f"Undid {len(revoked)} events ({', '.join(str(r['version']) for r in revoked[:8])}"
        line += ", ...)." if len(revoked) > 8 else ")."
    line += " Nothing deleted; `tracker redo` puts " + ("it" if len(revoked) == 1 else "them")
    line += " back."
    lines = [line]
    for extra in logged.doc["cascade"]:
        lines.append(f"  also undid {extra['version']}: {extra['reason']}")
    running = logged.state.current_session
    if running is not None and any(r["type"] == "SessionEnded" for r in revoked):
        # Taking back a session's end opens the session again: say so, it changes what the
        # next command belongs to.
        lines.append(
            warn(
                f"Session {running} is running again; `tracker session end` ends it, or "
                "`tracker redo` puts its end back."
            )
        )
    show_logged(logged, as_json, lines)


undo = make_command(UNDO, _undo, cls=NumberArgs)


def _redo(as_json: bool, **values: Any) -> None:
    logged = run(open_tracker(), REDO.path, values)
    restored = logged.doc["restored"]
    show_logged(
        logged,
        as_json,
        [f"Restored {', '.join(str(r['version']) for r in restored)}."],
    )


redo = make_command(REDO, _redo)


def _names(state) -> dict[str, str]:
    return {c.character_id: c.name for c in state.characters.values()}


def _what(logged, brief, names) -> str:
    from tracker.app.lines import summarize

    tracker = open_tracker()
    for event in tracker.store.read(
        logged.state.campaign_id, after_version=brief["version"] - 1, until_version=brief["version"]
    ):
        return summarize(event, names)
    return brief["type"]


REPLAY = Command(
    ("replay",),
    """A session as a timeline: each event, who, what, and the changes it made.

    \b
    Examples:
      tracker replay            the running (or last) session
      tracker replay 4 --player-view | less
    """,
    arguments=(Argument("session", kind="int", required=False),),
    options=(Option("--player-view", "Hide what secret rolls showed.", "bool"),),
)


def _replay(session: int | None, player_view: bool, as_json: bool) -> None:
    from tracker.app.lines import sealed_line, summarize
    from tracker.cli.render import dim, local_time, printable
    from tracker.events.play import NoteAdded
    from tracker.projections.player import Sealed

    tracker = open_tracker()
    state, lines = tracker.history.replay(session, player_view=player_view)
    number = session or state.current_session or state.session.number
    bought = tracker.amended(player_view=player_view)
    if as_json:
        click.echo(f'{{"session": {number}, "events": [', nl=False)
        for i, line in enumerate(lines):
            doc = _replay_doc(line, bought)
            click.echo(("," if i else "") + json.dumps(doc, ensure_ascii=False), nl=False)
        click.echo("]}")
        return
    info = tracker.campaigns.session_info(number)
    title = f' "{info.title}"' if info.title else ""
    click.echo(click.style(f"Session {number}{title}", bold=True) + f" · {state.name}")
    for line in lines:
        event = line.event
        when = dim(local_time(event.recorded_at, "HH:mm"))
        if isinstance(event.data, Sealed):
            who = printable(line.names.get(event.character_id or "", "the GM"))
            click.echo(f"{when}  {event.version:>5}  {sealed_line(who)}")
            continue
        text = summarize(event, line.names, bought)
        if isinstance(event.data, NoteAdded):
            text = click.style(f"“{printable(event.data.text)}”", italic=True)
        if line.revoked:
            text = click.style(text, strikethrough=True, dim=True) + dim("  (undone)")
        mark = " [revealed]" if player_view else " [secret]"
        secret = dim(mark) if event.visibility == "gm" else ""
        click.echo(f"{when}  {event.version:>5}  {text}{secret}")
        changes = [_change_text(c) for c in line.changes]
        if changes:
            click.echo(dim(f"               {'; '.join(changes)}"))


replay = make_command(REPLAY, _replay, cls=NumberArgs)


def _change_text(change) -> str:
    from tracker.cli.render import printable

    who = f"{printable(change.who)} " if change.who else ""
    # A track that did not exist on one side (a character added, HP a sheet update gave)
    # reads as a dash: the GM reads the table's words, never Python's None.
    before, after = ("—" if v is None else v for v in (change.before, change.after))
    return f"{who}{change.track} {before} → {after}"


def _replay_doc(line, bought: dict[str, str]) -> dict:
    from tracker.projections.player import Sealed

    event = line.event
    if isinstance(event.data, Sealed):
        return {
            "version": event.version,
            "time": event.recorded_at,
            "type": "secret roll",
            "character": line.names.get(event.character_id or ""),
        }
    doc = {
        "version": event.version,
        "time": event.recorded_at,
        "type": event.type,
        "event_id": event.event_id,
        "revoked": line.revoked,
        "secret": event.visibility == "gm",
        "payload": event.payload,
        "changes": [
            {"who": c.who, "track": c.track, "before": c.before, "after": c.after}
            for c in line.changes
        ],
    }
    if event.type == "RollMade" and event.event_id in bought:
        # The outcome points bought the roll up to later: its payload keeps what was rolled.
        doc["bought_up_to"] = bought[event.event_id]
    return doc


def _reveal(as_json: bool, **values: Any) -> None:
    logged = run(open_tracker(), REVEAL.path, values)
    revealed = logged.doc["revealed"]
    names = _names(logged.state)
    lines = [
        f"Revealed event {r['version']} ({_what(logged, r, names)}); its hash {r['hash'][:12]}… "
        "now opens in the players' view."
        if r["hash"]
        else f"Revealed event {r['version']} ({_what(logged, r, names)})."
        for r in revealed
    ]
    show_logged(logged, as_json, lines)


reveal = make_command(REVEAL, _reveal, cls=NumberArgs)

COMMANDS = [undo, redo, replay, reveal]
