"""The options of a roll and a contest that GURPS reads (``RuleSystem.roll_options``)."""

from __future__ import annotations

from tracker.systems.commands import Option

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
)
