"""tracker's benchmark suite: every figure against its raw-SQLite twin, measured in the same run.

    python tests/perf/bench.py [--events N] [--quick] [--system glintlock|gloom|gurps] [--keep]
                               [--no-pg] [--no-loads] [--runs R]

N defaults to 1,000,000 events; ``--quick`` uses 100,000. A campaign of about 20,000 events is
played through the command handlers, then replayed to N events (see ``workload.py``). The
figures, each printed next to its twin, the same job done the plain way (``twins.py``), both
sides timed alike and, where measured more than once, taking turns run by run:

1. bulk load of N hash-chained events: ``tracker import`` and ``append`` in batches of 5,000
   (left out with ``--no-loads``, which loads the log unchecked for the rest);
2. a full rebuild of every projection from the N-event log (one pass) against a scan that
   decodes every payload with msgspec and folds it trivially into a dictionary;
3. ``tracker status`` and ``tracker obligations`` as one-shot processes, N events against 1,000;
4. a logged roll, in the shell (in-process, warm) and as a one-shot process, the latter against
   ``python -c "import click, msgspec, sqlite3"`` leaving as tracker leaves;
5. ``tracker export rolls --format csv`` of every roll in the log, against a twin that writes the
   same bytes (compared);
6. the peak memory of 2 and 5;
7. every command that serves the table (status, obligations, a look back, the replay of the
   running session, undo and redo) as one-shot processes at 1,000 events and at 10,000,
   100,000 and N, before and after a run of undos and redos, the sizes taking turns run by
   run so that a machine slowing for a minute slows them all alike;
8. appends per second on PostgreSQL as writers are added, against a raw psycopg writer
   (``pgwriters.py``; left out with ``--no-pg`` or when no PostgreSQL is installed).

Every heavy step runs in a child process of its own (this script with ``--child``), so each
starts cold and its peak memory is its own; tracker's modules are byte-compiled first, as a first
run leaves them. The databases live in a temporary folder that is removed at the end (``--keep``
keeps it). This is not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import islice, pairwise
from pathlib import Path
from typing import Any

import twins
import workload

DEFAULT_EVENTS = 1_000_000
QUICK_EVENTS = 100_000
SMALL_EVENTS = 1_000
APPEND_BATCH = 5_000
SHELL_ROLLS = 1_000
ONE_SHOT_RUNS = 5
ROLL_RUNS = 7
# Runs of each side of the rebuild and the export, taking turns (``--runs``).
FIGURE_RUNS = 5
# The one-shot roll's floor: Python starting, the libraries a command on SQLite imports, and
# leaving as tracker leaves, without tearing the interpreter down.
ONE_SHOT_FLOOR = "import click, msgspec, sqlite3, os; os._exit(0)"
SEED = 7
# A roll a GM makes at the table, per system; Glintlock's --override keeps a roll at Threat 6
# from being refused (and so from being timed as a refusal).
ROLL_COMMANDS = {
    "glintlock": "roll Wren Grit --tag 1:gear --override",
    "gloom": "roll Kade Hacking --dl 5",
    "gurps": "roll Mira Lockpicking --mod -2:darkness",
}
MB = 1_000_000


# -- child processes ---------------------------------------------------------------------------


def child_template(db: str, out: str, system: str) -> dict[str, Any]:
    started = time.perf_counter()
    events = workload.play_template(Path(db), Path(out), system, SEED)
    return {"events": events, "seconds": time.perf_counter() - started}


def child_feed(template: str, count: str, out: str) -> dict[str, Any]:
    started = time.perf_counter()
    head = workload.write_export(workload.load_template(Path(template)), int(count), Path(out))
    return {"head": head, "seconds": time.perf_counter() - started}


def child_schema(db: str) -> dict[str, Any]:
    """An empty database with tracker's schema, for a twin to fill."""
    from tracker.app.tracker import Tracker

    Tracker(db).close()
    return {}


def child_import(export: str, db: str) -> dict[str, Any]:
    from tracker.app.tracker import Tracker

    tracker = Tracker(db)
    with open(export, encoding="utf-8") as handle:
        started = time.perf_counter()
        result = tracker.exports.import_events(handle, export)
        seconds = time.perf_counter() - started
    tracker.close()
    return {"events": result["events"], "seconds": seconds}


def child_load(export: str, db: str) -> dict[str, Any]:
    """An export loaded unchecked into a new database with tracker's schema (``--no-loads``)."""
    from tracker.app.tracker import Tracker

    Tracker(db).close()
    started = time.perf_counter()
    events = twins.load(export, db)
    return {"events": events, "seconds": time.perf_counter() - started}


