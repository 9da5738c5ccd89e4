"""``tracker log`` and ``tracker verify``."""

from __future__ import annotations

import json
from collections.abc import Mapping

import click

from tracker.app.lines import sealed_line, summarize
from tracker.cli.declared import QUIET, make_command
from tracker.cli.options import emit_json, hush, open_tracker
from tracker.cli.render import (
    BAD,
    GOOD,
    dim,
    local_time,
    plural,
    printable,
)
from tracker.errors import BadInput, NotFound, StorageError, TrackerError
from tracker.events import catalog as c
from tracker.events import play as p
from tracker.projections.campaign import LogUnfoldable
from tracker.projections.player import Sealed
from tracker.systems.commands import Command, Option

LOG = Command(
    ("log",),
    """Show the campaign's events, newest last.

    \b
    Examples:
      tracker log --session 3
      tracker log --follow --player-view           what the players see, as it happens
      tracker log --follow --json --player-view    one JSON line per event, for a bot
    """,
    options=(
        Option("--session", "Only events of session N.", "int", metavar="N"),
        Option("--player-view", "Hide what secret rolls showed.", "bool"),
        Option(
            "--follow",
            "Keep printing events as they are logged (--json: one JSON line each); Ctrl-C stops.",
            "bool",
        ),
    ),
)


def _log(session: int | None, player_view: bool, follow: bool, as_json: bool) -> None:
    tracker = open_tracker()
    if session is not None and tracker.campaigns.session_info(session) is None:
        raise NotFound(f"No session {session}; `tracker session list` shows them.")
    if follow:
        _follow(tracker, session, player_view, as_json)
        return
    # The players' view is their stream, in which a secret event the GM has not revealed comes
    # sealed: the row stays (a secret event happened), what it showed is not there to print.
    if player_view:
        events = tracker.player_events(session=session)
    else:
        events = tracker.campaigns.log(session)
    # Undos are public: which events are no longer in force is the same in either view. A log
    # that cannot be folded (its rule system not installed here, an event unreadable) still
    # lists, without the marks: the log is where the GM looks to see what is wrong. One edited
    # past folding (a roll for a character never added) is listed, then said in one sentence.
    unfoldable = None
    try:
        undone = tracker.state().revoked
        bought = tracker.amended(player_view=player_view)
    except LogUnfoldable as exc:
        undone, bought, unfoldable = set(), {}, exc
    except TrackerError:
        undone, bought = set(), {}
    if as_json:
        # Streamed as one JSON document so a long log never sits whole in memory.
        # Each event exactly as stored, so that its fields hash to its hash; which of them are
        # undone follows the list, by version, and so do the rolls points bought up.
        click.echo('{"events": [', nl=False)
        gone = []
        ended = []
        for i, event in enumerate(events):
            doc = _listed(event)
            click.echo(("," if i else "") + json.dumps(doc, ensure_ascii=False), nl=False)
            if event.event_id in undone:
                gone.append(event.version)
            if event.event_id in bought and event.type == p.RollMade.TYPE:
                ended.append({"version": event.version, "outcome": bought[event.event_id]})
        click.echo(f'], "undone": {json.dumps(gone)}, "bought_up": {json.dumps(ended)}}}')
    else:
        names = tracker.campaigns.character_names()
        shown = 0
        for event in events:
            click.echo(log_line(event, names, undone, player_view, bought))
            shown += 1
        if not shown:
            where = f" in session {session}." if session is not None else " yet."
            click.echo("No events" + where)
    if unfoldable is not None:
        raise unfoldable


log = make_command(LOG, _log)


