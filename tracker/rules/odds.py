"""Exact odds: the probability of every outcome, as ``fractions.Fraction``, by enumerating dice.

Each function walks every way the dice can fall and asks the rule engine itself to decide it, so
the odds can never disagree with the rules a roll is judged by. Nothing is simulated.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from tracker.rules import glintlock, gloom, gurps, gurps_tables

D20 = range(1, 21)


@dataclass(frozen=True, slots=True)
class Odds:
    """Exact probabilities of each outcome (in the engine's order), plus derived figures."""

    system: str
    check: str
    outcomes: dict[str, Fraction]
    success: Fraction | None = None
    details: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Fraction] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The scripting contract's document: ``{"outcomes": {NAME: probability}}`` as floats."""
        return {
            "system": self.system,
            "check": self.check,
            **self.details,
            "outcomes": {k: float(v) for k, v in self.outcomes.items()},
            "exact": {k: f"{v.numerator}/{v.denominator}" for k, v in self.outcomes.items()},
            "success": None if self.success is None else float(self.success),
            **{k: float(v) for k, v in self.extras.items()},
        }


def _distribution(weights: Iterable[tuple[str, int]], order: Iterable[str]) -> dict[str, Fraction]:
    counts: Counter[str] = Counter()
    for name, weight in weights:
        counts[name] += weight
    total = sum(counts.values())
    return {name: Fraction(counts[name], total) for name in order}


def _faces(count: int, faces: range = D20) -> Iterable[tuple[int, ...]]:
    return itertools.product(faces, repeat=count)


# -- gloom ---------------------------------------------------------------------------------------


def _gloom_kept(rank: int, dl: int, mode: str, above: int = 0) -> Counter[int]:
    """How many ways each face ends up kept, over every roll of the check's dice."""
    kept: Counter[int] = Counter()
    for dice in _faces(gloom.DICE_FOR_MODE[mode]):
        kept[gloom.keep(rank, dl, dice, mode, above=above)] += 1
    return kept