def child_import_raw(export: str, db: str) -> dict[str, Any]:
    started = time.perf_counter()
    events = twins.import_export(export, db)
    return {"events": events, "seconds": time.perf_counter() - started}


def child_append(template: str, count: str, db: str) -> dict[str, Any]:
    from tracker.app.tracker import Tracker

    plan = workload.load_template(Path(template))
    tracker = Tracker(db)
    store = tracker.store
    started = time.perf_counter()
    feed = workload.new_events(plan, int(count))
    first = list(islice(feed, len(plan.prologue)))
    store.create_campaign(plan.campaign_id, workload.CAMPAIGN_NAME, plan.system, first)
    version = len(first)
    while batch := list(islice(feed, APPEND_BATCH)):
        store.append(plan.campaign_id, batch, version)
        version += len(batch)
    seconds = time.perf_counter() - started
    tracker.close()
    return {"events": version, "seconds": seconds}


def child_append_raw(template: str, count: str, db: str) -> dict[str, Any]:
    plan = workload.load_template(Path(template))
    started = time.perf_counter()
    feed = workload.new_events(plan, int(count))
    events = twins.append_stream(db, plan.campaign_id, workload.CAMPAIGN_NAME, plan.system, feed)
    return {"events": events, "seconds": time.perf_counter() - started}


def child_rebuild(db: str) -> dict[str, Any]:
    """Every projection from the first event, in one pass: the campaign state and the luck."""
    from tracker.app.tracker import Tracker

    tracker = Tracker(db)
    row = tracker.store.campaigns()[0]
    started = time.perf_counter()
    state, summary = tracker.rebuild_all(row)
    done = time.perf_counter()
    tracker.close()
    return {
        "events": state.version,
        "rolls": sum(c.rolls for c in summary.characters.values()),
        "seconds": done - started,
    }


def child_rebuild_raw(db: str) -> dict[str, Any]:
    started = time.perf_counter()
    events = twins.rebuild(db)
    return {"events": events, "seconds": time.perf_counter() - started}


def child_shell(db: str, count: str, command: str) -> dict[str, Any]:
    """Rolls typed at ``tracker shell``: one open tracker, its campaign state kept warm."""
    import contextlib
    import io

    from tracker.app.tracker import Tracker
    from tracker.cli.shell import run_line

    tracker = Tracker(db)
    tracker.warm = True
    obj = {"tracker": tracker, "db": tracker.url, "campaign": None}
    errors = io.StringIO()
    times = []
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        with contextlib.redirect_stderr(errors):
            run_line('session start --title "Bench night"', obj)
            # The first command folds the campaign from its snapshot, as the shell's first does.
            warm_up = run_line(command, obj)
        for _ in range(int(count)):
            with contextlib.redirect_stderr(errors):
                started = time.perf_counter()
                code = run_line(command, obj)
                times.append(time.perf_counter() - started)
            if code != 0:
                raise SystemExit(f"`{command}` failed in the shell: {errors.getvalue().strip()}")
    tracker.close()
    return {"times": times, "warm_up_code": warm_up}


def child_log_rolls(db: str, count: str) -> dict[str, Any]:
    return {"times": twins.log_rolls(db, int(count))}


CHILDREN: dict[str, Callable[..., dict[str, Any]]] = {
    "template": child_template,
    "feed": child_feed,
    "schema": child_schema,
    "import": child_import,
    "import-raw": child_import_raw,
    "load": child_load,
    "append": child_append,
    "append-raw": child_append_raw,
    "rebuild": child_rebuild,
    "rebuild-raw": child_rebuild_raw,
    "shell": child_shell,
    "log-rolls": child_log_rolls,
}


# -- running and timing processes --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ran:
    seconds: float
    peak_mb: float
    stdout: str


