"""Dice sources: the system CSPRNG, a seeded generator, or physical dice typed in at the table.

Every engine takes a ``DiceSource`` and asks it for ``roll(count, faces)``; the source's ``kind``
and the values it gave are recorded in the event, so a roll can be re-decided later from its facts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from tracker.errors import DiceError

# secrets.SystemRandom is this class (the operating system's CSPRNG); taken from random, whose
# import a command that rolls nothing does not pay for secrets' own (base64, hmac).
_SYSTEM = random.SystemRandom()


class DiceSource(Protocol):
    """Where dice come from. ``kind`` is recorded with every roll."""

    kind: str
    """Where the dice come from, as a roll's event records it: "system", "seeded" or "physical"."""

    def roll(self, count: int, faces: int, purpose: str = "the roll") -> tuple[int, ...]:
        """Return ``count`` dice of ``faces`` sides each, in the order rolled."""
        ...


class SystemDice:
    """Virtual dice from the operating system's CSPRNG (the default at the table)."""

    kind = "system"

    def roll(self, count: int, faces: int, purpose: str = "the roll") -> tuple[int, ...]:
        return tuple(_SYSTEM.randint(1, faces) for _ in range(count))


class SeededDice:
    """Reproducible virtual dice: the same seed gives the same sequence of rolls."""

    kind = "seeded"

    def __init__(self, seed: int | str) -> None:
        self.seed = seed
        self._random = random.Random(str(seed))

    def roll(self, count: int, faces: int, purpose: str = "the roll") -> tuple[int, ...]:
        return tuple(self._random.randint(1, faces) for _ in range(count))


class PhysicalDice:
    """Dice rolled at the table and typed in; validated against the roll that asks for them.

    The values are used once, for exactly one ``roll`` call whose count and faces they must match.
    """

    kind = "physical"

    def __init__(self, values: Sequence[int], option: str = "--dice") -> None:
        self.values = tuple(values)
        self.option = option
        self._used = False

    def roll(self, count: int, faces: int, purpose: str = "the roll") -> tuple[int, ...]:
        if self._used:
            raise DiceError(
                f"The dice given with {self.option} were already used; give dice for {purpose} "
                "separately."
            )
        if len(self.values) != count:
            raise DiceError(
                f"{purpose.capitalize()} needs {describe(count, faces)} but {self.option} gave "
                f"{len(self.values)} value{'s' if len(self.values) != 1 else ''}; give "
                f"{describe(count, faces).split()[0]}, like {self.option} {example(count, faces)}."
            )
        for value in self.values:
            if not 1 <= value <= faces:
                raise DiceError(
                    f"A d{faces} shows 1 to {faces}, not {value}; check the value given with "
                    f"{self.option}."
                )
        self._used = True
        return self.values


PHYSICAL, SOFTWARE = "physical", "software"


def origin(kind: str | None) -> str:
    """Who rolled dice a roll recorded as coming from ``kind``: the table (``PHYSICAL``, dice
    typed in) or tracker (``SOFTWARE``, seeded or not). Only a table's own dice can say whether
    that table's dice are fair; tracker's say whether its generator is."""
    return PHYSICAL if kind == PhysicalDice.kind else SOFTWARE


def describe(count: int, faces: int) -> str:
    """'one d20', 'two d20', 'three d6': how the errors and help name a set of dice."""
    words = {1: "one", 2: "two", 3: "three", 4: "four"}
    return f"{words.get(count, str(count))} d{faces}"


def example(count: int, faces: int) -> str:
    """Plausible faces for ``count`` dice of ``faces`` sides, as an error's example gives them:
    '9,14' for two d20, '3,4,5' for three d6."""
    picks = (9, 14, 5, 12) if faces >= 14 else (3, 4, 5, 2, 6, 1)
    return ",".join(str(min(picks[i % len(picks)], faces)) for i in range(count))


def parse_dice(text: str, option: str = "--dice") -> tuple[int, ...]:
    """Parse '12' or '1,12' or '3 4 5' into integers; malformed text raises ``DiceError``."""
    parts = [p for p in text.replace(" ", ",").split(",") if p != ""]
    if not parts:
        raise DiceError(f"{option} was given no dice; give them as numbers, like {option} 1,12.")
    values = []
    for part in parts:
        try:
            values.append(int(part))
        except ValueError:
            raise DiceError(
                f"{option} takes whole numbers separated by commas, not {text!r}; give them like "
                f"{option} 4,2,6."
            ) from None
    return tuple(values)


def source_for(dice: str | None, seed: int | str | None, option: str = "--dice") -> DiceSource:
    """The source a command asked for: physical dice, a seed, or the system CSPRNG."""
    if dice is not None and seed is not None:
        raise DiceError(f"Give either {option} or --seed, not both.")
    if dice is not None:
        return PhysicalDice(parse_dice(dice, option), option)
    if seed is not None:
        return SeededDice(seed)
    return SystemDice()
