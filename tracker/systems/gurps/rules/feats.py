"""Physical feats and extra effort: climbing, jumping, running and swimming, and a Will roll to
do more than one's best.

Rulebook: GURPS, 'Physical Feats', 'Extra Effort'.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from tracker.errors import BadInput, Refused
from tracker.systems.dice import DiceSource
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.shared import as_dict, slug
from tracker.systems.gurps.rules.success import Modifier, SuccessRoll, effective_skill, success_roll


class ExtraEffort(msgspec.Struct, frozen=True):
    """An extra-effort roll: the Will roll, FP always spent, HP lost on a critical failure."""

    percent: int
    roll: SuccessRoll
    granted: bool
    fp_cost: int
    hp_loss: int

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


def extra_effort(
    will: int,
    percent: int,
    *,
    dice: DiceSource,
    motivated: bool = False,
    machine: bool = False,
) -> ExtraEffort:
    """Roll Will at -1 per 5% (rounded up) of extra capability, +5 when motivated.

    Rulebook: GURPS, 'Extra Effort'; tracker/systems/gurps/RULINGS.md: always 1 FP; a critical
    failure costs HP equal to the FP cost; Machine characters cannot.
    """
    if machine:
        raise Refused(
            "A character with the Machine meta-trait cannot use extra effort; roll the task "
            "without extra effort."
        )
    if percent <= 0:
        raise BadInput(
            f"Extra effort asks for a positive percentage increase, not {percent}; give a "
            "percentage of 1 or more."
        )
    steps = math.ceil(percent / tables.EXTRA_EFFORT_STEP_PERCENT)
    modifiers = [Modifier(-steps, f"extra effort (+{percent}%)")]
    if motivated:
        modifiers.append(Modifier(tables.EXTRA_EFFORT_MOTIVATED, "motivated"))
    effective = effective_skill(will, modifiers)
    if effective < tables.MINIMUM_EFFECTIVE_SKILL:
        more = "" if motivated else ", or give --motivated if it is a matter of life or death"
        raise Refused(
            f"Extra effort of {percent}% brings the roll to effective skill {effective}, below 3, "
            f"so it cannot be attempted; ask for a smaller percentage{more}."
        )
    roll = success_roll(will, modifiers, dice=dice, purpose="an extra effort roll")
    fp_cost = tables.EXTRA_EFFORT_FP
    hp_loss = fp_cost if roll.outcome == "critical_failure" else 0
    return ExtraEffort(percent, roll, roll.success, fp_cost, hp_loss)


def climbing_modifiers(surface: str, encumbrance: int = 0) -> tuple[Modifier, ...]:
    """The surface modifier and the encumbrance penalty for a Climbing roll.

    Rulebook: GURPS, 'Climbing' (surface table; subtract encumbrance level 0-4). Surfaces:
    ordinary-tree, ordinary-mountain, vertical-stone-wall, modern-building, rope-up.
    """
    key = slug(surface)
    if key not in tables.CLIMBING_SURFACES:
        raise BadInput(
            f"Unknown climbing surface {surface!r}; use one of "
            f"{', '.join(tables.CLIMBING_SURFACES)}."
        )
    if not 0 <= encumbrance <= tables.MAX_ENCUMBRANCE:
        raise BadInput(f"Encumbrance level is 0 to 4, not {encumbrance}.")
    value = tables.CLIMBING_SURFACES[key][0]
    modifiers = [Modifier(value, key.replace("-", " "))]
    if encumbrance:
        modifiers.append(Modifier(-encumbrance, f"encumbrance {encumbrance}"))
    return tuple(modifiers)


def _jump_move(basic_move: int, running_yards: int, jumping_skill: int | None) -> int:
    if basic_move < 0 or running_yards < 0:
        raise BadInput("Basic Move and yards run are 0 or more.")
    # The rulebook lets a jumper substitute half Jumping; a player takes the better figure.
    move = basic_move if jumping_skill is None else max(basic_move, jumping_skill // 2)
    return move + running_yards


def high_jump_inches(
    basic_move: int, running_yards: int = 0, jumping_skill: int | None = None
) -> int:
    """High jump: (6 x Basic Move) - 10 inches, running yards added to Move first.

    Rulebook: GURPS, 'Jumping'. Ruling: half Jumping (rounded down) is used when it beats
    Basic Move; the height is never below 0.
    """
    return max(0, 6 * _jump_move(basic_move, running_yards, jumping_skill) - 10)


def broad_jump_feet(
    basic_move: int, running_yards: int = 0, jumping_skill: int | None = None
) -> int:
    """Broad jump: (2 x Basic Move) - 3 feet, running yards added to Move first.

    Rulebook: GURPS, 'Jumping'; same rulings as ``high_jump_inches``.
    """
    return max(0, 2 * _jump_move(basic_move, running_yards, jumping_skill) - 3)


def sprint_move(move: int) -> int:
    """Move after one second of sprinting: +20% rounded down, at least +1.

    Rulebook: GURPS, 'Running & Sprinting'.
    """
    if move < 0:
        raise BadInput(f"Move is 0 or more, not {move}.")
    return move + max(1, move * 20 // 100)


def paced_move(sprint: int) -> int:
    """Paced running: half the sprinting speed, rounded down, at least 1.

    Rulebook: GURPS, 'Running & Sprinting' ("Paced running: Half sprinting speed"). Ruling
    (tracker/systems/gurps/RULINGS.md, 'Running and jumping'): the rulebook gives no rounding;
    down, at least 1, as the sprint's +20% and water Move are.
    """
    return max(1, sprint // 2)


def feat_notes(trait: str, feat: str | None, surface: str | None, outcome: str) -> list[str]:
    """What the rulebook says follows a Climbing, Swimming or running roll: how fast, when to
    roll again, what a failure means.

    Rulebook: GURPS, 'Climbing', 'Swimming', 'Running & Sprinting'.
    """
    skill = trait.strip().lower()
    failed = outcome in ("failure", "critical_failure")
    notes = []
    if skill == "climbing":
        if surface is not None:
            _, combat, normal = tables.CLIMBING_SURFACES[slug(surface)]
            notes.append(f"climbing speed: {combat} in combat, {normal} otherwise")
        if outcome == "critical_failure":
            notes.append("a fall, even if roped, unless the rope itself is secured")
        elif failed:
            notes.append("a fall")
        else:
            notes.append("roll again every five minutes of climbing")
    elif skill == "swimming":
        notes.append(
            "inhaled water (1 FP); roll again in five seconds"
            if failed
            else "roll again if still in water over the head"
        )
    elif feat == "running":
        notes.append(
            "roll HT or Running again after 15 more seconds of sprinting, or a minute of "
            "paced running"
        )
    return notes


def water_move(basic_move: int) -> int:
    """Human water Move: Basic Move / 5 rounded down, at least 1.

    Rulebook: GURPS, 'Swimming'.
    """
    if basic_move < 0:
        raise BadInput(f"Basic Move is 0 or more, not {basic_move}.")
    return max(1, basic_move // 5)


def fp_on_failure(skill: str, feat: str | None = None) -> int:
    """FP a failed roll costs: Swimming (inhaling water) and running's HT rolls cost 1.

    Rulebook: GURPS, 'Swimming', 'Running & Sprinting'.
    """
    if skill.strip().lower() == "swimming" or feat == "running":
        return tables.FEAT_FP_ON_FAILURE
    return 0
