"""GURPS characters as players keep them: GURPS Character Sheet (GCS) files and the GURPS Game
Aid's actor export (Foundry VTT's "Export Data" of a GURPS actor), read as a tracker sheet.

What is read is what GCS computed and saved (``calc``), as the Game Aid reads it, never GCS's
own rules worked again: the attributes' values, each skill's and technique's level, each trait's
level. Lists nested in containers are read to any depth.

GCS data versions (``version``), each still read by GCS itself:

- 2 (GCS 4.30 to 4.37): ``"type": "character"``, traits under ``advantages``, rows typed
  ``advantage``/``advantage_container``, a trait's ``levels`` written as a string;
- 3: read as 2 and 4 are (GCS keeps no code of its own for it);
- 4 (GCS 5.0 to 5.23): traits under ``traits``, rows typed ``trait``/``trait_container``;
- 5 (GCS 5.24 on): no ``type``; a row's kind is the first letter of its id (``t``/``T`` trait
  and container, ``s``/``S`` skill and container, ``q`` technique). From GCS 5.43 a skill
  default's ``name`` and ``specialization`` are ``{"compare": "is", "qualifier": ...}``
  objects instead of strings; both are read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from tracker.errors import BadInput

FIRST_VERSION, LAST_VERSION = 2, 5
VERSIONS = f"{FIRST_VERSION} to {LAST_VERSION}"
# GCS attribute ids, and the name a tracker sheet gives each.
ATTRIBUTES = {
    "st": "ST",
    "dx": "DX",
    "iq": "IQ",
    "ht": "HT",
    "will": "Will",
    "per": "Per",
    "hp": "HP",
    "fp": "FP",
    "basic_move": "Basic Move",
}
# The Game Aid's names for the same, under system.attributes (HP and FP are system.HP, .FP).
GAME_AID_ATTRIBUTES = {"ST": "ST", "DX": "DX", "IQ": "IQ", "HT": "HT", "WILL": "Will", "PER": "Per"}
# A trait container that is a trait of its own (a meta-trait such as Machine).
META_TRAIT = "meta_trait"
# Meta-traits the rules read, known by name where a file does not say what a container is.
RULE_META_TRAITS = ("machine",)


def recognise(data: Any) -> str | None:
    """``"gcs"`` or ``"game-aid"`` when ``data`` (a parsed JSON file) is one of those formats'
    files, else None. A GCS file is one with a ``version`` and GCS's lists or profile."""
    if not isinstance(data, Mapping):
        return None
    if "version" in data and any(
        key in data for key in ("profile", "attributes", "traits", "advantages", "rows", "type")
    ):
        return "gcs"
    system = data.get("system")
    if (
        isinstance(system, Mapping)
        and isinstance(system.get("attributes"), Mapping)
        and any(key in system for key in ("ads", "skills", "HP"))
    ):
        return "game-aid"
    return None


def read(data: Mapping[str, Any], source: str) -> dict[str, Any]:
    """The tracker sheet (as a sheet file's mapping) a GCS file or Game Aid export holds."""
    kind = recognise(data)
    if kind == "gcs":
        return _from_gcs(data, source)
    if kind == "game-aid":
        return _from_game_aid(data, source)
    raise BadInput(
        f"{source} is neither a GCS character nor a GURPS Game Aid actor export; give a .gcs "
        "character file or a GURPS Game Aid actor export."
    )


# -- GCS -------------------------------------------------------------------------------------

GCS_FIX = "open it in GCS and save it again, or restore an earlier copy"
ANY_FIX = "save it again from GCS (or export it again from Foundry), or restore an earlier copy"


def _from_gcs(data: Mapping[str, Any], source: str) -> dict[str, Any]:
    version = _character_version(data, source)
    profile = _mapping(data.get("profile", {}), source, "profile")
    name = profile.get("name")
    if not isinstance(name, str) or not name.strip():
        raise BadInput(f"{source} gives the character no name; name it in GCS, or pass NAME.")
    attributes = data.get("attributes")
    if not isinstance(attributes, list) or not attributes:
        raise BadInput(
            f"{source} has no attributes, so it is a character from before GCS 4.30, which "
            "tracker cannot read; open it in GCS and save it again."
        )
    stats = _attributes(attributes, source)
    skills, defaults = _skills(data.get("skills", []), version, source)
    traits = list(_traits(data.get("traits", data.get("advantages", [])), version, source))
    return {
        "system": "gurps",
        "name": name.strip(),
        "stats": stats,
        "skills": skills,
        "defaults": defaults,
        "traits": traits,
    }


