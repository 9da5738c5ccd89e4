"""The README's tour runs as printed, top to bottom, on a fresh machine."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tracker

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MARKER = "<!-- ci:tour -->"
# Whether event argv[1] of the campaign whose `log --json` is on stdin is of type argv[2].
_IS_EVENT = (
    "import json, sys; n, kind = int(sys.argv[1]), sys.argv[2]; "
    "found = [e['type'] for e in json.load(sys.stdin)['events'] if e['version'] == n]; "
    "sys.exit(0 if found == [kind] else f'event {n} is {found}, not the {kind} the tour says')"
)


def tour() -> tuple[int, list[str]]:
    """The shell block right after the tour's marker: the README line number of its first line,
    and its lines exactly as printed."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index(MARKER) + 1
    assert lines[start] == "```sh", f"README.md line {start + 1}: the tour's block must follow"
    end = lines.index("```", start + 1)
    return start + 2, lines[start + 1 : end]


def commands() -> list[tuple[int, list[str]]]:
    """The words of each line that runs something, after its README line number."""
    first, lines = tour()
    numbered = (
        (number, shlex.split(line, comments=True)) for number, line in enumerate(lines, first)
    )
    return [(number, words) for number, words in numbered if words]


# The lines of the tour that name an event by its number, and what that event is where the
# line runs (its campaign, its type): a comment that no longer says what the line does fails.
NUMBERED = {
    "tracker obligations dismiss 19 --reason no panic here": ("Neon Drift", "RollMade"),
    "tracker undo 13 --cascade": ("The Salt Road", "FrightChecked"),
    "tracker status --as-of 13": ("The Salt Road", "FrightChecked"),
}
NAMING = re.compile(r"^tracker (undo|redo|reveal|obligations dismiss|status --as-of|replay) .*\d")


def _command(words: list[str]) -> str:
    return " ".join(words)


def test_every_line_that_names_an_event_by_number_says_which():
    named = {_command(words) for _, words in commands() if NAMING.match(_command(words))}
    named = {line for line in named if re.search(r"(^|\s)\d+($|\s)", line.split(" ", 2)[-1])}
    # Sessions are named by number too; those are not events.
    named = {
        line for line in named if "--session" not in line and not line.startswith("tracker replay")
    }
    assert named == set(NUMBERED), "add each line naming an event to NUMBERED, with what it is"


def test_the_tour_uses_no_file_outside_the_repository():
    for number, words in commands():
        for word in words:
            path = word.split("=", 1)[-1]
            if "/" not in path or path.startswith("~/"):
                # A path under ~ is in the fresh data folder the tour itself makes.
                continue
            target = (ROOT / path).resolve()
            assert target.is_relative_to(ROOT), (
                f"README.md line {number}: {path} is outside the repository"
            )
            assert target.exists(), f"README.md line {number}: {path} is not in the repository"


@pytest.mark.slow
def test_the_tour_runs_as_printed_on_a_fresh_machine(tmp_path):
    home = tmp_path / "home"
    table = tmp_path / "table"
    home.mkdir()
    shutil.copytree(ROOT / "fixtures", table / "fixtures")
    # `tracker` on the PATH is this interpreter's, whatever else the machine has installed.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "tracker"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tracker "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    first, lines = tour()
    script = table / "tour.sh"
    # Before each line that names an event by number, a look that the event is the one its
    # comment says: a changed demo or tour renumbers events and leaves the comment wrong.
    checked: list[str] = []
    at: list[int] = []  # each script line's README line
    python = shlex.quote(sys.executable)
    for number, line in enumerate(lines, first):
        words = shlex.split(line, comments=True)
        if words and _command(words) in NUMBERED:
            campaign, kind = NUMBERED[_command(words)]
            event = next(w for w in words[1:] if w.isdigit())
            checked.append(
                f"tracker log --json --campaign {shlex.quote(campaign)} | {python}"
                f" -c {shlex.quote(_IS_EVENT)} {event} {kind}"
            )
            at.append(number)
        checked.append(line)
        at.append(number)
    script.write_text("\n".join(checked) + "\n", encoding="utf-8")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"TRACKER_DB", "TRACKER_CAMPAIGN", "XDG_DATA_HOME"}
    }
    env |= {
        "HOME": str(home),
        "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONPATH": str(Path(tracker.__file__).resolve().parent.parent),
    }
    # The set-up line's `tracker demo` has run before the tour, on the same fresh machine.
    made = subprocess.run(
        ["tracker", "demo"], cwd=table, env=env, capture_output=True, text=True, timeout=300
    )
    assert made.returncode == 0, made.stderr
    # Sourced under `set -e`, the block stops at the first line that fails; the trap says which
    # line it was and with what exit code, so the failure names the README's line.
    result = subprocess.run(
        [
            "bash",
            "-euo",
            "pipefail",
            "-c",
            # The live view it starts in the background stops with it, whatever happens.
            "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT; "
            "trap 'echo \"TOUR-FAILED $LINENO $?\" >&2' ERR; . ./tour.sh",
        ],
        cwd=table,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    failed = re.search(r"^TOUR-FAILED (\d+) (\d+)$", result.stdout, re.MULTILINE)
    if failed:
        line, code = int(failed[1]), int(failed[2])
        number = at[line - 1]
        tail = "\n".join(result.stdout[: failed.start()].splitlines()[-15:])
        pytest.fail(
            f"README.md line {number} exited {code}: {lines[number - first].strip()}\n{tail}"
        )
    assert result.returncode == 0, result.stdout[-3000:]
    assert (table / "receipt.txt").read_text(encoding="utf-8").startswith("tracker:")
