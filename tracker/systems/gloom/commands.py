"""Gloom's own command: the panic check a catastrophe calls for.

It is a ``SystemCommand`` (``tracker.systems.acts``): a campaign of another system is refused
it, naming Gloom, and the roll it makes is logged as every roll is (``Table.roll``).
"""

from __future__ import annotations

from typing import Any

import msgspec

from tracker.systems.acts import Acted, SystemCommand, Table
from tracker.systems.base import ROLL_OPTIONS, RollKind, RollRequest
from tracker.systems.commands import Argument, Command
from tracker.systems.dice import source_for
from tracker.systems.gloom.folding import PANIC as OWED

KIND = "panic"
"""The kind of roll a panic check is (``RollMade.kind``, ``Gloom.roll_kinds``)."""

ROLL_KINDS = {KIND: RollKind("The panic check", answers=OWED, one=True)}
"""Gloom's rolls beyond a check (``RollKinds.roll_kinds``)."""


class PanicCheck(msgspec.Struct, frozen=True):
    character: str
    trait: str
    dice: str | None = None
    seed: str | None = None
    secret: bool = False


def _asked(request: PanicCheck) -> None:
    """Dice that cannot be read are refused before anything else."""
    source_for(request.dice, request.seed)


def panic_check(table: Table, state: Any, request: PanicCheck) -> Acted:
    """A check, DL 0, on the trait the GM names: one roll, which answers the oldest catastrophe
    the character owes a panic check for (``Gloom.roll_kinds``); the others stay owed, unless
    it fails, when the panic answers them. Called with nothing owed, it is rolled and logged
    all the same, answering nothing: the GM may call one for what the dice did not show.

    Ruling: tracker/systems/gloom/RULINGS.md, 'Perfect success and catastrophe'.
    """
    asked = RollRequest(request.trait, KIND, request.dice, request.seed, request.secret)
    return table.roll(state, request.character, asked)


PANIC = Command(
    ("panic",),
    """Gloom: the panic check the oldest catastrophe owed called for (failure: panicked).

    \b
    Example:
      tracker panic Juno Mind
    """,
    arguments=(
        Argument("character", complete="characters"),
        Argument("trait", complete="traits"),
    ),
    options=ROLL_OPTIONS,
)

COMMANDS = (
    SystemCommand(
        ("panic",),
        PanicCheck,
        panic_check,
        "The panic check",
        at_table="rolling",
        render=lambda doc, style: style.roll_lines(doc),
        check=_asked,
        discharges=(OWED,),
        declared=PANIC,
    ),
)
