"""The options of a roll that Glintlock reads (``RuleSystem.roll_options``)."""

from __future__ import annotations

from tracker.systems.commands import Option

ROLL = (
    Option(
        "--tag", "a tag.", dest="tags", multiple=True, metavar="N[:KIND]", example="--tag 1:gear"
    ),
    Option("--story", "spend a story tag.", multiple=True, metavar="NAME"),
    Option("--trained", "trained in the skill used.", "bool"),
    Option("--skill", "the skill used (trained if listed).", metavar="SKILL"),
    Option("--spell", "a spell (backlash on a natural 1).", "bool"),
    Option("--backlash-dice", "physical 2d12 for backlash.", metavar="N,N"),
    Option("--override", "roll although Threat 6 is owed.", "bool", gm_only=True),
)
