"""GURPS rule engine: success rolls, defaults, contests, fright checks and the smaller rules.

Rulebook: GURPS; every ambiguity is settled by tracker/systems/gurps/RULINGS.md, and the
rulings this module adds where both are silent are written in its docstrings ("Ruling:").

Margins. A roll's ``margin`` is E - t, signed. Contests use margin of success max(E - t, 0) on a
success and margin of failure max(t - E, 0) on a failure. Ruling: when an automatic result
overrides E (a 3 or 4 that succeeds against E < t, a 17 or 18 that fails against E >= t) the
margin on that side is 0: a 3 on effective skill 2 is a success with margin of success 0, and a
17 on effective skill 20 is a failure with margin of failure 0.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import lru_cache
from typing import Any

from tracker.errors import BadInput, Refused
from tracker.systems.dice import DiceSource
from tracker.systems.gurps import tables

OUTCOMES: tuple[str, ...] = ("critical_failure", "failure", "success", "critical_success")

TASK_DIFFICULTY = tables.TASK_DIFFICULTY
EQUIPMENT = tables.EQUIPMENT
EXTRA_TIME = tables.EXTRA_TIME
RETRY_MODES = tables.RETRY_MODES
FRIGHT_MODIFIERS = tables.FRIGHT_MODIFIERS
REACTION_TABLE = tables.REACTION_TABLE
REACTION_LEVELS: tuple[str, ...] = tuple(level for _, _, level in tables.REACTION_TABLE)
INFLUENCE_SKILLS = tables.INFLUENCE_SKILLS
SUPERVISOR_BONUS = tables.SUPERVISOR_BONUS
CLIMBING_SURFACES = tables.CLIMBING_SURFACES
HEARING_RANGES = tables.HEARING_RANGES

_DIE_FACES = 6
_LOWEST_TOTAL = 3
_HIGHEST_TOTAL = 18


def _jsonable(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, tuple | list):
        return [_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    return value


def _as_dict(result: Any) -> dict[str, Any]:
    return {field.name: _jsonable(getattr(result, field.name)) for field in fields(result)}


def _slug(name: str) -> str:
    """Preset and table keys are matched without case, with spaces or underscores as hyphens."""
    return re.sub(r"[\s_]+", "-", name.strip().lower())


def _roll_3d6(dice: DiceSource, purpose: str) -> tuple[int, ...]:
    return tuple(dice.roll(3, _DIE_FACES, purpose))


# --------------------------------------------------------------------------------------------
# The success roll


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


@dataclass(frozen=True, slots=True)
class Modifier:
    """A labelled number added to a base skill (Rulebook: 'Modifiers & Task Difficulty')."""

    value: int
    label: str

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


def effective_skill(base: int, modifiers: Sequence[Modifier]) -> int:
    """Base skill plus every modifier; all modifiers stack.

    Rulebook: GURPS, 'Base Skill vs. Effective Skill' and 'All modifiers stack'.
    """
    return base + sum(modifier.value for modifier in modifiers)


@dataclass(frozen=True, slots=True)
class SuccessRoll:
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
        document = _as_dict(self)
        document["margin_of_success"] = self.margin_of_success
        document["margin_of_failure"] = self.margin_of_failure
        return document


def _judge(
    base: int, modifiers: Sequence[Modifier], effective: int, dice: Sequence[int]
) -> SuccessRoll:
    values = tuple(dice)
    if len(values) != 3 or any(not 1 <= value <= _DIE_FACES for value in values):
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
    return decide_roll(base, modifiers, _roll_3d6(dice, purpose))


# --------------------------------------------------------------------------------------------
# Modifier presets


def _difficulty_modifier(name: str) -> Modifier:
    return Modifier(TASK_DIFFICULTY[name], f"{name} (task difficulty)")


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
    if quality not in EQUIPMENT:
        choices = ", ".join([*EQUIPMENT, "best"])
        raise BadInput(f"Unknown equipment quality {quality!r}; use one of {choices}.")
    return Modifier(EQUIPMENT[quality], f"{quality} equipment")


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
    if multiple < min(EXTRA_TIME):
        raise BadInput(
            f"Extra time starts at 2x the usual time, not {multiple}x; give time:2x or more, or "
            "leave it out."
        )
    bonus = max(value for reached, value in EXTRA_TIME.items() if multiple >= reached)
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
    key = _slug(name)
    group, _, value = key.partition(":")
    if not value:
        group, value = "difficulty", group
    if group == "difficulty" and value in TASK_DIFFICULTY:
        return _difficulty_modifier(value)
    if group == "equipment":
        # "best:8" (or "best:tl8") gives the tech level with the roll, over the campaign's.
        quality, _, level = value.partition(":")
        if quality == "best" and level:
            digits = level.removeprefix("tl")
            if not digits.isdigit():
                raise BadInput("Write best equipment as equipment:best:TL, like equipment:best:8.")
            tl = int(digits)
        return _equipment_modifier(quality, tl)
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
    if group == "darkness" and value.isdigit() and int(value) > 0:
        return vision_modifiers(darkness=int(value))[0]
    if key == "obvious" or (group == "difficulty" and value == "obvious"):
        return vision_modifiers(obvious=True)[0]
    if group == "hearing":
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
    if group == "encumbrance" and value.isdigit():
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


# --------------------------------------------------------------------------------------------
# Defaults


@dataclass(frozen=True, slots=True)
class Default:
    """A default such as IQ-5: roll against a trait (attribute or skill) at a modifier."""

    name: str
    modifier: int

    @property
    def text(self) -> str:
        """The canonical spelling, e.g. 'IQ-5', 'Per', 'Climbing+1'."""
        if self.modifier == 0:
            return self.name
        return f"{self.name}{self.modifier:+d}"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "modifier": self.modifier, "text": self.text}


# A name is words of letters (and digits after the first letter) joined by a space or a hyphen,
# so "Fast-Talk-3" reads as Fast-Talk at -3 and "IQ--5" or "DX minus 5" do not parse.
_DEFAULT_PATTERN = re.compile(
    r"\s*(?P<name>[A-Za-z][A-Za-z0-9'&/().!]*(?:[ -][A-Za-z(][A-Za-z0-9'&/().!]*)*)"
    r"\s*(?:(?P<sign>[-+\u2212])\s*(?P<number>\d+))?\s*"
)
_ATTRIBUTE_SPELLING = {"st": "ST", "dx": "DX", "iq": "IQ", "ht": "HT", "will": "Will", "per": "Per"}


@lru_cache(maxsize=1024)
def parse_default(expr: str) -> Default:
    """Parse a default such as 'IQ-5', 'DX-5', 'HT-4', 'Per', 'Climbing-2' or 'Fast-Talk-3'.

    Rulebook: GURPS, 'Default Rolls'. The rulebook's minus sign (U+2212) is accepted too.
    """
    match = _DEFAULT_PATTERN.fullmatch(expr)
    if match is None:
        raise BadInput(
            f"{expr!r} is not a default; write a trait and a modifier, for example IQ-5."
        )
    name = match.group("name")
    first_word = re.split(r"[ -]", name, maxsplit=1)[0].lower()
    if first_word in _ATTRIBUTE_SPELLING and first_word != name.lower():
        raise BadInput(
            f"{expr!r} is not a default; write the attribute and a number, for example IQ-5."
        )
    name = _ATTRIBUTE_SPELLING.get(name.lower(), name)
    number = int(match.group("number") or 0)
    modifier = number if match.group("sign") == "+" else -number
    return Default(name=name, modifier=modifier)


@dataclass(frozen=True, slots=True)
class BaseSkill:
    """The base skill a roll uses and where it came from ("skill" or a default such as IQ-5)."""

    skill: str
    value: int
    source: str
    candidates: tuple[tuple[str, int], ...]

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


def base_skill(
    skill: str,
    *,
    attributes: Mapping[str, int],
    skills: Mapping[str, int],
    defaults: Sequence[str],
    character: str | None = None,
) -> BaseSkill:
    """The highest of the sheet's level for a skill and every default listed for it.

    Rulebook: GURPS, 'Default Rolls' and the Rule of 20; tracker/systems/gurps/RULINGS.md (Base).
    Names are matched without regard to case. The Rule of 20 caps every attribute (ST, DX, IQ, HT,
    Will and Per) at 20 in an attribute default, as tracker/systems/gurps/RULINGS.md rules; a
    default from another skill is not capped. Ruling: a default from another skill uses that skill's
    sheet level (a default never chains through another default). A name that is an attribute and
    not a skill is rolled against the attribute itself, uncapped. Ties keep the sheet's level, then
    the first listed default.
    """
    attribute_levels = {name.lower(): value for name, value in attributes.items()}
    skill_levels = {name.lower(): value for name, value in skills.items()}
    key = skill.lower()
    candidates: list[tuple[str, int]] = []
    if key in skill_levels:
        candidates.append(("skill", skill_levels[key]))
    elif key in attribute_levels:
        candidates.append(("attribute", attribute_levels[key]))
    if has_no_default(skill):
        # "You cannot attempt them without training": no default counts, even one listed.
        if not candidates:
            who = character or "The character"
            named = character or "NAME"
            raise Refused(
                f"{who} cannot attempt {skill} untrained, since it has no default (GURPS, "
                f"'Default Rolls'); give {who} the skill with `tracker character update "
                f'{named} --skill "{skill}=N"` once trained.'
            )
        defaults = ()
    parsed = [parse_default(expr) for expr in defaults]
    for default in parsed:
        source = default.name.lower()
        if source == key:
            continue
        if source in attribute_levels:
            level = attribute_levels[source]
            if source in tables.RULE_OF_20_ATTRIBUTES:
                level = min(level, tables.RULE_OF_20_CAP)
        elif source in skill_levels:
            level = skill_levels[source]
        else:
            continue
        candidates.append((default.text, level + default.modifier))
    if not candidates:
        who = character or "The character"
        import difflib

        # A near miss is a typo, not a skill to give a default: say which name was meant.
        spelled = {name.lower(): name for name in (*skills, *attributes)}
        close = difflib.get_close_matches(key, list(spelled), n=1, cutoff=0.8)
        if close and not parsed:
            raise Refused(
                f"{who} has no {skill}; did you mean {spelled[close[0]]}? Check the spelling."
            )
        command = f"`tracker character default {character or 'CHARACTER'} {skill} IQ-5`"
        if parsed:
            listed = ", ".join(default.text for default in parsed)
            raise Refused(
                f"{who} has no {skill} skill and none of its defaults ({listed}) names a trait "
                f"on the sheet; add the trait, or another default with {command}."
            )
        raise Refused(f"{who} has no {skill} skill and no default for it; add one with {command}.")
    source, value = max(candidates, key=lambda candidate: candidate[1])
    return BaseSkill(skill=skill, value=value, source=source, candidates=tuple(candidates))


# --------------------------------------------------------------------------------------------
# Repeated attempts and cinematic buy-ups


def retry_modifier(mode: str, earlier_attempts: int, earlier_failures: int) -> Modifier | None:
    """The modifier a repeated attempt takes under the task's retry mode, or None.

    Rulebook: GURPS, 'Repeated Attempts'; tracker/systems/gurps/RULINGS.md: one-chance refuses a
    second attempt, retry-at-penalty is -1 per earlier failure, the others take no modifier
    (retry-with-damage leaves the damage to the GM).
    """
    key = _slug(mode)
    if key not in RETRY_MODES:
        raise BadInput(f"Unknown retry mode {mode!r}; use one of {', '.join(RETRY_MODES)}.")
    if earlier_attempts < 0 or earlier_failures < 0:
        raise BadInput("Earlier attempts and failures are counts of 0 or more.")
    if earlier_failures > earlier_attempts:
        raise BadInput(
            f"{earlier_failures} earlier failures cannot come from {earlier_attempts} attempts."
        )
    if key == "one-chance" and earlier_attempts > 0:
        raise Refused(
            "This task allows one chance only and was already attempted; the GM may change "
            "its retry mode if the situation changed."
        )
    if key == "retry-at-penalty" and earlier_failures > 0:
        return Modifier(-earlier_failures, f"retry at penalty ({earlier_failures} earlier)")
    return None


def buy_up_cost(current: str, target: str) -> int:
    """Character points to turn an outcome into a better one; steps chain.

    Rulebook: GURPS, 'Repeated Attempts' (heroic or cinematic games): critical failure to
    failure 2, failure to success 1, success to critical success 2.
    """
    for name in (current, target):
        if name not in OUTCOMES:
            raise BadInput(f"Unknown outcome {name!r}; use one of {', '.join(OUTCOMES)}.")
    start, end = OUTCOMES.index(current), OUTCOMES.index(target)
    if end <= start:
        raise Refused(
            f"A buy-up must improve the outcome and {target} is not better than {current}; give a "
            "better --to, or leave it out for one step up."
        )
    return sum(tables.BUY_UP_STEP_COSTS[start:end])


# --------------------------------------------------------------------------------------------
# Contests


@dataclass(frozen=True, slots=True)
class QuickContest:
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
        return _as_dict(self)


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


@dataclass(frozen=True, slots=True)
class RegularRound:
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
        return _as_dict(self)


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


# --------------------------------------------------------------------------------------------
# Fright checks

_EFFECT_KINDS = ("condition", "fp_loss", "hp_loss", "trait", "iq_loss")
_UNITS = ("seconds", "minutes", "hours", "days")
_RECOVERY = ("Will", "modified Will", "HT")
_DICE_EXPRESSION = re.compile(r"([1-9]\d?)d")
_HT_EXPRESSION = re.compile(r"(\d+)-HT")
_SPEC_KEYS = (
    "kind",
    "name",
    "amount",
    "duration",
    "unit",
    "recovery",
    "recovery_every",
    "trait",
    "points",
    "only_if_failed",
    "note",
)


@dataclass(frozen=True, slots=True)
class EffectSpec:
    """One effect of a fright table row as written: numbers may be dice ("1d") or "25-HT"."""

    kind: str
    name: str | None = None
    amount: int | str | None = None
    duration: int | str | None = None
    unit: str | None = None
    recovery: str | None = None
    recovery_every: str | None = None
    trait: str | None = None
    points: int | None = None
    only_if_failed: str | None = None
    note: str | None = None

    def dice_count(self) -> int:
        """How many d6 this effect needs rolled."""
        return sum(_dice_in(value) for value in (self.amount, self.duration))

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


def _dice_in(value: int | str | None) -> int:
    if isinstance(value, str):
        match = _DICE_EXPRESSION.fullmatch(value)
        if match:
            return int(match.group(1))
    return 0


@dataclass(frozen=True, slots=True)
class Effect:
    """A resolved fright result: dice rolled, numbers filled in.

    ``duration``/``amount`` None means the rulebook gives no number and the GM decides.
    ``recovery_target`` is the number a recovery roll is made against, when known.
    A ``trait`` effect means the GM must assign a trait related to the event.
    """

    kind: str
    name: str | None = None
    amount: int | None = None
    duration: int | None = None
    unit: str | None = None
    recovery: str | None = None
    recovery_every: str | None = None
    recovery_target: int | None = None
    trait: str | None = None
    points: int | None = None
    only_if_failed: str | None = None
    dice: tuple[int, ...] = ()
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True, slots=True)
class FrightRow:
    """A listed row of the fright table: totals ``first``..``last`` (None: and above)."""

    first: int
    last: int | None
    text: str
    effects: tuple[EffectSpec, ...]

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True, slots=True)
class FrightTable:
    """The fright table's rows in rising order of totals."""

    rows: tuple[FrightRow, ...]

    def lookup(self, total: int) -> FrightRow:
        """The listed row for a total: the nearest listed row at or below it.

        tracker/systems/gurps/RULINGS.md (a total between listed rows takes the row below).
        Ruling: a total below the first listed row takes the first row.
        """
        chosen = self.rows[0]
        for row in self.rows:
            if row.first <= total:
                chosen = row
        return chosen

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


