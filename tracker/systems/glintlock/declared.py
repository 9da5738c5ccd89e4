"""Glintlock's own commands as they are declared: their words, the requests they take and their
help, and the obligations they discharge.

Every command line reads these for every installed system (``tracker --help``, ``tracker shell``,
Tab completion), so they import nothing of Glintlock's rules: what each command does is named
with ``done_by`` and imported when it runs (``commands``).
"""

from __future__ import annotations

import msgspec

from tracker.systems.acts import SystemCommand, done_by
from tracker.systems.commands import Argument, Command, Option
from tracker.systems.spending import SPEND

# The kinds of obligation Glintlock's rules open (``Folding``), as the log stores them: named
# here, beside the commands that discharge them.
FLOOR = "threat-floor"
BREAKING = "breaking-point"


class SpendMettle(msgspec.Struct, frozen=True):
    character: str
    action: str
    cost: int | None = None
    condition: str | None = None
    note: str | None = None


class GainMettle(msgspec.Struct, frozen=True):
    character: str
    action: str
    note: str | None = None


class ThreatAdd(msgspec.Struct, frozen=True):
    amount: int
    reason: str | None = None


class ThreatSpend(msgspec.Struct, frozen=True):
    tier: str
    note: str | None = None


class AddTag(msgspec.Struct, frozen=True):
    character: str
    name: str


class ResolveBreakingPoint(msgspec.Struct, frozen=True):
    character: str
    consequence: str
    result: str | None = None
    """The table's result as the GM read it; None: rolled on the campaign's breaking table."""
    dice: str | None = None
    seed: str | None = None


BREAKING_POINT = Command(
    ("breaking-point",),
    """Glintlock: resolve a breaking point (table result, lasting consequence; clears 3).

    With the table's RESULT as the GM read it, it is logged as given; with the CONSEQUENCE
    alone, tracker rolls on the campaign's own breaking table (`campaign set --breaking-table`).

    \b
    Examples:
      tracker breaking-point Tomas freezes "fear of deep water"
      tracker breaking-point Tomas "fear of deep water" --dice 4
    """,
    arguments=(
        Argument("character", complete="characters"),
        Argument(
            "texts",
            nargs=-1,
            metavar="[RESULT] CONSEQUENCE",
            parts=("result (empty: rolled on the campaign's breaking table)", "consequence"),
        ),
    ),
    options=(
        Option(
            "--dice",
            "Physical dice for the campaign's table.",
            metavar="N,N...",
            label="the table's dice",
        ),
        Option(
            "--seed",
            "Any text; the same seed rolls the same dice on the campaign's table.",
            metavar="S",
            label="seed of the server's dice",
        ),
    ),
    short_help="Glintlock: resolve a breaking point.",
)


GAIN = Command(
    ("gain",),
    """Glintlock: gain 1 Mettle for a deep cut, leaning into a condition, or a weakness.

    \b
    Example:
      tracker gain Wren deep-cut --note "the ledger burns"
    """,
    arguments=(
        Argument("character", complete="characters"),
        Argument(
            "action",
            kind="choice",
            choices=("deep-cut", "lean-into-condition", "invoke-weakness"),
        ),
    ),
    options=(Option("--note", "What happened."),),
)


TAG_ADD = Command(
    ("tag", "add"),
    """Give a character a story tag to spend on a roll with --story NAME.

    \b
    Example:
      tracker tag add Wren "the old map"
    """,
    arguments=(Argument("character", complete="characters"), Argument("name")),
    group_help="Glintlock story tags: +1 on one roll, then spent.",
)


THREAT_GROUP = "Glintlock: the GM's Threat."


THREAT_ADD = Command(
    ("threat", "add"),
    """Add Threat outside a roll (+1 per exploration turn in danger).

    \b
    Example:
      tracker threat add 1 --reason "exploration turn in danger"
    """,
    arguments=(Argument("amount", kind="int"),),
    options=(Option("--reason", "Why (an exploration turn in danger...)."),),
    group_help=THREAT_GROUP,
)


THREAT_SPEND = Command(
    ("threat", "spend"),
    """Spend Threat on a GM move: free 0, soft 1, hard 2, dire 3.

    \b
    Example:
      tracker threat spend hard --note "the shelves collapse"
    """,
    arguments=(Argument("tier", kind="choice", choices=("free", "soft", "hard", "dire")),),
    options=(Option("--note", "The move the GM made."),),
    group_help=THREAT_GROUP,
)


COMMANDS = (
    SystemCommand(
        ("spend",),
        SpendMettle,
        done_by("tracker.systems.glintlock.commands:spend_mettle"),
        "Spending Mettle",
        at_table="spending Mettle",
        render=done_by("tracker.systems.glintlock.commands:spent_words"),
        declared=SPEND,
    ),
    SystemCommand(
        ("gain",),
        GainMettle,
        done_by("tracker.systems.glintlock.commands:gain_mettle"),
        "Gaining Mettle",
        at_table="gaining Mettle",
        render=done_by("tracker.systems.glintlock.commands:gained_words"),
        declared=GAIN,
    ),
    SystemCommand(
        ("threat", "add"),
        ThreatAdd,
        done_by("tracker.systems.glintlock.commands:threat_add"),
        "Threat",
        at_table="adding Threat",
        render=done_by("tracker.systems.glintlock.commands:threat_added_words"),
        declared=THREAT_ADD,
    ),
    SystemCommand(
        ("threat", "spend"),
        ThreatSpend,
        done_by("tracker.systems.glintlock.commands:threat_spend"),
        "Threat",
        at_table="spending Threat",
        render=done_by("tracker.systems.glintlock.commands:threat_spent_words"),
        discharges=(FLOOR,),
        declared=THREAT_SPEND,
    ),
    SystemCommand(
        ("tag", "add"),
        AddTag,
        done_by("tracker.systems.glintlock.commands:tag_add"),
        "Story tags",
        verb="are",
        render=done_by("tracker.systems.glintlock.commands:tag_added_words"),
        declared=TAG_ADD,
    ),
    SystemCommand(
        ("breaking-point",),
        ResolveBreakingPoint,
        done_by("tracker.systems.glintlock.commands:breaking_point"),
        "The breaking point",
        render=done_by("tracker.systems.glintlock.commands:resolved_words"),
        taken=done_by("tracker.systems.glintlock.commands:breaking_point_taken"),
        discharges=(BREAKING,),
        declared=BREAKING_POINT,
    ),
)
"""Glintlock's commands (``OwnCommands.commands``), in the order its command line lists them."""
