"""``tracker export rolls``, ``tracker export events`` and ``tracker import``."""

from __future__ import annotations

import contextlib
import csv
import errno
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any, TextIO

import click

from tracker.app import partfiles
from tracker.cli.declared import QUIET, make_command
from tracker.cli.options import emit_json, hush, open_tracker
from tracker.errors import BadInput
from tracker.systems.commands import Argument, Command, Option
from tracker.words import plural


@click.group("export")
def export() -> None:
    """Export the roll history or the whole log."""


# Names of the standard output: written through it, not opened again (a second descriptor on a
# file the shell opened would write over what the command prints after it).
STANDARD_OUTPUT = frozenset({"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"})


@contextlib.contextmanager
def _target(path: str | None, *, private: bool = True) -> Iterator[TextIO]:
    """Where an export goes; a file that holds what only the GM may see is its owner's alone
    from the first byte (created 0600, not made so afterwards).

    A file is written beside its place, in a file of its own, and put there only when the
    export is whole: an export that stops (a damaged event, a full disk, Ctrl-C, SIGTERM) never
    leaves half a file, nor overwrites yesterday's whole one with it, and two exports to one
    path never write in one file; one killed outright leaves its file beside the target until
    the next export to it (``tracker.app.partfiles``). What is not a plain file
    (``/dev/stdout``, a pipe) is written as it goes."""
    if path is None or path in STANDARD_OUTPUT:
        with _standard_output() as out:
            yield out
        return
    fd, part, final = _opened(path, private)
    try:
        with _stopped_cleanly(), open(fd, "w", encoding="utf-8", newline="") as handle:
            yield handle
        if part is not None:
            os.replace(part, final)
            part = None
    except OSError as exc:
        # The file opened; writing it (or closing it, which writes what is left) failed.
        fix = "free some space or give -o another path"
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            fix = "give -o another path"
        raise click.ClickException(f"Cannot write {path} ({exc.strerror}); {fix}.") from None
    except KeyboardInterrupt:
        kept = "the export was not written" if part is not None else "the export is cut short"
        click.echo(f"Stopped; {kept}, and nothing was logged.", err=True)
        raise SystemExit(130) from None
    finally:
        if part is not None:
            with contextlib.suppress(OSError):
                os.unlink(part)


@contextlib.contextmanager
def _standard_output() -> Iterator[TextIO]:
    """The standard output, for an export written as it goes; a reader that stops reading,
    Ctrl-C and a full disk end the command with a line, not a traceback."""
    try:
        yield sys.stdout
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped reading (`| head`): as any filter, stop quietly, without a
        # word about free space nothing lacks.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(141) from None
    except KeyboardInterrupt:
        click.echo("Stopped; the export is cut short, and nothing was logged.", err=True)
        raise SystemExit(130) from None
    except OSError as exc:
        raise click.ClickException(
            f"Cannot write the export to standard output ({exc.strerror}); free some space, "
            "or give -o a file elsewhere."
        ) from None


def _opened(path: str, private: bool) -> tuple[int, str | None, str | None]:
    """The file an export to ``path`` is written in, opened: a new one beside it and where it
    goes when whole, or ``path`` itself (None, None) where it is written in place. A path
    that cannot be written is refused with what to give -o instead."""
    beside = _beside(path, private)
    if beside is not None:
        return beside
    # A stream given by name (/dev/stdout) is written on after what it holds: it may be
    # a file the shell opened for the command (`>> log`), which O_TRUNC would empty.
    stream = path.startswith(("/dev/", "/proc/"))
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if stream else os.O_TRUNC)
    try:
        return os.open(path, flags, 0o600 if private else 0o666), None, None
    except OSError as exc:
        fix = {
            errno.ENOENT: "give -o a path in a folder that exists",
            errno.EACCES: "give -o a path in a folder you can write to",
            errno.EPERM: "give -o a path in a folder you can write to",
            errno.EISDIR: "give -o a file name, not a folder",
        }.get(exc.errno or 0, "give -o another path")
        raise click.ClickException(f"Cannot write {path} ({exc.strerror}); {fix}.") from None