def _check_number(value: object, field: str, row: int) -> None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return
    if isinstance(value, str) and (
        _DICE_EXPRESSION.fullmatch(value) or _HT_EXPRESSION.fullmatch(value)
    ):
        return
    raise BadInput(
        f"Fright table row {row}: {field} must be a whole number, dice such as 1d, or 25-HT, "
        f"not {value!r}; fix that row in the file."
    )


def _effect_spec(raw: object, row: int) -> EffectSpec:
    if isinstance(raw, EffectSpec):
        raw = raw.to_dict()
    if not isinstance(raw, Mapping):
        raise BadInput(
            f"Fright table row {row}: each effect must be a mapping with a kind"
            "; fix that row in the file."
        )
    unknown = sorted(set(raw) - set(_SPEC_KEYS))
    if unknown:
        raise BadInput(
            f"Fright table row {row}: unknown effect field {unknown[0]!r}; use "
            f"{', '.join(_SPEC_KEYS)}."
        )
    kind = raw.get("kind")
    if kind not in _EFFECT_KINDS:
        raise BadInput(
            f"Fright table row {row}: effect kind {kind!r} is unknown; use one of "
            f"{', '.join(_EFFECT_KINDS)}."
        )
    if kind == "condition" and not raw.get("name"):
        raise BadInput(
            f"Fright table row {row}: a condition effect needs a name; fix that row in the file."
        )
    if kind == "trait" and not raw.get("trait"):
        raise BadInput(
            f"Fright table row {row}: a trait effect needs the trait, e.g. quirk"
            "; fix that row in the file."
        )
    if raw.get("unit") not in (None, *_UNITS):
        raise BadInput(
            f"Fright table row {row}: unit must be one of {', '.join(_UNITS)}"
            "; fix that row in the file."
        )
    if raw.get("recovery") not in (None, *_RECOVERY):
        raise BadInput(
            f"Fright table row {row}: recovery must be one of {', '.join(_RECOVERY)}"
            "; fix that row in the file."
        )
    _check_number(raw.get("amount"), "amount", row)
    _check_number(raw.get("duration"), "duration", row)
    points = raw.get("points")
    if points is not None and (not isinstance(points, int) or isinstance(points, bool)):
        raise BadInput(
            f"Fright table row {row}: points must be a whole number; fix that row in the file."
        )
    for text_field in ("name", "recovery_every", "trait", "only_if_failed", "note"):
        if raw.get(text_field) is not None and not isinstance(raw.get(text_field), str):
            raise BadInput(
                f"Fright table row {row}: {text_field} must be text; fix that row in the file."
            )
    return EffectSpec(**{key: raw[key] for key in _SPEC_KEYS if key in raw})


