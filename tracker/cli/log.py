"""``tracker log`` and ``tracker verify``."""

from __future__ import annotations

import json

import click

from tracker.cli.options import emit_json, open_tracker, output_options
from tracker.cli.render import BAD, GOOD, dim, local_time, plural


def summarize(event, names: dict[str, str]) -> str:
    """One line saying what an event recorded, in the GM's words."""
    p = event.payload
    who = names.get(event.character_id or "", "")
    match event.type:
        case "CampaignCreated":
            return f'campaign "{p["name"]}" created ({p["system"]})'
        case "SessionStarted":
            title = f' "{p["title"]}"' if p.get("title") else ""
            return f"session {p['number']}{title} started"
        case "SessionEnded":
            return f"session {p['number']} ended"
        case "CharacterAdded":
            return f"character {p['name']} added"
        case "CharacterDefaultSet":
            return f"{who}: {p['skill']} defaults to {p['expression']}"
    return event.type


@click.command("log")
@click.option("--session", "session", type=int, metavar="N", help="Only events of session N.")
@output_options
def log(session: int | None, as_json: bool) -> None:
    """Show the campaign's events, newest last."""
    tracker = open_tracker()
    events = tracker.log(session)
    if as_json:
        # Streamed as one JSON document so a long log never sits whole in memory.
        click.echo('{"events": [', nl=False)
        for i, event in enumerate(events):
            click.echo(
                ("," if i else "") + json.dumps(event.to_dict(), ensure_ascii=False), nl=False
            )
        click.echo("]}")
        return
    names: dict[str, str] = {}
    shown = 0
    for event in events:
        if event.type == "CharacterAdded":
            names[event.payload["character_id"]] = event.payload["name"]
        session_label = f"s{event.session_id}" if event.session_id is not None else "  "
        secret = " [secret]" if event.visibility == "gm" else ""
        click.echo(
            f"{event.version:>6}  {dim(local_time(event.recorded_at, 'YYYY-MM-DD HH:mm:ss'))}  "
            f"{session_label:>4}  {summarize(event, names)}{secret}"
        )
        shown += 1
    if not shown:
        click.echo("No events" + (f" in session {session}." if session is not None else " yet."))


@click.command("verify")
@output_options
def verify(as_json: bool) -> None:
    """Check every campaign's hash chain; exit 1 naming the first broken event."""
    reports = open_tracker().verify()
    ok = all(r.ok for r in reports)
    if as_json:
        emit_json({"ok": ok, "campaigns": [r.to_dict() for r in reports]})
    else:
        for r in reports:
            if r.ok:
                click.echo(
                    f"{r.campaign}: {plural(r.events, 'event')}, "
                    + click.style("chain intact", fg=GOOD)
                    + f", every stored outcome re-derived and matching ({plural(r.rolls, 'roll')})."
                )
                continue
            if r.problem is not None:
                p = r.problem
                click.echo(
                    f"{r.campaign}: "
                    + click.style(f"broken at event {p.version} ({p.event_id})", fg=BAD, bold=True)
                    + f": {p.reason}. Restore a backup or an export to recover.",
                    err=True,
                )
            for m in r.mismatches[:10]:
                click.echo(
                    f"{r.campaign}: "
                    + click.style(f"event {m.version} ({m.event_id})", fg=BAD, bold=True)
                    + f": {m.reason}.",
                    err=True,
                )
        if not reports:
            click.echo("No campaigns to verify.")
    if not ok:
        raise click.exceptions.Exit(1)


COMMANDS = [log, verify]
