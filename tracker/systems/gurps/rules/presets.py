"""Modifier presets by name: task difficulty, equipment, time and haste, and the ones Climbing,
Vision and Hearing take.

Rulebook: GURPS, 'Task Difficulty Scale', 'Equipment Modifiers', 'Time Modifiers'.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from tracker.errors import BadInput, Refused
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.feats import climbing_modifiers
from tracker.systems.gurps.rules.senses import hearing_modifier, vision_modifiers
from tracker.systems.gurps.rules.shared import slug
from tracker.systems.gurps.rules.success import Modifier


def _difficulty_modifier(name: str) -> Modifier:
    return Modifier(tables.TASK_DIFFICULTY[name], f"{name} (task difficulty)")


def _equipment_modifier(quality: str, tl: int | None) -> Modifier:
    if quality == "best":
        if tl is None:
            raise BadInput(
                "Best equipment gives +TL/2: set the campaign's tech level (`tracker campaign "
                "set --tech-level 8`) or give it with the roll (--mod equipment:best:8)."
            )
        if tl < 0:
            raise BadInput(f"A tech level is 0 or more, not {tl}; give one like equipment:best:8.")
        return Modifier(max(tables.BEST_EQUIPMENT_MIN, tl // 2), f"best equipment (TL{tl})")
    if quality not in tables.EQUIPMENT:
        choices = ", ".join([*tables.EQUIPMENT, "best"])
        raise BadInput(f"Unknown equipment quality {quality!r}; use one of {choices}.")
    return Modifier(tables.EQUIPMENT[quality], f"{quality} equipment")


def haste(percent_less_time: int) -> Modifier:
    """-1 per full 10% less time than usual.

    Rulebook: GURPS, 'Time Modifiers' (Haste): "Maximum reduction is normally 90%
    (one-tenth time) for −9." Ruling: "normally" leaves the GM room past 90%, so more is
    allowed, still -1 per full 10% (which stays -9 short of no time at all), and the label
    says it is past the usual maximum; 100% or more (no time at all) is refused.
    """
    if percent_less_time < 0:
        raise BadInput(
            f"Haste is the percentage of time saved (0 to 99), not {percent_less_time}; give "
            "haste:0 to haste:99."
        )
    if percent_less_time >= 100:
        raise Refused(
            f"A task rushed by {percent_less_time}% would take no time at all; give haste:99 or "
            "less (90% is the usual maximum)."
        )
    steps = percent_less_time // tables.HASTE_STEP_PERCENT
    past = (
        f"; past the usual {tables.HASTE_MAX_PERCENT}% maximum"
        if percent_less_time > tables.HASTE_MAX_PERCENT
        else ""
    )
    return Modifier(-steps, f"haste ({percent_less_time}% less time{past})")


def extra_time(multiple: int) -> Modifier:
    """Bonus for taking a multiple of the usual time: 2x +1, 4x +2, 8x +3, 15x +4, 30x +5.

    Rulebook: GURPS, 'Time Modifiers' (Extra time). Ruling: a multiple between listed ones
    takes the bonus of the largest listed multiple it reaches (3x is +1), and beyond 30x the
    bonus stays +5.
    """
    if multiple < min(tables.EXTRA_TIME):
        raise BadInput(
            f"Extra time starts at 2x the usual time, not {multiple}x; give time:2x or more, or "
            "leave it out."
        )
    bonus = max(value for reached, value in tables.EXTRA_TIME.items() if multiple >= reached)
    return Modifier(bonus, f"extra time ({multiple}x)")


def preset(name: str, *, tl: int | None = None) -> Modifier:
    """A modifier from the rulebook's tables by name (case-insensitive).

    Rulebook: GURPS, 'Task Difficulty Scale', 'Equipment Modifiers', 'Time Modifiers';
    tracker/systems/gurps/RULINGS.md (modifier presets). Names:
    - a task difficulty, bare or prefixed: ``hard``, ``difficulty:very-hard``;
    - ``equipment:QUALITY`` with QUALITY in none-tech, none, improvised-tech, improvised, basic,
      good, fine, best (best needs ``tl``, or gives its own: ``equipment:best:8``);
    - ``time:Nx`` (also ``extra-time:Nx``), e.g. ``time:4x``;
    - ``haste:P`` with P the percentage of time saved, e.g. ``haste:30`` or ``haste:30%``;
    - ``climbing:SURFACE`` from the Climbing surface table (GURPS, 'Climbing'), e.g.
      ``climbing:vertical-stone-wall``, and ``encumbrance:N`` (-N, for Climbing and Swimming);
    - for Vision, ``darkness:N`` (partial darkness, -N up to -9) and ``obvious`` (+10); total
      darkness needs the character's sheet, so the roll handles ``total-darkness`` itself;
    - for Hearing, ``hearing:SOUND@YARDS`` (GURPS 'Hearing' table), for example
      ``hearing:loud-conversation@16``.
    Spaces and underscores count as hyphens.
    """
    key = slug(name)
    group, _, value = key.partition(":")
    if not value:
        group, value = "difficulty", group
    if group == "difficulty" and value in tables.TASK_DIFFICULTY:
        return _difficulty_modifier(value)
    if group == "equipment":
        return _equipment_preset(value, tl)
    if group in ("time", "extra-time"):
        match = re.fullmatch(r"(\d+)x?", value)
        if match:
            return extra_time(int(match.group(1)))
    if group == "haste":
        match = re.fullmatch(r"(\d+)%?", value)
        if match:
            return haste(int(match.group(1)))
    if group == "climbing":
        return climbing_modifiers(value)[0]
    if group == "darkness" and _count(value) and int(value) > 0:
        return vision_modifiers(darkness=int(value))[0]
    if key == "obvious" or (group == "difficulty" and value == "obvious"):
        return vision_modifiers(obvious=True)[0]
    if group == "hearing":
        return _hearing_preset(value, name)
    if group == "encumbrance" and _count(value):
        # "Subtract your current encumbrance level (0–4)": 0 is a level too, and a roll's own
        # level stands over the sheet's (travelling light today).
        level = int(value)
        if not 0 <= level <= tables.MAX_ENCUMBRANCE:
            raise BadInput(
                f"Encumbrance level is 0 to 4, not {level}; give encumbrance:0 to encumbrance:4."
            )
        return Modifier(-level, f"encumbrance {level}")
    raise BadInput(
        f"Unknown modifier preset {name!r}; use a task difficulty such as hard, or "
        "equipment:fine, time:4x, haste:30, climbing:vertical-stone-wall, encumbrance:2, "
        "darkness:3, obvious or hearing:normal-conversation@4."
    )


def _equipment_preset(value: str, tl: int | None) -> Modifier:
    """``equipment:QUALITY``; "best:8" (or "best:tl8") gives the tech level with the roll, over
    the campaign's."""
    quality, _, level = value.partition(":")
    if quality == "best" and level:
        digits = level.removeprefix("tl")
        if not (digits.isascii() and digits.isdigit()):
            raise BadInput("Write best equipment as equipment:best:TL, like equipment:best:8.")
        tl = int(digits)
    return _equipment_modifier(quality, tl)