def fright_table_from_rows(rows: Sequence[Mapping[str, Any] | FrightRow]) -> FrightTable:
    """Build and validate a fright table from rows shaped like ``gurps_tables.FRIGHT_ROWS``.

    Rulebook: GURPS, 'Fright Check Results'; tracker/systems/gurps/RULINGS.md (the table is data; a
    campaign may load its own). Rows must rise without overlapping; only the last may be
    open-ended (``last`` None).
    """
    if not rows:
        raise BadInput("A fright table needs at least one row; add [[rows]] entries.")
    built: list[FrightRow] = []
    for position, raw in enumerate(rows, start=1):
        if isinstance(raw, FrightRow):
            raw = {"first": raw.first, "last": raw.last, "text": raw.text, "effects": raw.effects}
        if not isinstance(raw, Mapping):
            raise BadInput(
                f"Fright table row {position} must be a mapping with first and text"
                "; fix that row in the file."
            )
        first, last = raw.get("first"), raw.get("last", raw.get("first"))
        if not isinstance(first, int) or isinstance(first, bool):
            raise BadInput(
                f"Fright table row {position} needs a whole-number first total"
                "; fix that row in the file."
            )
        if last is not None and (not isinstance(last, int) or last < first):
            raise BadInput(
                f"Fright table row {position}: the last total must be a whole number of at least "
                f"{first}, or empty for an open-ended last row; fix that row in the file."
            )
        if last is None and position != len(rows):
            raise BadInput(
                f"Fright table row {position}: only the last row may be open-ended"
                "; fix that row in the file."
            )
        if built and first <= (built[-1].last or built[-1].first):
            raise BadInput(
                f"Fright table row {position} starts at {first}, inside or before the row above; "
                "list rows in rising order without overlaps."
            )
        text = raw.get("text", "")
        if not isinstance(text, str):
            raise BadInput(
                f"Fright table row {position}: text must be text; fix that row in the file."
            )
        effects = raw.get("effects", ())
        if isinstance(effects, str | Mapping) or not isinstance(effects, Sequence):
            raise BadInput(
                f"Fright table row {position}: effects must be a list; fix that row in the file."
            )
        specs = tuple(_effect_spec(effect, first) for effect in effects)
        built.append(FrightRow(first=first, last=last, text=text, effects=specs))
    return FrightTable(tuple(built))


