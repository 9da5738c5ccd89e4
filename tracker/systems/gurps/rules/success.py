"""The success roll: 3d6 against a base skill and its modifiers, its criticals and its margins.

Rulebook: GURPS, 'Success Rolls'; tracker/systems/gurps/RULINGS.md.

Margins. A roll's ``margin`` is E - t, signed. Contests use margin of success max(E - t, 0) on a
success and margin of failure max(t - E, 0) on a failure. Ruling: when an automatic result
overrides E (a 3 or 4 that succeeds against E < t, a 17 or 18 that fails against E >= t) the
margin on that side is 0: a 3 on effective skill 2 is a success with margin of success 0, and a
17 on effective skill 20 is a failure with margin of failure 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from tracker.errors import BadInput, Refused
from tracker.systems.dice import DiceSource
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.shared import DIE_FACES, as_dict, roll_3d6

OUTCOMES: tuple[str, ...] = ("critical_failure", "failure", "success", "critical_success")


_LOWEST_TOTAL = 3
_HIGHEST_TOTAL = 18


def outcome(effective: int, total: int) -> str:
    """Decide a 3d6 total against an effective skill of any integer value.

    Rulebook: GURPS, 'The Success Roll', 'Critical Successes', 'Critical Failures';
    tracker/systems/gurps/RULINGS.md: 3-4 always succeed (critical), 17-18 always fail, 5 is
    critical at E >= 15 and 6 at E >= 16; 18 is a critical failure, so is 17 at E <= 15 and any
    failing total 10 or more above E (at E >= 16 a 17 is an ordinary failure: the detailed table
    wins).
    """
    if not _LOWEST_TOTAL <= total <= _HIGHEST_TOTAL:
        raise BadInput(f"A 3d6 total is 3 to 18, not {total}; check the dice.")
    success = total <= 4 or (total <= 16 and total <= effective)
    if success:
        critical = (
            total <= 4 or (total == 5 and effective >= 15) or (total == 6 and effective >= 16)
        )
        return "critical_success" if critical else "success"
    critical = total == 18 or (total == 17 and effective <= 15) or total >= effective + 10
    return "critical_failure" if critical else "failure"


class Modifier(msgspec.Struct, frozen=True):
    """A labelled number added to a base skill (Rulebook: 'Modifiers & Task Difficulty')."""

    value: int
    label: str

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


def effective_skill(base: int, modifiers: Sequence[Modifier]) -> int:
    """Base skill plus every modifier; all modifiers stack.

    Rulebook: GURPS, 'Base Skill vs. Effective Skill' and 'All modifiers stack'.
    """
    return base + sum(modifier.value for modifier in modifiers)


class SuccessRoll(msgspec.Struct, frozen=True):
    """One 3d6 roll against an effective skill, with the dice as rolled."""

    base: int
    modifiers: tuple[Modifier, ...]
    effective: int
    dice: tuple[int, ...]
    total: int
    outcome: str
    success: bool
    critical: bool
    margin: int

    @property
    def margin_of_success(self) -> int | None:
        """max(E - t, 0) on a success, None on a failure (tracker/systems/gurps/RULINGS.md)."""
        return max(self.margin, 0) if self.success else None

    @property
    def margin_of_failure(self) -> int | None:
        """max(t - E, 0) on a failure, None on a success (tracker/systems/gurps/RULINGS.md)."""
        return None if self.success else max(-self.margin, 0)

    def to_dict(self) -> dict[str, Any]:
        document = as_dict(self)
        document["margin_of_success"] = self.margin_of_success
        document["margin_of_failure"] = self.margin_of_failure
        return document


def _judge(
    base: int, modifiers: Sequence[Modifier], effective: int, dice: Sequence[int]
) -> SuccessRoll:
    values = tuple(dice)
    if len(values) != 3 or any(not 1 <= value <= DIE_FACES for value in values):
        raise BadInput(f"A success roll needs three d6 showing 1 to 6, not {list(values)}.")
    total = sum(values)
    decided = outcome(effective, total)
    return SuccessRoll(
        base=base,
        modifiers=tuple(modifiers),
        effective=effective,
        dice=values,
        total=total,
        outcome=decided,
        success=decided in ("success", "critical_success"),
        critical=decided in ("critical_success", "critical_failure"),
        margin=effective - total,
    )


def decide_roll(base: int, modifiers: Sequence[Modifier], dice: Sequence[int]) -> SuccessRoll:
    """Decide already-rolled 3d6 against base + modifiers, with no refusal for low skill.

    Rulebook: GURPS, 'The Success Roll'. Used by every roll here and to re-decide a logged
    roll from its recorded dice.
    """
    return _judge(base, modifiers, effective_skill(base, modifiers), dice)


def success_roll(
    base: int,
    modifiers: Sequence[Modifier] = (),
    *,
    dice: DiceSource,
    defense: bool = False,
    resisting: bool = False,
    purpose: str = "a success roll",
) -> SuccessRoll:
    """Roll 3d6 against base + modifiers.

    Rulebook: GURPS, 'The Success Roll' and 'You cannot attempt a success roll if your
    effective skill falls below 3'; tracker/systems/gurps/RULINGS.md: an active defense and a
    resisting side still roll at any effective skill (only 3-4 can succeed then).
    """
    effective = effective_skill(base, modifiers)
    if effective < tables.MINIMUM_EFFECTIVE_SKILL and not (defense or resisting):
        # Only a plain success roll can be an active defense; a contest's side cannot.
        defense_too = ", or give --defense if it is an active defense"
        raise Refused(
            f"Effective skill {effective} is below 3, so the task cannot be attempted; "
            f"drop a penalty{defense_too if purpose == 'a success roll' else ''}."
        )
    return decide_roll(base, modifiers, roll_3d6(dice, purpose))