class Bench:
    """The run's folder, environment and commands."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        env = dict(os.environ)
        env.pop("TRACKER_DB", None)
        env.pop("TRACKER_CAMPAIGN", None)
        # Nothing the commands write by default lands in the user's own data folder.
        env["XDG_DATA_HOME"] = str(workdir / "data")
        self.env = env
        script = Path(sys.executable).with_name("tracker")
        self.tracker = [str(script)] if script.exists() else [sys.executable, "-m", "tracker"]

    def path(self, name: str) -> str:
        return str(self.workdir / name)

    def run(self, argv: Sequence[str]) -> Ran:
        """Run a process to its end; its wall time and its own peak resident memory."""
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            started = time.perf_counter()
            proc = subprocess.Popen(argv, stdout=out, stderr=err, env=self.env)
            # wait4, not Popen.wait: it gives this child's own rusage (RUSAGE_CHILDREN would be
            # the largest of all children so far).
            _, status, usage = os.wait4(proc.pid, 0)
            seconds = time.perf_counter() - started
            proc.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            stdout = out.read().decode("utf-8", "replace")
            if proc.returncode != 0:
                message = err.read().decode("utf-8", "replace").strip()
                raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {message}")
        return Ran(seconds, usage.ru_maxrss * 1024 / MB, stdout)

    def child(self, name: str, *args: str) -> tuple[dict[str, Any], Ran]:
        ran = self.run([sys.executable, str(Path(__file__).resolve()), "--child", name, *args])
        return json.loads(ran.stdout.strip().splitlines()[-1]), ran

    def cli(self, db: str, *args: str) -> Ran:
        return self.run([*self.tracker, "--db", db, *args])

    def median_ms(self, argv: Sequence[str], runs: int) -> float:
        """The median wall time of ``runs`` runs, after one run to warm the caches."""
        self.run(argv)
        return statistics.median(self.run(argv).seconds for _ in range(runs)) * 1000


def note(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- the table ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Row:
    figure: str
    tracker: str
    twin: str
    ratio: float | None = None
    target: str = ""
    met: bool | None = None
    # The lowest and highest of the runs' ratios, where the figure was measured more than once.
    ratio_spread: tuple[float, float] | None = None


def spread(values: Sequence[float], show: Callable[[float], str]) -> str:
    """The median of ``values`` and, from more than one run, their lowest and highest (``show``
    gives a number and its unit; the unit is said once)."""
    middle = show(statistics.median(values))
    if len(values) < 2:
        return middle
    low, high = show(min(values)).split(" ")[0], show(max(values)).split(" ")[0]
    return f"{middle} ({low}-{high})"


def alternated(runs: int, *sides: Callable[[], float]) -> list[list[float]]:
    """Each side's measure, ``runs`` times, the sides taking turns run by run: a machine that
    slows for a minute slows both alike, and the ratio of each pair compares the code."""
    measured: list[list[float]] = [[] for _ in sides]
    for _ in range(runs):
        for out, side in zip(measured, sides, strict=True):
            out.append(side())
    return measured


def compared(
    label: str,
    mine: Sequence[float],
    twin: Sequence[float],
    show: Callable[[float], str],
    target: float,
    *,
    higher_is_better: bool,
) -> Row:
    """A figure measured run by run on both sides: each side's median and spread, and the
    median of the runs' ratios (tracker over its twin)."""
    ratios = [a / b for a, b in zip(mine, twin, strict=True)]
    ratio = statistics.median(ratios)
    met = ratio >= target if higher_is_better else ratio <= target
    return Row(
        label,
        spread(mine, show),
        spread(twin, show),
        ratio,
        f"{'>=' if higher_is_better else '<='} {target:.2f}",
        met,
        (min(ratios), max(ratios)) if len(ratios) > 1 else None,
    )


def rate(count: int, seconds: float, unit: str = "ev/s") -> str:
    return f"{count / seconds:,.0f} {unit}"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def p99(times: Sequence[float]) -> float:
    return statistics.quantiles(times, n=100)[98]


def render(rows: Sequence[Row]) -> str:
    head = ("figure", "tracker", "raw twin", "ratio", "target", "met?")
    cells = [
        (
            r.figure,
            r.tracker,
            r.twin,
            ""
            if r.ratio is None
            else f"{r.ratio:.2f}"
            + ("" if r.ratio_spread is None else " ({:.2f}-{:.2f})".format(*r.ratio_spread)),
            r.target,
            "" if r.met is None else ("yes" if r.met else "no"),
        )
        for r in rows
    ]
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head))]
    right = {1, 2, 3}

    def line(cols: Sequence[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cols, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(head), rule, *(line(c) for c in cells)])


def code_version() -> str:
    """The commit measured, when the checkout is a git repository (read, never changed)."""
    root = Path(__file__).resolve().parents[2]
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "tracker (not a git checkout)"
    return f"tracker at commit {done.stdout.strip()}"


def machine() -> str:
    model = ""
    with_cpuinfo = Path("/proc/cpuinfo")
    if with_cpuinfo.exists():
        for text in with_cpuinfo.read_text().splitlines():
            if text.startswith("model name"):
                model = text.split(":", 1)[1].strip()
                break
    nproc = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (
        f"machine: nproc {nproc}{f' ({model})' if model else ''}, {platform.platform()}\n"
        f"python {platform.python_version()}, SQLite {sqlite3.sqlite_version}"
    )


