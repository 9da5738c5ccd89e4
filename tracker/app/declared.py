"""The core's commands as data (``tracker.systems.commands``), for every front door.

The command line makes its click commands from these (``tracker.cli.play``), and the web
console its forms; ``tracker.app.actions`` runs them. A rule system's own commands are
declared with the system (``RuleSystem.commands``) and its roll options with its rules
(``RuleSystem.roll_options``).
"""

from __future__ import annotations

from tracker.systems.base import CONTEST_OPTIONS, ROLL_OPTIONS
from tracker.systems.commands import Argument, Command, Option

ROLL = Command(
    ("roll",),
    "Roll a character's skill or stat and log it.",
    arguments=(
        Argument("character", complete="characters", example="Wren"),
        Argument("trait", complete="traits", example="Grit"),
    ),
    options=ROLL_OPTIONS,
    short_help="Roll a character's skill or stat and log it.",
)
"""A roll: the options of every installed system's rolls stand before --secret."""


CAUSE = Option("--cause", "What caused it.")
CHANGE = Argument("change", metavar="+N|-N")


STRESS = Command(
    ("stress",),
    """Add or clear stress (Gloom, Glintlock).

    \b
    Example:
      tracker stress Tomas +2 --cause "saw the drowned scribe"
    """,
    arguments=(Argument("character", complete="characters"), CHANGE),
    options=(CAUSE,),
)


CONDITION_SET = Command(
    ("condition", "set"),
    """Put a condition on a character.

    \b
    Example:
      tracker condition set Vora "broken arm" --duration 2 --unit sessions
    """,
    arguments=(Argument("character", complete="characters"), Argument("name")),
    options=(
        Option("--duration", "How long it lasts.", "int"),
        Option(
            "--unit",
            "What --duration counts.",
            "choice",
            choices=("seconds", "minutes", "hours", "days", "scenes", "sessions"),
        ),
        Option("--note", "What caused it."),
    ),
)


CONDITION_CLEAR = Command(
    ("condition", "clear"),
    """End a condition.

    \b
    Example:
      tracker condition clear Vora "broken arm" --note "the splint came off"
    """,
    arguments=(
        Argument("character", complete="characters"),
        Argument("name", complete="conditions"),
    ),
    options=(Option("--note", "What ended it."),),
)


NOTE = Command(
    ("note",),
    """Log a line of narrative; replays show it in place.

    \b
    Example:
      tracker note "The lamps gutter as the archive door gives way."
    """,
    arguments=(Argument("text"),),
)


DISMISS = Command(
    ("obligations", "dismiss"),
    "Waive an obligation, with a reason.",
    arguments=(Argument("obligation", metavar="ID"),),
    options=(Option("--reason", "Why it is waived, for the record."),),
)


CONTEST = Command(
    ("contest",),
    """A contest: A acts, B defends. Either side may be an opponent given as NAME SCORE.

    \b
    Examples:
      tracker contest Kade Hacking "Corp netrunner" 14 --dice-a 14 --dice-b 5
      tracker contest Vora Broadsword Duellist 12 --mode quick
      tracker contest Wizard 18 Aldric Will --mode resistance --supernatural
      tracker contest Juno Piloting Ace 13 --mode dynamic
    """,
    arguments=(
        Argument("a", complete="characters", example="Kade"),
        Argument("trait_a", complete="traits:a", example="Hacking"),
        Argument("b", complete="characters", example='"Corp netrunner"'),
        Argument("trait_b", complete="traits:b", example="14"),
    ),
    options=CONTEST_OPTIONS,
)
"""A contest: the options of every installed system's contests stand before --seed."""


def track_command(track: str) -> Command:
    """``tracker hp`` or ``tracker fp``: a track of the sheet's, lost or regained."""
    example = {
        "hp": 'tracker hp Vora -4 --cause "a goblin\'s spear"',
        "fp": "tracker fp Aldric -2",
    }
    return Command(
        (track,),
        f"Lose or regain {track.upper()} (tracked when the sheet has it).\n\n"
        f"\b\nExample:\n  {example[track]}",
        arguments=(Argument("character", complete="characters"), CHANGE),
        options=(CAUSE,),
    )


# What the command line writes by hand (its help says more), declared here for the forms of
# the web console, which take the same values.

UNDO = Command(
    ("undo",),
    "Take back the last event in force in the running session, or the event named.",
    arguments=(Argument("event", required=False, metavar="[EVENT]"),),
    options=(
        Option("--cascade", "Also undo later events that depended on it.", "bool"),
        Option("--reason", "Why, for the record."),
    ),
)

REDO = Command(
    ("redo",),
    "Put back what the last undo took back.",
    options=(Option("--reason", "Why, for the record."),),
)

REVEAL = Command(
    ("reveal",),
    "Show the players a secret event, or every secret event of a session.",
    arguments=(Argument("event", required=False, metavar="[EVENT]"),),
    options=(Option("--session", "Reveal every secret event of session N.", "int"),),
)

SESSION_START = Command(
    ("session", "start"),
    "Start a session.",
    options=(Option("--title", "A title for the session, shown in replays."),),
)

SESSION_END = Command(("session", "end"), "End the running session.")

CAMPAIGN_USE = Command(
    ("campaign", "use"),
    "Make another campaign the current one.",
    arguments=(Argument("name", complete="campaigns"),),
)
