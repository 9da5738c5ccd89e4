"""The contract every rule system keeps, run for each installed system, and a fourth system
installed as a plugin playing a whole evening through the command line.

``SystemContract`` lives in the package (``tracker/testing.py``), so that a system installed
apart runs the same suite from its own tests; here each of tracker's systems and the D6 plugin
subclass it.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
import re
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import PLUGINS, Run, contract_kept, install_d6

from tracker.app.tracker import Tracker
from tracker.systems import registry
from tracker.testing import SystemContract


class TestGloom(SystemContract):
    name = "gloom"


class TestGurps(SystemContract):
    name = "gurps"


class TestGlintlock(SystemContract):
    name = "glintlock"


class TestD6(SystemContract):
    """The fourth system: a plugin outside the package, installed for these tests."""

    name = "d6"

    @pytest.fixture(autouse=True)
    def installed(self, d6_installed):
        return d6_installed


def test_every_installed_system_runs_the_contract():
    covered = {cls.name for cls in SystemContract.__subclasses__()}
    assert set(registry.names()) <= covered


README = Path(__file__).resolve().parent.parent / "tracker" / "systems" / "README.md"


@pytest.mark.slow
def test_a_package_of_its_own_runs_the_contract_as_the_readme_shows(tmp_path):
    """The README's test file, run by pytest in a folder of its own: tracker and the D6 plugin
    installed, and nothing of tracker's tests (their conftest, their fixtures) within reach."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    [example] = [block for block in blocks if "SystemContract" in block]
    own = tmp_path / "tracker-d6"
    own.mkdir()
    (own / "test_contract.py").write_text(textwrap.dedent(example))
    site = install_d6(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(PLUGINS)])}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_contract.py"],
        cwd=own,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # D6 has no contests: the contract's contest test is skipped.
    assert contract_kept(result.stdout, skipped=1)


# A one-shot command as its own process, saying at exit whether it loaded the contract.
LOADED = """
import atexit, sys

def report():
    found = [m for m in ("tracker.testing", "pytest") if m in sys.modules]
    print("loaded:", *found, file=sys.stderr)

atexit.register(report)
import tracker
from tracker.cli import cli
cli.main(sys.argv[1:], prog_name="tracker")
"""


