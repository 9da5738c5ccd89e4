"""What the GURPS rule modules share: a result as a JSON document, a name matched loosely, and
3d6 rolled."""

from __future__ import annotations

import re
from typing import Any

from tracker.systems.dice import DiceSource

DIE_FACES = 6


def _jsonable(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, tuple | list):
        return [_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    return value


def as_dict(result: Any) -> dict[str, Any]:
    """A result (a frozen ``msgspec.Struct``) as a JSON document, its fields in their order."""
    return {name: _jsonable(getattr(result, name)) for name in result.__struct_fields__}


def slug(name: str) -> str:
    """Preset and table keys are matched without case, with spaces or underscores as hyphens."""
    return re.sub(r"[\s_]+", "-", name.strip().lower())


def roll_3d6(dice: DiceSource, purpose: str) -> tuple[int, ...]:
    return tuple(dice.roll(3, DIE_FACES, purpose))
