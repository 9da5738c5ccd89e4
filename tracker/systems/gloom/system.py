"""Gloom as tracker plays it: what the rest of tracker asks of the system."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from tracker.systems.acts import SystemCommand
from tracker.systems.base import (
    DemoEvening,
    Folding,
    ObligationKind,
    OddsCommand,
    RollKind,
    RollRequest,
    RuleSystem,
    later,
)
from tracker.systems.capabilities import (
    Conditions,
    Contests,
    Obligations,
    OddsTables,
    OwnCommands,
    OwnSettings,
    OwnWords,
    Provenance,
    RollKinds,
    Stress,
)
from tracker.systems.commands import Option, Setting, option_values
from tracker.systems.gloom import options

# What the system does is imported when a campaign of it is played (``later``).
PLAY = "tracker.systems.gloom.play"
WORDS = "tracker.systems.gloom.words"
FOLDS = "tracker.systems.gloom.folding"


class Gloom(
    RuleSystem,
    Contests,
    Stress,
    Obligations,
    Conditions,
    RollKinds,
    Provenance,
    OddsTables,
    OwnCommands,
    OwnSettings,
    OwnWords,
):
    """Gloom: a d20 rolled between the Difficulty Level and the Skill Rank (Gloom)."""

    name: ClassVar[str] = "gloom"
    title: ClassVar[str] = "Gloom"
    roll_options: ClassVar[tuple[Option, ...]] = options.ROLL
    contest_options: ClassVar[tuple[Option, ...]] = options.CONTEST
    settings: ClassVar[tuple[Setting, ...]] = options.SETTINGS
    difficulties: ClassVar[tuple[str, ...]] = later(f"{PLAY}:DIFFICULTIES")
    folding: ClassVar[Folding] = later(f"{FOLDS}:FOLDING")
    obligations: ClassVar[Mapping[str, ObligationKind]] = later(f"{FOLDS}:OBLIGATIONS")
    commands: ClassVar[tuple[SystemCommand, ...]] = later("tracker.systems.gloom.commands:COMMANDS")
    roll_kinds: ClassVar[Mapping[str, RollKind]] = later(
        "tracker.systems.gloom.commands:ROLL_KINDS"
    )
    outcome_tones: ClassVar[Mapping[str, str]] = {
        "perfect": "good",
        "special": "good",
        "success": "good",
        "complication": "mixed",
        "undershoot": "bad",
        "overshoot": "bad",
        "catastrophe": "bad",
    }
    critical_outcomes: ClassVar[frozenset[str]] = frozenset({"perfect", "catastrophe"})
    roll_examples: ClassVar[tuple[str, ...]] = ("tracker roll Kade Hacking --dl 5",)
    score_range: ClassVar[tuple[int, int]] = (1, 30)

    def stress_words(self, stress: int, limit: int) -> list[str]:
        # tracker/systems/gloom/RULINGS.md: stress at the campaign's limit gives disadvantage.
        return ["at the limit: disadvantage"] if stress >= limit else []

    decide_roll = later(PLAY, method=True)
    conditions_ruled = later(PLAY, method=True)
    redecide = later(PLAY)
    rolled_from = later(PLAY, method=True)
    roll_facts = later(PLAY)
    roll_remarks = later(WORDS)
    rolled = later(PLAY)
    chance = later(PLAY)
    decide_contest = later(PLAY, method=True)
    render_roll = later(WORDS)

    def odds_command(self) -> OddsCommand:
        from tracker.systems.gloom.words import ODDS

        return ODDS

    def demo(self) -> DemoEvening:
        from importlib import resources

        fixtures = resources.files("tracker.fixtures")
        return DemoEvening(
            campaign="Neon Drift",
            title="Ghosts in the relay",
            sheets=(
                fixtures / "sheets" / "gloom-kade.toml",
                fixtures / "sheets" / "gloom-juno.toml",
            ),
            script=fixtures / "sessions" / "gloom.txt",
            examples=(RollRequest("Hacking", options=option_values(options.ROLL, dl=5)),),
        )
