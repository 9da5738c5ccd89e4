"""Glintlock as tracker plays it: what the rest of tracker asks of the system."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from tracker.systems.acts import SystemCommand
from tracker.systems.base import (
    CampaignView,
    CharacterView,
    DemoEvening,
    Folding,
    ObligationKind,
    OddsCommand,
    RollRequest,
    RuleSystem,
    later,
)
from tracker.systems.capabilities import (
    Conditions,
    Currencies,
    Obligations,
    OddsTables,
    OwnCommands,
    OwnSettings,
    OwnWords,
    Provenance,
    SheetRules,
    Stress,
)
from tracker.systems.commands import Option, Setting, option_values
from tracker.systems.glintlock import options

# What the system does is imported when a campaign of it is played (``later``).
PLAY = "tracker.systems.glintlock.play"
WORDS = "tracker.systems.glintlock.words"
FOLDS = "tracker.systems.glintlock.folding"


class Glintlock(
    RuleSystem,
    Stress,
    Currencies,
    Obligations,
    Conditions,
    SheetRules,
    Provenance,
    OddsTables,
    OwnCommands,
    OwnSettings,
    OwnWords,
):
    """Glintlock: a d20 against two thresholds, Mettle and Threat, stress (Glintlock)."""

    name: ClassVar[str] = "glintlock"
    title: ClassVar[str] = "Glintlock"
    roll_options: ClassVar[tuple[Option, ...]] = options.ROLL
    settings: ClassVar[tuple[Setting, ...]] = options.SETTINGS
    spend_kinds: ClassVar[tuple[str, ...]] = later(f"{PLAY}:SPEND_KINDS")
    detail_column: ClassVar[str] = "Position"
    folding: ClassVar[Folding] = later(f"{FOLDS}:FOLDING")
    event_words = later(f"{WORDS}:EVENT_WORDS")
    # Declared apart and read only by what lists or runs a system's commands: a roll reads none.
    commands: ClassVar[tuple[SystemCommand, ...]] = later(
        "tracker.systems.glintlock.declared:COMMANDS"
    )
    obligations: ClassVar[Mapping[str, ObligationKind]] = later(f"{FOLDS}:OBLIGATIONS")
    outcome_tones: ClassVar[Mapping[str, str]] = {
        "strong_hit": "good",
        "weak_hit": "mixed",
        "miss": "bad",
    }
    # Rulebook: Glintlock, 'Tag-Driven Position'.
    lead_said: ClassVar[Mapping[str, str]] = {
        "desperate": "desperate: two d20, keep the lower",
        "risky": "risky: one d20",
        "controlled": "controlled: two d20, keep the higher",
    }
    roll_examples: ClassVar[tuple[str, ...]] = (
        "tracker roll Wren Grit --tag 1:gear --tag 1:power",
        "tracker roll Tomas Wits --tag -1:condition --dice 1,12",
    )
    roll_columns: ClassVar[tuple[str, ...]] = ("position",)
    score_range: ClassVar[tuple[int, int]] = (0, 10)
    contest_refusal: ClassVar[str] = (
        "Glintlock has no contested rolls; roll the acting character against the position the "
        "opposition sets (--tag)."
    )
    track_max: ClassVar[Mapping[str, int]] = later(f"{PLAY}:TRACK_MAX")

    def missing_trait_hint(self, character: CharacterView, trait: str) -> str | None:
        if not character.is_trained(trait):
            return None
        return (
            f"{trait} is a skill {character.name} is trained in; roll the stat it uses with it, "
            f"like `tracker roll {character.name} Grit --skill {trait}`."
        )

    def stress_limit(self, setting: int) -> int:
        from tracker.systems.glintlock.rules import STRESS_MAX

        return STRESS_MAX

    def stress_words(self, stress: int, limit: int) -> list[str]:
        from tracker.systems.glintlock.rules import stress_effects

        return list(stress_effects(stress))

    def session_resets(self, campaign: CampaignView) -> frozenset[str]:
        """Mettle is 0 at every session start; Threat too, unless the campaign carries it over.

        Rulebook: Glintlock, 'Mettle & Threat': Mettle "starts 0 per session", Threat only
        "starts 0". Ruling (tracker/systems/glintlock/RULINGS.md, 'Mettle and Threat tracks'):
        the text resets Mettle per session and Threat only at the start, so ``campaign new``
        writes ``threat_carries_over`` true unless the GM asks for ``--threat-resets``; a
        stored creation without the setting (the field's default, false) keeps resetting
        Threat, as it did when it was made.
        """
        carried = campaign.setting("threat_carries_over")
        return frozenset({"mettle"} if carried else {"mettle", "threat"})

    decide_roll = later(PLAY, method=True)
    conditions_ruled = later(PLAY, method=True)
    redecide = later(PLAY)
    rolled_from = later(PLAY, method=True)
    priced = later(PLAY)
    roll_facts = later(PLAY)
    roll_remarks = later(WORDS)
    rolled = later(PLAY)
    chance = later(PLAY)
    render_roll = later(WORDS)
    stress_said: ClassVar[Mapping[str, str]] = later(f"{WORDS}:STRESS_SAID")
    effect_said = later(WORDS)

    def odds_command(self) -> OddsCommand:
        from tracker.systems.glintlock.words import ODDS

        return ODDS

    def demo(self) -> DemoEvening:
        from importlib import resources

        fixtures = resources.files("tracker.fixtures")
        return DemoEvening(
            campaign="Ashes of Veyra",
            title="The drowned archive",
            sheets=(
                fixtures / "sheets" / "glintlock-wren.toml",
                fixtures / "sheets" / "glintlock-tomas.toml",
            ),
            script=fixtures / "sessions" / "glintlock.txt",
            featured=True,
            tries=(
                "tracker roll Wren Grit --tag 1:gear",
                "tracker character show Wren",
                "tracker odds glintlock --stat 3 --trained --tags 2",
            ),
            examples=(RollRequest("Grit", options=option_values(options.ROLL, tags=("1:gear",))),),
        )
