"""The map of the code (``tracker/README.md``) stays true: every function it names is where it
says, and no import runs against the layers it draws."""

from __future__ import annotations

import ast
import re
from importlib import import_module
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tracker"
MAP = (PACKAGE / "README.md").read_text(encoding="utf-8")

# A dotted name of tracker's (``tracker.app.rolls.Rolls.roll``), not a file's (``tracker.py``).
NAMED = sorted(
    {name for name in re.findall(r"`(tracker(?:\.\w+)+)`", MAP) if not name.endswith(".py")}
)
SCRIPTED = sorted(set(re.findall(r"`(tracker/web/static/\w+\.js)::(\w+)`", MAP)))


def resolved(dotted: str) -> object:
    """What a dotted name names: the longest module it starts with, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise ModuleNotFoundError(dotted)


def test_the_map_names_the_path_of_a_roll():
    assert len(NAMED) > 30
    for step in ("tracker.cli.play._roll", "tracker.web.console.Console.act", "apply"):
        assert step in MAP


@pytest.mark.parametrize("dotted", NAMED)
def test_every_function_the_map_names_is_where_it_says(dotted):
    try:
        resolved(dotted)
    except (ModuleNotFoundError, AttributeError):
        pytest.fail(f"tracker/README.md names {dotted}, which is not there")


@pytest.mark.parametrize(("script", "name"), SCRIPTED)
def test_every_function_of_a_page_the_map_names_is_in_its_script(script, name):
    source = (ROOT / script).read_text(encoding="utf-8")
    assert re.search(rf"\bfunction {name}\(", source), f"{script} has no function {name}"


def test_the_check_finds_a_name_that_is_not_there():
    with pytest.raises(AttributeError):
        resolved("tracker.app.rolls.Rolls.fly")


# The layers of the map, lowest first: a module may import its own package and those below it.
LAYERS = {
    "tracker": 0,
    "errors": 0,
    "words": 0,
    "events": 1,
    "systems": 2,
    "store": 2,
    "projections": 3,
    "app": 4,
    "web": 5,
    "cli": 6,
    "__main__": 7,
    "testing": 7,
}
# The one import that crosses between the front doors: ``tracker serve`` starts the web app.
ACROSS = {("cli", "web")}


def _package(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "tracker":
        return None
    return parts[1] if len(parts) > 1 else "tracker"


def _imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return found


def test_no_import_runs_up_the_layers():
    """Imports inside functions count too: a lazy import is still an arrow."""
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        mine = parts[0] if len(parts) > 1 else path.stem
        for module in _imports(path):
            theirs = _package(module)
            if theirs is None or theirs == mine or (mine, theirs) in ACROSS:
                continue
            if LAYERS[theirs] >= LAYERS[mine]:
                upward.append(f"{path.relative_to(ROOT)} imports {module}")
    assert upward == []
