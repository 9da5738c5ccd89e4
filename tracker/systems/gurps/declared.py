"""GURPS's own commands as they are declared: their words, the requests they take and their help.

Every command line reads these for every installed system (``tracker --help``, ``tracker shell``,
Tab completion), so they import nothing of GURPS's rules: what each command does is named with
``done_by`` and imported when it runs (``commands``, ``influence``, ``projects``, ``points``).
"""

from __future__ import annotations

import msgspec

from tracker.systems.acts import SystemCommand, done_by
from tracker.systems.base import ROLL_OPTIONS, SECRET, SEED
from tracker.systems.commands import Argument, Command, Option
from tracker.systems.spending import SPEND


class Influence(msgspec.Struct, frozen=True):
    character: str
    skill: str
    subject: str
    will: str = "Will"
    mods: tuple[str, ...] = ()
    reaction_mods: tuple[str, ...] = ()
    dice_a: str | None = None
    dice_b: str | None = None
    reaction_dice: str | None = None
    seed: str | None = None
    indomitable: bool = False
    empathy: bool = False
    unfazeable: bool = False
    slave_mentality: bool = False
    secret: bool = False


class Effort(msgspec.Struct, frozen=True):
    character: str
    percent: int
    motivated: bool = False
    skill: str | None = None
    dice: str | None = None
    seed: str | None = None
    secret: bool = False


class Fright(msgspec.Struct, frozen=True):
    character: str
    mods: tuple[str, ...] = ()
    threat: str | None = None
    dice: str | None = None
    table_dice: str | None = None
    effect_dice: str | None = None
    seed: str | None = None
    secret: bool = False


FRIGHT = Command(
    ("fright",),
    """GURPS: a Fright Check (Rule of 14), and on failure the fright table.

    \b
    Example:
      tracker fright Mira --mod alone --mod dark --threat "the drowned scribe"
    """,
    arguments=(Argument("character", complete="characters"),),
    options=(
        Option(
            "--mod",
            "A number (N or N:LABEL), or a name from the table: in-combat, far, remote, alone, "
            "dark, touched.",
            dest="mods",
            multiple=True,
            metavar="N[:LABEL]|NAME",
            label="modifier",
        ),
        Option(
            "--threat",
            "Its name, to count exposures to it in 24 hours.",
            metavar="NAME",
            label="what frightened them",
        ),
        Option("--dice", "Physical 3d6 for the check.", metavar="N,N,N", label="the table's dice"),
        Option(
            "--table-dice",
            "Physical 3d6, read on the fright table when the check fails.",
            metavar="N,N,N",
            label="the table's dice for the fright table",
        ),
        Option(
            "--effect-dice",
            "Physical d6 for the result's own dice.",
            metavar="N,...",
            label="the table's dice for the result",
        ),
        SEED,
        SECRET,
    ),
)


EFFORT = Command(
    ("effort",),
    """GURPS: extra effort for PERCENT more than normal (a Will roll; always 1 FP).

    Will (or a Will-based skill, --skill) at -1 per 5% (rounded up), +5 when motivated. A
    critical failure also costs 1 HP.

    \b
    Examples:
      tracker effort Vora 20            lift 20% more
      tracker effort Mira 50 --motivated --dice 3,4,5
      tracker effort Aldric 20 --skill Meditation
    """,
    arguments=(Argument("character", complete="characters"), Argument("percent", kind="int")),
    options=(
        Option("--motivated", "A matter of life, death or deep conviction: +5.", "bool"),
        Option(
            "--skill",
            "A skill to roll instead of Will (the GM says which are Will-based).",
            metavar="SKILL",
            complete="traits:character",
            label="Will-based skill",
        ),
        *ROLL_OPTIONS,
    ),
    short_help="GURPS: extra effort (a Will roll; always 1 FP).",
)