def test_tracker_and_its_one_shot_commands_never_load_the_contract(glintlock):
    """The contract needs pytest, which an installed tracker does not have."""
    glintlock.ok("session start")
    for command in (["roll", "Wren", "Grit", "--tag", "1:gear", "--dice", "15"], ["status"]):
        proc = subprocess.run(
            [sys.executable, "-c", LOADED, "--db", str(glintlock.db), *command],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.strip().splitlines()[-1] == "loaded:", command


# -- a fourth system, installed as a plugin --------------------------------------------------------


def test_a_plugin_system_plays_a_whole_evening_through_the_command_line(d6_installed, run):
    help_text = run.ok("campaign new --help").stdout
    assert "d6" in help_text
    run.ok("campaign new 'Six Sides' --system d6")
    run.ok("character add Pip --stat Grit=4 --stat Wits=2")
    run.ok("session start --title 'The first throw'")
    hit = run.json("roll Pip Grit --dice 3")
    assert (hit["outcome"], hit["success"], hit["system"]) == ("hit", True, "d6")
    shown = run.ok("roll Pip Grit --dice 6").stdout
    assert "d6: 6" in shown
    assert "MISS" in shown
    assert run.json("status Pip")["stress"] == 1
    run.ok("roll Pip Wits --dice 5")
    assert run.json("status Pip")["stress"] == 2
    undone = run.json("undo")
    assert [r["type"] for r in undone["revoked"]] == ["RollMade"]
    assert run.json("status Pip")["stress"] == 1
    run.ok("note 'Pip steadies herself.'")
    replay = run.json("replay")
    assert [e["type"] for e in replay["events"]][-1] == "NoteAdded"
    assert any(e["revoked"] for e in replay["events"])
    assert "Pip rolls Grit at 4: 6 → miss" in run.ok("replay --player-view").stdout
    rows = list(csv.DictReader(io.StringIO(run.ok("export rolls --format csv").stdout)))
    assert [(r["outcome"], r["revoked"]) for r in rows] == [
        ("hit", "False"),
        ("miss", "False"),
        ("miss", "True"),
    ]
    assert [r["p_success"] for r in rows] == ["0.6666666666666666"] * 2 + ["0.3333333333333333"]
    lines = run.ok("export rolls --format jsonl").stdout.splitlines()
    assert len(lines) == 4
    assert json.loads(lines[0])["log_head"]
    page = run.ok("export rolls --format html").stdout
    assert "D6" in page
    assert "Pip" in page
    exported = run.db.with_name("six.jsonl")
    run.ok(f"export events -o {exported}")
    copy = Run(run.db.with_name("copy.db"), CliRunner())
    copy.ok(f"import {exported}")
    assert copy.json("verify")["ok"]
    assert run.json("verify")["campaigns"][0]["rolls_redecided"] == 3
    assert run.json("odds d6 --target 4")["outcomes"] == {"hit": 4 / 6, "miss": 2 / 6}
    assert run.json("obligations")["obligations"] == []
    assert Counter(e["type"] for e in run.json("log")["events"])["RollMade"] == 3


def test_a_plugin_declares_a_roll_option_of_its_own(d6_installed, run):
    """``--edge`` is D6's: ``tracker roll`` takes it, says whose it is, and refuses it to a
    campaign of another system as it refuses any option that system does not read."""
    assert "D6 options:\n  --edge N  added to the score for this roll." in (
        run.ok("roll --help").stdout
    )
    run.ok("campaign new 'Six Sides' --system d6")
    # In a campaign of D6, its options alone.
    shown = run.ok("roll --help").stdout
    assert "D6 options:" in shown
    assert "--edge" in shown
    assert "Options:" in shown
    assert not {"Gloom options:", "GURPS options:", "Glintlock options:"} & set(shown.splitlines())
    run.ok("character add Pip --stat Grit=4")
    run.ok("session start")
    pushed = run.json("roll Pip Grit --edge 2 --dice 6")
    assert (pushed["effective"], pushed["outcome"]) == (6, "hit")
    assert run.json("verify")["ok"]
    run.ok("campaign new Drift --system gloom")
    run.ok("character add Kade --skill Hacking=14")
    run.ok("session start")
    refused = run("roll Kade Hacking --edge 1")
    assert refused.exit_code == 2
    assert (
        "--edge is D6's option; this campaign plays Gloom, so leave it out "
        "(see `tracker roll --help`)." in (refused.output)
    )


def test_a_campaign_whose_system_is_not_installed_is_one_sentence(d6_installed, run, monkeypatch):
    run.ok("campaign new 'Six Sides' --system d6")
    run.ok("character add Pip --stat Grit=4")
    monkeypatch.undo()  # the plugin is uninstalled
    registry.refresh()
    for command in ("status", "roll Pip Grit", "export rolls"):
        before = run.event_count()
        result = run(command)
        assert result.exit_code == 1, (command, result.output)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1
        assert '"d6", a rule system that is not installed' in lines[0]
        assert run.event_count() == before
    run.ok("log")  # the log itself reads without knowing the rules
    # verify still walks the chain, and says the rolls were not decided again.
    checked = run(["verify", "--json"])
    assert checked.exit_code == 1
    [report] = json.loads(checked.stdout)["campaigns"]
    assert report["problem"] is None
    assert report["events"] == run.event_count()
    assert 'the rule system "d6" is not installed' in report["unchecked"]


def test_an_event_that_does_not_read_is_named_where_the_system_is_not_installed(
    d6_installed, run, monkeypatch
):
    """Whether an event reads needs no rules: verify names one that does not even where it
    cannot decide the rolls again."""
    from tracker.events import NewEvent

    run.ok("campaign new 'Six Sides' --system d6")
    tracker = Tracker(str(run.db))
    row = tracker.campaign()
    odd = NewEvent("NoteAdded", {"text": "The dice roll away.", "junk": 1})
    tracker.store.append(row.campaign_id, [odd], tracker.store.head(row.campaign_id).version)
    tracker.close()
    monkeypatch.undo()  # the plugin is uninstalled
    registry.refresh()
    checked = run(["verify", "--json"])
    assert checked.exit_code == 1
    [report] = json.loads(checked.stdout)["campaigns"]
    assert [m["event_id"] for m in report["mismatches"]] == [odd.event_id]
    assert "unknown field `junk`" in report["mismatches"][0]["reason"]


def test_a_plugin_that_fails_to_load_takes_only_its_own_campaigns_down(d6_installed, run, tmp_path):
    run.ok("campaign new 'Six Sides' --system d6")
    # The plugin's next release fails as it is imported.
    (d6_installed / "tracker_d6_next.py").write_text("raise RuntimeError('half installed')\n")
    info = d6_installed / "tracker_d6-0.1.dist-info" / "entry_points.txt"
    info.write_text("[tracker.systems]\nd6 = tracker_d6_next:D6\n")
    registry.refresh()
    before = run.event_count()
    result = run("status")
    assert result.exit_code == 1
    [line] = result.stderr.strip().splitlines()
    assert 'The rule system "d6" could not be loaded (RuntimeError: half installed)' in line
    assert run.event_count() == before
    # Every other system still lists, plays and computes.
    assert registry.names() == ["gloom", "gurps", "glintlock"]
    run.ok("campaign new Ashes --system glintlock")
    run.ok("character add Wren --stat Grit=3")
    run.ok("session start")
    run.ok("roll Wren Grit --tag 1:gear --dice 15")
    run.ok("odds glintlock --stat 3 --trained")
    assert Run(tmp_path / "demo.db", CliRunner()).json("demo")["campaigns"]


def test_a_plugin_is_found_by_a_fresh_process_from_its_entry_point(tmp_path):
    site = install_d6(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(PLUGINS)])}
    tracker = Path(sys.executable).with_name("tracker")
    result = subprocess.run(
        [str(tracker), "odds", "d6", "--target", "5", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["outcomes"]["hit"] == pytest.approx(5 / 6)


def test_the_registry_finds_the_entry_points_importlib_metadata_finds(
    d6_installed, tmp_path, monkeypatch
):
    """Beside the D6 plugin: a folder named in capitals, a stale egg-info beside its newer
    dist-info, and an unpacked egg on the path, each declaring a system."""
    from importlib.metadata import entry_points

    def declare(folder: Path, name: str, value: str) -> None:
        folder.mkdir(parents=True)
        (folder / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1\n")
        (folder / "PKG-INFO").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1\n")
        (folder / "entry_points.txt").write_text(f"[tracker.systems]\n{name} = {value}\n")

    site = tmp_path / "site"
    declare(site / "Bar-1.0.DIST-INFO", "bar", "bar_rules:Bar")
    declare(site / "baz-1.0.egg-info", "baz", "baz_old:Baz")
    declare(site / "baz-2.0.dist-info", "baz", "baz_new:Baz")
    egg = tmp_path / "Foo_Dice-1.0.egg"
    declare(egg / "EGG-INFO", "foo", "foo_dice:Foo")
    monkeypatch.syspath_prepend(str(egg))
    monkeypatch.syspath_prepend(str(site))
    expected = {point.name: point.value for point in entry_points(group=registry.GROUP)}
    assert {"d6", "bar", "baz", "foo"} <= set(expected)
    assert {name: point.value for name, point in registry._declared().items()} == expected


def test_an_entry_point_file_with_comments_extras_and_other_groups_is_read_as_declared(tmp_path):
    listed = tmp_path / "entry_points.txt"
    listed.write_text(
        "# made by hand\n[console_scripts]\nd6 = elsewhere:main\n\n"
        "[tracker.systems]\n; a comment\nd6 = tracker_d6:D6 [fast]\ncoin=coins.rules:Coin.system\n"
    )
    assert registry._group_lines(str(listed)) == [
        ("d6", "tracker_d6:D6"),
        ("coin", "coins.rules:Coin.system"),
    ]
    assert registry._group_lines(str(tmp_path / "missing.txt")) == []


STORED_EFFECTS = [
    {"track": "mettle", "delta": 1},
    {"track": "mettle", "delta": 1, "cause": "a weak hit"},
    {"track": "stress", "delta": 2},
    {"track": "stress", "delta": 2, "character_id": "c1"},
    {"condition": "stunned", "duration": 2},
    {"condition": "stunned", "duration": 2, "unit": "rounds"},
    {"condition": "stunned"},
    {"obligation": "assign-trait", "what": "a quirk", "data": {"points": -1}},
    {"obligation": "assign-trait", "what": "a quirk", "data": {"points": -1.0}},
    {"obligation": "assign-trait", "what": "a quirk", "data": {"points": 1}},
    {"obligation": "assign-trait", "what": "a quirk", "data": {"points": True}},
]


@pytest.mark.parametrize("count", [0, 1, 2])
def test_a_rolls_effects_differ_exactly_when_their_stored_spellings_do(count):
    """Every pair of short effect lists, decoded as a stored roll's are: the quick comparison of
    typed effects agrees with comparing their canonical spellings as multisets."""
    from tracker.events.effects import effect_from_json
    from tracker.systems.base import canonical, effects_differ

    effects = [effect_from_json(json.loads(json.dumps(doc))) for doc in STORED_EFFECTS]
    lists = list(itertools.product(effects, repeat=count))
    for stored in lists:
        for expected in itertools.chain(lists, [stored[::-1]]):
            spelled = Counter(canonical(e.to_json()) for e in stored)
            same = spelled == Counter(canonical(e.to_json()) for e in expected)
            assert (effects_differ(stored, expected) is None) == same, (stored, expected)


@pytest.mark.parametrize(
    ("action", "owner", "kind"),
    [
        ("flashback", "glintlock", "Spending Mettle"),
        ("no-such-spend", "glintlock", "Spending Mettle"),
        ("buy-up", "gurps", "Buying up a roll"),
    ],
)
def test_a_command_systems_share_is_the_one_its_argument_chooses(action, owner, kind):
    """``tracker spend`` is a Mettle spend in Glintlock and a buy-up in GURPS: the action
    chooses which (a buy-up by name, a Mettle spend otherwise), and a campaign whose system
    has not the one chosen is told whose it is, as before the commands were the systems'."""
    from tracker.errors import Refused

    given = {"character": "Wren", "action": action}
    assert registry.command(registry.get(owner), ("spend",), given).what == kind
    assert [c.what for c in registry.commands_at(("spend",), given)] == [kind]
    title = registry.get(owner).title
    for other in {"gloom", "gurps", "glintlock"} - {owner}:
        with pytest.raises(Refused) as refused:
            registry.command(registry.get(other), ("spend",), given)
        assert str(refused.value).startswith(
            f"{kind} is a {title} rule and this campaign plays {other}; switch to a {title} "
            "campaign with `tracker campaign use NAME`"
        )


def test_the_core_is_twelve_members_and_each_hook_is_in_one_capability():
    """A system implements the core (``RuleSystem``) and what its capabilities declare; the
    rest of ``RuleSystem`` is tracker's own, never overridden but for ``rolled``'s speed."""
    from tracker.systems import capabilities as cap
    from tracker.systems.base import RuleSystem

    trackers_own = {"features", "has", "tone", "load", "roll_request", "rolled"}
    core = {
        name
        for name in {*vars(RuleSystem), *RuleSystem.__annotations__}
        if not name.startswith("_")
    } - trackers_own
    assert len(core) <= 12, sorted(core)
    assert core >= {"name", "title", "decide_roll", "roll_facts", "chance", "render_roll", "demo"}
    seen: dict[str, str] = {}
    for capability in cap.Capability.__subclasses__():
        for name in vars(capability):
            if name.startswith("_") or name == "feature":
                continue
            assert name not in core, f"{name} is of the core and of {capability.__name__}"
            assert name not in seen, f"{name} is of {seen[name]} and {capability.__name__}"
            seen[name] = capability.__name__


def test_a_hook_given_without_its_capability_is_found_by_the_contract():
    """Stress words given by a system that does not declare ``Stress`` would never be heard:
    the contract names the hook and the capability it lacks."""
    from tracker.systems import capabilities as cap
    from tracker.systems.base import RuleSystem

    gloom = registry.get("gloom")
    given = {"name": "careless", "title": "Careless", "stress_words": type(gloom).stress_words}
    careless = type("Careless", (RuleSystem, cap.Contests), given)()
    assert not careless.has("stress")
    with pytest.raises(AssertionError, match=r"stress_words \(Stress\)"):
        SystemContract.test_each_hook_it_gives_is_of_the_core_or_of_a_capability_it_declares(
            SystemContract(), careless
        )
    SystemContract.test_each_hook_it_gives_is_of_the_core_or_of_a_capability_it_declares(
        SystemContract(), gloom
    )
