"""Contests: Quick Contests, Resistance Rolls under the Rule of 16, and the rounds of a Regular
Contest on normalised scores.

Rulebook: GURPS, 'Contests'. The margins compared are those of ``success``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tracker.errors import BadInput
from tracker.systems.dice import DiceSource
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.shared import as_dict
from tracker.systems.gurps.rules.success import SuccessRoll, success_roll


class QuickContest(msgspec.Struct, frozen=True):
    """A Quick Contest or Resistance Roll: both rolls, the winner and the margin of victory.

    ``b`` is None when the defender did not need to roll; ``winner`` is "a", "b" or None for a
    stalemate. ``a_uncapped`` is the attacker's effective skill before the Rule of 16.
    """

    kind: str
    a: SuccessRoll
    b: SuccessRoll | None
    winner: str | None
    margin_of_victory: int | None
    a_uncapped: int
    rule_of_16: bool

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


def compare_rolls(a: SuccessRoll, b: SuccessRoll) -> tuple[str | None, int | None]:
    """Winner ("a", "b" or None for a stalemate) and margin of victory of two contest rolls.

    Rulebook: GURPS, 'Quick Contests' (winner table and the three margin-of-victory
    formulas); tracker/systems/gurps/RULINGS.md (margins of success and failure in contests).
    """
    if a.success and b.success:
        difference = (a.margin_of_success or 0) - (b.margin_of_success or 0)
    elif not a.success and not b.success:
        difference = (b.margin_of_failure or 0) - (a.margin_of_failure or 0)
    elif a.success:
        return "a", (a.margin_of_success or 0) + (b.margin_of_failure or 0)
    else:
        return "b", (b.margin_of_success or 0) + (a.margin_of_failure or 0)
    if difference == 0:
        return None, None
    return ("a", difference) if difference > 0 else ("b", -difference)


def quick_contest(
    a_effective: int,
    b_effective: int,
    *,
    dice_a: DiceSource,
    dice_b: DiceSource,
) -> QuickContest:
    """Both sides roll once; compare by the Quick Contest table.

    Rulebook: GURPS, 'Quick Contests' (winner table and the three margin-of-victory
    formulas); tracker/systems/gurps/RULINGS.md. A is the active side and is refused below effective
    skill 3; B resists and rolls at any skill.
    """
    a = success_roll(a_effective, dice=dice_a, purpose="the active side's contest roll")
    b = success_roll(
        b_effective, dice=dice_b, resisting=True, purpose="the resisting side's contest roll"
    )
    winner, margin = compare_rolls(a, b)
    return QuickContest("quick", a, b, winner, margin, a_effective, rule_of_16=False)


def resistance_roll(
    attacker_effective: int,
    defender_resistance: int,
    *,
    dice_a: DiceSource,
    dice_b: DiceSource,
    supernatural: bool = False,
) -> QuickContest:
    """A Quick Contest in which the attacker must succeed and ties go to the defender.

    Rulebook: GURPS, 'Resistance Rolls' and 'The Rule of 16'; tracker/systems/gurps/RULINGS.md.
    With ``supernatural`` the attacker rolls against at most max(16, defender's resistance).
    Ruling: when the attacker fails, the defender does not roll and ``margin_of_victory`` is
    None; a tie won by the defender has margin of victory 0.
    """
    effective = attacker_effective
    if supernatural:
        effective = min(effective, max(tables.RULE_OF_16, defender_resistance))
    capped = effective < attacker_effective
    a = success_roll(effective, dice=dice_a, purpose="the attacker's resistance roll")
    if not a.success:
        return QuickContest("resistance", a, None, "b", None, attacker_effective, capped)
    b = success_roll(
        defender_resistance, dice=dice_b, resisting=True, purpose="the defender's resistance roll"
    )
    winner, margin = compare_rolls(a, b)
    if winner is None:
        winner, margin = "b", 0
    return QuickContest("resistance", a, b, winner, margin, attacker_effective, capped)


def normalise_regular(a: int, b: int) -> tuple[int, int]:
    """Move extreme scores so the lower is 10, keeping the difference.

    Rulebook: GURPS, 'Regular Contests': both 6 or less are raised, both 14 or more are
    lowered; otherwise unchanged.
    """
    low = min(a, b)
    if max(a, b) <= tables.REGULAR_CONTEST_LOW or low >= tables.REGULAR_CONTEST_HIGH:
        shift = tables.REGULAR_CONTEST_TARGET - low
        return a + shift, b + shift
    return a, b


class RegularRound(msgspec.Struct, frozen=True):
    """One round of a Regular Contest; ``decided`` when exactly one side succeeded."""

    round: int
    a_effective: int
    b_effective: int
    a_normalised: int
    b_normalised: int
    a: SuccessRoll
    b: SuccessRoll
    decided: bool
    winner: str | None

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


def regular_round(
    a_effective: int,
    b_effective: int,
    *,
    dice_a: DiceSource,
    dice_b: DiceSource,
    round_number: int = 1,
) -> RegularRound:
    """Roll one round of a Regular Contest on the normalised scores.

    Rulebook: GURPS, 'Regular Contests'; tracker/systems/gurps/RULINGS.md: each round is its own
    result, and both sides roll at any score after normalisation.
    """
    if round_number < 1:
        raise BadInput(f"Regular contest rounds count from 1, not {round_number}.")
    a_score, b_score = normalise_regular(a_effective, b_effective)
    a = success_roll(a_score, dice=dice_a, resisting=True, purpose="the active side's round roll")
    b = success_roll(
        b_score, dice=dice_b, resisting=True, purpose="the resisting side's round roll"
    )
    decided = a.success != b.success
    winner = ("a" if a.success else "b") if decided else None
    return RegularRound(
        round_number, a_effective, b_effective, a_score, b_score, a, b, decided, winner
    )
