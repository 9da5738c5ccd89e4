"""D6: a rule system in one file, installed as a plugin would be, for the tests.

A character rolls one d6 against a score (raised for one roll with ``--edge N``, an option of
its own): at or under it is a hit, over it a miss, and a miss adds 1 stress (the system's one
track, from 0 to 3). It answers everything tracker asks of a
rule system, so a whole evening plays through the command line: rolls, undo, replay, the
exports and the report, import, verify, odds and the demo.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from importlib import resources
from typing import Any, ClassVar

from tracker.events.catalog import EventPayload
from tracker.events.effects import TrackChange, effects_text
from tracker.events.play import RollMade
from tracker.systems.base import (
    CampaignView,
    CharacterView,
    DemoEvening,
    OddsCommand,
    OddsOption,
    OddsReport,
    RollDecision,
    RollFacts,
    RollLines,
    RollRequest,
    RuleSystem,
    Style,
)
from tracker.systems.capabilities import OddsTables, OwnWords, Stress, trait_value
from tracker.systems.commands import Option, option_values
from tracker.systems.odds import Odds

FACES = 6
STRESS_LIMIT = 3
ROLL = (Option("--edge", "added to the score for this roll.", "int", default=0, metavar="N"),)


def _outcome(die: int, score: int) -> str:
    return "hit" if die <= score else "miss"


def _odds(target: int) -> OddsReport:
    hit = Fraction(max(0, min(target, FACES)), FACES)
    odds = Odds("d6", "roll", {"hit": hit, "miss": 1 - hit}, success=hit)
    return OddsReport(odds, f"D6 · score {target}", odds.to_dict())


class D6(RuleSystem, Stress, OddsTables, OwnWords):
    """One d6 at or under a score."""

    name: ClassVar[str] = "d6"
    title: ClassVar[str] = "D6"
    outcome_tones: ClassVar[Mapping[str, str]] = {"hit": "good", "miss": "bad"}
    score_range: ClassVar[tuple[int, int]] = (1, 6)
    dice_name: ClassVar[str] = "d6"
    roll_options: ClassVar[tuple[Option, ...]] = ROLL

    def stress_limit(self, setting: int) -> int:
        return STRESS_LIMIT

    def decide_roll(
        self, request: RollRequest, character: CharacterView, campaign: CampaignView
    ) -> RollDecision:
        score, trait = trait_value(self, character, request.trait)
        edge = request.options.edge or 0
        score += edge
        (die,) = request.new_dice().roll(1, FACES, "a d6 roll")
        outcome = _outcome(die, score)
        result = {"dice": [die], "kept": die, "outcome": outcome, "success": outcome == "hit"}
        doc = {"trait": trait, "effective": score, **result, "notes": []}
        effects = (TrackChange("stress", 1, "a miss"),) if outcome == "miss" else ()
        inputs = {"score": score, **({"edge": edge} if edge else {})}
        return RollDecision(trait, inputs, result, (die,), doc, effects)

    def redecide(self, event: EventPayload) -> str | None:
        if not isinstance(event, RollMade):
            return None
        now = _outcome(event.dice[0], event.inputs["score"])
        stored = event.result["outcome"]
        return None if now == stored else f"the outcome is stored as {stored} but is {now}"

    def roll_facts(self, event: EventPayload) -> list[RollFacts]:
        if not isinstance(event, RollMade):
            return []
        score, result = event.inputs["score"], event.result
        return [
            RollFacts(
                event.character_id,
                None,
                event.kind,
                event.trait,
                score,
                "",
                score,
                event.dice,
                FACES,
                result["kept"],
                result["outcome"],
                result["success"],
                effects_text(event.effects),
                score,
            )
        ]

    def chance(self, key: int) -> Fraction:
        return _odds(key).odds.success

    def render_roll(self, doc: Mapping[str, Any], style: Style) -> RollLines:
        head = f"{style.bold(doc['character'])} · {doc['trait']} {doc['effective']}"
        return RollLines(head, f"  d6: {doc['kept']}  →  {style.outcome(doc['outcome'])}")

    def odds_command(self) -> OddsCommand:
        return OddsCommand(
            help="D6: the chance of a hit.\n\n\b\nExample:\n  tracker odds d6 --target 4\n",
            options=(OddsOption("--target", "The score rolled under.", required=True),),
            compute=_odds,
        )

    def demo(self) -> DemoEvening:
        here = resources.files(__name__)
        return DemoEvening(
            "Six Sides",
            "The first throw",
            (here / "pip.toml",),
            here / "evening.txt",
            examples=(RollRequest("Grit", options=option_values(ROLL)),),
        )