# -- the figures ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Setup:
    """The files one run works on."""

    events: int
    system: str
    runs: int
    # How a log is put in a database for the figures that read one: "import" (tracker's own,
    # checked) or "load" (unchecked, when figure 1 is left out).
    loader: str
    template: str
    export: str
    db: str
    small: str


def prepare(bench: Bench, events: int, system: str, runs: int, loader: str) -> Setup:
    """Play the template campaign and write the N-event export both sides load."""
    setup = Setup(
        events,
        system,
        runs,
        loader,
        bench.path("template.jsonl"),
        bench.path("events.jsonl"),
        bench.path("campaign.db"),
        bench.path("small.db"),
    )
    if os.environ.get("TRACKER_BENCH_TEMPLATE"):
        # A campaign played by an earlier run (its template.jsonl), while the bench itself is
        # worked on; a measured run plays its own.
        shutil.copy(os.environ["TRACKER_BENCH_TEMPLATE"], setup.template)
    else:
        note(f"playing a {workload.TEMPLATE_EVENTS:,}-event {system} campaign")
        played, _ = bench.child("template", bench.path("template.db"), setup.template, system)
        note(f"played {played['events']:,} events in {played['seconds']:.1f} s")
    fed, _ = bench.child("feed", setup.template, str(events), setup.export)
    note(f"wrote the {events:,}-event export in {fed['seconds']:.1f} s")
    return setup


def throughput(label: str, events: int, mine: float, raw: float, target: float) -> Row:
    ratio = raw / mine
    return Row(
        label, rate(events, mine), rate(events, raw), ratio, f">= {target:.2f}", ratio >= target
    )


def bulk_loads(bench: Bench, setup: Setup) -> list[Row]:
    """1: N chained events loaded by ``tracker import`` and by ``append`` in batches."""
    n = setup.events
    note("1a: tracker import")
    loaded, _ = bench.child("import", setup.export, setup.db)
    raw_db = bench.path("raw.db")
    bench.child("schema", raw_db)
    note("1a: raw twin")
    raw_loaded, _ = bench.child("import-raw", setup.export, raw_db)
    remove_db(raw_db)

    appended_db, raw_appended_db = bench.path("append.db"), bench.path("append-raw.db")
    bench.child("schema", appended_db)
    bench.child("schema", raw_appended_db)
    note(f"1b: append in batches of {APPEND_BATCH:,}")
    appended, _ = bench.child("append", setup.template, str(n), appended_db)
    remove_db(appended_db)
    note("1b: raw twin")
    raw_appended, _ = bench.child("append-raw", setup.template, str(n), raw_appended_db)
    remove_db(raw_appended_db)
    return [
        throughput(
            f"1a import {n:,} events (tracker import)",
            n,
            loaded["seconds"],
            raw_loaded["seconds"],
            0.8,
        ),
        throughput(
            f"1b append {n:,} events, batches of {APPEND_BATCH:,}",
            n,
            appended["seconds"],
            raw_appended["seconds"],
            0.8,
        ),
    ]


def rebuild(bench: Bench, setup: Setup) -> tuple[list[Row], Ran, Ran]:
    """2: every projection from the first event, against a plain fold of the log: one scan,
    msgspec's decoder per payload and a trivial update of a dictionary per event. Both timed
    in-process (each side a fresh process, the clock around the fold alone), taking turns."""
    n = setup.events
    note(f"2: rebuild, {setup.runs} runs each, taking turns with the twin")
    rans: dict[str, Ran] = {}
    rolls = 0

    def side(name: str) -> Callable[[], float]:
        def run() -> float:
            nonlocal rolls
            done, rans[name] = bench.child(name, setup.db)
            rolls = done.get("rolls", rolls)
            return n / done["seconds"]

        return run

    mine, twin = alternated(setup.runs, side("rebuild"), side("rebuild-raw"))
    row = compared(
        f"2  rebuild: state + luck of {rolls:,} rolls (vs scan, decode, trivial fold)",
        mine,
        twin,
        lambda v: f"{v:,.0f} ev/s",
        0.6,
        higher_is_better=True,
    )
    return [row], rans["rebuild"], rans["rebuild-raw"]


