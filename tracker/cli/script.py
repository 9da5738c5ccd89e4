"""Playing a scripted session: one tracker command a line, as typed at the table.

``tracker demo`` plays the sessions in ``fixtures/sessions/``, and so do the tests; blank lines
and lines starting with ``#`` are skipped.
"""

from __future__ import annotations

import contextlib
import io
import shlex
from pathlib import Path

from tracker.errors import BadInput


def script_lines(path: Path) -> list[tuple[int, list[str]]]:
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            out.append((number, shlex.split(line)))
    return out


def play_script(db: str, campaign: str, path: Path) -> tuple[int, str]:
    """Run every command of ``path`` on ``campaign``; return the count and what they printed."""
    from tracker.cli import cli

    printed = io.StringIO()
    lines = script_lines(path)
    for number, args in lines:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            try:
                cli.main(["--db", db, "--campaign", campaign, *args], standalone_mode=False)
            except SystemExit as exc:
                if exc.code:
                    raise BadInput(
                        f"{path.name} line {number} was refused: {printed.getvalue().strip()}"
                    ) from None
    return len(lines), printed.getvalue()
