"""The options of a roll that Glintlock reads (``RuleSystem.roll_options``), and the campaign
settings it reads (``OwnSettings.settings``)."""

from __future__ import annotations

from typing import Any

from tracker.systems.commands import Option, Setting

TAG_PICKS: tuple[tuple[str, str], ...] = (
    ("1:power", "+1 power"),
    ("1:gear", "+1 gear"),
    ("1:scene", "+1 scene"),
    ("-1:scene", "\u22121 scene"),
    ("-1:weakness", "\u22121 weakness"),
    ("-1:condition", "\u22121 condition"),
)
"""The tags a form offers to tap: every kind and value the rulebook's 'Tag-Driven Position'
names but story tags, which are spent by name (``--story``)."""

ROLL = (
    Option(
        "--tag",
        "a tag's value and kind (1:gear, -1:condition); one for each.",
        dest="tags",
        multiple=True,
        metavar="N[:KIND]",
        example="--tag 1:gear",
        picks=TAG_PICKS,
    ),
    Option(
        "--story",
        "one the character holds, spent on this roll.",
        multiple=True,
        metavar="NAME",
        label="story tag",
    ),
    Option("--trained", "trained in the skill used.", "bool"),
    Option("--skill", "the skill used (trained if listed).", metavar="SKILL"),
    Option("--spell", "a spell (backlash on a natural 1).", "bool"),
    Option(
        "--backlash-dice",
        "physical 2d12 for a spell's backlash.",
        metavar="N,N",
        label="the table's dice for backlash",
    ),
    Option(
        "--override",
        "the GM lets the roll stand although Threat 6 is owed.",
        "bool",
        gm_only=True,
        label="roll past Threat 6",
    ),
)


def _breaking_table(value: Any) -> dict[str, Any]:
    """A campaign's breaking table: its dice and a row for every total they give."""
    from tracker.systems.glintlock.rules import breaking_table

    table = breaking_table(value)
    return {"dice": f"{table.count}d{table.faces}", "rows": list(table.rows)}


SETTINGS = (
    Setting(
        "threat_carries_over",
        "Threat carries over",
        Option(
            "--threat-carries-over",
            "keep Threat between sessions (a new campaign's default: the rulebook resets only "
            "Mettle per session), or reset it to 0 at each session start as Mettle is.",
            "bool",
            off="--threat-resets",
        ),
        new=Option(
            "--threat-carries-over",
            "Threat is kept between sessions (the default), or with --threat-resets reset to 0 "
            "at each session start.",
            "bool",
            off="--threat-resets",
        ),
        # tracker/systems/glintlock/RULINGS.md, 'Mettle and Threat tracks': a new campaign
        # carries Threat over; a stored creation without the setting still resets it.
        created=True,
    ),
    Setting(
        "breaking_table",
        "breaking table",
        Option(
            "--breaking-table",
            "the campaign's breaking table (TOML or JSON: dice and rows), or `none`.",
            metavar="FILE|none",
        ),
        table=True,
        check=_breaking_table,
        unset="none (the GM reads the result)",
        shown=lambda table: f"the campaign's own ({table['dice']})",
    ),
)
