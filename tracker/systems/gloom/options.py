"""The options of a roll and a contest that Gloom reads (``RuleSystem.roll_options``), and the
campaign settings it reads (``OwnSettings.settings``)."""

from __future__ import annotations

from tracker.systems.commands import Option, Setting

TIE_RULES: tuple[str, ...] = ("stat", "defender")
"""Who wins a contest's equal dice (``tie_rule``): declared here, with the setting that takes
it, so that declaring the setting costs no import of the rules."""

ROLL = (
    Option(
        "--dl",
        "the floor the die must roll above, a number from 0 to 20 (0 when left out: routine) "
        "or routine, standard, hard, extreme or impossible.",
        "difficulty",
        default=0,
        metavar="N|NAME",
        complete="difficulties",
        example="--dl hard",
        label="difficulty",
    ),
    Option("--advantage", "roll 2d20, keep the best.", "bool"),
    Option("--disadvantage", "roll 2d20, keep the worst.", "bool"),
    Option(
        "--no-panic",
        "a catastrophe calls no panic check.",
        "bool",
        gm_only=True,
        label="skip the panic check",
    ),
)

CONTEST = (
    Option(
        "--dl-a",
        "the base floor of A's roll, a number or a difficulty's name.",
        "difficulty",
        default=0,
        metavar="N|NAME",
        complete="difficulties",
        label="A's difficulty",
    ),
    Option(
        "--dl-b",
        "the base floor of B's roll, as for A.",
        "difficulty",
        default=0,
        metavar="N|NAME",
        complete="difficulties",
        label="B's difficulty",
    ),
    Option(
        "--advantage-a",
        "roll 2d20 for A, keep the best (gear, aid).",
        "bool",
        label="A has advantage",
    ),
    Option(
        "--disadvantage-a", "roll 2d20 for A, keep the worst.", "bool", label="A has disadvantage"
    ),
    Option("--advantage-b", "roll 2d20 for B, keep the best.", "bool", label="B has advantage"),
    Option(
        "--disadvantage-b", "roll 2d20 for B, keep the worst.", "bool", label="B has disadvantage"
    ),
)

SETTINGS = (
    Setting(
        "tie_rule",
        "tie rule",
        Option("--tie-rule", "who wins equal dice.", "choice", choices=TIE_RULES),
        new=Option(
            "--tie-rule",
            "who wins a contested roll when both dice are equal.",
            "choice",
            choices=TIE_RULES,
            default=TIE_RULES[0],
            show_default=True,
        ),
    ),
    Setting(
        "stress_limit",
        "stress limit",
        Option("--stress-limit", "the stress that brings disadvantage.", "int"),
        new=Option("--stress-limit", "the stress that brings disadvantage (6).", "int"),
        limits=(1, 20),
    ),
)
