"""The rulebooks, read at test time: a rule test that reads the rulebook's own sentences cannot
miss one the code was written without.

The rulebooks are kept beside the project, in ``shared/rules`` next to its folder (the design
names them so); ``TRACKER_RULEBOOKS`` names another folder. A test of a rulebook that is not
there is skipped, saying where it looked.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = Path(os.environ.get("TRACKER_RULEBOOKS") or ROOT.parent / "shared" / "rules")


def rulebook(system: str) -> str:
    """The text of ``system``'s rulebook; the test is skipped when it is not there."""
    path = RULEBOOKS / f"{system}.md"
    if not path.is_file():
        pytest.skip(f"the {system} rulebook is not at {path}; set TRACKER_RULEBOOKS to its folder")
    return path.read_text(encoding="utf-8")
