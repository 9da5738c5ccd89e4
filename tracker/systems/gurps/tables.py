"""GURPS rule tables as data, typed from the rulebook (GURPS) and tracker/systems/gurps/RULINGS.md.

Only plain values live here (tuples, dicts, strings, ints) so a campaign can replace a table with
one of the same shape, for example a fright table loaded from JSON; the GURPS rules
(``tracker.systems.gurps.rules``) turn them into typed values and validate them.
"""

from __future__ import annotations

from fractions import Fraction

# Rulebook: 'Task Difficulty Scale'. Where a band spans two values (+8/+9) the milder one is the
# preset (tracker/systems/gurps/RULINGS.md); a GM wanting the other types it as a free modifier.
TASK_DIFFICULTY: dict[str, int] = {
    "automatic": 10,
    "trivial": 8,
    "very-easy": 6,
    "easy": 4,
    "very-favorable": 2,
    "favorable": 1,
    "average": 0,
    "unfavorable": -1,
    "very-unfavorable": -2,
    "hard": -4,
    "very-hard": -6,
    "dangerous": -8,
    "impossible": -10,
}

# Rulebook: 'Equipment Modifiers'. "-tech" is the tech-skill column. "best" is not a fixed value
# (+TL/2 rounded down, at least +2), so it is computed from the tech level, see BEST_EQUIPMENT_MIN.
EQUIPMENT: dict[str, int] = {
    "none-tech": -10,
    "none": -5,
    "improvised-tech": -5,
    "improvised": -2,
    "basic": 0,
    "good": 1,
    "fine": 2,
}
BEST_EQUIPMENT_MIN = 2

# Rulebook: 'Time Modifiers': multiple of the usual time -> bonus.
EXTRA_TIME: dict[int, int] = {2: 1, 4: 2, 8: 3, 15: 4, 30: 5}

# Rulebook: 'Time Modifiers': -1 per full 10% less time; 90% less is normally the most.
HASTE_STEP_PERCENT = 10
HASTE_MAX_PERCENT = 90

# Rulebook: 'Repeated Attempts'.
RETRY_MODES: tuple[str, ...] = (
    "one-chance",
    "retry-with-damage",
    "retry-at-penalty",
    "retry-freely",
)

# Rulebook: 'Repeated Attempts' (cinematic buy-ups): cost of each single step up the outcome
# ladder, critical_failure -> failure -> success -> critical_success.
BUY_UP_STEP_COSTS: tuple[int, ...] = (2, 1, 2)

# Rulebook: 'Default Rolls', Rule of 20; tracker/systems/gurps/RULINGS.md: every attribute counts
# as at most 20 in an attribute default (defaults from other skills are not capped).
RULE_OF_20_ATTRIBUTES: frozenset[str] = frozenset({"st", "dx", "iq", "ht", "will", "per"})
RULE_OF_20_CAP = 20

# Rulebook: 'Success Rolls': below this effective skill a character cannot attempt a roll.
MINIMUM_EFFECTIVE_SKILL = 3

# Rulebook: 'Regular Contests': extreme scores are moved so the lower one is this value.
REGULAR_CONTEST_LOW = 6
REGULAR_CONTEST_HIGH = 14
REGULAR_CONTEST_TARGET = 10

# Rulebook: 'The Rule of 16'.
RULE_OF_16 = 16

# Rulebook: 'Fright Check Modifiers': name -> (value per level or count, label, counted).
# "counted" rows take a number of levels or exposures; the others apply once.
FRIGHT_MODIFIERS: dict[str, tuple[int, str, bool]] = {
    "fearlessness": (1, "Fearlessness", True),
    "fearfulness": (-1, "Fearfulness", True),
    "combat-reflexes": (2, "Combat Reflexes", False),
    "combat-paralysis": (-2, "Combat Paralysis", False),
    "in-combat": (5, "in combat when the event occurs", False),
    "far": (1, "witnessed from 100+ yards away", False),
    "remote": (3, "viewed remotely", False),
    "alone": (-2, "alone", False),
    "dark": (-1, "in the dark or at night", False),
    "touched": (-1, "it physically touches you", False),
    "previous-exposure": (1, "previous exposure to this threat in 24 hours", True),
}

