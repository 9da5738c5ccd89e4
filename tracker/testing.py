"""The contract every rule system keeps, for pytest, importable wherever tracker is installed.

Like the store's contract (run on SQLite and PostgreSQL), ``SystemContract`` is one suite that
each system subclasses, naming the system: its example rolls, rolled with every fall of their
dice, decide to outcomes it names, render as text and JSON, read back to themselves in
``verify``, and come up as often as its exact odds say; the examples in its odds' help run and
sum to 1; its demo evening plays, exports, re-imports and verifies. A separately installed
system runs it from a test file of its own::

    from tracker.testing import SystemContract

    class TestD6(SystemContract):
        name = "d6"

Nothing in tracker imports this module: it needs pytest, which only a test run has.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import shlex
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import ClassVar

import click
import msgspec
import pytest
from click.testing import CliRunner, Result

from tracker.app.tracker import Tracker
from tracker.cli import cli
from tracker.cli.render import TerminalStyle
from tracker.errors import TrackerError
from tracker.events.play import RollMade
from tracker.systems import capabilities as cap
from tracker.systems import registry
from tracker.systems.base import RuleSystem
from tracker.systems.capabilities import OddsTables, OwnSettings, able


@dataclass
class Run:
    """Runs ``tracker`` commands against one database, as a user would type them."""

    db: Path
    runner: CliRunner

    def __call__(self, command: str | list[str], *, input: str | None = None) -> Result:
        args = shlex.split(command) if isinstance(command, str) else command
        return self.runner.invoke(cli, ["--db", str(self.db), *args], input=input)

    def ok(self, command: str | list[str]) -> Result:
        result = self(command)
        assert result.exit_code == 0, (command, result.output, result.exception)
        return result

    def json(self, command: str | list[str]) -> dict:
        result = self.ok(
            [*(shlex.split(command) if isinstance(command, str) else command), "--json"]
        )
        return json.loads(result.stdout)

    def event_count(self) -> int:
        with sqlite3.connect(self.db) as conn:
            return conn.execute("SELECT count(*) FROM events").fetchone()[0]


def isolate(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Point tracker at ``home`` for its data folder, and forget the user's database and
    campaign, so that a test neither reads nor writes the real user's."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.delenv("TRACKER_DB", raising=False)
    monkeypatch.delenv("TRACKER_CAMPAIGN", raising=False)


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

    @pytest.fixture(autouse=True)
    def _isolated_home(
        self, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        isolate(monkeypatch, tmp_path_factory.mktemp("home"))

    @pytest.fixture
    def system(self) -> RuleSystem:
        return registry.get(self.name)

    @pytest.fixture
    def run(self, tmp_path: Path) -> Run:
        return Run(tmp_path / "campaign.db", CliRunner())

    @pytest.fixture
    def table(self, system: RuleSystem, tmp_path: Path) -> Iterator[Tracker]:
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
        version = system.folding.version
        assert type(version) is int, f"its Folding.version is {version!r}, not a whole number"
        # The snapshots' key (``projection_version``) takes a version up to 99,999.
        assert 1 <= version < 100_000, f"its Folding.version {version} is not from 1 to 99,999"

    def test_its_settings_are_ones_the_log_stores_and_campaign_set_shows(self, system, run):
        """A campaign setting is logged under its name, beside a change's note, and given to
        `campaign set` and `campaign new` by an option of that name: one named otherwise could
        be declared, but never logged."""
        from tracker.events.catalog import RESERVED

        for setting in able(system, OwnSettings).settings:
            assert setting.name not in RESERVED, f"the log keeps {setting.name} for its own"
            assert setting.option.name == setting.name, (setting.option.flag, setting.name)
            assert setting.option.flag.startswith("--")
            assert setting.words
            assert setting.new is None or setting.new.flag == setting.option.flag
        run.ok(f"campaign new Settings --system {system.name}")
        shown = run.json("campaign set")["settings"]
        assert list(shown) == [setting.name for setting in able(system, OwnSettings).settings]

    def test_every_fall_of_every_example_roll_decides_renders_and_reads_back(self, system, table):
        state = table.state()
        character = next(iter(state.characters.values()))
        style = TerminalStyle(system)
        seen: set[str] = set()
        demo = system.demo()
        assert demo is not None, "a system has a demo evening"
        assert demo.examples, "a system's demo names the rolls its contract rolls"
        for example in demo.examples:
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
        if not isinstance(system, OddsTables):
            pytest.skip(f"{system.title} has no odds table (OddsTables)")
        spec = system.odds_command()
        assert spec is not None, "a system with OddsTables gives its odds command"
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

    def test_each_hook_it_gives_is_of_the_core_or_of_a_capability_it_declares(self, system):
        """tracker asks a capability's hooks only of a system that declares it (``able``): a
        hook given without its capability would never be called."""
        declared = set(cap.capabilities(system))
        owner = {
            name: c
            for c in cap.Capability.__subclasses__()
            for name in vars(c)
            if not name.startswith("_") and name != "feature"
        }
        own = type(system).__mro__[: type(system).__mro__.index(RuleSystem)]
        given = {name for c in own for name in vars(c) if not name.startswith("_")}
        unheard = sorted(
            f"{name} ({owner[name].__name__})"
            for name in given
            if name in owner and owner[name] not in declared
        )
        assert not unheard, f"{system.title} gives hooks of capabilities it lacks: {unheard}"

    def test_each_capability_it_declares_answers_as_declared(self, system, table):
        state = table.state()
        ch = next(iter(state.characters.values()))
        has = set(cap.capabilities(system))
        if cap.Stress in has:
            for setting in range(1, 21):
                limit = system.stress_limit(setting)
                assert type(limit) is int, (setting, limit)
                assert limit >= 1, (setting, limit)
                for stress in range(limit + 1):
                    words = system.stress_words(stress, limit)
                    assert all(isinstance(w, str) and w for w in words), (stress, words)
        if cap.Currencies in has:
            assert all(isinstance(k, str) and k for k in system.spend_kinds)
            assert all(type(top) is int and top > 0 for top in system.track_max.values())
            assert all(isinstance(t, str) for t in system.session_resets(state))
        if cap.Thresholds in has:
            for track in ("hp", "fp"):
                floor = system.track_floor(track, 10)
                assert type(floor) is int, (track, floor)
                assert floor <= 0, (track, floor)
                for after in range(floor, 11):
                    notes = system.track_notes(track, after, after, 10)
                    assert all(isinstance(n, str) and n for n in notes), (track, after)
        if cap.Obligations in has:
            assert system.obligations, "a system with Obligations names their kinds"
            for kind, said in system.obligations.items():
                assert isinstance(kind, str)
                assert kind
                assert said.done is None or said.done
        if cap.SheetRules in has:
            rollable = system.rollable(ch)
            assert rollable, f"{ch.name} of the demo can roll something"
            assert set(rollable) <= {*ch.stats, *ch.skills}
            assert set(system.derived_stats(ch.stats)) <= {name for name, _ in system.derived}
            for group, rolls in system.rolls_beyond_sheet(ch):
                assert group
                assert all(isinstance(level, int) for _, level in rolls), group
        if cap.SkillDefaults in has:
            with pytest.raises(TrackerError):
                system.check_default("?? no default ??")
        if cap.SheetImport in has:
            assert system.foreign_sheet({}, "empty.json") is None, "an empty file is no sheet"
        if cap.Movement in has:
            moves = system.movement(ch)
            assert moves is None or all(type(v) is int for v in moves.values())
        if cap.RollKinds in has:
            assert system.roll_kinds or system.difficulties
            assert all(kind.what for kind in system.roll_kinds.values())
        if cap.OwnCommands in has:
            assert system.commands, "a system with OwnCommands has commands"
            assert len({c.path for c in system.commands}) == len(system.commands)
        if cap.OwnWords in has:
            assert system.critical_outcomes <= set(system.outcome_tones)
            assert system.dice_name

    def test_its_contests_decide_against_an_opponent_and_read_back(self, system, table):
        if not isinstance(system, cap.Contests):
            pytest.skip(f"{system.title} has no contests (Contests)")
        state = table.state()
        ch = next(iter(state.characters.values()))
        trait = able(system, cap.SheetRules).rollable(ch)[0]
        logged = table.rolls.contest(ch.name, trait, "Foe", "10", system.contest_request())
        assert logged.event.data.system == system.name
        assert system.redecide(logged.event.data) is None
        assert system.roll_facts(logged.event.data)
