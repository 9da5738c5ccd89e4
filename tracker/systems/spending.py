"""``tracker spend``: one command line for the systems that spend something of a character's.

Glintlock spends Mettle on an action, GURPS character points on a buy-up; the action given
chooses whose command runs (``SystemCommand.chosen_by``). Both declare this one command line.
"""

from __future__ import annotations

from tracker.systems.commands import Argument, Command, Option

SPEND = Command(
    ("spend",),
    """Spend Mettle (Glintlock) or character points on a buy-up (GURPS cinematic).

    \b
    Examples:
      tracker spend Wren steel-yourself
      tracker spend Wren class-feature --cost 3
      tracker spend Mira buy-up --to success
    """,
    arguments=(
        Argument("character", complete="characters"),
        Argument("action", complete="spend_kinds"),
    ),
    options=(
        Option(
            "--cost",
            "For actions with a choice (class-feature).",
            "int",
            label="base cost",
        ),
        Option(
            "--condition",
            "For suppress-condition.",
            label="condition to suppress",
        ),
        Option("--note", "What the spend bought."),
        Option(
            "--to",
            "For buy-up; one step up when left out.",
            "choice",
            choices=("failure", "success", "critical_success"),
            label="outcome to buy",
        ),
    ),
)
