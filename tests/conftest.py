"""Shared fixtures: a fresh database in a temporary folder, and a CLI runner bound to it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

# The rule systems' contract lives in the package; its asserts say what they compared, as a test
# module's do.
pytest.register_assert_rewrite("tracker.testing")

from click.testing import CliRunner  # noqa: E402

from tracker.testing import Run, isolate  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    """No test reads or writes the real user's data folder or environment."""
    isolate(monkeypatch, tmp_path_factory.mktemp("home"))


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "campaign.db"


@pytest.fixture
def run(db_path) -> Run:
    return Run(db_path, CliRunner())


@pytest.fixture
def glintlock(run) -> Run:
    """A glintlock campaign with Wren and Tomas, as in the example session."""
    run.ok('campaign new "Ashes of Veyra" --system glintlock')
    run.ok("character add Wren --stat Grit=3 --stat Wits=2 --trained Climb --class Seer")
    run.ok("character add Tomas --stat Grit=2 --stat Wits=4")
    return run


PLUGINS = Path(__file__).resolve().parent / "plugins"


def install_plugin(site: Path, distribution: str, entry_point: str) -> Path:
    """A rule system under ``tests/plugins`` as a separately installed package is: an entry
    point (``name = module:Class``) in the ``tracker.systems`` group, in the metadata of the
    distribution ``distribution`` under ``site``. Returns ``site``; ``site`` and ``PLUGINS`` go
    on the path (or PYTHONPATH) to install it."""
    info = site / f"{distribution.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[tracker.systems]\n{entry_point}\n")
    return site


def install_d6(site: Path) -> Path:
    """The D6 rule system (``tests/plugins/tracker_d6``), installed under ``site``."""
    return install_plugin(site, "tracker-d6", "d6 = tracker_d6:D6")


@pytest.fixture
def d6_installed(tmp_path_factory, monkeypatch):
    """D6 installed for the test: found by the registry like any system, gone afterwards."""
    from tracker.systems import registry

    site = install_d6(tmp_path_factory.mktemp("site"))
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(PLUGINS))
    registry.refresh()
    yield site
    registry.refresh()


@pytest.fixture
def pool_installed(tmp_path_factory, monkeypatch):
    """Pool (``tests/plugins/tracker_pool``: a d6 pool with Momentum, a command and an event
    of its own) installed for the test, as D6 is."""
    from tracker.systems import registry

    site = install_plugin(
        tmp_path_factory.mktemp("site"), "tracker-pool", "pool = tracker_pool:Pool"
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(PLUGINS))
    registry.refresh()
    yield site
    registry.refresh()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests first: spread over several workers (-n), they start at once and the many
    short ones fill in around them, instead of one long test starting last and running alone."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def contract_kept(output: str, *, skipped: int) -> bool:
    """Whether a pytest run of ``SystemContract`` (its ``-q`` output) passed every test of the
    contract but the ``skipped`` ones that ask for a capability the system does not declare."""
    from tracker.testing import SystemContract

    contract = [name for name in dir(SystemContract) if name.startswith("test_")]
    counted = re.search(r"(\d+) passed(?:, (\d+) skipped)?", output)
    if counted is None or "failed" in output:
        return False
    return (int(counted[1]), int(counted[2] or 0)) == (len(contract) - skipped, skipped)