def gloom_check(
    rank: int, dl: int = 0, *, advantage: bool = False, disadvantage: bool = False, above: int = 0
) -> Odds:
    """The chance of each gloom outcome (Rulebook: gloom.md, 'The Mechanics', 'Advantage')."""
    gloom.window(rank, dl, above=above)  # validates rank, DL and floor with the engine's words
    mode = gloom.mode_for(rank, advantage, disadvantage)
    kept = _gloom_kept(rank, dl, mode, above)
    outcomes = _distribution(
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


def _gloom_side(
    rank: int, dl: int, advantage: bool, disadvantage: bool, above: int = 0
) -> list[tuple[Any, Fraction]]:
    """Each distinct kept face as a decided check, with its probability.

    The mode comes from ``gloom.mode_for``, so a rank of 21 or more rolls with advantage.
    """
    mode = gloom.mode_for(rank, advantage, disadvantage)
    kept = _gloom_kept(rank, dl, mode, above)
    total = sum(kept.values())
    return [
        (gloom.decide(rank, dl, (face,), mode="normal", above=above), Fraction(n, total))
        for face, n in sorted(kept.items())
    ]


def gloom_contest(
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
    """Who wins a contested roll (Rulebook: gloom.md, 'Contested Rolls', 'Handling Ties').

    Each side rolls in the mode its own rank and flags give (a rank of 21 or more has advantage
    by itself); DESIGN.md Rulings/gloom.
    """
    result: Counter[str] = Counter()
    for a, pa in _gloom_side(a_rank, a_dl, a_advantage, a_disadvantage):
        for b, pb in _gloom_side(b_rank, b_dl, b_advantage, b_disadvantage):
            contest = gloom.decide_contest(a, b, tie_rule=tie_rule)
            result[_winner_key(contest.winner)] += pa * pb
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


def gloom_dynamic(
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
    """Who wins under the dynamic floor (Rulebook: gloom.md, 'The Dynamic Floor').

    Each side rolls in the mode its own rank and flags give (a rank of 21 or more has advantage
    by itself); DESIGN.md Rulings/gloom.
    """
    result: Counter[str] = Counter()
    for defender, pb in _gloom_side(defender_rank, defender_dl, b_advantage, b_disadvantage):
        dl, above = gloom.attacker_floor(base_dl, defender)
        for attacker, pa in _gloom_side(attacker_rank, dl, a_advantage, a_disadvantage, above):
            result[_winner_key(gloom.decide_dynamic(attacker, defender).winner)] += pa * pb
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


def _winner_key(winner: str | None) -> str:
    return "stalemate" if winner is None else winner


# -- gurps ---------------------------------------------------------------------------------------


@cache
def three_d6() -> Mapping[int, int]:
    """How many of the 216 ways three d6 can fall give each total."""
    return Counter(sum(dice) for dice in _faces(3, range(1, 7)))


def cumulative_3d6(target: int) -> Fraction:
    """P(3d6 <= target): the rulebooks' 'N or less' table."""
    return Fraction(sum(n for t, n in three_d6().items() if t <= target), 216)


@cache
def _representative(total: int) -> tuple[int, int, int]:
    return next(d for d in _faces(3, range(1, 7)) if sum(d) == total)


def _gurps_rolls(effective: int) -> list[tuple[Any, Fraction]]:
    """Each 3d6 total decided against ``effective``, with its probability."""
    return [
        (gurps.decide_roll(effective, (), _representative(t)), Fraction(n, 216))
        for t, n in sorted(three_d6().items())
    ]


def gurps_roll(effective: int) -> Odds:
    """The chance of each outcome of a success roll (Rulebook: gurps.md, 'The Success Roll')."""
    outcomes = _distribution(
        ((gurps.outcome(effective, t), n) for t, n in three_d6().items()),
        reversed(gurps.OUTCOMES),
    )
    return Odds(
        "gurps",
        "success roll",
        outcomes,
        success=outcomes["critical_success"] + outcomes["success"],
        details={"effective": effective},
    )


def gurps_quick_contest(a_effective: int, b_effective: int) -> Odds:
    """Who wins a Quick Contest (Rulebook: gurps.md, 'Quick Contests')."""
    result: Counter[str] = Counter()
    for a, pa in _gurps_rolls(a_effective):
        for b, pb in _gurps_rolls(b_effective):
            winner, _ = gurps.compare_rolls(a, b)
            result[_winner_key(winner)] += pa * pb
    return Odds(
        "gurps",
        "quick contest",
        {k: Fraction(result[k]) for k in ("a", "b", "stalemate")},
        details={"a_effective": a_effective, "b_effective": b_effective},
    )


def gurps_resistance(attacker: int, defender: int, *, supernatural: bool = False) -> Odds:
    """Who wins a Resistance Roll: the attacker must succeed, ties go to the defender."""
    effective = attacker
    if supernatural:
        effective = min(attacker, max(gurps_tables.RULE_OF_16, defender))
    result: Counter[str] = Counter()
    for a, pa in _gurps_rolls(effective):
        if not a.success:
            result["b"] += pa
            continue
        for b, pb in _gurps_rolls(defender):
            winner, _ = gurps.compare_rolls(a, b)
            result["a" if winner == "a" else "b"] += pa * pb
    return Odds(
        "gurps",
        "resistance",
        {k: Fraction(result[k]) for k in ("a", "b")},
        details={"attacker": attacker, "effective": effective, "defender": defender},
    )


def gurps_regular_contest(a_effective: int, b_effective: int) -> Odds:
    """A Regular Contest: each round's chances, and who wins in the end."""
    a_score, b_score = gurps.normalise_regular(a_effective, b_effective)
    pa = gurps_roll(a_score).success
    pb = gurps_roll(b_score).success
    a_round = pa * (1 - pb)
    b_round = pb * (1 - pa)
    decided = a_round + b_round
    outcomes = (
        {"a": a_round / decided, "b": b_round / decided}
        if decided
        else {"a": Fraction(0), "b": Fraction(0)}
    )
    return Odds(
        "gurps",
        "regular contest",
        outcomes,
        details={"a_normalised": a_score, "b_normalised": b_score},
        extras={"a_wins_round": a_round, "b_wins_round": b_round, "round_undecided": 1 - decided},
    )


def gurps_fright(will: int, modifier: int = 0, table: gurps.FrightTable | None = None) -> Odds:
    """A Fright Check: the check's outcomes and the chance of landing on each table row."""
    table = table or gurps.FRIGHT_TABLE
    modified = will + modifier
    effective = min(modified, gurps_tables.RULE_OF_14_CAP)
    check = gurps_roll(effective)
    rows: Counter[int] = Counter()
    for t, n in three_d6().items():
        margin = max(t - effective, 0)
        if gurps.outcome(effective, t) in ("success", "critical_success"):
            continue
        for table_total, m in three_d6().items():
            rows[table.lookup(table_total + margin).first] += n * m
    return Odds(
        "gurps",
        "fright check",
        check.outcomes,
        success=check.success,
        details={
            "will": will,
            "modified_will": modified,
            "effective": effective,
            "rows": {row: float(Fraction(n, 216 * 216)) for row, n in sorted(rows.items())},
        },
    )


# -- glintlock -----------------------------------------------------------------------------------


def glintlock_check(stat: int, *, trained: bool = False, tags: int = 1, bonus: int = 0) -> Odds:
    """Each outcome's chance at a position set by net tags (Rulebook: glintlock.md)."""
    effective = glintlock.effective_stat(stat, trained)
    at = glintlock.position(tags)
    counts: Counter[str] = Counter()
    mettle = threat = nat20 = nat1 = 0
    rolls = 0
    for dice in _faces(glintlock.DICE_FOR_POSITION[at]):
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
            "position": at,
        },
        extras={
            "natural_20": Fraction(nat20, rolls),
            "natural_1": Fraction(nat1, rolls),
            "expected_mettle": Fraction(mettle, rolls),
            "expected_threat": Fraction(threat, rolls),
        },
    )