def _character_version(data: Mapping[str, Any], source: str) -> int:
    """The GCS data version of a character's file, refused in one sentence when the file is no
    GCS file, one of a version tracker does not read, a library or another kind of GCS file."""
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise BadInput(
            f"{source} has no GCS data version, so it is not a GCS file; give the character's "
            ".gcs file."
        )
    if version > LAST_VERSION:
        raise BadInput(
            f"{source} was written by a newer GCS (data version {version}) and tracker reads "
            f"versions {VERSIONS}; update tracker, or save the sheet from an older GCS."
        )
    if version < FIRST_VERSION:
        raise BadInput(
            f"{source} is GCS data version {version} and tracker reads versions {VERSIONS}; "
            "open it in GCS and save it again to bring it up to date."
        )
    if "rows" in data and "profile" not in data:
        raise BadInput(
            f"{source} is a GCS library (a list of traits, skills or equipment), not a "
            "character; give the character's .gcs file."
        )
    kind = data.get("type")
    ident = data.get("id")
    if kind not in (None, "character") or (
        version >= 5 and isinstance(ident, str) and ident[:1] not in ("A", "")
    ):
        raise BadInput(
            f"{source} is a GCS {kind or 'file'} but not a character; give the character's .gcs."
        )
    return version


def _attributes(attributes: list[Any], source: str) -> dict[str, int]:
    """The stats a GCS character's attributes give, at the values GCS computed for them."""
    stats: dict[str, int] = {}
    computed = False
    for row in attributes:
        row = _mapping(row, source, "an attribute")
        calc = row.get("calc")
        if isinstance(calc, Mapping) and "value" in calc:
            computed = True
        wanted = ATTRIBUTES.get(str(row.get("attr_id", "")).lower())
        if wanted is None or not isinstance(calc, Mapping) or "value" not in calc:
            continue
        stats[wanted] = _whole(calc["value"], source, f"attribute {row.get('attr_id')}")
    if not computed:
        raise BadInput(
            f"{source} holds no computed values (GCS writes them each time it saves a "
            "character); open it in GCS and save it again."
        )
    return stats


def _skills(rows: Any, version: int, source: str) -> tuple[dict[str, int], dict[str, list[str]]]:
    """A GCS character's skills and techniques at their levels, and the defaults a skill was
    bought from."""
    skills: dict[str, int] = {}
    defaults: dict[str, list[str]] = {}
    for row in _rows(rows, source, "skills"):
        kind = _row_kind(row, version)
        if kind not in ("skill", "technique"):
            continue
        named = _skill_name(row, kind, source)
        level = _level(row, source, named)
        if level is None:
            continue
        skills[named] = level
        bought = row.get("defaulted_from")
        if kind == "skill" and isinstance(bought, Mapping):
            expression = _default_expression(bought, source)
            if expression is not None:
                defaults.setdefault(named, []).append(expression)
    return skills, defaults


def _row_kind(row: Mapping[str, Any], version: int) -> str:
    """``trait``, ``trait_container``, ``skill``, ``skill_container``, ``technique`` (or
    another GCS kind): the row's ``type`` before version 5, its id's first letter from 5 on."""
    kind = row.get("type")
    if isinstance(kind, str) and kind:
        return kind.replace("advantage", "trait")
    ident = row.get("id")
    letter = ident[:1] if isinstance(ident, str) else ""
    by_letter = {
        "t": "trait",
        "T": "trait_container",
        "s": "skill",
        "S": "skill_container",
        "q": "technique",
    }
    if letter in by_letter:
        return by_letter[letter]
    # A row with children and no kind of its own is a container.
    return "container" if isinstance(row.get("children"), list) else "unknown"