FRIGHT_TABLE = fright_table_from_rows(tables.FRIGHT_ROWS)


def fright_modifier(name: str, count: int = 1) -> Modifier:
    """A Fright Check modifier from the rulebook's table, by name (case-insensitive).

    Rulebook: GURPS, 'Fright Check Modifiers'. Names: fearlessness, fearfulness (count =
    levels), combat-reflexes, combat-paralysis, in-combat, far, remote, alone, dark, touched,
    previous-exposure (count = exposures in the last 24 hours). Unfazeable is not a modifier:
    see ``fright_check``.
    """
    key = _slug(name)
    if key not in FRIGHT_MODIFIERS:
        raise BadInput(
            f"Unknown fright modifier {name!r}; use one of {', '.join(FRIGHT_MODIFIERS)}."
        )
    value, label, counted = FRIGHT_MODIFIERS[key]
    if count < 1 or (count > 1 and not counted):
        raise BadInput(f"{label} applies once; give a count only for levels or exposures.")
    if counted and count > 1:
        label = f"{label} x{count}"
    return Modifier(value * count, label)


@dataclass(frozen=True, slots=True)
class FrightResult:
    """The fright table result: table dice, their total plus margin of failure, the row used."""

    dice: tuple[int, ...]
    margin_of_failure: int
    total: int
    row: int
    text: str
    effects: tuple[Effect, ...]
    effect_dice: tuple[int, ...]

    @property
    def traits_to_assign(self) -> tuple[Effect, ...]:
        """Trait effects: each is an obligation for the GM to assign a related trait."""
        return tuple(effect for effect in self.effects if effect.kind == "trait")

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True, slots=True)
class FrightCheck:
    """A Fright Check: the roll (``effective`` after the Rule of 14) and, on failure, the table."""

    will: int
    modified_will: int
    effective: int
    rule_of_14: bool
    roll: SuccessRoll
    table: FrightResult | None

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


