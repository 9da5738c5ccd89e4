"""Glintlock's exact odds: every outcome of a check at a position, with the Mettle and Threat it
gives on average, by walking every face of the d20s and asking the rules to decide each."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from tracker.systems.glintlock import rules as glintlock
from tracker.systems.odds import Odds, faces


def check(
    stat: int, *, trained: bool = False, tags: int = 1, bonus: int = 0, advantage_die: bool = False
) -> Odds:
    """Each outcome's chance at a position set by net tags, one step better with an Advantage
    Die where there is a step to take (Rulebook: Glintlock)."""
    effective = glintlock.effective_stat(stat, trained)
    at = glintlock.position(tags)
    if advantage_die and at != glintlock.POSITIONS[-1]:
        at = glintlock.improve_position(at)
    counts: Counter[str] = Counter()
    mettle = threat = nat20 = nat1 = 0
    rolls = 0
    for dice in faces(glintlock.DICE_FOR_POSITION[at]):
        kept = glintlock.keep(dice, at)
        result = glintlock.outcome(effective, kept, bonus)
        gained, owed = glintlock.deltas(result, kept)
        counts[result] += 1
        mettle += gained
        threat += owed
        nat20 += kept == 20
        nat1 += kept == 1
        rolls += 1
    outcomes = {name: Fraction(counts[name], rolls) for name in ("miss", "weak_hit", "strong_hit")}
    return Odds(
        "glintlock",
        "check",
        outcomes,
        success=outcomes["weak_hit"] + outcomes["strong_hit"],
        details={
            "stat": stat,
            "trained": trained,
            "effective": effective,
            "weak_dc": glintlock.weak_dc(effective),
            "strong_dc": glintlock.strong_dc(effective),
            "tags": tags,
            "advantage_die": advantage_die,
            "position": at,
        },
        extras={
            "natural_20": Fraction(nat20, rolls),
            "natural_1": Fraction(nat1, rolls),
            "expected_mettle": Fraction(mettle, rolls),
            "expected_threat": Fraction(threat, rolls),
        },
    )
