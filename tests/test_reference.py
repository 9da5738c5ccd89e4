"""The author's reference (``tracker/systems/REFERENCE.md``) holds every name an outside rule
system uses, made from docstrings that are all there; the plugins use nothing it leaves out;
and the example system it walks through keeps the contract every system keeps."""

from __future__ import annotations

import ast
import inspect
import os
import re
import tomllib
from importlib import import_module
from pathlib import Path

import pytest
from conftest import contract_kept, install_plugin

from tracker.systems import api, reference
from tracker.testing import SystemContract

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tracker/systems/REFERENCE.md"
PLUGINS = Path(__file__).resolve().parent / "plugins"


def test_every_name_the_api_exports_is_the_one_its_module_defines():
    """An author may import a name from ``tracker.systems.api`` or from where it is defined,
    and gets the same object; ``__all__`` lists every name the api imports."""
    assert set(api.__all__) == set(reference.origins())
    assert len(api.__all__) == len(set(api.__all__))
    for name in api.__all__:
        assert getattr(api, name) is getattr(import_module(reference.origins()[name]), name)


@pytest.mark.parametrize("name", api.__all__)
def test_every_public_name_and_each_of_its_members_has_a_docstring(name):
    described = reference.described(name)
    assert described.doc, f"{described.module}.{name} has no docstring"
    bare = [member.name for member in described.members if not member.doc]
    assert bare == [], f"members of {name} with no docstring: {bare}"


def test_the_reference_is_made_from_the_docstrings_and_names_every_public_name():
    written = REFERENCE.read_text(encoding="utf-8")
    assert written == reference.written(written), (
        "tracker/systems/REFERENCE.md is stale; run "
        "`python -m tracker.systems.reference --write tracker/systems/REFERENCE.md`"
    )
    for name in api.__all__:
        assert f"\n### `{name}`\n" in written, name


def test_the_check_finds_a_member_with_no_docstring():
    cls = ast.parse('class A:\n    x: int\n    """An x."""\n    y: int = 2\n').body[0]
    assert isinstance(cls, ast.ClassDef)
    assert [(m.name, m.doc) for m in reference.members(cls)] == [("x", "An x."), ("y", None)]


def _tracker_imports(path: Path) -> list[tuple[str, str]]:
    """Each (module, name) of tracker a module imports, however it spells the import."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tracker":
            found += [(node.module or "", alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [
                (alias.name, "") for alias in node.names if alias.name.split(".")[0] == "tracker"
            ]
    return found


PLUGIN_MODULES = sorted(PLUGINS.rglob("*.py"))
EXAMPLE = ROOT / "tracker" / "systems" / "example" / "__init__.py"


@pytest.mark.parametrize("path", [*PLUGIN_MODULES, EXAMPLE], ids=lambda p: str(p.relative_to(ROOT)))
def test_an_outside_system_imports_only_names_the_reference_documents(path):
    """The plugins are written as outside packages are: every name of tracker they import is
    one the reference documents, imported from the api or from the module that defines it."""
    assert _tracker_imports(path), "it imports nothing of tracker"
    for module, name in _tracker_imports(path):
        assert name, f"{path.name} imports the module {module} whole; import its names"
        assert name in api.__all__, f"{path.name} imports {module}.{name}, which is not documented"
        assert module in {"tracker.systems.api", reference.origins()[name]}, (
            f"{path.name} imports {name} from {module}; import it from tracker.systems.api"
        )


def test_the_check_finds_an_import_the_reference_leaves_out(tmp_path):
    module = tmp_path / "plugin.py"
    module.write_text("from tracker.app.rolls import decide\nimport tracker.store\n")
    assert _tracker_imports(module) == [("tracker.app.rolls", "decide"), ("tracker.store", "")]


def test_the_reference_and_the_example_ship_in_the_package():
    """A pip user has neither this checkout's tests nor its plugins: what the reference says
    and the example it walks through are installed with tracker (``tests/test_install.py``
    finds them in the wheel itself)."""
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    assert "tracker.systems.example" in setup["setuptools"]["packages"]
    data = setup["setuptools"]["package-data"]
    for path in [REFERENCE, REFERENCE.with_name("README.md")]:
        assert any(path.match(glob) for glob in data["tracker.systems"]), path.name
    shipped = [p for p in EXAMPLE.parent.iterdir() if p.suffix in {".toml", ".txt"}]
    assert shipped
    for path in shipped:
        assert any(path.match(glob) for glob in data["tracker.systems.example"]), path.name


@pytest.fixture
def example_installed(tmp_path_factory, monkeypatch):
    """The example system registered for the test, as an outside package registers itself."""
    from tracker.systems import registry

    site = install_plugin(
        tmp_path_factory.mktemp("site"), "tracker-embers", "embers = tracker.systems.example:Embers"
    )
    monkeypatch.syspath_prepend(str(site))
    registry.refresh()
    yield site
    registry.refresh()


class TestExample(SystemContract):
    """The example system the reference walks through, installed for these tests."""

    name = "embers"

    @pytest.fixture(autouse=True)
    def installed(self, example_installed):
        return example_installed


def test_the_example_is_offered_nowhere_until_installed():
    from tracker.systems import registry

    registry.refresh()
    assert "embers" not in registry.names()


def _protocol_members(protocol: type) -> set[str]:
    """The public members a protocol names, its protocol bases' included."""
    return {
        name
        for cls in protocol.__mro__
        if getattr(cls, "_is_protocol", False) and cls.__module__.startswith("tracker.")
        for name in (*vars(cls), *vars(cls).get("__annotations__", {}))
        if not name.startswith("_")
    }


