"""Gloom as tracker plays it: what the rest of tracker asks of the system."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from tracker.systems.base import Feature, RuleSystem


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
    score_range: ClassVar[tuple[int, int]] = (1, 30)

    def stress_words(self, stress: int, limit: int) -> list[str]:
        # DESIGN.md Rulings/gloom: stress at the campaign's limit gives disadvantage.
        return ["at the limit: disadvantage"] if stress >= limit else []