def one_shots(bench: Bench, setup: Setup) -> list[Row]:
    """3: ``tracker status`` and ``tracker obligations`` on N events against 1,000."""
    note(f"3: status and obligations, {setup.events:,} events against {SMALL_EVENTS:,}")
    prefix = bench.path("small.jsonl")
    workload.write_prefix(Path(setup.export), min(SMALL_EVENTS, setup.events), Path(prefix))
    bench.child(setup.loader, prefix, setup.small)
    for path in (setup.db, setup.small):
        bench.cli(path, "campaign", "use", workload.CAMPAIGN_NAME)
    # The first command after an import folds the whole log and leaves a snapshot behind.
    first_big = bench.cli(setup.db, "status").seconds
    first_small = bench.cli(setup.small, "status").seconds
    rows = [
        Row(
            "3  first status after import",
            ms(first_big),
            ms(first_small),
            first_big / first_small,
        )
    ]
    for name, label in (("status", "3a"), ("obligations", "3b")):
        big = [*bench.tracker, "--db", setup.db, name]
        small = [*bench.tracker, "--db", setup.small, name]
        bench.run(big)  # one run each to warm the caches
        bench.run(small)
        mine, twin = alternated(
            ONE_SHOT_RUNS, lambda a=big: bench.run(a).seconds, lambda a=small: bench.run(a).seconds
        )
        rows.append(
            compared(
                f"{label} tracker {name}, one-shot (vs {SMALL_EVENTS:,} events)",
                mine,
                twin,
                ms,
                1.2,
                higher_is_better=False,
            )
        )
    return rows


def export_rolls(bench: Bench, setup: Setup) -> tuple[list[Row], Ran, Ran]:
    """5: every roll of the log written by ``tracker export rolls --format csv``, against a
    twin that writes the same bytes (compared here) the plain way; both whole processes,
    taking turns."""
    note(f"5: export rolls, {setup.runs} runs each, taking turns with the twin")
    if setup.system != "glintlock":
        # The twin words Glintlock's checks; the other systems' words are not written twice.
        ran = bench.cli(setup.db, "export", "rolls", "--format", "csv", "-o", bench.path("r.csv"))
        return [Row("5  export rolls to CSV", ms(ran.seconds), "(Glintlock only)")], ran, ran
    out, raw_out = bench.path("rolls.csv"), bench.path("rolls-raw.csv")
    rans: dict[str, Ran] = {}
    counts: dict[str, int] = {}

    def mine() -> float:
        ran = bench.cli(setup.db, "export", "rolls", "--format", "csv", "-o", out, "--json")
        rans["mine"], counts["mine"] = ran, json.loads(ran.stdout)["rolls"]
        return counts["mine"] / ran.seconds

    def twin() -> float:
        ran = bench.run(
            [sys.executable, str(Path(twins.__file__)), "export-rolls", setup.db, raw_out]
        )
        rans["twin"], counts["twin"] = ran, json.loads(ran.stdout)["rows"]
        return counts["twin"] / ran.seconds

    mine_rates, twin_rates = alternated(setup.runs, mine, twin)
    same = Path(out).read_bytes() == Path(raw_out).read_bytes()
    figure = f"5  export {counts['mine']:,} rolls to CSV (vs the same bytes, plainly)"
    if not same:
        figure += f": FILES DIFFER ({first_difference(out, raw_out)})"
    row = compared(
        figure, mine_rates, twin_rates, lambda v: f"{v:,.0f} rows/s", 0.85, higher_is_better=True
    )
    if not same:
        row = Row(row.figure, row.tracker, row.twin, row.ratio, row.target, False, row.ratio_spread)
    return [row], rans["mine"], rans["twin"]


def first_difference(a: str, b: str) -> str:
    with open(a, encoding="utf-8") as left, open(b, encoding="utf-8") as right:
        for number, (x, y) in enumerate(zip(left, right, strict=False), start=1):
            if x != y:
                return f"line {number}: {x.strip()[:80]!r} vs {y.strip()[:80]!r}"
    return "one is longer"


def peak_memory(label: str, mine: Ran, raw: Ran) -> Row:
    """6: a figure's peak resident memory, against its twin's."""
    return Row(
        label,
        f"{mine.peak_mb:,.0f} MB",
        f"{raw.peak_mb:,.0f} MB",
        mine.peak_mb / raw.peak_mb,
        "< 100 MB",
        mine.peak_mb < 100,
    )