def _resolve(
    spec: EffectSpec,
    dice: Iterator[int],
    *,
    will: int,
    modified_will: int,
    ht: int | None,
) -> Effect:
    """Fill a spec's numbers from the dice (consumed in order), HT and the recovery target."""
    used: list[int] = []
    note = spec.note

    def number(value: int | str | None) -> int | None:
        nonlocal note
        count = _dice_in(value)
        if count:
            rolled = [next(dice) for _ in range(count)]
            used.extend(rolled)
            return sum(rolled)
        ht_formula = _HT_EXPRESSION.fullmatch(value) if isinstance(value, str) else None
        if ht_formula:
            base = int(ht_formula.group(1))
            if ht is None:
                note = f"lasts {base} - HT {spec.unit or 'units'}; HT was not given"
                return None
            # Ruling: a result always does something, so a very high HT still gives 1.
            return max(1, base - ht)
        return value

    amount = number(spec.amount)
    duration = number(spec.duration)
    targets = {"Will": will, "modified Will": modified_will, "HT": ht}
    return Effect(
        kind=spec.kind,
        name=spec.name,
        amount=amount,
        duration=duration,
        unit=spec.unit,
        recovery=spec.recovery,
        recovery_every=spec.recovery_every,
        recovery_target=targets.get(spec.recovery) if spec.recovery else None,
        trait=spec.trait,
        points=spec.points,
        only_if_failed=spec.only_if_failed,
        dice=tuple(used),
        note=note,
    )


def _dice_purpose(row: FrightRow) -> str:
    parts = []
    for spec in row.effects:
        for value, what in ((spec.amount, "amount"), (spec.duration, spec.unit or "duration")):
            if _dice_in(value):
                subject = {"fp_loss": "fatigue lost", "hp_loss": "injury"}.get(spec.kind, what)
                parts.append(f"{value} for {subject}")
    return f"the dice for fright result {row.first} ({', then '.join(parts)})"


