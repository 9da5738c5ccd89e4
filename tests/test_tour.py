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
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
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
        tail = "\n".join(result.stdout[: failed.start()].splitlines()[-15:])
        pytest.fail(
            f"README.md line {first + line - 1} exited {code}: {lines[line - 1].strip()}\n{tail}"
        )
    assert result.returncode == 0, result.stdout[-3000:]
    assert (table / "receipt.txt").read_text(encoding="utf-8").startswith("tracker:")