INFLUENCE = Command(
    ("influence",),
    """GURPS: an influence roll, read as the subject's reaction.

    A Quick Contest of an influence skill (Diplomacy, Fast-Talk, Intimidation, Savoir-Faire,
    Sex Appeal, Streetwise) against the subject's Will: a character, or a name and a Will score.
    A win is Good (Sex Appeal: Very Good), a loss or a tie Bad (Intimidation: Very Bad).
    Diplomacy also rolls a reaction and takes the better of the two.

    On a player's character (one not added with --npc) no reaction is read: a win leaves its
    margin of victory on that character, for the rolls it bears on (--mod influence:NAME).

    \b
    Examples:
      tracker influence Aldric Diplomacy "Harbour master" 11 --reaction-mod +1:appearance
      tracker influence Vesna "Sex Appeal" Mira --secret
    """,
    arguments=(
        Argument("character", complete="characters"),
        Argument("skill", complete="traits:character"),
        Argument("subject", complete="characters"),
        Argument("will", required=False, default="Will", label="the subject's Will"),
    ),
    options=(
        Option(
            "--mod",
            "A number added to the skill (N or N:LABEL).",
            dest="mods",
            multiple=True,
            metavar="N[:LABEL]",
            label="modifier",
        ),
        Option(
            "--reaction-mod",
            "The influencer's, for appearance, status...: it applies to the influence roll, and "
            "to Diplomacy's reaction roll too.",
            dest="reaction_mods",
            multiple=True,
            metavar="N[:LABEL]",
            label="reaction modifier",
        ),
        Option(
            "--dice-a",
            "The influencer's physical 3d6.",
            metavar="N,N,N",
            label="the table's dice for the influencer",
        ),
        Option(
            "--dice-b",
            "The subject's physical 3d6 (Will).",
            metavar="N,N,N",
            label="the table's dice for the subject",
        ),
        Option(
            "--reaction-dice",
            "Physical 3d6 for Diplomacy's reaction roll.",
            metavar="N,N,N",
            label="the table's dice for the reaction",
        ),
        SEED,
        Option(
            "--indomitable",
            "Only an influencer with Empathy can sway them.",
            "bool",
            label="the subject is Indomitable",
        ),
        Option(
            "--empathy",
            "It beats Indomitable.",
            "bool",
            label="the influencer has Empathy",
        ),
        Option(
            "--unfazeable",
            "No Intimidation works on them.",
            "bool",
            label="the subject is Unfazeable",
        ),
        Option(
            "--slave-mentality",
            "They comply without a roll.",
            "bool",
            label="the subject has Slave Mentality",
        ),
        SECRET,
    ),
    negative=True,
)


class ProjectStart(msgspec.Struct, frozen=True):
    name: str
    skill: str
    hours: int


class ProjectRoll(msgspec.Struct, frozen=True):
    name: str
    workers: tuple[str, ...]
    mods: tuple[str, ...] = ()
    supervisor: str | None = None
    supervisor_skill: str = "Leadership"
    supervisor_bonus: int = 1
    supervisor_dice: str | None = None
    dice: tuple[str, ...] = ()
    destroyed_dice: tuple[str, ...] = ()
    seed: str | None = None


class ProjectStatus(msgspec.Struct, frozen=True):
    pass


PROJECT_GROUP = "GURPS major projects: daily rolls add man-hours."


PROJECT_START = Command(
    ("project", "start"),
    """Start a major project.

    \b
    Example:
      tracker project start "Archive catalogue" --skill Lockpicking --hours 40
    """,
    arguments=(Argument("name"),),
    options=(
        Option("--skill", "The skill each worker rolls.", required=True),
        Option("--hours", "How many the project needs.", "int", required=True, label="man-hours"),
    ),
    group_help=PROJECT_GROUP,
)


PROJECT_ROLL = Command(
    ("project", "roll"),
    """Roll one day of a project's team: each WORKER's roll, and with --supervisor the one
    supervisor roll that gives the whole team its bonus. A supervisor does not work that day.

    \b
    Examples:
      tracker project roll Bridge Vora
      tracker project roll Bridge Vora Mira --supervisor Aldric --supervisor-skill Administration
    """,
    arguments=(
        Argument("name", complete="projects"),
        Argument("workers", nargs=-1, complete="characters"),
    ),
    options=(
        Option(
            "--mod",
            "A number added to every worker's roll (N or N:LABEL).",
            dest="mods",
            multiple=True,
            metavar="N[:LABEL]",
            label="modifier",
        ),
        Option(
            "--supervisor",
            "A character directing the day instead of working: one Leadership roll for the "
            "team; success gives every worker +1.",
            metavar="NAME",
            complete="characters",
        ),
        Option(
            "--supervisor-skill",
            "The skill the supervisor rolls.",
            "choice",
            choices=("Leadership", "Administration"),
            case_sensitive=False,
            default="Leadership",
            show_default=True,
            label="the supervisor's skill",
        ),
        Option(
            "--supervisor-bonus",
            "What a successful supervisor gives (+1, or +2 at the GM's choice).",
            "int",
            choices=("1", "2"),
            default=1,
            show_default=True,
            label="the supervisor's bonus",
        ),
        Option(
            "--supervisor-dice",
            "The supervisor's physical 3d6.",
            metavar="N,N,N",
            label="the table's dice for the supervisor",
        ),
        Option(
            "--dice",
            "Physical 3d6, once per worker, in the order named.",
            metavar="N,N,N",
            multiple=True,
            label="the table's dice for each worker",
        ),
        Option(
            "--destroyed-dice",
            "Physical 2d, once per critical failure, in the workers' order.",
            metavar="N,N",
            multiple=True,
            label="the table's dice for work destroyed",
        ),
        SEED,
    ),
    short_help="Roll a day of a project's team, and its supervisor's.",
    group_help=PROJECT_GROUP,
)