def logged_rolls(bench: Bench, setup: Setup) -> list[Row]:
    """4: a logged roll in the shell (in-process, warm) and as a one-shot process."""
    command = ROLL_COMMANDS[setup.system]
    note(f"4: {SHELL_ROLLS:,} rolls in the shell")
    shell, _ = bench.child("shell", setup.db, str(SHELL_ROLLS), command)
    note("4: raw twin")
    raw, _ = bench.child("log-rolls", setup.db, str(SHELL_ROLLS))
    rows = []
    for label, pick, limit in (
        ("4a shell: a logged roll, median", statistics.median, None),
        ("4b shell: a logged roll, p99", p99, 0.010),
    ):
        mine, twin = pick(shell["times"]), pick(raw["times"])
        rows.append(
            Row(
                f"{label} of {SHELL_ROLLS:,}",
                ms(mine),
                ms(twin),
                mine / twin,
                "" if limit is None else f"<= {limit * 1000:.0f} ms",
                None if limit is None else mine <= limit,
            )
        )
    note("4: one-shot rolls, taking turns with the floor")
    roll = [*bench.tracker, "--db", setup.db, *command.split()]
    floor = [sys.executable, "-c", ONE_SHOT_FLOOR]
    bench.run(roll)  # one run each to warm the caches
    bench.run(floor)
    mine, twin = alternated(
        ROLL_RUNS, lambda: bench.run(roll).seconds, lambda: bench.run(floor).seconds
    )
    rows.append(
        compared(
            "4c one-shot `tracker roll` vs `import click, msgspec, sqlite3`",
            mine,
            twin,
            ms,
            1.25,
            higher_is_better=False,
        )
    )
    return rows


# -- 7: the table's commands at every size --------------------------------------------------------


TABLE_SIZES = (10_000, 100_000, 1_000_000)
UNDO_PAIRS = 8
TABLE_RUNS = 11
SMALL = "small"  # the key of the 1,000-event database among the sizes
LOOK_BACK = 3  # `status --as-of` this many events before the head


@dataclass(frozen=True, slots=True)
class Sized:
    """One command's median one-shot time at each size, and the smallest campaign's."""

    figure: str
    small: float
    by_size: dict[int, float]


def _head(db: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT max(version) FROM events").fetchone()[0]
    finally:
        conn.close()


def _playing(bench: Bench, db: str, system: str) -> None:
    """A new session with a few rolls in it, as at the table (not timed): every size plays a
    session of the same length, so what grows between them is the log alone."""
    running = json.loads(bench.cli(db, "status", "--json").stdout).get("session")
    if running is not None:
        bench.cli(db, "session", "end")
    bench.cli(db, "session", "start", "--title", "Bench night")
    for _ in range(3):
        bench.cli(db, *ROLL_COMMANDS[system].split())


def _table_times(bench: Bench, dbs: dict[str, str], system: str) -> dict[str, dict[str, float]]:
    """Each table command's median one-shot time on each of ``dbs``, before and after a run of
    undos and redos (which the figures after it must not pay for).

    The databases take turns, run by run: a machine that slows for a minute slows every size
    alike, so the ratios compare the log's length, not the minute each size was measured in."""
    times: dict[str, dict[str, float]] = {key: {} for key in dbs}

    def looks(when: str) -> None:
        heads = {key: _head(db) for key, db in dbs.items()}
        for label, args in (
            ("status", lambda key: ["status"]),
            ("obligations", lambda key: ["obligations"]),
            (
                f"status --as-of (head - {LOOK_BACK})",
                lambda key: ["status", "--as-of", str(heads[key] - LOOK_BACK)],
            ),
            ("replay of the running session", lambda key: ["replay"]),
        ):
            argvs = {key: [*bench.tracker, "--db", db, *args(key)] for key, db in dbs.items()}
            for argv in argvs.values():
                bench.run(argv)  # one run each to warm the caches
            runs: dict[str, list[float]] = {key: [] for key in dbs}
            for _ in range(TABLE_RUNS):
                for key, argv in argvs.items():
                    runs[key].append(bench.run(argv).seconds)
            for key, seconds in runs.items():
                times[key][f"{label}, {when}"] = statistics.median(seconds)

    for db in dbs.values():
        _playing(bench, db, system)
    looks("before undos")
    undo: dict[str, list[float]] = {key: [] for key in dbs}
    redo: dict[str, list[float]] = {key: [] for key in dbs}
    for _ in range(UNDO_PAIRS):
        for key, db in dbs.items():
            bench.cli(db, *ROLL_COMMANDS[system].split())
            undo[key].append(bench.cli(db, "undo").seconds)
            redo[key].append(bench.cli(db, "redo").seconds)
    for _ in range(UNDO_PAIRS):
        for db in dbs.values():
            bench.cli(db, *ROLL_COMMANDS[system].split())
            bench.cli(db, "undo")
    for key in dbs:
        times[key]["undo (the last roll)"] = statistics.median(undo[key])
        times[key]["redo"] = statistics.median(redo[key])
    looks("after undos and redos")
    return times


def table_commands(bench: Bench, setup: Setup) -> list[Sized]:
    """7: every command that serves the table, one-shot, at 1,000 events and at each size up
    to N (the N-event database itself, played last)."""
    sizes = [n for n in TABLE_SIZES if n < setup.events] + [setup.events]
    dbs = {SMALL: setup.small}
    for n in sizes[:-1]:
        prefix, db = bench.path(f"prefix-{n}.jsonl"), bench.path(f"table-{n}.db")
        workload.write_prefix(Path(setup.export), n, Path(prefix))
        bench.child(setup.loader, prefix, db)
        bench.cli(db, "campaign", "use", workload.CAMPAIGN_NAME)
        dbs[str(n)] = db
    dbs[str(setup.events)] = setup.db
    note(f"7: table commands at {SMALL_EVENTS:,} events and at {', '.join(map(str, sizes))}")
    measured = _table_times(bench, dbs, setup.system)
    return [
        Sized(k, measured[SMALL][k], {n: measured[str(n)][k] for n in sizes})
        for k in measured[SMALL]
    ]


def render_sizes(rows: Sequence[Sized], limit: float) -> str:
    sizes = list(rows[0].by_size)
    head = ["command (one-shot, median)", f"{SMALL_EVENTS:,}", *(f"{n:,}" for n in sizes)]
    head += [f"{sizes[-1]:,} / {SMALL_EVENTS:,}", "target", "met?"]
    cells = []
    for r in rows:
        ratio = r.by_size[sizes[-1]] / r.small
        cells.append(
            [
                r.figure,
                ms(r.small),
                *(ms(r.by_size[n]) for n in sizes),
                f"{ratio:.2f}",
                f"<= {limit:.2f}",
                "yes" if ratio <= limit else "no",
            ]
        )
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head))]

    def line(cols: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cols, widths, strict=True))
        ).rstrip()

    return "\n".join([line(head), "  ".join("-" * w for w in widths), *map(line, cells)])


