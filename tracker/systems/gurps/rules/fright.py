"""Fright Checks: their modifiers, the Rule of 14, and on a failure the table's row with its
effects rolled.

Rulebook: GURPS, 'Fright Checks'.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from tracker.errors import BadInput, Refused
from tracker.systems.dice import DiceSource
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.fright_table import (
    HT_EXPRESSION,
    EffectSpec,
    FrightRow,
    FrightTable,
    dice_in,
    rulebook_table,
)
from tracker.systems.gurps.rules.shared import DIE_FACES, as_dict, roll_3d6, slug
from tracker.systems.gurps.rules.success import Modifier, SuccessRoll, decide_roll, effective_skill


class Effect(msgspec.Struct, frozen=True):
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
        return as_dict(self)


def fright_modifier(name: str, count: int = 1) -> Modifier:
    """A Fright Check modifier from the rulebook's table, by name (case-insensitive).

    Rulebook: GURPS, 'Fright Check Modifiers'. Names: fearlessness, fearfulness (count =
    levels), combat-reflexes, combat-paralysis, in-combat, far, remote, alone, dark, touched,
    previous-exposure (count = exposures in the last 24 hours). Unfazeable is not a modifier:
    see ``fright_check``.
    """
    key = slug(name)
    if key not in tables.FRIGHT_MODIFIERS:
        raise BadInput(
            f"Unknown fright modifier {name!r}; use one of {', '.join(tables.FRIGHT_MODIFIERS)}."
        )
    value, label, counted = tables.FRIGHT_MODIFIERS[key]
    if count < 1 or (count > 1 and not counted):
        raise BadInput(f"{label} applies once; give a count only for levels or exposures.")
    if counted and count > 1:
        label = f"{label} x{count}"
    return Modifier(value * count, label)


class FrightResult(msgspec.Struct, frozen=True):
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
        return as_dict(self)


class FrightCheck(msgspec.Struct, frozen=True):
    """A Fright Check: the roll (``effective`` after the Rule of 14) and, on failure, the table."""

    will: int
    modified_will: int
    effective: int
    rule_of_14: bool
    roll: SuccessRoll
    table: FrightResult | None

    def to_dict(self) -> dict[str, Any]:
        return as_dict(self)


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
        count = dice_in(value)
        if count:
            rolled = [next(dice) for _ in range(count)]
            used.extend(rolled)
            return sum(rolled)
        ht_formula = HT_EXPRESSION.fullmatch(value) if isinstance(value, str) else None
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
            if dice_in(value):
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
    table: FrightTable | None = None,
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
    roll = decide_roll(will, applied, roll_3d6(dice, "a fright check"))
    result = None
    if not roll.success:
        failure_margin = roll.margin_of_failure or 0
        table_values = roll_3d6(table_dice, "the fright table roll")
        table_total = sum(table_values) + failure_margin
        row = (table or rulebook_table()).lookup(table_total)
        needed = sum(spec.dice_count() for spec in row.effects)
        rolled = iter(effect_dice.roll(needed, DIE_FACES, _dice_purpose(row)) if needed else ())
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
