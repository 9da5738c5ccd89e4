"""``tracker where``: the database in use and why, the data folder, the campaign, the versions."""

from __future__ import annotations

import click
from click.core import ParameterSource

from tracker.cli.declared import make_command
from tracker.cli.options import emit_json
from tracker.systems.commands import Command
from tracker.words import plural

_FROM = {
    ParameterSource.COMMANDLINE: "flag",
    ParameterSource.ENVIRONMENT: "environment",
}
_WHY_DB = {
    "flag": "from --db",
    "environment": "from $TRACKER_DB",
    "default": "the default (neither --db nor $TRACKER_DB is set)",
}
_WHY_CAMPAIGN = {
    "flag": "from --campaign",
    "environment": "from $TRACKER_CAMPAIGN",
    "default": "the campaign made or chosen last",
}


def given(ctx: click.Context, name: str) -> tuple[str | None, str]:
    """What the user gave for the root option ``name`` (after the command too), and where; in
    `tracker shell`, what the shell was started with."""
    root = ctx.find_root()
    obj = root.ensure_object(dict)
    if name in obj.get("given", {}):
        if name == "campaign":  # the shell's campaign, until `campaign use` chose another
            chosen = obj["tracker"].chosen
            return (chosen, obj["given"][name][1]) if chosen else (None, "default")
        return obj["given"][name]
    value = obj.get(name)
    if value and value != root.params.get(name):
        return value, "flag"  # given after the command: tracker where --db x.db
    source = _FROM.get(root.get_parameter_source(name), "default") if value else "default"
    return value, source


WHERE = Command(
    ("where",),
    """Show the database in use and why, the data folder, the campaign and the versions.

    It only looks: a missing database is not made and an older one is not upgraded. All it
    removes is what killed exports left: their part files beside the database, in the data
    folder and in the working folder.

    \b
    Examples:
      tracker where
      tracker --db other.db where --json
    """,
)


def _where(as_json: bool) -> None:
    from tracker.app.where import where as look

    ctx = click.get_current_context()
    db, db_source = given(ctx, "db")
    campaign, campaign_source = given(ctx, "campaign")
    found = look(db, db_source, campaign, campaign_source)
    if as_json:
        emit_json(found.to_dict())
        return
    d = found.database
    lines = [f"tracker {found.version} (Python {found.python})"]
    lines.append(f"database   {d.location}")
    said = [_WHY_DB[d.source]]
    if d.state == "current":
        held = f"{plural(d.campaigns, 'campaign')}, {plural(d.events, 'event')}"
        said.append(f"{held}, {_size(d.size_bytes)}")
    lines.append(f"           {'; '.join(said)}")
    if d.detail:
        lines.append(f"           {d.detail}")
    others = [f for f in found.data_files if f.endswith(".db") and d.state == "missing"]
    if others:
        shown = f"{found.data_folder}/{others[0]}"
        held = ", ".join(others)
        lines.append(f"           the data folder holds {held}: `export TRACKER_DB={shown}`")
    stamped = d.revision or "none"
    lines.append(f"schema     {stamped} (this tracker writes {found.schema_revision})")
    if found.campaign is not None:
        c = found.campaign
        lines.append(
            f'campaign   "{c.name}" ({c.system}, {plural(c.events, "event")}), '
            f"{_WHY_CAMPAIGN[c.source]}"
        )
    else:
        lines.append(f"campaign   {found.campaign_detail}")
    files = ", ".join(found.data_files) or "empty"
    lines.append(f"data       {found.data_folder} ({files})")
    lines.append(f"systems    {', '.join(found.systems)}")
    if found.swept:
        left = plural(len(found.swept), "part file")
        lines.append(f"swept      {left} that killed exports left: {', '.join(found.swept)}")
    click.echo("\n".join(lines))


where = make_command(WHERE, _where)


def _size(size: int | None) -> str:
    if size is None:
        return "size unknown"
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:,} {unit}" if unit == "bytes" else f"{size:,.1f} {unit}"
        size /= 1024
    return ""


COMMANDS = [where]