def fright_check(
    will: int,
    modifiers: Sequence[Modifier] = (),
    *,
    dice: DiceSource,
    table_dice: DiceSource,
    effect_dice: DiceSource,
    unfazeable: bool = False,
    ht: int | None = None,
    table: FrightTable = FRIGHT_TABLE,
    character: str | None = None,
) -> FrightCheck:
    """Roll a Fright Check and, on failure, the fright table with its effects.

    Rulebook: GURPS, 'Fright Checks', 'Fright Check Modifiers', 'The Rule of 14', 'Fright
    Check Results'; tracker/systems/gurps/RULINGS.md. Modified Will above 13 counts as 13: the
    roll then carries a "Rule of 14" modifier of 13 minus the modified Will, so the roll's base
    plus its modifiers is always the value it was judged against (``modified_will`` keeps the
    uncapped value). The check is never refused for a low target. On failure 3d6
    (``table_dice``) plus the margin of failure picks the row. Ruling: all of a row's auxiliary
    dice are one roll of ``effect_dice`` (read in the order the row names them, e.g. 1d FP then
    1d seconds), so physical dice can be typed in one go; ``effect_dice`` is not used by rows
    without dice. "25-HT" needs ``ht``; without it the duration is left to the GM.
    """
    if unfazeable:
        raise Refused(
            f"{character or 'This character'} is Unfazeable and needs no Fright Check; skip the "
            "check, or drop the trait with `tracker character update NAME --drop-trait "
            "Unfazeable` if the sheet is wrong."
        )
    modified_will = effective_skill(will, modifiers)
    capped = min(modified_will, tables.RULE_OF_14_CAP)
    applied = tuple(modifiers)
    if capped < modified_will:
        # The cap is recorded as a labelled modifier so that base + modifiers is the value the
        # roll was judged against, and re-deciding the logged roll gives the same outcome.
        applied += (Modifier(capped - modified_will, tables.RULE_OF_14_LABEL),)
    roll = decide_roll(will, applied, _roll_3d6(dice, "a fright check"))
    result = None
    if not roll.success:
        failure_margin = roll.margin_of_failure or 0
        table_values = _roll_3d6(table_dice, "the fright table roll")
        table_total = sum(table_values) + failure_margin
        row = table.lookup(table_total)
        needed = sum(spec.dice_count() for spec in row.effects)
        rolled = iter(effect_dice.roll(needed, _DIE_FACES, _dice_purpose(row)) if needed else ())
        effects = tuple(
            _resolve(spec, rolled, will=will, modified_will=modified_will, ht=ht)
            for spec in row.effects
        )
        result = FrightResult(
            dice=table_values,
            margin_of_failure=failure_margin,
            total=table_total,
            row=row.first,
            text=row.text,
            effects=effects,
            effect_dice=tuple(value for effect in effects for value in effect.dice),
        )
    return FrightCheck(
        will=will,
        modified_will=modified_will,
        effective=capped,
        rule_of_14=modified_will > capped,
        roll=roll,
        table=result,
    )


# --------------------------------------------------------------------------------------------
# Major projects


@dataclass(frozen=True, slots=True)
class ProjectDay:
    """One worker's day on a major project: man-hours added and hours of work destroyed."""

    outcome: str
    man_hours: int
    destroyed_hours: int
    dice: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


def project_day(outcome: str, *, dice: DiceSource) -> ProjectDay:
    """Man-hours from one worker's daily roll; a critical failure also destroys 2d hours.

    Rulebook: GURPS, 'Major projects'; tracker/systems/gurps/RULINGS.md (success 8, critical success
    12, failure 4, critical failure 0 plus 2d hours destroyed, rolled from ``dice``).
    """
    if outcome not in tables.PROJECT_HOURS:
        raise BadInput(f"Unknown outcome {outcome!r}; use one of {', '.join(OUTCOMES)}.")
    rolled: tuple[int, ...] = ()
    if outcome == "critical_failure":
        rolled = tuple(
            dice.roll(tables.PROJECT_DESTROYED_DICE, _DIE_FACES, "the hours of work destroyed")
        )
    return ProjectDay(outcome, tables.PROJECT_HOURS[outcome], sum(rolled), rolled)


def supervisor_modifier(bonus: int = 1) -> Modifier:
    """The team's bonus for the day from a supervisor's successful Leadership or Administration.

    Rulebook: GURPS, 'Major projects'; tracker/systems/gurps/RULINGS.md (+1, or +2 by GM's choice).
    """
    if bonus not in SUPERVISOR_BONUS:
        raise BadInput(f"A supervisor gives +1 or +2, not {bonus:+d}.")
    return Modifier(bonus, "supervisor")


# --------------------------------------------------------------------------------------------
# Reactions and influence


def reaction_level(total: int) -> str:
    """The reaction for a modified 3d6 total.

    Rulebook: GURPS, 'Influence Rolls' (reaction roll); tracker/systems/gurps/RULINGS.md (0-
    Disastrous ... 19+ Excellent).
    """
    for low, high, level in REACTION_TABLE:
        if (low is None or total >= low) and (high is None or total <= high):
            return level
    raise AssertionError("REACTION_TABLE covers every integer")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class ReactionRoll:
    """A reaction roll: 3d6 plus reaction modifiers, and the level it gives."""

    dice: tuple[int, ...]
    modifiers: tuple[Modifier, ...]
    total: int
    level: str

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


def reaction_roll(modifiers: Sequence[Modifier] = (), *, dice: DiceSource) -> ReactionRoll:
    """Roll 3d6 + reaction modifiers and read the reaction table.

    Rulebook: GURPS, 'Influence Rolls'; tracker/systems/gurps/RULINGS.md.
    """
    rolled = _roll_3d6(dice, "a reaction roll")
    total = sum(rolled) + sum(modifier.value for modifier in modifiers)
    return ReactionRoll(rolled, tuple(modifiers), total, reaction_level(total))


