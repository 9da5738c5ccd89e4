"""A one-shot command loads what every installed system declares, and what a system does only
when a campaign of it is played (``tracker.systems.base.later``). Each check runs in a fresh
interpreter: the test process has every system loaded already."""

from __future__ import annotations

import subprocess
import sys

# What a built-in system declares: the modules its command line reads.
DECLARING = {"system", "options", "declared"}


def _modules_after(code: str) -> set[str]:
    """The modules of tracker's own systems imported once ``code`` has run."""
    shown = (
        "import sys\n"
        f"{code}\n"
        "print(' '.join(m for m in sys.modules if m.startswith('tracker.systems.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", shown], capture_output=True, text=True, check=True, timeout=60
    )
    return set(done.stdout.split())


def _doing(modules: set[str]) -> set[str]:
    """Of ``modules``, those of a system's package beyond what it declares."""
    return {
        m
        for m in modules
        if (m.count(".") == 3 and m.rsplit(".", 1)[1] not in DECLARING) or m.count(".") > 3
    }


def test_the_roll_command_line_reads_every_system_and_loads_what_none_does() -> None:
    loaded = _modules_after(
        "from tracker.cli import cli\n"
        "ctx = cli.make_context('tracker', ['roll', '--help'], resilient_parsing=True)\n"
        "roll = cli.get_command(ctx, 'roll')\n"
        "names = [p.name for p in roll.params]\n"
        "assert 'mods' in names and 'tags' in names and 'dl' in names, names\n"
    )
    assert {"tracker.systems.gloom.system", "tracker.systems.gurps.system"} <= loaded
    assert not _doing(loaded)


def test_a_system_asked_what_it_does_loads_its_own_modules_alone() -> None:
    loaded = _modules_after(
        "from tracker.systems import registry\n"
        "registry.systems()\n"
        "registry.get('glintlock').folding\n"
    )
    assert "tracker.systems.glintlock.folding" in loaded
    assert not {m for m in _doing(loaded) if ".glintlock." not in m}


def test_an_event_type_not_yet_registered_loads_every_system_whole() -> None:
    loaded = _modules_after(
        "from tracker.events import catalog\n"
        "from tracker.systems import registry\n"
        "assert 'FrightChecked' in catalog.types_where(lambda cls: True)\n"
        "assert 'MettleSpent' in catalog.types_where(lambda cls: True)\n"
    )
    assert {"tracker.systems.gurps.events", "tracker.systems.glintlock.events"} <= loaded


def test_a_rolls_help_in_a_campaign_reads_its_system_without_a_database_library(run) -> None:
    """`tracker roll --help` names the campaign's system's options: read from the file's rows,
    it loads no database library and nothing a system does, as a help page with no campaign."""
    run.ok("campaign new Salt --system gurps")
    shown = (
        "import sys\n"
        "from tracker.cli import cli\n"
        f"cli.main(['--db', {str(run.db)!r}, 'roll', '--help'], standalone_mode=False)\n"
        "print('LOADED', ' '.join(sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", shown], capture_output=True, text=True, check=True, timeout=60
    )
    page, _, loaded = done.stdout.partition("LOADED ")
    assert "GURPS options:" in page
    assert "Gloom options:" not in page
    modules = set(loaded.split())
    assert not {m for m in modules if m.partition(".")[0] == "sqlalchemy"}
    assert not _doing({m for m in modules if m.startswith("tracker.systems.")})