def log_line(
    event,
    names: dict[str, str],
    undone: set[str],
    player_view: bool,
    bought: Mapping[str, str] | None = None,
) -> str:
    """One event as ``tracker log`` prints it: its version, time, session and summary (with
    the outcome points bought a roll up to, ``bought``)."""
    when = dim(local_time(event.recorded_at, "YYYY-MM-DD HH:mm:ss"))
    label = f"s{event.session_id}" if event.session_id is not None else ""
    if isinstance(event.data, Sealed):
        who = printable(names.get(event.character_id or "", "the GM"))
        gone = " [undone]" if event.event_id in undone else ""
        return f"{event.version:>6}  {when}  {label:>4}  {sealed_line(who)}{gone}"
    # In the players' view a secret event shown whole is one the GM revealed.
    mark = " [revealed]" if player_view else " [secret]"
    secret = mark if event.visibility == "gm" else ""
    summary = summarize(event, names, bought)
    if event.event_id in undone:
        summary = dim(f"{summary} [undone]")
    return f"{event.version:>6}  {when}  {label:>4}  {summary}{secret}"


# How often a follower asks for the head: a lookup of one index entry.
FOLLOW_EVERY = 0.2


def _listed(event) -> dict:
    """The event as stored, for ``--json``. Edited in by hand, a payload no JSON can spell is
    listed as none, with why: the log is where the GM looks to see what is wrong (and `verify`
    names it)."""
    try:
        return event.to_dict()
    except StorageError as exc:
        return {**event.to_dict(payload=False), "unreadable": str(exc)}


def _follow(tracker, session: int | None, player_view: bool, as_json: bool) -> None:
    """Print the session's events so far (the running one unless ``session``), then each new
    one as it is logged, until interrupted. An undo or a redo is an event of its own, which
    names what it takes back or puts back."""
    import time

    from tracker.app.live import Live

    live = Live(tracker)
    if session is not None:
        first = next(tracker.campaigns.log(session), None)
        start = first.version - 1 if first is not None else live.head()
    else:
        start = live.session_start()
    names = tracker.campaigns.character_names()
    seen = start
    try:
        while True:
            page = live.since(seen, player_view=player_view)
            for event in page.events:
                if session is not None and event.session_id != session:
                    continue  # --session N follows that session only
                if event.type == c.CharacterAdded.TYPE:
                    names = tracker.campaigns.character_names()
                if as_json:
                    doc = _listed(event)
                    doc["undone"] = event.event_id in page.undone
                    click.echo(json.dumps(doc, ensure_ascii=False))
                else:
                    click.echo(log_line(event, names, page.undone, player_view))
            seen = page.head
            while live.head() == seen:
                time.sleep(FOLLOW_EVERY)
    except KeyboardInterrupt:
        return
    except BrokenPipeError:
        # A reader that went away (`| head`) ends the follow quietly.
        return


VERIFY = Command(
    ("verify",),
    """Check every campaign's hash chain and re-decide every roll; exit 1 naming what is wrong.

    \b
    Examples:
      tracker verify
      tracker verify --against campaign.jsonl
      tracker verify --against tracker:e4ee917c:118:3f2a9c1e4b7d0a55
    """,
    options=(
        Option(
            "--against",
            "Say whether the log still matches an export (events, CSV, JSON lines or HTML) or "
            "still holds the head a receipt names (`tracker:...`, as `session end` prints it).",
            metavar="EXPORT|RECEIPT",
        ),
        QUIET,
    ),
)


def _verify(against: str | None, quiet: bool, as_json: bool) -> None:
    hush(quiet)
    if against:
        kept = _receipt_in(against)
        if kept is not None:
            _verify_receipt(kept, as_json)
        else:
            _verify_against(against, as_json)
        return
    reports = open_tracker().verifier.verify()
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
                    + f": {_and_restore(p.reason)}.",
                    err=True,
                )
            if r.unchecked is not None:
                click.echo(f"{r.campaign}: {r.unchecked}.", err=True)
            for m in r.mismatches[:10]:
                click.echo(
                    f"{r.campaign}: "
                    + click.style(f"event {m.version} ({m.event_id})", fg=BAD, bold=True)
                    + f": {_and_restore(m.reason)}.",
                    err=True,
                )
        if not reports:
            click.echo("No campaigns to verify.")
    if not ok:
        raise click.exceptions.Exit(1)


