"""The fright table as data: rows of effects, from the rulebook's table or a campaign's own file,
validated as they are read.

Rulebook: GURPS, 'Fright Check Results'.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import msgspec

from tracker.errors import BadInput
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.shared import as_dict

_EFFECT_KINDS = ("condition", "fp_loss", "hp_loss", "trait", "iq_loss")
_UNITS = ("seconds", "minutes", "hours", "days")
_RECOVERY = ("Will", "modified Will", "HT")
_DICE_EXPRESSION = re.compile(r"([1-9]\d?)d")
HT_EXPRESSION = re.compile(r"(\d+)-HT")
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


class EffectSpec(msgspec.Struct, frozen=True):
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
        return sum(dice_in(value) for value in (self.amount, self.duration))

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


def dice_in(value: int | str | None) -> int:
    if isinstance(value, str):
        match = _DICE_EXPRESSION.fullmatch(value)
        if match:
            return int(match.group(1))
    return 0


class FrightRow(msgspec.Struct, frozen=True):
    """A listed row of the fright table: totals ``first``..``last`` (None: and above)."""

    first: int
    last: int | None
    text: str
    effects: tuple[EffectSpec, ...]

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


class FrightTable(msgspec.Struct, frozen=True):
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
        return as_dict(self)


def _check_number(value: object, field: str, row: int) -> None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return
    if isinstance(value, str) and (
        _DICE_EXPRESSION.fullmatch(value) or HT_EXPRESSION.fullmatch(value)
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


@cache
def rulebook_table() -> FrightTable:
    """The rulebook's fright table, checked and built on first use: a command that makes no
    Fright Check (any roll of another system, say) never pays for it."""
    return fright_table_from_rows(tables.FRIGHT_ROWS)


def __getattr__(name: str) -> Any:
    # ``FRIGHT_TABLE``, the rulebook's table, as it was named when it was built at import.
    if name == "FRIGHT_TABLE":
        return rulebook_table()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
