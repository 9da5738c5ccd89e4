"""GURPS's exact odds: every outcome of a success roll, a contest or a Fright Check, by walking
all 216 falls of 3d6 and asking the rules to decide each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from typing import Any

from tracker.errors import BadInput
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.contests import compare_rolls, normalise_regular
from tracker.systems.gurps.rules.fright_table import FrightTable, rulebook_table
from tracker.systems.gurps.rules.influence import REACTION_LEVELS, better_reaction, reaction_level
from tracker.systems.gurps.rules.success import OUTCOMES, decide_roll, outcome
from tracker.systems.odds import Odds, distribution, faces, winner_key


@cache
def three_d6() -> Mapping[int, int]:
    """How many of the 216 ways three d6 can fall give each total."""
    return Counter(sum(dice) for dice in faces(3, range(1, 7)))


def cumulative_3d6(target: int) -> Fraction:
    """P(3d6 <= target): the rulebooks' 'N or less' table."""
    return Fraction(sum(n for t, n in three_d6().items() if t <= target), 216)


@cache
def _representative(total: int) -> tuple[int, int, int]:
    return next(d for d in faces(3, range(1, 7)) if sum(d) == total)


def _rolls(effective: int) -> list[tuple[Any, Fraction]]:
    """Each 3d6 total decided against ``effective``, with its probability."""
    return [
        (decide_roll(effective, (), _representative(t)), Fraction(n, 216))
        for t, n in sorted(three_d6().items())
    ]


def success_roll(effective: int) -> Odds:
    """The chance of each outcome of a success roll (Rulebook: GURPS, 'The Success Roll')."""
    outcomes = distribution(
        ((outcome(effective, t), n) for t, n in three_d6().items()),
        reversed(OUTCOMES),
    )
    return Odds(
        "gurps",
        "success roll",
        outcomes,
        success=outcomes["critical_success"] + outcomes["success"],
        details={"effective": effective},
    )


def quick_contest(a_effective: int, b_effective: int) -> Odds:
    """Who wins a Quick Contest (Rulebook: GURPS, 'Quick Contests')."""
    result: Counter[str] = Counter()
    for a, pa in _rolls(a_effective):
        for b, pb in _rolls(b_effective):
            winner, _ = compare_rolls(a, b)
            result[winner_key(winner)] += pa * pb
    return Odds(
        "gurps",
        "quick contest",
        {k: Fraction(result[k]) for k in ("a", "b", "stalemate")},
        details={"a_effective": a_effective, "b_effective": b_effective},
    )


def resistance(attacker: int, defender: int, *, supernatural: bool = False) -> Odds:
    """Who wins a Resistance Roll: the attacker must succeed, ties go to the defender."""
    effective = attacker
    if supernatural:
        effective = min(attacker, max(tables.RULE_OF_16, defender))
    result: Counter[str] = Counter()
    for a, pa in _rolls(effective):
        if not a.success:
            result["b"] += pa
            continue
        for b, pb in _rolls(defender):
            winner, _ = compare_rolls(a, b)
            result["a" if winner == "a" else "b"] += pa * pb
    return Odds(
        "gurps",
        "resistance",
        {k: Fraction(result[k]) for k in ("a", "b")},
        details={"attacker": attacker, "effective": effective, "defender": defender},
    )


def regular_contest(a_effective: int, b_effective: int) -> Odds:
    """A Regular Contest: each round's chances, and who wins in the end."""
    a_score, b_score = normalise_regular(a_effective, b_effective)
    pa = success_roll(a_score).success
    pb = success_roll(b_score).success
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


def fright(will: int, modifier: int = 0, table: FrightTable | None = None) -> Odds:
    """A Fright Check: the check's outcomes and the chance of landing on each table row."""
    table = table or rulebook_table()
    modified = will + modifier
    effective = min(modified, tables.RULE_OF_14_CAP)
    check = success_roll(effective)
    rows: Counter[int] = Counter()
    for t, n in three_d6().items():
        margin = max(t - effective, 0)
        if outcome(effective, t) in ("success", "critical_success"):
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