verify = make_command(VERIFY, _verify)


RESTORE = "restore a backup or an export from before the change"


def _and_restore(problem: str) -> str:
    """A verify finding with what to do about it, unless it names its own fix already."""
    return problem if "; " in problem else f"{problem}; {RESTORE}"


def export_heads(path: str) -> dict[str, str]:
    """The head hashes an export names: per campaign for an events export, else the one head."""
    import csv
    import re

    with open(path, encoding="utf-8", errors="replace") as handle:
        first = handle.readline()
        try:
            header = json.loads(first)
        except ValueError:
            header = None
        if isinstance(header, dict) and isinstance(header.get("campaigns"), dict):
            return dict(header["campaigns"])
        if isinstance(header, dict) and header.get("log_head"):
            return {"": header["log_head"]}
        handle.seek(0)
        if first.startswith("time,"):
            row = next(csv.DictReader(handle), None)
            if row and row.get("log_head"):
                return {"": row["log_head"]}
        handle.seek(0)
        found = re.search(r'name="tracker-log-head" content="([0-9a-f]{64})"', handle.read())
        if found:
            return {"": found.group(1)}
    raise BadInput(f"{path} names no log head; give a tracker export (events, rolls or report).")


def _receipt_in(against: str):
    """The receipt ``--against`` gives, written out or in a small file; None for an export."""
    from pathlib import Path

    from tracker.events.receipt import find_receipt

    found = find_receipt(against)
    if found is not None:
        return found
    path = Path(against)
    try:
        is_file = path.is_file()
    except OSError:  # a name past the system's length, say
        is_file = False
    if not is_file:
        raise BadInput(
            f"{against} is neither a file nor a receipt; give an export's path or a receipt "
            "like tracker:e4ee917c:118:3f2a9c1e4b7d0a55."
        )
    if path.stat().st_size < 4096:
        return find_receipt(path.read_text(encoding="utf-8", errors="replace"))
    return None


def _verify_receipt(kept, as_json: bool) -> None:
    result = open_tracker().verifier.verify_receipt(kept)
    if as_json:
        emit_json({"ok": result["matches"], "against": str(kept), "receipt": result})
    elif result["matches"]:
        click.echo(
            f"{result['campaign']}: "
            + click.style("holds the receipt's head", fg=GOOD)
            + f" (event {kept.version}, and the chain up to it is intact)."
        )
    else:
        click.echo(
            click.style("Does not hold the receipt's head", fg=BAD, bold=True)
            + f" ({kept}): {_and_restore(result['problem'])}.",
            err=True,
        )
    if not result["matches"]:
        raise click.exceptions.Exit(1)


def _verify_against(path: str, as_json: bool) -> None:
    results = open_tracker().verifier.verify_against(export_heads(path))
    ok = all(r["matches"] for r in results)
    if as_json:
        emit_json({"ok": ok, "against": path, "campaigns": results})
    else:
        for r in results:
            head = f"{r['head'][:12]}…"
            if r["matches"]:
                click.echo(
                    f"{r['campaign']}: "
                    + click.style("matches the export", fg=GOOD)
                    + f" (its head {head} is event {r['found_at']}, and the chain is intact)."
                )
            elif r["found_at"] is None:
                click.echo(
                    click.style("Does not match the export", fg=BAD, bold=True)
                    + f": the log no longer holds its head {head}, so it was edited, cut short "
                    f"or replaced since; {RESTORE}.",
                    err=True,
                )
            else:
                click.echo(
                    f"{r['campaign'] or r['campaign_id']}: "
                    + click.style("does not match the export", fg=BAD, bold=True)
                    + f": {_and_restore(r['problem'])}.",
                    err=True,
                )
    if not ok:
        raise click.exceptions.Exit(1)


COMMANDS = [log, verify]
