"""Sense rolls: hearing range, darkness, and what Acute and Discriminatory senses add.

Rulebook: GURPS, 'Sense Rolls', 'Vision', 'Hearing', 'Taste & Smell'.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from tracker.errors import BadInput, Refused
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.shared import slug
from tracker.systems.gurps.rules.success import Modifier


def hearing_modifier(sound: str, distance_yards: Fraction | int | float) -> Modifier:
    """-1 per range step beyond the sound's audible range, +1 per step closer.

    Rulebook: GURPS, 'Hearing'. Ruling: a step is a doubling of distance (every listed range
    is a power of two yards): beyond the range, each doubling or part of one is -1; closer, each
    full halving is +1.
    """
    key = slug(sound)
    if key not in tables.HEARING_RANGES:
        raise BadInput(f"Unknown sound {sound!r}; use one of {', '.join(tables.HEARING_RANGES)}.")
    distance = Fraction(distance_yards)
    if not tables.HEARING_NEAREST <= distance <= tables.HEARING_FARTHEST:
        raise BadInput(
            f"The distance to a sound is {float(tables.HEARING_NEAREST):g} to "
            f"{tables.HEARING_FARTHEST:,} yards; give one in that range."
        )
    audible = Fraction(*tables.HEARING_RANGES[key])
    steps = 0
    if distance > audible:
        reach = audible
        while distance > reach:
            reach *= 2
            steps -= 1
    else:
        reach = audible / 2
        while distance <= reach:
            reach /= 2
            steps += 1
    return Modifier(steps, f"hearing range ({key.replace('-', ' ')})")


def vision_modifiers(
    *,
    darkness: int = 0,
    total_darkness: bool = False,
    obvious: bool = False,
    sees_in_dark: bool = False,
) -> tuple[Modifier, ...]:
    """Darkness and obviousness modifiers for a Vision roll.

    Rulebook: GURPS, 'Vision': -1 to -9 for partial darkness; total darkness makes the roll
    impossible without special advantages (``sees_in_dark``); +10 for the obvious.
    """
    if total_darkness and not sees_in_dark:
        raise Refused("Vision rolls are impossible in total darkness without a special advantage.")
    if not 0 <= darkness <= tables.VISION_PARTIAL_DARKNESS_MAX:
        raise BadInput(
            f"Partial darkness is 0 to 9 (a penalty of that size), not {darkness}; give "
            "darkness:0 to darkness:9, or total-darkness."
        )
    modifiers = []
    if darkness and not total_darkness:
        modifiers.append(Modifier(-darkness, "partial darkness"))
    if obvious:
        modifiers.append(Modifier(tables.VISION_OBVIOUS_BONUS, "obvious"))
    return tuple(modifiers)


def sense_of(trait: str) -> str | None:
    """The sense a trait names ("Vision", "Hearing", "Taste", "Smell"), or None."""
    return tables.SENSES.get(trait.strip().lower())


def _trait_level(traits: Sequence[str], names: Sequence[str]) -> int | None:
    """The level of the first trait spelled as one of ``names`` (``Acute Vision 3`` is 3,
    ``Discriminatory Smell`` is 1), or None when the character has none of them."""
    for trait in traits:
        match = re.fullmatch(r"\s*(.*?)\s*(?:\+?(\d+))?\s*", trait.lower())
        if match and match.group(1) in names:
            return int(match.group(2) or 1)
    return None


def sense_modifiers(sense: str, traits: Sequence[str]) -> tuple[Modifier, ...]:
    """The bonuses a character's advantages give a sense roll.

    Rulebook: GURPS, 'Sense Rolls' (Acute Senses), 'Hearing' (+4 for Discriminatory
    Hearing), 'Taste & Smell' (+4 for Discriminatory Smell or Taste). Traits are read from the
    sheet as written there: ``Acute Vision 2``, ``Acute Hearing +3``, ``Discriminatory Smell``.
    """
    key = sense.lower()
    modifiers = []
    acute = _trait_level(traits, tables.ACUTE_SENSE_TRAITS.get(key, ()))
    if acute:
        modifiers.append(Modifier(acute, f"Acute {sense}"))
    if _trait_level(traits, tables.DISCRIMINATORY_TRAITS.get(key, ())) is not None:
        modifiers.append(Modifier(tables.DISCRIMINATORY_BONUS, f"Discriminatory {sense}"))
    return tuple(modifiers)


def sees_in_dark(traits: Sequence[str]) -> bool:
    """Whether an advantage lets the character see in total darkness ('Vision')."""
    return _trait_level(traits, tables.SEES_IN_DARK_TRAITS) is not None