def _hearing_preset(value: str, name: str) -> Modifier:
    """``hearing:SOUND@YARDS``, the sound's range read from the 'Hearing' table."""
    sound, _, distance = value.partition("@")
    try:
        if not re.fullmatch(r"\d{1,9}(\.\d{1,6})?", distance):
            raise ValueError(distance)
        yards = Fraction(distance)
    except (ValueError, ZeroDivisionError):
        raise BadInput(
            f"Write a hearing preset as hearing:SOUND@YARDS, like hearing:normal-traffic@20, "
            f"not {name!r}."
        ) from None
    return hearing_modifier(sound, yards)


def difficulty_notes(modifiers: Sequence[Modifier]) -> list[str]:
    """What the rulebook says of a roll at a task difficulty it would not roll at all.

    Rulebook: GURPS, 'Task Difficulty Scale': "+10 | Automatic | Starting a car — GM should
    skip the roll entirely". The roll is still logged when the GM makes it.
    """
    automatic = _difficulty_modifier("automatic")
    if any(m.label == automatic.label for m in modifiers):
        return [
            f'Automatic ({automatic.value:+d}): "GM should skip the roll entirely" '
            "(GURPS, 'Task Difficulty Scale')"
        ]
    return []


def _count(text: str) -> bool:
    """Whether ``text`` is a count written in ASCII digits ("²" is a digit to ``isdigit``, and
    no number to ``int``)."""
    return text.isascii() and text.isdigit()
