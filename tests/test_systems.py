"""The contract every rule system keeps, run for each installed system, and a fourth system
installed as a plugin playing a whole evening through the command line.

Like the store's contract (run on SQLite and PostgreSQL), ``SystemContract`` is one suite that
each system subclasses: its example rolls, rolled with every fall of their dice, decide to
outcomes it names, render as text and JSON, read back to themselves in ``verify``, and come up as
often as its exact odds say; the examples in its odds' help run and sum to 1; its demo evening
plays, exports, re-imports and verifies.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import ClassVar

import click
import msgspec
import pytest
from click.testing import CliRunner
from conftest import PLUGINS, Run, install_d6

from tracker.app.tracker import Tracker
from tracker.cli import cli
from tracker.cli.render import TerminalStyle
from tracker.events.play import RollMade
from tracker.systems import registry
from tracker.systems.base import RuleSystem


class Scripted:
    """Dice that fall as told (and say how many of which die a roll asked for)."""

    kind = "physical"

    def __init__(self, fall: tuple[int, ...] | None = None) -> None:
        self.fall = fall
        self.asked: list[tuple[int, int]] = []

    def roll(self, count: int, faces: int, purpose: str = "the roll") -> tuple[int, ...]:
        self.asked.append((count, faces))
        return self.fall if self.fall is not None else (1,) * count


class SystemContract:
    """What every rule system answers, whatever its rulebook."""

    name: ClassVar[str]

    @pytest.fixture
    def system(self) -> RuleSystem:
        return registry.get(self.name)

    @pytest.fixture
    def table(self, system, tmp_path):
        """The system's demo characters in a campaign of their own, a session started."""
        evening = system.demo()
        tracker = Tracker(str(tmp_path / "contract.db"))
        tracker.campaigns.campaign_new("Contract", system.name)
        for sheet in evening.sheets:
            tracker.campaigns.character_add(None, sheet_path=str(sheet))
        tracker.campaigns.session_start("Every fall of the dice")
        yield tracker
        tracker.close()

    def test_it_is_found_by_its_name_and_says_what_it_is(self, system):
        assert system.name in registry.names()
        assert system.name == system.name.casefold()
        assert " " not in system.name
        assert system.title
        assert system.outcome_tones
        assert set(system.outcome_tones.values()) <= {"good", "mixed", "bad"}
        low, high = system.score_range
        assert low <= high

    def test_every_fall_of_every_example_roll_decides_renders_and_reads_back(self, system, table):
        state = table.state()
        character = next(iter(state.characters.values()))
        style = TerminalStyle(system)
        seen: set[str] = set()
        assert system.examples, "a system names the example rolls its contract rolls"
        for example in system.examples:
            probe = Scripted()
            system.decide_roll(msgspec.structs.replace(example, source=probe), character, state)
            [(count, faces)] = probe.asked
            hits, falls, keys = 0, 0, set()
            for fall in itertools.product(range(1, faces + 1), repeat=count):
                asked = msgspec.structs.replace(example, source=Scripted(fall))
                decided = system.decide_roll(asked, character, state)
                assert decided.dice == fall
                assert decided.result["outcome"] in system.outcome_tones
                seen.add(decided.result["outcome"])
                doc = {
                    **decided.doc,
                    "character": character.name,
                    "system": system.name,
                    "effects": [e.to_json() for e in decided.effects],
                }
                shown = system.render_roll(doc, style)
                assert shown.head
                assert shown.dice
                assert click.unstyle(shown.dice).strip()
                json.loads(json.dumps(doc))
                stored = RollMade(
                    character_id=character.character_id,
                    system=system.name,
                    trait=decided.trait,
                    kind=example.kind,
                    inputs=decided.inputs,
                    dice_source="physical",
                    dice=decided.dice,
                    result=decided.result,
                    effects=decided.effects,
                    consumed=decided.consumed,
                )
                assert system.redecide(stored) is None, fall
                [facts] = system.roll_facts(stored)
                brief = (facts.character_id, facts.name, faces, fall, facts.success)
                assert system.rolled(stored) == [(*brief, facts.chance_key)]
                assert facts.faces == faces
                assert facts.dice == fall
                keys.add(facts.chance_key)
                hits += facts.success
                falls += 1
            # One roll, one chance: its exact odds are how often its dice say it succeeds.
            [key] = keys
            assert system.chance(key) == Fraction(hits, falls)
        assert seen == set(system.outcome_tones), "the examples reach every outcome"

    def test_the_examples_in_its_odds_help_run_and_sum_to_one(self, system, run):
        spec = system.odds_command()
        assert spec is not None
        lines = [ln.strip() for ln in spec.help.splitlines()]
        examples = [ln for ln in lines if ln.startswith(f"tracker odds {system.name}")]
        assert examples
        for example in examples:
            doc = run.json(example.removeprefix("tracker ") + "")
            assert sum(doc["outcomes"].values()) == pytest.approx(1.0)
            # An outcome of its own (a reaction an influence roll reads) brings its tone.
            named = set(system.outcome_tones) | {"a", "b", "stalemate"} | set(doc.get("tones", ()))
            assert set(doc["outcomes"]) <= named

    def test_its_demo_evening_plays_exports_reimports_and_verifies(self, system, tmp_path):
        evening = system.demo()
        assert evening is not None
        db = tmp_path / "demo.db"
        made = CliRunner().invoke(cli, ["demo", "--db", str(db), "--json"])
        assert made.exit_code == 0, made.output
        played = {c["name"]: c for c in json.loads(made.stdout)["campaigns"]}
        assert played[evening.campaign]["system"] == system.name
        assert played[evening.campaign]["commands_played"] > 0
        run = Run(db, CliRunner())
        campaign = ["--campaign", evening.campaign]
        assert run.json([*campaign, "verify"])["ok"]
        rows = list(csv.DictReader(io.StringIO(run.ok([*campaign, "export", "rolls"]).stdout)))
        assert rows
        assert {r["system"] for r in rows} == {system.name}
        for fmt in ("jsonl", "html"):
            run.ok([*campaign, "export", "rolls", "--format", fmt, "--player-view"])
        exported = tmp_path / "events.jsonl"
        run.ok(["export", "events", "-o", str(exported)])
        copy = Run(tmp_path / "copy.db", CliRunner())
        copy.ok(["import", str(exported)])
        assert copy.json("verify")["ok"]


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