PROJECT_STATUS = Command(
    ("project", "status"),
    """Progress of every project.

    \b
    Example:
      tracker project status --json
    """,
    group_help=PROJECT_GROUP,
)


class AwardPoints(msgspec.Struct, frozen=True):
    character: str
    amount: int
    reason: str | None = None


class BuyUp(msgspec.Struct, frozen=True):
    character: str
    to: str | None = None
    """The outcome to buy; None: one step up."""
    roll: str | None = None
    """The roll to buy up, by the start of its event id: the character's last roll, checked."""


class AssignTrait(msgspec.Struct, frozen=True):
    character: str
    name: str
    kind: str | None = None
    obligation: str | None = None


POINTS_AWARD = Command(
    ("points", "award"),
    """Award character points (cinematic campaigns spend them on buy-ups).

    \b
    Example:
      tracker points award Mira 2 --reason "the archive opened"
    """,
    arguments=(Argument("character", complete="characters"), Argument("amount", kind="int")),
    options=(Option("--reason", "What earned them."),),
    group_help="GURPS character points.",
)


TRAIT_ASSIGN = Command(
    ("trait", "assign"),
    """Assign the trait a fright result owes a character.

    \b
    Example:
      tracker trait assign Vora "Fear of deep water" --kind phobia
    """,
    arguments=(Argument("character", complete="characters"), Argument("name")),
    options=(
        Option(
            "--kind",
            "Which kind the fright result owes, when it does not say.",
            "choice",
            choices=("quirk", "delusion", "phobia"),
            label="kind of trait",
        ),
        Option(
            "--obligation",
            "Its id, when several are owed.",
            metavar="ID",
            label="which owed trait",
        ),
    ),
    group_help="GURPS: traits a fright result calls for.",
)


COMMANDS = (
    SystemCommand(
        ("influence",),
        Influence,
        done_by("tracker.systems.gurps.influence:influence"),
        "Influence rolls",
        at_table="rolling",
        render=done_by("tracker.systems.gurps.influence:influence_lines"),
        verb="are",
        declared=INFLUENCE,
    ),
    SystemCommand(
        ("effort",),
        Effort,
        done_by("tracker.systems.gurps.commands:extra_effort"),
        "Extra effort",
        at_table="rolling",
        render=done_by("tracker.systems.gurps.commands:effort_lines"),
        check=done_by("tracker.systems.gurps.commands:effort_asked"),
        declared=EFFORT,
    ),
    SystemCommand(
        ("fright",),
        Fright,
        done_by("tracker.systems.gurps.commands:fright_check"),
        "The Fright Check",
        at_table="rolling",
        render=done_by("tracker.systems.gurps.commands:fright_lines"),
        declared=FRIGHT,
    ),
    SystemCommand(
        ("project", "start"),
        ProjectStart,
        done_by("tracker.systems.gurps.projects:project_start"),
        "Major projects",
        render=done_by("tracker.systems.gurps.projects:start_lines"),
        declared=PROJECT_START,
        verb="are",
    ),
    SystemCommand(
        ("project", "roll"),
        ProjectRoll,
        done_by("tracker.systems.gurps.projects:project_roll"),
        "Major projects",
        render=done_by("tracker.systems.gurps.projects:day_lines"),
        declared=PROJECT_ROLL,
        verb="are",
        check=done_by("tracker.systems.gurps.projects:day_asked"),
    ),
    SystemCommand(
        ("project", "status"),
        ProjectStatus,
        done_by("tracker.systems.gurps.projects:project_status"),
        "Major projects",
        render=done_by("tracker.systems.gurps.projects:status_lines"),
        declared=PROJECT_STATUS,
        verb="are",
        logs=False,
    ),
    SystemCommand(
        ("points", "award"),
        AwardPoints,
        done_by("tracker.systems.gurps.points:points_award"),
        "Character points",
        verb="are",
        render=done_by("tracker.systems.gurps.points:awarded_words"),
        declared=POINTS_AWARD,
    ),
    SystemCommand(
        ("spend",),
        BuyUp,
        done_by("tracker.systems.gurps.points:buy_up"),
        "Buying up a roll",
        at_table="buying up a roll",
        render=done_by("tracker.systems.gurps.points:bought_words"),
        declared=SPEND,
        chosen_by=("action", ("buy-up",)),
    ),
    SystemCommand(
        ("trait", "assign"),
        AssignTrait,
        done_by("tracker.systems.gurps.points:trait_assign"),
        "Assigning fright traits",
        render=done_by("tracker.systems.gurps.points:assigned_words"),
        discharges=("assign-trait",),
        declared=TRAIT_ASSIGN,
    ),
)
"""GURPS's commands (``OwnCommands.commands``), in the order its command line lists them."""