def _beside(path: str, private: bool) -> tuple[int, str, str] | None:
    """A new file of this export's own beside ``path``, its name, and where it goes when whole;
    None where the export is written in place: a stream (``/dev/stdout``, a pipe), a file the
    user may not write (refused as before), or a folder that takes no new file."""
    if path.startswith(("/dev/", "/proc/")) or (os.path.lexists(path) and not os.path.isfile(path)):
        return None
    final = os.path.realpath(path)  # through a link, as writing in place would go
    if os.path.islink(final) or (os.path.exists(final) and not os.access(final, os.W_OK)):
        return None  # a loop of links, or a file kept from writing: refused in place
    try:
        fd, part = partfiles.create(final)
    except OSError:
        return None
    if not private:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)
    return fd, part, final


@contextlib.contextmanager
def _stopped_cleanly() -> Iterator[None]:
    """While an export is written, a stop asked by the system (SIGTERM, a closed terminal)
    ends it as Ctrl-C does, so what it wrote beside the file is cleared."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    before = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


OUTPUT = Option("--output", "Write to FILE instead of the terminal.", metavar="FILE", short="-o")

EXPORT_ROLLS = Command(
    ("export", "rolls"),
    """One row per roll: time, session, character, dice, outcome, the odds, effects.

    \b
    Examples:
      tracker export rolls --session 4 --format csv -o session4.csv
      tracker export rolls --format html --player-view -o table.html
    """,
    options=(
        Option(
            "--format",
            "A spreadsheet's rows, JSON lines, or a page with the luck and the tracks drawn.",
            "choice",
            dest="fmt",
            choices=("csv", "jsonl", "html"),
            default="csv",
            show_default=True,
        ),
        Option("--session", "Only rolls of session N.", "int", metavar="N"),
        Option("--character", "Only one character's rolls.", metavar="NAME"),
        Option("--since", "Only rolls from this date or time on.", metavar="WHEN"),
        Option("--until", "Only rolls up to this date or time.", metavar="WHEN"),
        Option("--player-view", "Secret rolls keep their row, not their dice.", "bool"),
        OUTPUT,
        QUIET,
    ),
)


def _export_rolls(
    fmt: str,
    session: int | None,
    character: str | None,
    since: str | None,
    until: str | None,
    player_view: bool,
    output: str | None,
    quiet: bool,
    as_json: bool,
) -> None:
    hush(quiet)
    from tracker.app.export import RollFilter, utc_stamp
    from tracker.projections.rolls import SEALED_KIND

    _described(as_json, output)
    tracker = open_tracker()
    flt = RollFilter(session, character, utc_stamp(since, "--since"), utc_stamp(until, "--until"))
    if fmt == "html":
        from tracker.cli.report_html import render

        report = tracker.exports.roll_report(flt, player_view=player_view)
        with _target(output, private=not player_view) as out:
            out.write(render(report))
        count, head = len(report["rows"]), report["log_head"]
        sealed = sum(r["kind"] == SEALED_KIND for r in report["rows"])
        luck = {c["character"]: c["luck"] for c in report["luck"]["characters"]}
    elif fmt == "csv":
        from tracker.projections.rolls import columns

        state, cells = tracker.exports.csv_rows(flt, player_view=player_view)
        head, count, sealed, luck = state.head_hash, 0, 0, None
        heads = columns()
        kind = heads.index("kind")
        with _target(output, private=not player_view) as out:
            writer = csv.writer(out)
            writer.writerow([*heads, "log_head"])
            for row in cells:
                writer.writerow(row)
                count += 1
                sealed += row[kind] == SEALED_KIND
    else:
        state, rows = tracker.exports.roll_rows(flt, player_view=player_view)
        head, count, sealed, luck = state.head_hash, 0, 0, None
        with _target(output, private=not player_view) as out:
            out.write(
                json.dumps({"export": "rolls", "campaign": state.name, "log_head": head}) + "\n"
            )
            for row in rows:
                out.write(json.dumps(row.to_dict(player_view), ensure_ascii=False) + "\n")
                count += 1
                sealed += row.sealed
    # A sealed row is a secret event of any kind (the quirk a secret Fright Check cost reads as
    # a secret roll does): counted apart from the rolls, as the recap counts it.
    doc = {"rows": count, "rolls": count - sealed, "sealed": sealed}
    _summary(as_json, output, {**doc, "log_head": head, "format": fmt, "luck": luck})


export.add_command(make_command(EXPORT_ROLLS, _export_rolls))


def _described(as_json: bool, output: str | None) -> None:
    """Refuse --json for an export to the terminal: the export is what goes there, and --json
    promises one JSON document describing it, which only a file leaves room for."""
    if as_json and (output is None or output in STANDARD_OUTPUT):
        raise BadInput(
            "--json describes an export written to a file; give -o FILE with it, or leave "
            "--json out to have the export itself on the terminal."
        )


def _summary(as_json: bool, output: str | None, doc: dict) -> None:
    """Say what was written: on stdout when the data went to a file, else on stderr."""
    # The players' view withholds the head when it is an older secret event's, unsalted.
    head = doc["log_head"] or "withheld (a secret event's)"
    if output is None or output in STANDARD_OUTPUT:  # never with --json (``_described``)
        rows = doc.get("rows", doc.get("events"))
        click.echo(f"{plural(rows, 'row')}, log head {head[:12]}", err=True)
        return
    if as_json:
        emit_json({"output": output, **doc})
        return
    what = plural(doc["rolls"], "roll") if "rolls" in doc else plural(doc["events"], "event")
    if doc.get("sealed"):
        what += f" and {plural(doc['sealed'], 'secret event')} sealed"
    shown = f"{head[:12]}…{head[-2:]}" if doc["log_head"] else head
    line = f"Wrote {output}: {what}, log head {shown}."
    if doc.get("luck"):
        line += " Luck: " + ", ".join(f"{n} {v:+.1f}" for n, v in doc["luck"].items()) + "."
    click.echo(line)


EXPORT_EVENTS = Command(
    ("export", "events"),
    """The whole log (every campaign) as JSON lines; `tracker import` reads it back exactly.

    \b
    Example:
      tracker export events -o campaigns.jsonl
    """,
    options=(OUTPUT, QUIET),
)


def _export_events(output: str | None, quiet: bool, as_json: bool) -> None:
    hush(quiet)
    _described(as_json, output)
    tracker = open_tracker()
    with _target(output) as out:
        result = tracker.exports.export_events(out)
    heads = result["campaigns"]
    head = next(reversed(heads.values()), "0" * 64) if heads else "0" * 64
    _summary(as_json, output, {"events": result["events"], "log_head": head, "heads": heads})


export.add_command(make_command(EXPORT_EVENTS, _export_events))


IMPORT = Command(
    ("import",),
    """Read an events export into a new, empty database; every hash is checked.

    \b
    Example:
      tracker --db restored.db import campaigns.jsonl
    """,
    arguments=(Argument("file", kind="input"),),
    options=(QUIET,),
)


def _import(file: str, quiet: bool, as_json: bool) -> None:
    hush(quiet)
    tracker = open_tracker()
    # Bytes, each line read as strict UTF-8 by the import, which names a line that is not.
    with click.open_file(file, "rb") as handle:
        result = tracker.exports.import_events(handle, file)
    if as_json:
        emit_json(result)
        return
    playing = f'; now playing "{result["current"]}"' if result.get("current") else ""
    click.echo(
        f"Imported {result['events']:,} events into {tracker.location}{playing}; "
        "run `tracker verify`."
    )


import_ = make_command(IMPORT, _import)
COMMANDS = [export, import_]
