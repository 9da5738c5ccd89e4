"""The options of a roll and a contest that GURPS reads (``RuleSystem.roll_options``), and the
campaign settings it reads (``RuleSystem.settings``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracker.errors import BadInput
from tracker.systems.commands import Option, Setting

RETRIES = ("one-chance", "retry-with-damage", "retry-at-penalty", "retry-freely")

ROLL = (
    Option(
        "--mod",
        "a modifier.",
        dest="mods",
        multiple=True,
        metavar="N[:LABEL]",
        example="--mod -2:darkness",
    ),
    Option("--defense", "an active defense (no E < 3 floor).", "bool"),
    Option("--task", "a named task, to count retries.", metavar="NAME"),
    Option("--retry", "how retries of the task work.", "choice", choices=RETRIES),
    Option("--feat", "a failed roll costs 1 FP.", "choice", choices=("running",)),
    Option(
        "--danger", "GURPS sense roll: something dangerous (Danger Sense).", "bool", gm_only=True
    ),
    Option("--danger-dice", "physical 3d6 for Danger Sense.", metavar="N,N,N", gm_only=True),
    Option("--public", "show a sense roll to the players.", "bool", gm_only=True),
)

CONTEST = (
    Option("--mod-a", "A's modifier.", dest="mods_a", multiple=True, metavar="N[:LABEL]"),
    Option("--mod-b", "B's modifier.", dest="mods_b", multiple=True, metavar="N[:LABEL]"),
    Option("--supernatural", "GURPS resistance: the Rule of 16.", "bool"),
    Option("--public", "a sense contest the players see.", "bool"),
    Option(
        "--new",
        "GURPS regular: a fresh contest, though one between the same sides over the same "
        "traits is running.",
        "bool",
    ),
)


TECH_LEVELS = (0, 12)


def _tech_level(value: int) -> int:
    low, high = TECH_LEVELS
    if not low <= value <= high:
        raise BadInput(
            f"A tech level is {low} to {high}, not {value}; give --tech-level from {low} to {high}."
        )
    return value


def _fright_table(value: Any) -> tuple[Any, ...]:
    """A campaign's own fright table: rows shaped like the rulebook's, checked whole."""
    from tracker.systems.gurps.rules.fright_table import fright_table_from_rows

    rows = value.get("rows") if isinstance(value, Mapping) else value
    if not isinstance(rows, list):
        raise BadInput(
            "A fright table file holds its rows as a list named rows; add [[rows]] entries."
        )
    fright_table_from_rows(rows)
    return tuple(rows)


TECH_LEVEL = Option("--tech-level", "the campaign's tech level.", "int", metavar="TL")

SETTINGS = (
    Setting(
        "cinematic",
        "cinematic",
        Option("--cinematic", "buy-ups with points.", "bool", off="--no-cinematic"),
        new=Option("--cinematic", "players may buy up rolls with points.", "bool"),
    ),
    Setting("tech_level", "tech level", TECH_LEVEL, new=TECH_LEVEL, check=_tech_level),
    Setting(
        "fright_table",
        "fright table",
        Option(
            "--fright-table",
            "the campaign's own fright table (TOML or JSON rows), or `rulebook`.",
            metavar="FILE|rulebook",
        ),
        new=Option(
            "--fright-table", "the campaign's own fright table (TOML or JSON rows).", "file"
        ),
        table=True,
        check=_fright_table,
        unset="the rulebook's",
        shown=lambda rows: f"the campaign's own ({len(rows)} rows)",
    ),
)
