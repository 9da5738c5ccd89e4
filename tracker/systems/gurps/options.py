"""The options of a roll and a contest that GURPS reads (``RuleSystem.roll_options``), and the
campaign settings it reads (``OwnSettings.settings``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracker.errors import BadInput
from tracker.systems.commands import Option, Setting

RETRIES = ("one-chance", "retry-with-damage", "retry-at-penalty", "retry-freely")

ROLL = (
    Option(
        "--mod",
        "a number added to the skill, with what it is for (-2:darkness); one for each.",
        dest="mods",
        multiple=True,
        metavar="N[:LABEL]",
        example="--mod -2:darkness",
        label="modifier",
    ),
    Option(
        "--defense", "a dodge, parry or block (no E < 3 floor).", "bool", label="active defense"
    ),
    Option("--task", "a named task, to count retries.", metavar="NAME"),
    Option("--retry", "how retries of the task work.", "choice", choices=RETRIES, label="retries"),
    Option("--feat", "a failed roll costs 1 FP.", "choice", choices=("running",)),
    Option(
        "--danger",
        "a sense roll for something dangerous, which the GM makes in secret.",
        "bool",
        gm_only=True,
        label="Danger Sense",
    ),
    Option(
        "--danger-dice",
        "physical 3d6 for the GM's secret roll.",
        metavar="N,N,N",
        gm_only=True,
        label="the table's dice for Danger Sense",
    ),
    Option(
        "--public",
        "a sense roll the players see, which is otherwise secret.",
        "bool",
        gm_only=True,
        label="shown to the players",
    ),
)

CONTEST = (
    Option(
        "--mod-a",
        "a number added to A's skill (N or N:LABEL).",
        dest="mods_a",
        multiple=True,
        metavar="N[:LABEL]",
        label="A's modifier",
    ),
    Option(
        "--mod-b",
        "a number added to B's skill (N or N:LABEL).",
        dest="mods_b",
        multiple=True,
        metavar="N[:LABEL]",
        label="B's modifier",
    ),
    Option(
        "--supernatural",
        "a resistance roll under the Rule of 16.",
        "bool",
        label="supernatural resistance",
    ),
    Option("--public", "a sense contest the players see.", "bool", label="shown to the players"),
    Option(
        "--new",
        "a regular contest begun afresh, though one between the same sides over the same "
        "traits is running.",
        "bool",
        label="a new contest",
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