@pytest.mark.parametrize(
    ("protocol", "made_by"),
    [
        ("CampaignView", "CampaignState"),
        ("CampaignFold", "CampaignState"),
        ("CharacterView", "Character"),
        ("CharacterFold", "Character"),
        ("ObligationView", "Obligation"),
    ],
)
def test_what_a_system_is_promised_of_the_campaign_the_projection_has(protocol, made_by):
    """A hook is given the campaign projection's own objects, typed as the protocols the
    reference documents: each member a protocol names is one a system can read of them."""
    from tracker.projections import campaign

    names = _protocol_members(getattr(api, protocol))
    assert names
    missing = sorted(n for n in names if not hasattr(getattr(campaign, made_by), n))
    assert missing == [], f"{made_by} lacks what {protocol} names: {missing}"


@pytest.mark.parametrize("name", ["RuleSystem", "Folding"])
def test_every_hook_says_what_it_is_given(name):
    """An author reads what tracker passes each hook from its signature: no parameter is typed
    ``Any`` (a keyword bag of a request's values, ``**values``, names its keys by the system's
    options)."""
    loose = [
        f"{hook}.{param.name}"
        for hook, member in vars(getattr(api, name)).items()
        if inspect.isfunction(member) and not hook.startswith("_")
        for param in list(inspect.signature(member).parameters.values())[1:]
        if param.kind is not param.VAR_KEYWORD and param.annotation == "Any"
    ]
    assert loose == []


def test_a_hooks_default_is_read_from_its_body():
    """What a system gets by leaving a hook alone is what the base class's body does, so the
    reference cannot say another default than the code has."""
    source = '''
class Folding:
    def a(self, doc):
        """A."""
        return doc
    def b(self):
        """B."""
    def c(self):
        raise NotImplementedError
    def d(self):
        return self.x
'''
    cls = ast.parse(source).body[0]
    assert isinstance(cls, ast.ClassDef)
    assert [m.default for m in reference.members(cls)] == [
        "returns `doc`.",
        "does nothing.",
        "none; a system must implement it.",
        None,
    ]


@pytest.mark.slow
def test_the_example_copied_out_as_a_package_of_its_own_keeps_the_contract(tmp_path):
    """What an author does with the reference: the example copied into a package of its own
    (``tracker_embers``), declared under the entry-point group, and the reference's test file
    run by pytest in a folder of its own, with nothing of this checkout's tests within reach."""
    import shutil
    import subprocess
    import sys
    import textwrap

    site = install_plugin(tmp_path / "site", "tracker-embers", "embers = tracker_embers:Embers")
    shutil.copytree(
        EXAMPLE.parent, site / "tracker_embers", ignore=shutil.ignore_patterns("__pycache__")
    )
    blocks = re.findall(r"```python\n(.*?)```", REFERENCE.read_text(encoding="utf-8"), re.S)
    [example] = [block for block in blocks if "SystemContract" in block]
    own = tmp_path / "tracker-embers"
    own.mkdir()
    (own / "test_contract.py").write_text(textwrap.dedent(example), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_contract.py"],
        cwd=own,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(site)},
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # What the contract asks of a capability Embers does not declare (contests) is skipped.
    assert contract_kept(result.stdout, skipped=1)