# Rulebook: 'The Rule of 14': the highest target number a Fright Check rolls against, and the
# label of the modifier that brings a higher modified Will down to it.
RULE_OF_14_CAP = 13
RULE_OF_14_LABEL = "Rule of 14"

# Rulebook: 'Fright Check Results'. Each row: first and last total (last None: open-ended), the
# rulebook's text, and its effects. Effect fields:
#   kind: condition | fp_loss | hp_loss | trait | iq_loss
#   duration / amount: an int, dice such as "1d" or "4d" (rolled as d6), "25-HT", or None when
#     the rulebook gives no number (the GM decides)
#   unit: seconds | minutes | hours | days
#   recovery: what a recovering character rolls against ("Will", "modified Will", "HT"), None when
#     the condition simply lasts its duration; recovery_every: how often that roll is made
#   only_if_failed: the effect applies only if a roll against that trait fails
# A campaign's own table uses the same shape.
FRIGHT_ROWS: tuple[dict[str, object], ...] = (
    {
        "first": 4,
        "last": 5,
        "text": "Stunned for 1 second; recover automatically.",
        "effects": ({"kind": "condition", "name": "stunned", "duration": 1, "unit": "seconds"},),
    },
    {
        "first": 6,
        "last": 7,
        "text": "Stunned for 1 second; roll vs. Will each second to recover.",
        "effects": (
            {
                "kind": "condition",
                "name": "stunned",
                "duration": 1,
                "unit": "seconds",
                "recovery": "Will",
                "recovery_every": "second",
            },
        ),
    },
    {
        "first": 8,
        "last": 9,
        "text": "Stunned for 1 second; roll vs. modified Will each second to recover.",
        "effects": (
            {
                "kind": "condition",
                "name": "stunned",
                "duration": 1,
                "unit": "seconds",
                "recovery": "modified Will",
                "recovery_every": "second",
            },
        ),
    },
    {
        "first": 10,
        "last": 10,
        "text": "Stunned for 1d seconds; roll vs. modified Will each second to recover.",
        "effects": (
            {
                "kind": "condition",
                "name": "stunned",
                "duration": "1d",
                "unit": "seconds",
                "recovery": "modified Will",
                "recovery_every": "second",
            },
        ),
    },
    {
        "first": 11,
        "last": 11,
        "text": "Stunned for 2d seconds; same recovery.",
        "effects": (
            {
                "kind": "condition",
                "name": "stunned",
                "duration": "2d",
                "unit": "seconds",
                "recovery": "modified Will",
                "recovery_every": "second",
            },
        ),
    },
    {
        "first": 12,
        "last": 12,
        "text": "Retching for (25−HT) seconds; roll vs. HT each second to recover.",
        "effects": (
            {
                "kind": "condition",
                "name": "retching",
                "duration": "25-HT",
                "unit": "seconds",
                "recovery": "HT",
                "recovery_every": "second",
            },
        ),
    },
    {
        "first": 13,
        "last": 13,
        "text": "Acquire a new Mental Quirk.",
        "effects": ({"kind": "trait", "trait": "quirk", "points": -1},),
    },
    {
        "first": 14,
        "last": 15,
        "text": "Lose 1d FP and stunned for 1d seconds.",
        "effects": (
            {"kind": "fp_loss", "amount": "1d"},
            {"kind": "condition", "name": "stunned", "duration": "1d", "unit": "seconds"},
        ),
    },
    {
        "first": 16,
        "last": 16,
        "text": "Stunned for 1d seconds and acquire a new quirk.",
        "effects": (
            {"kind": "condition", "name": "stunned", "duration": "1d", "unit": "seconds"},
            {"kind": "trait", "trait": "quirk", "points": -1},
        ),
    },
    {
        "first": 17,
        "last": 17,
        "text": "Faint for 1d minutes; roll vs. HT each minute to recover.",
        "effects": (
            {
                "kind": "condition",
                "name": "fainted",
                "duration": "1d",
                "unit": "minutes",
                "recovery": "HT",
                "recovery_every": "minute",
            },
        ),
    },
    {
        "first": 18,
        "last": 18,
        "text": "Faint; roll vs. HT — failure means 1 HP of injury as you collapse.",
        "effects": (
            {
                "kind": "condition",
                "name": "fainted",
                "note": "the rulebook gives no duration; the GM decides",
            },
            {"kind": "hp_loss", "amount": 1, "only_if_failed": "HT"},
        ),
    },
    {
        "first": 20,
        "last": 20,
        "text": "Faint for 4d minutes; lose 1d FP.",
        "effects": (
            {"kind": "condition", "name": "fainted", "duration": "4d", "unit": "minutes"},
            {"kind": "fp_loss", "amount": "1d"},
        ),
    },
    {
        "first": 21,
        "last": 21,
        "text": "Panic — useless for 1d minutes; roll vs. Will to snap out of it.",
        "effects": (
            {
                "kind": "condition",
                "name": "panic",
                "duration": "1d",
                "unit": "minutes",
                "recovery": "Will",
            },
        ),
    },
    {
        "first": 22,
        "last": 22,
        "text": "Acquire a −10-point Delusion.",
        "effects": ({"kind": "trait", "trait": "delusion", "points": -10},),
    },
    {
        "first": 23,
        "last": 23,
        "text": "Acquire a −10-point Phobia or mental disadvantage.",
        "effects": (
            {
                "kind": "trait",
                "trait": "phobia",
                "points": -10,
                "note": "or another -10-point mental disadvantage",
            },
        ),
    },
    {
        "first": 28,
        "last": 29,
        "text": "Coma — roll vs. HT every 30 min (light) or every hour (full coma) to recover.",
        "effects": (
            {
                "kind": "condition",
                "name": "coma",
                "recovery": "HT",
                "recovery_every": "30 minutes (light coma) or hour (full coma)",
            },
        ),
    },
    {
        "first": 30,
        "last": 30,
        "text": "Catatonia for 1d days; progressive HP loss without medical care.",
        "effects": (
            {"kind": "condition", "name": "catatonia", "duration": "1d", "unit": "days"},
            {"kind": "hp_loss", "note": "progressive HP loss without medical care"},
        ),
    },
    {
        "first": 40,
        "last": None,
        "text": "As above, plus lose 1 point of IQ permanently.",
        "effects": (
            {"kind": "condition", "name": "catatonia", "duration": "1d", "unit": "days"},
            {"kind": "hp_loss", "note": "progressive HP loss without medical care"},
            {"kind": "iq_loss", "amount": 1},
        ),
    },
)

