"""Gloom as tracker plays it: what the rest of tracker asks of the system."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from importlib import resources
from typing import Any, ClassVar

from tracker.systems.base import (
    CampaignView,
    CharacterView,
    ContestDecision,
    ContestRequest,
    DemoEvening,
    Feature,
    OddsCommand,
    RollDecision,
    Rolled,
    RollFacts,
    RollLines,
    RollRequest,
    RuleSystem,
    Side,
    Style,
)
from tracker.systems.gloom import play, words


class Gloom(RuleSystem):
    """Gloom: a d20 rolled between the Difficulty Level and the Skill Rank (gloom.md)."""

    name: ClassVar[str] = "gloom"
    title: ClassVar[str] = "Gloom"
    order: ClassVar[int] = 1
    features: ClassVar[frozenset[Feature]] = frozenset(
        {Feature.STRESS, Feature.CONTESTS, Feature.PANIC_CHECKS}
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
    examples: ClassVar[tuple[RollRequest, ...]] = (RollRequest("Hacking", dl=5),)
    score_range: ClassVar[tuple[int, int]] = (1, 30)

    def stress_words(self, stress: int, limit: int) -> list[str]:
        # DESIGN.md Rulings/gloom: stress at the campaign's limit gives disadvantage.
        return ["at the limit: disadvantage"] if stress >= limit else []

    def decide_roll(
        self, request: RollRequest, character: CharacterView, campaign: CampaignView
    ) -> RollDecision:
        return play.decide_roll(self, request, character, campaign)

    def redecide(self, event: Any) -> str | None:
        return play.redecide(event)

    def roll_facts(self, event: Any) -> list[RollFacts]:
        return play.roll_facts(event)

    def rolled(self, event: Any) -> list[Rolled]:
        return play.rolled(event)

    def chance(self, key: Any) -> Fraction:
        return play.chance(key)

    def decide_contest(
        self, request: ContestRequest, a: Side, b: Side, campaign: CampaignView
    ) -> ContestDecision:
        return play.decide_contest(self, request, a, b, campaign)

    def render_roll(self, doc: Mapping[str, Any], style: Style) -> RollLines:
        return words.render_roll(doc, style)

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
