"""`python -m tracker` run from the top of a checkout, where the checkout's own package comes
first on the path (over an installed tracker, with no editable install to map the folders a
wheel ships inside the package): it finds its migrations and fixtures beside the package."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_python_m_tracker_runs_from_a_checkout_that_shadows_the_install(tmp_path):
    checkout = tmp_path / "checkout"
    for name in ("tracker", "migrations", "fixtures"):
        shutil.copytree(ROOT / name, checkout / name, ignore=shutil.ignore_patterns("__pycache__"))
    # -S: no site, so no editable install's finder; the dependencies come from site-packages as
    # an installed tracker's would, after the checkout, as the current folder comes first.
    env = {
        **os.environ,
        "PYTHONPATH": sysconfig.get_paths()["purelib"],
        "TRACKER_DB": str(tmp_path / "table.db"),
    }
    env.pop("PYTHONSAFEPATH", None)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-S", "-m", "tracker", *args],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    made = run("demo", "--json")
    assert made.returncode == 0, made.stderr
    assert "Traceback" not in made.stderr
    listed = run("campaign", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)["campaigns"]) == 3
    found = run("where", "--json")
    assert json.loads(found.stdout)["database"]["state"] == "current"