# Rulebook: 'Influence Rolls' (reaction roll, Basic Set p. 494 as summarised in
# tracker/systems/gurps/RULINGS.md):
# (lowest total or None, highest total or None, level), worst first.
REACTION_TABLE: tuple[tuple[int | None, int | None, str], ...] = (
    (None, 0, "Disastrous"),
    (1, 3, "Very Bad"),
    (4, 6, "Bad"),
    (7, 9, "Poor"),
    (10, 12, "Neutral"),
    (13, 15, "Good"),
    (16, 18, "Very Good"),
    (19, None, "Excellent"),
)

# Rulebook: 'Influence Rolls': the six influence skills.
INFLUENCE_SKILLS: tuple[str, ...] = (
    "Diplomacy",
    "Fast-Talk",
    "Intimidation",
    "Savoir-Faire",
    "Sex Appeal",
    "Streetwise",
)

# Rulebook: 'Major projects': man-hours contributed by one worker's daily roll.
PROJECT_HOURS: dict[str, int] = {
    "critical_success": 12,
    "success": 8,
    "failure": 4,
    "critical_failure": 0,
}
PROJECT_DESTROYED_DICE = 2
SUPERVISOR_BONUS: tuple[int, ...] = (1, 2)

# Rulebook: 'Extra Effort'.
EXTRA_EFFORT_STEP_PERCENT = 5
EXTRA_EFFORT_MOTIVATED = 5
EXTRA_EFFORT_FP = 1

