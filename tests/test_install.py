"""tracker installs as a tool, the way the README shows: from the built wheel with pipx and with
uv, each into a folder of its own, giving a `tracker` that runs, makes its demo, finds its
migrations and live view, and completes names in the shell."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# What a wheel is built from; the checkout itself is left as it is (no build/ in it).
SOURCES = ("pyproject.toml", "README.md", "tracker", "migrations", "fixtures")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, source / name)
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", dist, source],
        check=True,
    )
    (built,) = dist.glob("tabletop_tracker-*.whl")
    return built


def _env(tmp_path: Path) -> dict[str, str]:
    """A user with an empty home; the downloads cache is the real user's, as on their machine."""
    real_home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    return {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "home" / ".local" / "share"),
        "PIP_CACHE_DIR": str(real_home / ".cache" / "pip"),
        "UV_CACHE_DIR": str(real_home / ".cache" / "uv"),
        "PIPX_HOME": str(tmp_path / "pipx"),
        "PIPX_BIN_DIR": str(tmp_path / "bin"),
        "UV_TOOL_DIR": str(tmp_path / "uv-tools"),
        "UV_TOOL_BIN_DIR": str(tmp_path / "bin"),
        "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}",
    }


def test_the_wheel_holds_the_authors_reference_and_its_example(wheel):
    """A system written as a package of its own is written from what a pip user has: the
    reference, the guide and the example system they walk through are in the wheel."""
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in [
        "tracker/systems/REFERENCE.md",
        "tracker/systems/README.md",
        "tracker/systems/api.py",
        "tracker/systems/example/__init__.py",
        "tracker/systems/example/tam.toml",
        "tracker/systems/example/ines.toml",
        "tracker/systems/example/evening.txt",
    ]:
        assert path in names, f"the wheel lacks {path}"


INSTALLERS = {
    "pipx": lambda whl: [BIN / "pipx", "install", f"{whl}[serve]"],
    "uv": lambda whl: [BIN / "uv", "tool", "install", f"tabletop-tracker[serve] @ {whl}"],
}
TOOL_PYTHON = {
    "pipx": "pipx/venvs/tabletop-tracker/bin/python",
    "uv": "uv-tools/tabletop-tracker/bin/python",
}


@pytest.mark.parametrize("installer", list(INSTALLERS))
def test_the_wheel_installs_as_a_tool_that_works(wheel, installer, tmp_path):
    env = _env(tmp_path)
    subprocess.run(INSTALLERS[installer](wheel), env=env, check=True, capture_output=True)
    tracker = tmp_path / "bin" / "tracker"
    assert tracker.exists()

    def run(*args: str, **extra: str) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [tracker, *args], env=env | extra, capture_output=True, text=True, cwd=tmp_path
        )
        assert done.returncode == 0, (args, done.stderr)
        return done

    assert run("--version").stdout.strip().startswith("tracker, version ")
    made = json.loads(run("demo", "--json").stdout)
    demo = made["db"]
    assert Path(demo).is_relative_to(tmp_path / "home")
    found = json.loads(run("where", "--json", TRACKER_DB=demo).stdout)
    assert found["database"]["state"] == "current"  # the shipped migrations made the schema
    assert found["database"]["campaigns"] == 3
    roll = ("roll", "Wren", "Wits", "--dice", "15,17", "--json")
    rolled = json.loads(run(*roll, TRACKER_DB=demo).stdout)
    assert (rolled["character"], rolled["kept"]) == ("Wren", 15)  # desperate: the lower

    assert "_TRACKER_COMPLETE" in run("completion", "bash").stdout
    asked = {"_TRACKER_COMPLETE": "bash_complete", "COMP_WORDS": "tracker roll ", "COMP_CWORD": "2"}
    offered = run(TRACKER_DB=demo, **asked).stdout
    assert {"plain,Wren", "plain,Tomas"} <= set(offered.splitlines())

    # The live view's extra came along: its server imports in the tool's own environment.
    python = tmp_path / TOOL_PYTHON[installer]
    subprocess.run([python, "-c", "import tracker.web.server"], check=True, env=env)