def _traits(rows: Any, version: int, source: str, disabled: bool = False) -> Iterator[str]:
    """Every enabled trait's name (with its level: ``Fearlessness 3``), to any depth; a
    meta-trait container (Machine) is a trait of its own. A disabled row disables its
    children, as in GCS."""
    if not isinstance(rows, list):
        raise BadInput(f"{source}: the traits must be a list, so the file is damaged; {GCS_FIX}.")
    for row in rows:
        row = _mapping(row, source, "a trait")
        off = disabled or row.get("disabled") is True
        kind = _row_kind(row, version)
        if kind.endswith("container") or kind == "container":
            if not off and row.get("container_type") == META_TRAIT:
                yield _trait_name(row, source)
            yield from _traits(row.get("children", []), version, source, off)
        elif not off:
            yield _trait_name(row, source)


def _trait_name(row: Mapping[str, Any], source: str) -> str:
    name = row.get("name")
    if not isinstance(name, str) or not name.strip():
        raise BadInput(f"{source} has a trait with no name, so the file is damaged; {GCS_FIX}.")
    levels = row.get("levels")
    if isinstance(levels, str) and levels.strip():
        # GCS 4 wrote a trait's levels as a string ("3", "3.5").
        try:
            levels = float(levels)
        except ValueError:
            raise BadInput(
                f"{source}: {name} has levels {levels!r}, not a number; {GCS_FIX}."
            ) from None
    if isinstance(levels, int | float) and not isinstance(levels, bool) and levels:
        shown = int(levels) if float(levels).is_integer() else levels
        return f"{name.strip()} {shown}"
    return name.strip()


def _rows(rows: Any, source: str, what: str) -> Iterator[Mapping[str, Any]]:
    """Every row of a GCS list and of its containers' children, depth first."""
    if not isinstance(rows, list):
        raise BadInput(f"{source}: the {what} must be a list, so the file is damaged; {GCS_FIX}.")
    for row in rows:
        row = _mapping(row, source, f"one of the {what}")
        yield row
        children = row.get("children")
        if children is not None:
            yield from _rows(children, source, what)


def _skill_name(row: Mapping[str, Any], kind: str, source: str) -> str:
    """``Name (Specialization)``; a technique ``Name (Skill)``, as the Game Aid names it."""
    name = row.get("name")
    if not isinstance(name, str) or not name.strip():
        raise BadInput(f"{source} has a skill with no name, so the file is damaged; {GCS_FIX}.")
    named = name.strip()
    if kind == "technique":
        default = row.get("default")
        if isinstance(default, Mapping):
            of = _text(default.get("name"))
            spec = _text(default.get("specialization"))
            if of:
                named += f" ({of}" + (f" ({spec})" if spec else "") + ")"
        return named
    spec = _text(row.get("specialization"))
    return f"{named} ({spec})" if spec else named


def _level(row: Mapping[str, Any], source: str, named: str) -> int | None:
    """The level GCS computed, or None where it wrote none (GCS writes a level only above 0)."""
    calc = row.get("calc")
    if not isinstance(calc, Mapping) or "level" not in calc:
        return None
    level = _whole(calc["level"], source, named)
    return level if level > 0 else None


def _default_expression(default: Mapping[str, Any], source: str) -> str | None:
    """A GCS default (``{"type": "dx", "modifier": -5}``, or a skill's) as tracker writes one:
    ``DX-5``, ``Guns (Rifle)-2``; None for a parry or block default, which no roll uses."""
    kind = str(default.get("type", "")).lower()
    modifier = default.get("modifier", 0)
    if not isinstance(modifier, int | float) or isinstance(modifier, bool):
        raise BadInput(f"{source}: a default's modifier {modifier!r} is not a number; {GCS_FIX}.")
    if kind in ATTRIBUTES:
        base = ATTRIBUTES[kind]
    elif kind == "skill":
        of = _text(default.get("name"))
        if not of:
            return None
        spec = _text(default.get("specialization"))
        base = f"{of} ({spec})" if spec else of
    else:
        return None
    step = int(modifier)
    return base + (f"{step:+d}" if step else "")