# Rulebook: 'Climbing': surface -> (modifier, combat speed, normal speed).
CLIMBING_SURFACES: dict[str, tuple[int, str, str]] = {
    "ordinary-tree": (5, "1 ft/sec", "1 ft/3 sec"),
    "ordinary-mountain": (0, "1 ft/2 sec", "10 ft/min"),
    "vertical-stone-wall": (-3, "1 ft/5 sec", "4 ft/min"),
    "modern-building": (-3, "1 ft/10 sec", "2 ft/min"),
    "rope-up": (-2, "1 ft/sec", "20 ft/min"),
}
MAX_ENCUMBRANCE = 4

# Rulebook: 'Hearing': sound -> audible range in yards, as (numerator, denominator).
HEARING_RANGES: dict[str, tuple[int, int]] = {
    "quiet-conversation": (1, 2),
    "normal-conversation": (1, 1),
    "loud-conversation": (4, 1),
    "noisy-office": (8, 1),
    "normal-traffic": (16, 1),
    "heavy-traffic": (64, 1),
    "jet-takeoff": (128, 1),
}

# Rulebook: 'Vision'.
# Distances a hearing roll takes, in yards: from a hand's breadth to well past any horizon.
HEARING_NEAREST = Fraction(1, 100)
HEARING_FARTHEST = 1_000_000
VISION_OBVIOUS_BONUS = 10
VISION_PARTIAL_DARKNESS_MAX = 9


# GURPS, 'Default Rolls': "Some skills — like Alchemy, Karate, and all spells — have no
# default. You cannot attempt them without training." The skills it names (a spell is not
# known by its name, so it is the GM's to keep off the sheet's defaults).
NO_DEFAULT_SKILLS: tuple[str, ...] = ("Alchemy", "Karate")

# GURPS, 'Default Rolls' ("Lockpicking defaults to IQ−5."), 'Climbing' and 'Swimming': every
# default the rulebook's text names, used when a sheet lists none of its own (a test reads each
# "defaults to" sentence of the rulebook and rolls it, so none is left out).
RULEBOOK_DEFAULTS: dict[str, tuple[str, ...]] = {
    "lockpicking": ("IQ-5",),
    "climbing": ("DX-5",),
    "swimming": ("HT-4",),
}
# GURPS, 'Sense Rolls': each is a roll against Per, with the Acute advantage of that sense
# (its level is the bonus) and a Discriminatory one where the rulebook names it (+4).
SENSES: dict[str, str] = {
    "vision": "Vision",
    "hearing": "Hearing",
    "taste": "Taste",
    "smell": "Smell",
}
ACUTE_SENSE_TRAITS: dict[str, tuple[str, ...]] = {
    "vision": ("acute vision",),
    "hearing": ("acute hearing",),
    "taste": ("acute taste/smell", "acute taste and smell", "acute taste"),
    "smell": ("acute taste/smell", "acute taste and smell", "acute smell"),
}
DISCRIMINATORY_TRAITS: dict[str, tuple[str, ...]] = {
    "hearing": ("discriminatory hearing",),
    "taste": ("discriminatory taste", "discriminatory smell"),
    "smell": ("discriminatory taste", "discriminatory smell"),
}
DISCRIMINATORY_BONUS = 4
# Advantages that let a character see in total darkness ('Vision').
SEES_IN_DARK_TRAITS = ("dark vision", "infravision")
# 'Swimming', 'Running & Sprinting': a failed roll costs this much FP.
FEAT_FP_ON_FAILURE = 1