def project_day(
    worker: int, *, supervisor: int | None = None, bonus: int = 1, workers: int = 1
) -> Odds:
    """A day of a major project's team of ``workers``, each at ``worker``: each outcome of one
    worker's roll, and the man-hours the team adds on average and the hours its critical
    failures destroy. A supervisor rolls once for the team and does not work: that one
    successful roll gives every worker ``bonus`` that day (Rulebook: GURPS, 'Major
    projects': "A supervisor using Leadership or Administration instead of working personally
    can give the team +1 to +2 on success"; tracker/systems/gurps/RULINGS.md). The workers share the
    supervisor's roll, so their days are not independent; the averages add up all the same."""
    if workers < 1:
        raise BadInput(
            f"A project day has 1 or more workers, not {workers}; give --workers 1 or more."
        )
    led = success_roll(supervisor).success if supervisor is not None else Fraction(0)
    alone, helped = success_roll(worker).outcomes, success_roll(worker + bonus).outcomes
    outcomes = {name: led * helped[name] + (1 - led) * alone[name] for name in alone}
    destroyed = Fraction(tables.PROJECT_DESTROYED_DICE * 7, 2)  # 2d averages 7
    extras = {
        "expected_man_hours": workers
        * sum((p * tables.PROJECT_HOURS[name] for name, p in outcomes.items()), Fraction(0)),
        "expected_hours_destroyed": workers * outcomes["critical_failure"] * destroyed,
    }
    if supervisor is not None:
        extras = {"supervisor_succeeds": led, **extras}
    return Odds(
        "gurps",
        "project day",
        outcomes,
        success=outcomes["critical_success"] + outcomes["success"],
        details={"worker": worker, "workers": workers, "supervisor": supervisor, "bonus": bonus},
        extras=extras,
    )


def influence(
    skill: str, effective: int, will: int, *, on_pc: bool = False, reaction: int = 0
) -> Odds:
    """An influence roll: the chance of each reaction it reads (Diplomacy: the better of the
    contest's and a reaction roll); on a player's character the chance the influencer wins and
    of each margin of victory it leaves (Rulebook: GURPS, 'Influence Rolls', 'Influencing
    PCs'). ``reaction`` is the influencer's reaction modifiers in all, which apply to the
    influence roll ("Modifiers: Your reaction modifiers (appearance, social status, etc.)
    apply.") and to Diplomacy's reaction roll."""
    canonical = {name.lower(): name for name in tables.INFLUENCE_SKILLS}[skill.strip().lower()]
    effective += reaction
    margins: Counter[int] = Counter()
    readings: Counter[str] = Counter()
    reactions = [(reaction_level(t + reaction), Fraction(n, 216)) for t, n in three_d6().items()]
    win = "Very Good" if canonical == "Sex Appeal" else "Good"
    lose = "Very Bad" if canonical == "Intimidation" else "Bad"
    for a, pa in _rolls(effective):
        for b, pb in _rolls(will):
            winner, margin = compare_rolls(a, b)
            if on_pc:
                margins[margin if winner == "a" else 0] += pa * pb
                continue
            level = win if winner == "a" else lose
            if canonical != "Diplomacy":
                readings[level] += pa * pb
                continue
            for other, pr in reactions:
                readings[better_reaction(level, other)] += pa * pb * pr
    if on_pc:
        won = sum((p for m, p in margins.items() if m), Fraction(0))
        return Odds(
            "gurps",
            "influence on a player's character",
            {"a": won, "b": 1 - won},
            details={
                "skill": canonical,
                "effective": effective,
                "will": will,
                "margins": {m: float(p) for m, p in sorted(margins.items()) if m},
            },
            extras={
                "expected_margin": sum((m * p for m, p in margins.items()), Fraction(0)),
            },
        )
    levels = reversed(REACTION_LEVELS)
    return Odds(
        "gurps",
        "influence",
        {level: Fraction(readings[level]) for level in levels if readings[level]},
        details={"skill": canonical, "effective": effective, "will": will, "reaction": reaction},
    )