def _text(value: Any) -> str:
    """A name as GCS writes it: a string, or (GCS 5.43 on) ``{"compare", "qualifier"}``."""
    if isinstance(value, Mapping):
        value = value.get("qualifier", "")
    return value.strip() if isinstance(value, str) else ""


# -- the GURPS Game Aid's actor export --------------------------------------------------------


def _from_game_aid(data: Mapping[str, Any], source: str) -> dict[str, Any]:
    if data.get("type") not in ("character", "enemy", None):
        raise BadInput(
            f"{source} is a Foundry {data.get('type')}, not a GURPS character; export the "
            "character's actor instead."
        )
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise BadInput(f"{source} gives the actor no name; give one as NAME.")
    system = data["system"]
    stats: dict[str, int] = {}
    for key, wanted in GAME_AID_ATTRIBUTES.items():
        attribute = system["attributes"].get(key)
        if isinstance(attribute, Mapping):
            value = attribute.get("import", attribute.get("value"))
            if value not in (None, ""):
                stats[wanted] = _whole(value, source, key)
    for key in ("HP", "FP"):
        pool = system.get(key)
        if isinstance(pool, Mapping) and pool.get("max") not in (None, ""):
            stats[key] = _whole(pool["max"], source, key)
    move = system.get("basicmove")
    if isinstance(move, Mapping) and move.get("value") not in (None, ""):
        stats["Basic Move"] = _whole(move["value"], source, "basic move")
    if not stats:
        raise BadInput(f"{source} holds no attributes; export the actor again from Foundry.")
    skills: dict[str, int] = {}
    for entry in _keyed(system.get("skills", {}), source, "skills"):
        raw = entry.get("name")
        if not isinstance(raw, str) or not raw.strip():
            continue
        level = entry.get("import") or entry.get("level")
        if level in (None, ""):
            continue  # a container
        # The Game Aid names a skill Name/TL8 (Specialization): tracker's name has no TL.
        named = re.sub(r"/TL\d+\S*", "", raw.strip())
        value = _whole(level, source, named)
        if value > 0:
            skills[named] = value
    traits = []
    for entry in _keyed(system.get("ads", {}), source, "advantages"):
        named = entry.get("name")
        if not isinstance(named, str) or not named.strip():
            continue
        # An entry holding others is a container; the export does not say whether a group or
        # a meta-trait, so only the meta-traits the rules read are kept as traits.
        if entry.get("contains") and named.strip().casefold() not in RULE_META_TRAITS:
            continue
        traits.append(named.strip())
    return {"system": "gurps", "name": name.strip(), "stats": stats, "skills": skills,
            "traits": traits}  # fmt: skip


def _keyed(entries: Any, source: str, what: str) -> Iterator[Mapping[str, Any]]:
    """Every entry of a Game Aid list (an object keyed "00000", "00001", ...) and of its
    entries' ``contains``, depth first."""
    if isinstance(entries, list):
        values = entries
    elif isinstance(entries, Mapping):
        values = [entries[key] for key in sorted(entries)]
    else:
        raise BadInput(
            f"{source}: the {what} are neither a list nor keyed entries; export the actor again "
            "from Foundry, or restore an earlier copy."
        )
    for entry in values:
        entry = _mapping(entry, source, f"one of the {what}")
        yield entry
        inner = entry.get("contains")
        if inner:
            yield from _keyed(inner, source, what)


# -- shared ------------------------------------------------------------------------------------


def _mapping(value: Any, source: str, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise BadInput(f"{source}: {what} is not an object, so the file is damaged; {ANY_FIX}.")
    return value


def _whole(value: Any, source: str, what: str) -> int:
    """A number GCS or the Game Aid wrote (an int, a whole float, or a string of either)."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise BadInput(f"{source}: {what} is {value!r}, not a number; {ANY_FIX}.") from None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise BadInput(f"{source}: {what} is {value!r}, not a number; {ANY_FIX}.")
    if abs(value) > 10**6:
        raise BadInput(f"{source}: {what} is {value}, beyond any character; {ANY_FIX}.")
    return int(value)
