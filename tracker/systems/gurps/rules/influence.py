"""Reactions and influence: the reaction table, and an influence roll (a Quick Contest against
the subject's Will) read as a reaction.

Rulebook: GURPS, 'Influence Rolls'.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from tracker.errors import BadInput, Refused
from tracker.systems.dice import DiceSource
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.contests import QuickContest, quick_contest
from tracker.systems.gurps.rules.shared import as_dict, roll_3d6
from tracker.systems.gurps.rules.success import Modifier

REACTION_LEVELS: tuple[str, ...] = tuple(level for _, _, level in tables.REACTION_TABLE)


def reaction_level(total: int) -> str:
    """The reaction for a modified 3d6 total.

    Rulebook: GURPS, 'Influence Rolls' (reaction roll); tracker/systems/gurps/RULINGS.md (0-
    Disastrous ... 19+ Excellent).
    """
    for low, high, level in tables.REACTION_TABLE:
        if (low is None or total >= low) and (high is None or total <= high):
            return level
    raise AssertionError("tables.REACTION_TABLE covers every integer")  # pragma: no cover


class ReactionRoll(msgspec.Struct, frozen=True):
    """A reaction roll: 3d6 plus reaction modifiers, and the level it gives."""

    dice: tuple[int, ...]
    modifiers: tuple[Modifier, ...]
    total: int
    level: str

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


def reaction_roll(modifiers: Sequence[Modifier] = (), *, dice: DiceSource) -> ReactionRoll:
    """Roll 3d6 + reaction modifiers and read the reaction table.

    Rulebook: GURPS, 'Influence Rolls'; tracker/systems/gurps/RULINGS.md.
    """
    rolled = roll_3d6(dice, "a reaction roll")
    total = sum(rolled) + sum(modifier.value for modifier in modifiers)
    return ReactionRoll(rolled, tuple(modifiers), total, reaction_level(total))


def better_reaction(first: str, second: str) -> str:
    """The better of two reaction levels (Rulebook: GURPS, 'Diplomacy is a special case')."""
    for level in (first, second):
        if level not in REACTION_LEVELS:
            raise BadInput(f"Unknown reaction {level!r}; use one of {', '.join(REACTION_LEVELS)}.")
    return max(first, second, key=REACTION_LEVELS.index)


class InfluenceResult(msgspec.Struct, frozen=True):
    """An influence roll: the contest (None when no roll was needed) and the NPC's reaction;
    on a player's character (``on_pc``) no reaction but ``modifier``, the margin of victory
    the GM applies to that character's rolls it bears on (0 when the influencer did not win).
    """

    skill: str
    contest: QuickContest | None
    contest_level: str | None
    reaction: ReactionRoll | None
    level: str | None
    won: bool
    complied: bool
    on_pc: bool = False
    modifier: int = 0

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


def influence_roll(
    skill: str,
    effective: int,
    will: int,
    *,
    dice_a: DiceSource,
    dice_b: DiceSource,
    reaction_dice: DiceSource | None = None,
    reaction_modifiers: Sequence[Modifier] = (),
    indomitable: bool = False,
    empathy: bool = False,
    unfazeable: bool = False,
    slave_mentality: bool = False,
    on_pc: bool = False,
) -> InfluenceResult:
    """A Quick Contest of an influence skill against the subject's Will, read as a reaction.

    Rulebook: GURPS, 'Influence Rolls'; tracker/systems/gurps/RULINGS.md. A win gives Good (Sex
    Appeal: Very Good); a loss or stalemate Bad (Intimidation: Very Bad). Diplomacy takes the
    better of that and a reaction roll (``reaction_dice`` + ``reaction_modifiers``). Indomitable
    without Empathy, or Unfazeable against Intimidation, is refused. Ruling: a Slave Mentality
    subject complies without any roll and the result reads as a win (``complied``).

    ``on_pc``: the subject is a player's character ('Influencing PCs'): no reaction is read
    (the player is not told how to react) and no reaction roll made; a win's margin of victory
    is the ``modifier``. Ruling: Slave Mentality's "automatically comply" would decide the
    player's reaction, so a player's character is rolled against like any other.
    """
    canonical = {name.lower(): name for name in tables.INFLUENCE_SKILLS}.get(skill.strip().lower())
    if canonical is None:
        raise BadInput(
            f"{skill!r} is not an influence skill; use one of {', '.join(tables.INFLUENCE_SKILLS)}."
        )
    if indomitable and not empathy:
        raise Refused(
            "The subject is Indomitable and cannot be influenced without Empathy; give --empathy "
            "if the influencer has it, or try another approach."
        )
    if unfazeable and canonical == "Intimidation":
        raise Refused("The subject is Unfazeable and cannot be intimidated; try another skill.")
    if on_pc:
        if reaction_dice is not None:
            raise BadInput(
                "A player's character makes no reaction roll, since the player decides how they "
                "react; leave out the reaction dice."
            )
        contest = quick_contest(effective, will, dice_a=dice_a, dice_b=dice_b)
        won = contest.winner == "a"
        margin = (contest.margin_of_victory or 0) if won else 0
        return InfluenceResult(canonical, contest, None, None, None, won, False, True, margin)
    win_level = "Very Good" if canonical == "Sex Appeal" else "Good"
    if slave_mentality:
        return InfluenceResult(canonical, None, win_level, None, win_level, True, True)
    if canonical == "Diplomacy" and reaction_dice is None:
        raise BadInput("Diplomacy also needs a reaction roll; give the dice for it.")
    contest = quick_contest(effective, will, dice_a=dice_a, dice_b=dice_b)
    won = contest.winner == "a"
    lost_level = "Very Bad" if canonical == "Intimidation" else "Bad"
    contest_level = win_level if won else lost_level
    reaction = None
    level = contest_level
    if canonical == "Diplomacy" and reaction_dice is not None:
        reaction = reaction_roll(reaction_modifiers, dice=reaction_dice)
        level = better_reaction(contest_level, reaction.level)
    return InfluenceResult(canonical, contest, contest_level, reaction, level, won, False)
