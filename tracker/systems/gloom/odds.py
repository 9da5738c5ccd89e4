"""Gloom's exact odds: every outcome of a check, and who wins a contested roll, by walking every
face of the d20s and asking the rules to decide each."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

from tracker.systems.gloom import rules as gloom
from tracker.systems.odds import Odds, distribution, faces, winner_key


def _kept(rank: int, dl: int, mode: str, above: int = 0) -> Counter[int]:
    """How many ways each face ends up kept, over every roll of the check's dice."""
    kept: Counter[int] = Counter()
    for dice in faces(gloom.DICE_FOR_MODE[mode]):
        kept[gloom.keep(rank, dl, dice, mode, above=above)] += 1
    return kept


def check(
    rank: int, dl: int = 0, *, advantage: bool = False, disadvantage: bool = False, above: int = 0
) -> Odds:
    """The chance of each gloom outcome (Rulebook: Gloom, 'The Mechanics', 'Advantage')."""
    gloom.window(rank, dl, above=above)  # validates rank, DL and floor with the engine's words
    mode = gloom.mode_for(rank, advantage, disadvantage)
    kept = _kept(rank, dl, mode, above)
    outcomes = distribution(
        ((gloom.outcome(rank, dl, face, above=above), n) for face, n in kept.items()),
        reversed(gloom.OUTCOMES),
    )
    return Odds(
        "gloom",
        "check",
        outcomes,
        success=sum((p for k, p in outcomes.items() if k in gloom.SUCCESS_OUTCOMES), Fraction(0)),
        details={"rank": rank, "dl": dl, "mode": mode},
    )


def _side(
    rank: int, dl: int, advantage: bool, disadvantage: bool, above: int = 0
) -> list[tuple[Any, Fraction]]:
    """Each distinct kept face as a decided check, with its probability.

    The mode comes from ``gloom.mode_for``, so a rank of 21 or more rolls with advantage.
    """
    mode = gloom.mode_for(rank, advantage, disadvantage)
    kept = _kept(rank, dl, mode, above)
    total = sum(kept.values())
    return [
        (gloom.decide(rank, dl, (face,), mode="normal", above=above), Fraction(n, total))
        for face, n in sorted(kept.items())
    ]


def contest(
    a_rank: int,
    b_rank: int,
    *,
    a_dl: int = 0,
    b_dl: int = 0,
    tie_rule: str = "stat",
    a_advantage: bool = False,
    a_disadvantage: bool = False,
    b_advantage: bool = False,
    b_disadvantage: bool = False,
) -> Odds:
    """Who wins a contested roll (Rulebook: Gloom, 'Contested Rolls', 'Handling Ties').

    Each side rolls in the mode its own rank and flags give (a rank of 21 or more has advantage
    by itself); tracker/systems/gloom/RULINGS.md.
    """
    result: Counter[str] = Counter()
    for a, pa in _side(a_rank, a_dl, a_advantage, a_disadvantage):
        for b, pb in _side(b_rank, b_dl, b_advantage, b_disadvantage):
            decided = gloom.decide_contest(a, b, tie_rule=tie_rule)
            result[winner_key(decided.winner)] += pa * pb
    return Odds(
        "gloom",
        "contest",
        {k: Fraction(result[k]) for k in ("a", "b", "stalemate")},
        details={
            "a_rank": a_rank,
            "b_rank": b_rank,
            "a_mode": gloom.mode_for(a_rank, a_advantage, a_disadvantage),
            "b_mode": gloom.mode_for(b_rank, b_advantage, b_disadvantage),
            "tie_rule": tie_rule,
        },
    )


def dynamic(
    attacker_rank: int,
    defender_rank: int,
    *,
    base_dl: int = 0,
    defender_dl: int = 0,
    a_advantage: bool = False,
    a_disadvantage: bool = False,
    b_advantage: bool = False,
    b_disadvantage: bool = False,
) -> Odds:
    """Who wins under the dynamic floor (Rulebook: Gloom, 'The Dynamic Floor').

    Each side rolls in the mode its own rank and flags give (a rank of 21 or more has advantage
    by itself); tracker/systems/gloom/RULINGS.md.
    """
    result: Counter[str] = Counter()
    for defender, pb in _side(defender_rank, defender_dl, b_advantage, b_disadvantage):
        dl, above = gloom.attacker_floor(base_dl, defender)
        for attacker, pa in _side(attacker_rank, dl, a_advantage, a_disadvantage, above):
            result[winner_key(gloom.decide_dynamic(attacker, defender).winner)] += pa * pb
    return Odds(
        "gloom",
        "dynamic",
        {k: Fraction(result[k]) for k in ("a", "b", "stalemate")},
        details={
            "a_rank": attacker_rank,
            "b_rank": defender_rank,
            "a_mode": gloom.mode_for(attacker_rank, a_advantage, a_disadvantage),
            "b_mode": gloom.mode_for(defender_rank, b_advantage, b_disadvantage),
            "base_dl": base_dl,
        },
    )
