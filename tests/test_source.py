"""The shape of the code: what holds it to one home per rule system."""

from __future__ import annotations

import ast
from pathlib import Path

from tracker.systems import registry

PACKAGE = Path(__file__).resolve().parent.parent / "tracker"


def names_used(path: Path, systems: set[str]) -> list[tuple[int, str]]:
    """Every place in a module where a string is a rule system's name (in any case)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
        if is_text and node.value.strip().casefold() in systems:
            found.append((node.lineno, node.value))
    return found


def test_no_module_outside_the_systems_names_a_system():
    """Outside ``tracker/systems`` the code asks the registry and the system's features; a
    name compared there (``state.system == "gurps"``) would misroute a system added later."""
    systems = {name.casefold() for name in registry.names()}
    assert systems >= {"gloom", "gurps", "glintlock"}
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {value!r}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "systems" not in path.relative_to(PACKAGE).parts
        for line, value in names_used(path, systems)
    ]
    assert offenders == []


def test_the_check_finds_a_name_compared(tmp_path):
    module = tmp_path / "misroute.py"
    module.write_text('if state.system == "gurps":\n    pass\nelse:\n    glintlock()\n')
    assert names_used(module, {"gurps", "glintlock"}) == [(1, "gurps")]


def test_nothing_outside_the_systems_reaches_into_one_system_package():
    """A command of one system's own (fright checks, influence, extra effort, projects) lives in
    that system's package, declared among its commands; everywhere else the code asks the
    campaign's system through the registry, never a system's package by its name."""
    systems = {name.casefold() for name in registry.names()}
    reaching = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if "systems" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = []
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            for module in modules:
                parts = module.split(".")
                if parts[:2] == ["tracker", "systems"] and len(parts) > 2 and parts[2] in systems:
                    reaching.add(str(path.relative_to(PACKAGE.parent)))
    assert reaching == set()
