"""Exact odds: the probability of every outcome, as ``fractions.Fraction``, by enumerating dice.

Each system's ``odds`` module walks every way its dice can fall and asks its own rules to decide
each, so the odds can never disagree with the rules a roll is judged by. Nothing is simulated.
This module holds what they share: the result type and the counting.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

D20 = range(1, 21)


@dataclass(frozen=True, slots=True)
class Odds:
    """Exact probabilities of each outcome (in the engine's order), plus derived figures."""

    system: str
    """The system's name."""
    check: str
    """What was computed ("roll", "contest")."""
    outcomes: dict[str, Fraction]
    """The exact chance of each outcome, by name, in the order the table shows them; they sum to
    1."""
    success: Fraction | None = None
    """The chance of a success, where outcomes count as one or not; None otherwise."""
    details: dict[str, Any] = field(default_factory=dict)
    """What the ``--json`` document says of the roll before its outcomes (its score, its dice)."""
    extras: dict[str, Fraction] = field(default_factory=dict)
    """Further exact figures the ``--json`` document gives, by name."""

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


def distribution(weights: Iterable[tuple[str, int]], order: Iterable[str]) -> dict[str, Fraction]:
    """The share of each name in ``order`` among the weighted names."""
    counts: Counter[str] = Counter()
    for name, weight in weights:
        counts[name] += weight
    total = sum(counts.values())
    return {name: Fraction(counts[name], total) for name in order}


def faces(count: int, sides: range = D20) -> Iterable[tuple[int, ...]]:
    """Every way ``count`` dice of ``sides`` can fall, in order."""
    return itertools.product(sides, repeat=count)


def winner_key(winner: str | None) -> str:
    """A contest's winner as an outcome name: "a", "b" or "stalemate"."""
    return "stalemate" if winner is None else winner
