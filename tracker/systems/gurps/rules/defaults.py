"""Default rolls: the level a trait is rolled at, the sheet's own or its best default.

Rulebook: GURPS, 'Default Rolls'.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import msgspec

from tracker.errors import BadInput, Refused
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.shared import as_dict


class Default(msgspec.Struct, frozen=True):
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


class BaseSkill(msgspec.Struct, frozen=True):
    """The base skill a roll uses and where it came from ("skill" or a default such as IQ-5)."""

    skill: str
    value: int
    source: str
    candidates: tuple[tuple[str, int], ...]

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


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
    """The defaults the rulebook itself gives a skill (Lockpicking IQ-5, Climbing DX-5, Swimming
    HT-4), for a sheet that lists none of its own.

    Rulebook: GURPS, 'Default Rolls': "Lockpicking defaults to IQ−5."; 'Climbing' and 'Swimming'
    likewise. Ruling (tracker/systems/gurps/RULINGS.md): a sheet's own defaults replace these, and
    a specialization or a tech level (``Lockpicking/TL4``) is the same skill, as for the skills
    with no default. The Rule of 20 applies to them as to any attribute default (``base_skill``).
    """
    name = re.split(r"[/(]", skill, maxsplit=1)[0].strip().casefold()
    return tables.RULEBOOK_DEFAULTS.get(name, ())
