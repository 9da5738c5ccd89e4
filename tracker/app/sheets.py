"""Character sheets: parsing ``--stat KEY=N`` options and reading sheet files (TOML or JSON)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracker.errors import BadInput
from tracker.events.envelope import canonical_json
from tracker.systems import registry
from tracker.systems.base import TRACKS, RuleSystem
from tracker.systems.capabilities import SheetImport, SheetRules, able


@dataclass
class Sheet:
    name: str | None = None
    stats: dict[str, int] = field(default_factory=dict)
    skills: dict[str, int] = field(default_factory=dict)
    trained: list[str] = field(default_factory=list)
    character_class: str | None = None
    defaults: dict[str, list[str]] = field(default_factory=dict)
    traits: list[str] = field(default_factory=list)
    source: str | None = None
    # The rule system the sheet says it is for (``system = "gurps"``), when it says so.
    system: str | None = None
    # ``npc = true``: the GM plays the character (None: the sheet does not say).
    npc: bool | None = None


def parse_pairs(values: Iterable[str], option: str) -> dict[str, int]:
    """``["Grit=3", "wits=2"]`` to ``{"Grit": 3, "wits": 2}``; malformed pairs raise BadInput."""
    out: dict[str, int] = {}
    for raw in values:
        key, sep, number = raw.partition("=")
        key = key.strip()
        if not sep or not key:
            # The example names what the user typed, so it fits the campaign's system.
            named = raw.strip().rstrip("0123456789").rstrip(" :=-").strip() or "KEY"
            like = f"{named}=3" if " " not in named else f"'{named}=3'"
            raise BadInput(f"{option} takes KEY=N, not {raw!r}; give one like {option} {like}.")
        try:
            out[key] = int(number.strip())
        except ValueError:
            raise BadInput(
                f"{option} {key} needs a whole number after '=', not {number!r}; give one like "
                f"{option} {key}=3."
            ) from None
    return out


# Hit Points and Fatigue Points are tracks, not scores: any system's sheet may carry them.
TRACK_RANGE = (1, 999)


def sheet_for(sheet: Sheet, systems: Iterable[RuleSystem]) -> RuleSystem | None:
    """The system a sheet file says it is for, or whose stats it has (None if neither)."""
    for system in systems:
        if sheet.system == system.name:
            return system
    held = {key.casefold() for key in sheet.stats}
    if sheet.system is None:
        for system in systems:
            if (
                able(system, SheetRules).sheet_stats
                and able(system, SheetRules).sheet_stats <= held
            ):
                return system
    return None


def check_scores(system: RuleSystem, scores: Mapping[str, int], what: str) -> None:
    """Refuse a score the system's sheets cannot hold (a typo, not a character)."""
    for key, value in scores.items():
        low, high = TRACK_RANGE if key.casefold() in TRACKS else system.score_range
        if not low <= value <= high:
            raise BadInput(
                f"{what} {key} is {value} but in {system.name} it must be between {low} and "
                f"{high}; give a value from {low} to {high}."
            )


def read_sheet(path: str | Path) -> Sheet:
    """A sheet file: TOML or JSON with name, stats, skills, trained, class, defaults, traits;
    or a character in another program's format that a rule system reads (a GCS file)."""
    path = Path(path)
    data = read_data(path, "sheet")
    if not isinstance(data, Mapping):
        raise BadInput(
            f"The sheet {path} holds a {type(data).__name__}, not a character; give a table of "
            "name, stats and skills, or a GCS file."
        )
    for system in registry.systems():
        foreign = able(system, SheetImport).foreign_sheet(data, path.name)
        if foreign is not None:
            return sheet_from_mapping(foreign, path.name)
    return sheet_from_mapping(data, str(path.name))


# A sheet (a GCS file with its portrait included) is well under this; a bigger file is another.
MAX_FILE_BYTES = 16 * 1024 * 1024
# Read as JSON by their suffix; anything else is TOML.
JSON_SUFFIXES = (".json", ".gcs")


def read_data(path: str | Path, what: str) -> Any:
    """A TOML or JSON file's contents (JSON by its .json suffix), or one sentence naming the
    ``what`` (a sheet, a table) that could not be read and why."""
    import tomllib

    path = Path(path)
    try:
        if path.exists() and not path.is_file():  # a folder, or a pipe that would never end
            raise BadInput(f"The {what} {path} is not a regular file; give the {what} itself.")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise BadInput(
                f"The {what} {path} is {size // (1024 * 1024)} MB, more than any {what} "
                f"({MAX_FILE_BYTES // (1024 * 1024)} MB at most); check that it is the right file."
            )
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"Cannot read the {what} {path}: {exc.strerror}; check the path.") from None
    except UnicodeDecodeError:
        raise BadInput(f"The {what} {path} is not text (UTF-8); give the {what} itself.") from None
    as_json = path.suffix.lower() in JSON_SUFFIXES or text.lstrip().startswith("{")
    try:
        data = json.loads(text) if as_json else tomllib.loads(text)
    except (ValueError, RecursionError, tomllib.TOMLDecodeError) as exc:
        kind = "JSON" if as_json else "TOML"
        raise BadInput(f"The {what} {path} is not valid {kind} ({exc}); fix it.") from None
    try:
        # What is logged must be spelled in the log's JSON, and hashed in it.
        canonical_json(data).encode("utf-8")
    except (TypeError, ValueError, RecursionError):
        raise BadInput(
            f"The {what} {path} holds a value no log can keep (a date or a time, nan, infinity "
            "or a lone surrogate); give numbers and text instead."
        ) from None
    return data


def sheet_from_mapping(data: Mapping[str, Any], source: str | None = None) -> Sheet:
    def scores(key: str) -> dict[str, int]:
        table = data.get(key, {})
        if not isinstance(table, Mapping) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in table.values()
        ):
            raise BadInput(f"The sheet's [{key}] must map names to whole numbers; fix it.")
        return {str(k): int(v) for k, v in table.items()}

    def names(key: str) -> list[str]:
        items = data.get(key, [])
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise BadInput(f"The sheet's {key} must be a list of names; fix it.")
        return list(items)

    defaults_raw = data.get("defaults", {})
    if not isinstance(defaults_raw, Mapping):
        raise BadInput("The sheet's [defaults] must map skills to expressions like 'IQ-5'; fix it.")
    defaults = {
        str(skill): [expr] if isinstance(expr, str) else [str(e) for e in expr]
        for skill, expr in defaults_raw.items()
    }
    cls = data.get("class")
    system = data.get("system")
    if system is not None and not isinstance(system, str):
        raise BadInput('The sheet\'s system must be a name like "gurps"; fix it.')
    npc = data.get("npc")
    if npc is not None and not isinstance(npc, bool):
        raise BadInput("The sheet's npc must be true or false; fix it.")
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise BadInput('The sheet\'s name must be text like "Mira"; fix it.')
    return Sheet(
        system=system.strip().lower() if system else None,
        name=name,
        stats=scores("stats"),
        skills=scores("skills"),
        trained=names("trained"),
        character_class=str(cls) if cls else None,
        defaults=defaults,
        traits=names("traits"),
        source=source,
        npc=npc,
    )