# -- 8: concurrent writers on PostgreSQL -----------------------------------------------------------


def pg_writers(bench: Bench) -> str:
    """8: appends per second as writers are added, tracker against a raw psycopg writer."""
    import pgwriters

    note("8: PostgreSQL writers")
    cluster, url = pgwriters.server()
    if cluster is None:
        return f"8  PostgreSQL writers: not measured ({url})"
    try:
        measured = pgwriters.measure(url)
    finally:
        cluster.stop()
    head = ("writers", "tracker", "raw psycopg", "ratio", "target", "met?", "tracker retries")
    cells = []
    for row in measured:
        ratio = row["tracker"]["per_second"] / row["raw"]["per_second"]
        cells.append(
            (
                str(row["writers"]),
                f"{row['tracker']['per_second']:,.0f} /s",
                f"{row['raw']['per_second']:,.0f} /s",
                f"{ratio:.2f}",
                ">= 0.50",
                "yes" if ratio >= 0.5 else "no",
                str(row["tracker"]["collisions"]),
            )
        )
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head))]
    lines = [
        "  ".join(c.rjust(w) for c, w in zip(cols, widths, strict=True)) for cols in [head, *cells]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    rates = [r["tracker"]["per_second"] for r in measured]
    falling = any(b < 0.9 * a for a, b in pairwise(rates))
    lines.append(
        f"tracker's rate {'falls' if falling else 'does not fall'} as writers are added "
        "(a drop of more than 10% from one count to the next counts as falling)."
    )
    return "\n".join(lines)


def run_bench(
    bench: Bench, events: int, system: str, runs: int, with_loads: bool
) -> tuple[list[Row], list[Sized]]:
    """Every figure, in table order. Rolls and the table's commands come last: they add
    events to the log."""
    setup = prepare(bench, events, system, runs, "import" if with_loads else "load")
    if with_loads:
        loads = bulk_loads(bench, setup)
    else:
        note("1: left out; loading the log unchecked")
        bench.child("load", setup.export, setup.db)
        loads = [Row("1  import and append", "not measured (--no-loads)", "")]
    rebuilt, rebuild_ran, scan_ran = rebuild(bench, setup)
    shots = one_shots(bench, setup)
    exported, export_ran, raw_export_ran = export_rolls(bench, setup)
    rolls = logged_rolls(bench, setup)
    memory = [
        peak_memory("6a peak RSS of 2 (rebuild)", rebuild_ran, scan_ran),
        peak_memory("6b peak RSS of 5 (export rolls)", export_ran, raw_export_ran),
    ]
    return [*loads, *rebuilt, *shots, *rolls, *exported, *memory], table_commands(bench, setup)


def pgwriters_note() -> str:
    import pgwriters

    return (
        f"appends per second, each writer a process logging {pgwriters.APPENDS} notes to one "
        "campaign through the command path (its state kept warm, as the shell keeps it); the "
        "twin takes tracker's lock, reads the head, hashes and inserts with psycopg alone, on "
        "the same throwaway server (fsync off for both)"
    )


def remove_db(path: str) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(path + suffix).unlink(missing_ok=True)


def byte_compile() -> None:
    """Compile tracker's modules ahead, as its first run on a user's machine leaves them: the
    one-shot figures would otherwise count compiling every module each run where bytecode is
    never written (a fresh checkout under PYTHONDONTWRITEBYTECODE). Installed libraries were
    compiled by pip."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("tracker")
    for folder in spec.submodule_search_locations or []:
        compileall.compile_dir(folder, quiet=1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, help=f"N (default {DEFAULT_EVENTS:,})")
    parser.add_argument("--quick", action="store_true", help=f"N = {QUICK_EVENTS:,}")
    parser.add_argument("--system", choices=sorted(ROLL_COMMANDS), default="glintlock")
    parser.add_argument(
        "--runs", type=int, default=FIGURE_RUNS, help="Runs of each side of 2 and 5."
    )
    parser.add_argument("--keep", action="store_true", help="Keep the databases afterwards.")
    parser.add_argument("--no-pg", action="store_true", help="Leave out the PostgreSQL writers.")
    parser.add_argument(
        "--no-loads",
        action="store_true",
        help="Leave out 1 (import and append); the log is loaded unchecked for the rest.",
    )
    parser.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        name, *rest = args.child
        print(json.dumps(CHILDREN[name](*rest)))
        return 0
    events = args.events or (QUICK_EVENTS if args.quick else DEFAULT_EVENTS)
    if events < SMALL_EVENTS:
        parser.error(f"--events must be at least {SMALL_EVENTS:,}.")
    byte_compile()
    workdir = Path(tempfile.mkdtemp(prefix="tracker-bench-"))
    measured = code_version()
    started = time.perf_counter()
    try:
        runner = Bench(workdir)
        rows, sized = run_bench(runner, events, args.system, args.runs, not args.no_loads)
        writers = pg_writers(runner) if not args.no_pg else "8  PostgreSQL writers: not asked for"
    finally:
        if args.keep:
            note(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(machine())
    ended = code_version()
    print(measured if ended == measured else f"{measured}, then {ended} (changed during the run)")
    print(f"N = {events:,} events ({args.system}); whole run {time.perf_counter() - started:.0f} s")
    print()
    print(render(rows))
    print()
    print("7  the table's commands, one-shot, by the log's length (target: N within 1.2x of 1,000)")
    print(render_sizes(sized, 1.2))
    print()
    print(f"8  PostgreSQL: {pgwriters_note()}")
    print(writers)
    print()
    print(
        "ratio: tracker / twin, as speed for 1, 2, 5 (higher is better) and as time or "
        "memory for 3, 4, 6 (lower is better). Where a figure was measured more than once, "
        "each side shows its median (lowest-highest) and the ratio is the median of the runs' "
        "ratios, the two sides having taken turns run by run.\n"
        "1: the twin reads the same export (or the same stream of new events), parses it with "
        "msgspec as tracker does, checks or builds the same SHA-256 chain and inserts with "
        "executemany: the import in one transaction, the append in a durable commit every "
        "5,000 events after reading the head, as tracker's batches. One run each.\n"
        "2: both in-process, each run a fresh process with the clock around the fold alone: "
        "tracker reads the log once, folding the campaign state and the luck of every roll "
        "together; the twin is one SELECT of the log in version order, msgspec's decoder per "
        "payload and a trivial update of a dictionary per event.\n"
        "3: the twin is the same command on a 1,000-event campaign. 4: the shell twin is one "
        "chained INSERT and durable COMMIT per roll; the one-shot floor is "
        f"`python -c '{ONE_SHOT_FLOOR}'`, leaving as tracker does.\n"
        "5: both whole processes; the twin writes the same file byte for byte (compared after "
        "the runs) from one SELECT, msgspec and csv.writer, with the same cached exact odds. "
        "6: the twin is the process of the same figure."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