def better_reaction(first: str, second: str) -> str:
    """The better of two reaction levels (Rulebook: GURPS, 'Diplomacy is a special case')."""
    for level in (first, second):
        if level not in REACTION_LEVELS:
            raise BadInput(f"Unknown reaction {level!r}; use one of {', '.join(REACTION_LEVELS)}.")
    return max(first, second, key=REACTION_LEVELS.index)


@dataclass(frozen=True, slots=True)
class InfluenceResult:
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
        return _as_dict(self)


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
    canonical = {name.lower(): name for name in INFLUENCE_SKILLS}.get(skill.strip().lower())
    if canonical is None:
        raise BadInput(
            f"{skill!r} is not an influence skill; use one of {', '.join(INFLUENCE_SKILLS)}."
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


# --------------------------------------------------------------------------------------------
# Extra effort


@dataclass(frozen=True, slots=True)
class ExtraEffort:
    """An extra-effort roll: the Will roll, FP always spent, HP lost on a critical failure."""

    percent: int
    roll: SuccessRoll
    granted: bool
    fp_cost: int
    hp_loss: int

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


def extra_effort(
    will: int,
    percent: int,
    *,
    dice: DiceSource,
    motivated: bool = False,
    machine: bool = False,
) -> ExtraEffort:
    """Roll Will at -1 per 5% (rounded up) of extra capability, +5 when motivated.

    Rulebook: GURPS, 'Extra Effort'; tracker/systems/gurps/RULINGS.md: always 1 FP; a critical
    failure costs HP equal to the FP cost; Machine characters cannot.
    """
    if machine:
        raise Refused(
            "A character with the Machine meta-trait cannot use extra effort; roll the task "
            "without extra effort."
        )
    if percent <= 0:
        raise BadInput(
            f"Extra effort asks for a positive percentage increase, not {percent}; give a "
            "percentage of 1 or more."
        )
    steps = math.ceil(percent / tables.EXTRA_EFFORT_STEP_PERCENT)
    modifiers = [Modifier(-steps, f"extra effort (+{percent}%)")]
    if motivated:
        modifiers.append(Modifier(tables.EXTRA_EFFORT_MOTIVATED, "motivated"))
    effective = effective_skill(will, modifiers)
    if effective < tables.MINIMUM_EFFECTIVE_SKILL:
        more = "" if motivated else ", or give --motivated if it is a matter of life or death"
        raise Refused(
            f"Extra effort of {percent}% brings the roll to effective skill {effective}, below 3, "
            f"so it cannot be attempted; ask for a smaller percentage{more}."
        )
    roll = success_roll(will, modifiers, dice=dice, purpose="an extra effort roll")
    fp_cost = tables.EXTRA_EFFORT_FP
    hp_loss = fp_cost if roll.outcome == "critical_failure" else 0
    return ExtraEffort(percent, roll, roll.success, fp_cost, hp_loss)


# --------------------------------------------------------------------------------------------
# Physical feats and senses


def climbing_modifiers(surface: str, encumbrance: int = 0) -> tuple[Modifier, ...]:
    """The surface modifier and the encumbrance penalty for a Climbing roll.

    Rulebook: GURPS, 'Climbing' (surface table; subtract encumbrance level 0-4). Surfaces:
    ordinary-tree, ordinary-mountain, vertical-stone-wall, modern-building, rope-up.
    """
    key = _slug(surface)
    if key not in CLIMBING_SURFACES:
        raise BadInput(
            f"Unknown climbing surface {surface!r}; use one of {', '.join(CLIMBING_SURFACES)}."
        )
    if not 0 <= encumbrance <= tables.MAX_ENCUMBRANCE:
        raise BadInput(f"Encumbrance level is 0 to 4, not {encumbrance}.")
    value = CLIMBING_SURFACES[key][0]
    modifiers = [Modifier(value, key.replace("-", " "))]
    if encumbrance:
        modifiers.append(Modifier(-encumbrance, f"encumbrance {encumbrance}"))
    return tuple(modifiers)


def _jump_move(basic_move: int, running_yards: int, jumping_skill: int | None) -> int:
    if basic_move < 0 or running_yards < 0:
        raise BadInput("Basic Move and yards run are 0 or more.")
    # The rulebook lets a jumper substitute half Jumping; a player takes the better figure.
    move = basic_move if jumping_skill is None else max(basic_move, jumping_skill // 2)
    return move + running_yards


def high_jump_inches(
    basic_move: int, running_yards: int = 0, jumping_skill: int | None = None
) -> int:
    """High jump: (6 x Basic Move) - 10 inches, running yards added to Move first.

    Rulebook: GURPS, 'Jumping'. Ruling: half Jumping (rounded down) is used when it beats
    Basic Move; the height is never below 0.
    """
    return max(0, 6 * _jump_move(basic_move, running_yards, jumping_skill) - 10)


def broad_jump_feet(
    basic_move: int, running_yards: int = 0, jumping_skill: int | None = None
) -> int:
    """Broad jump: (2 x Basic Move) - 3 feet, running yards added to Move first.

    Rulebook: GURPS, 'Jumping'; same rulings as ``high_jump_inches``.
    """
    return max(0, 2 * _jump_move(basic_move, running_yards, jumping_skill) - 3)


def sprint_move(move: int) -> int:
    """Move after one second of sprinting: +20% rounded down, at least +1.

    Rulebook: GURPS, 'Running & Sprinting'.
    """
    if move < 0:
        raise BadInput(f"Move is 0 or more, not {move}.")
    return move + max(1, move * 20 // 100)


def paced_move(sprint: int) -> int:
    """Paced running: half the sprinting speed, rounded down, at least 1.

    Rulebook: GURPS, 'Running & Sprinting' ("Paced running: Half sprinting speed").
    """
    return max(1, sprint // 2)


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


def feat_notes(trait: str, feat: str | None, surface: str | None, outcome: str) -> list[str]:
    """What the rulebook says follows a Climbing, Swimming or running roll: how fast, when to
    roll again, what a failure means.

    Rulebook: GURPS, 'Climbing', 'Swimming', 'Running & Sprinting'.
    """
    skill = trait.strip().lower()
    failed = outcome in ("failure", "critical_failure")
    notes = []
    if skill == "climbing":
        if surface is not None:
            _, combat, normal = CLIMBING_SURFACES[_slug(surface)]
            notes.append(f"climbing speed: {combat} in combat, {normal} otherwise")
        if outcome == "critical_failure":
            notes.append("a fall, even if roped, unless the rope itself is secured")
        elif failed:
            notes.append("a fall")
        else:
            notes.append("roll again every five minutes of climbing")
    elif skill == "swimming":
        notes.append(
            "inhaled water (1 FP); roll again in five seconds"
            if failed
            else "roll again if still in water over the head"
        )
    elif feat == "running":
        notes.append(
            "roll HT or Running again after 15 more seconds of sprinting, or a minute of "
            "paced running"
        )
    return notes


def water_move(basic_move: int) -> int:
    """Human water Move: Basic Move / 5 rounded down, at least 1.

    Rulebook: GURPS, 'Swimming'.
    """
    if basic_move < 0:
        raise BadInput(f"Basic Move is 0 or more, not {basic_move}.")
    return max(1, basic_move // 5)


def hearing_modifier(sound: str, distance_yards: Fraction | int | float) -> Modifier:
    """-1 per range step beyond the sound's audible range, +1 per step closer.

    Rulebook: GURPS, 'Hearing'. Ruling: a step is a doubling of distance (every listed range
    is a power of two yards): beyond the range, each doubling or part of one is -1; closer, each
    full halving is +1.
    """
    key = _slug(sound)
    if key not in HEARING_RANGES:
        raise BadInput(f"Unknown sound {sound!r}; use one of {', '.join(HEARING_RANGES)}.")
    distance = Fraction(distance_yards)
    if not tables.HEARING_NEAREST <= distance <= tables.HEARING_FARTHEST:
        raise BadInput(
            f"The distance to a sound is {float(tables.HEARING_NEAREST):g} to "
            f"{tables.HEARING_FARTHEST:,} yards; give one in that range."
        )
    audible = Fraction(*HEARING_RANGES[key])
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


def has_no_default(skill: str) -> bool:
    """Whether the rulebook gives ``skill`` no default, so it cannot be attempted untrained.

    Rulebook: GURPS, 'Default Rolls': "Some skills — like Alchemy, Karate, and all spells —
    have no default. You cannot attempt them without training." Ruling: a specialization or a
    tech level (``Alchemy/TL3``, ``Karate (Sport)``) is the same skill.
    """
    name = re.split(r"[/(]", skill, maxsplit=1)[0].strip().casefold()
    return name in {known.casefold() for known in tables.NO_DEFAULT_SKILLS}


def check_default_for(skill: str, expression: str, character: str | None = None) -> None:
    """Refuse a default the rulebook does not allow: one for a skill that has none, or one
    that does not parse (GURPS, 'Default Rolls')."""
    parse_default(expression)
    if has_no_default(skill):
        raise Refused(
            f"{skill.strip()} has no default (GURPS, 'Default Rolls': \"You cannot attempt "
            f'them without training."), so give {character or "the character"} the skill '
            f'itself (--skill "{skill.strip()}=N") instead of a default.'
        )


def rulebook_defaults(skill: str) -> tuple[str, ...]:
    """The defaults the rulebook itself gives a skill (Climbing DX-5, Swimming HT-4)."""
    return tables.RULEBOOK_DEFAULTS.get(skill.strip().lower(), ())


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


def fp_on_failure(skill: str, feat: str | None = None) -> int:
    """FP a failed roll costs: Swimming (inhaling water) and running's HT rolls cost 1.

    Rulebook: GURPS, 'Swimming', 'Running & Sprinting'.
    """
    if skill.strip().lower() == "swimming" or feat == "running":
        return tables.FEAT_FP_ON_FAILURE
    return 0
