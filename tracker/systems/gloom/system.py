"""Gloom as tracker plays it: what the rest of tracker asks of the system."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import ClassVar

from tracker.systems.acts import SystemCommand
from tracker.systems.base import (
    DemoEvening,
    Feature,
    Folding,
    ObligationKind,
    OddsCommand,
    RollKind,
    RollRequest,
    RuleSystem,
)
from tracker.systems.commands import Option, Setting, option_values
from tracker.systems.gloom import options, play, words
from tracker.systems.gloom import rules as gloom
from tracker.systems.gloom.commands import COMMANDS, KIND
from tracker.systems.gloom.folding import PANIC, GloomFolding


class Gloom(RuleSystem):
    """Gloom: a d20 rolled between the Difficulty Level and the Skill Rank (Gloom)."""

    name: ClassVar[str] = "gloom"
    title: ClassVar[str] = "Gloom"
    order: ClassVar[int] = 1
    roll_options: ClassVar[tuple[Option, ...]] = options.ROLL
    contest_options: ClassVar[tuple[Option, ...]] = options.CONTEST
    settings: ClassVar[tuple[Setting, ...]] = options.SETTINGS
    difficulties: ClassVar[tuple[str, ...]] = (*gloom.DIFFICULTY, gloom.IMPOSSIBLE)
    features: ClassVar[frozenset[str]] = frozenset({Feature.STRESS, Feature.CONTESTS})
    folding: ClassVar[Folding] = GloomFolding()
    obligations: ClassVar[Mapping[str, ObligationKind]] = {
        PANIC: ObligationKind(
            "the panic check", waived=("a panic check the GM does not call", "no panic here")
        )
    }
    commands: ClassVar[tuple[SystemCommand, ...]] = COMMANDS
    roll_kinds: ClassVar[Mapping[str, RollKind]] = {
        KIND: RollKind("The panic check", answers=PANIC)
    }
    outcome_tones: ClassVar[Mapping[str, str]] = {
        "perfect": "good",
        "special": "good",
        "success": "good",
        "complication": "mixed",
        "undershoot": "bad",
        "overshoot": "bad",
        "catastrophe": "bad",
    }
    roll_examples: ClassVar[tuple[str, ...]] = ("tracker roll Kade Hacking --dl 5",)
    examples: ClassVar[tuple[RollRequest, ...]] = (
        RollRequest("Hacking", options=option_values(options.ROLL, dl=5)),
    )
    score_range: ClassVar[tuple[int, int]] = (1, 30)

    def stress_words(self, stress: int, limit: int) -> list[str]:
        # tracker/systems/gloom/RULINGS.md: stress at the campaign's limit gives disadvantage.
        return ["at the limit: disadvantage"] if stress >= limit else []

    decide_roll = play.decide_roll
    conditions_ruled = play.conditions_ruled
    redecide = staticmethod(play.redecide)
    rolled_from = play.rolled_from
    roll_facts = staticmethod(play.roll_facts)
    roll_remarks = staticmethod(words.roll_remarks)
    rolled = staticmethod(play.rolled)
    chance = staticmethod(play.chance)
    decide_contest = play.decide_contest
    render_roll = staticmethod(words.render_roll)

    def odds_command(self) -> OddsCommand:
        return words.ODDS

    def demo(self) -> DemoEvening:
        fixtures = resources.files("tracker.fixtures")
        return DemoEvening(
            campaign="Neon Drift",
            title="Ghosts in the relay",
            sheets=(
                fixtures / "sheets" / "gloom-kade.toml",
                fixtures / "sheets" / "gloom-juno.toml",
            ),
            script=fixtures / "sessions" / "gloom.txt",
        )
