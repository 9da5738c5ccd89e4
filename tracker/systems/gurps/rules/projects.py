"""Major projects: one worker's day in man-hours, and a supervisor's bonus to the team.

Rulebook: GURPS, 'Time Modifiers' (major projects).
"""

from __future__ import annotations

from typing import Any

import msgspec

from tracker.errors import BadInput
from tracker.systems.dice import DiceSource
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.shared import DIE_FACES, as_dict
from tracker.systems.gurps.rules.success import OUTCOMES, Modifier


class ProjectDay(msgspec.Struct, frozen=True):
    """One worker's day on a major project: man-hours added and hours of work destroyed."""

    outcome: str
    man_hours: int
    destroyed_hours: int
    dice: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


def project_day(outcome: str, *, dice: DiceSource) -> ProjectDay:
    """Man-hours from one worker's daily roll; a critical failure also destroys 2d hours.

    Rulebook: GURPS, 'Major projects'; tracker/systems/gurps/RULINGS.md (success 8, critical success
    12, failure 4, critical failure 0 plus 2d hours destroyed, rolled from ``dice``).
    """
    if outcome not in tables.PROJECT_HOURS:
        raise BadInput(f"Unknown outcome {outcome!r}; use one of {', '.join(OUTCOMES)}.")
    rolled: tuple[int, ...] = ()
    if outcome == "critical_failure":
        rolled = tuple(
            dice.roll(tables.PROJECT_DESTROYED_DICE, DIE_FACES, "the hours of work destroyed")
        )
    return ProjectDay(outcome, tables.PROJECT_HOURS[outcome], sum(rolled), rolled)


def supervisor_modifier(bonus: int = 1) -> Modifier:
    """The team's bonus for the day from a supervisor's successful Leadership or Administration.

    Rulebook: GURPS, 'Major projects'; tracker/systems/gurps/RULINGS.md (+1, or +2 by GM's choice).
    """
    if bonus not in tables.SUPERVISOR_BONUS:
        raise BadInput(f"A supervisor gives +1 or +2, not {bonus:+d}.")
    return Modifier(bonus, "supervisor")
