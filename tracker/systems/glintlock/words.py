"""Glintlock's results in the words the table uses: a check at its position against its two
thresholds, and ``tracker odds glintlock``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tracker.events.catalog import EventPayload
from tracker.systems.base import OddsCommand, OddsOption, OddsReport, RollLines, Style
from tracker.systems.glintlock.events import (
    BreakingPointResolved,
    MettleGained,
    MettleSpent,
    StoryTagGained,
    ThreatAdded,
    ThreatSpent,
)

POSITION_WORDS = {"desperate": ": keep lower", "controlled": ": keep higher", "risky": ""}

STRESS_SAID = {
    "shaken": "shaken: counts as a -1 condition tag on rolls",
    "strained": "strained: Mettle costs double",
    "breaking_point": "breaking point",
}
"""What each Stress effect does, as ``tracker stress`` says it."""

# Each currency's name at the table, and whether it is a character's own (Mettle) or the GM's.
_CURRENCIES = {"mettle": ("Mettle", True), "threat": ("Threat", False)}


def effect_said(effect: Mapping[str, Any], who: str) -> str | None:
    """Mettle and Threat moved by a roll, where each went (whose Mettle), and what went past
    the top of 6; a story tag the roll spent."""
    from tracker.systems.glintlock import rules as glintlock

    track = effect.get("track")
    if track in _CURRENCIES:
        name, own = _CURRENCIES[track]
        owner = f"{who} " if own else ""
        top = glintlock.METTLE_MAX if own else glintlock.THREAT_MAX
        lost = f", {effect['lost']} lost past {top}" if effect.get("lost") else ""
        return f"{effect['delta']:+d} {name} ({owner}{effect['after']}{lost})"
    if "story_tag_spent" in effect:
        return f"story tag spent: {effect['story_tag_spent']}"
    return None


def render_roll(doc: Mapping[str, Any], style: Style) -> RollLines:
    """A check: the stat (and training), the position the net tags give, both thresholds, the
    dice and the one kept with Steel Yourself's bonus, and the outcome (natural 1 or 20)."""
    trained = f" (trained: {doc['effective']})" if doc["trained"] else ""
    position = doc["position"]
    head = (
        f"{style.bold(doc['character'])} · {doc['trait']} {doc['stat']}{trained} · {position} "
        f"(net tags {doc['net_tags']:+d}{POSITION_WORDS[position]}) · "
        f"Weak DC {doc['weak_dc']} · Strong DC {doc['strong_dc']}"
    )
    dice = doc["dice"]
    shown = (
        f"d20: {dice[0]}" if len(dice) == 1 else f"d20: {', '.join(map(str, dice))} → {doc['kept']}"
    )
    if doc.get("bonus"):
        shown += f" +{doc['bonus']}"
    natural = f" (natural {doc['natural']})" if doc.get("natural") else ""
    if doc.get("max_damage"):
        natural = f" (natural {doc['natural']}: maximum weapon damage)"
    return RollLines(head, f"  {shown}  →  {style.outcome(doc['outcome'])}{natural}")


def _odds(
    stat: int, trained: bool, tags: int, bonus: int, advantage_die: bool = False
) -> OddsReport:
    from tracker.systems.glintlock import odds
    from tracker.systems.glintlock import rules as glintlock

    result = odds.check(stat, trained=trained, tags=tags, bonus=bonus, advantage_die=advantage_die)
    d = result.details
    die = " + advantage die" if advantage_die else ""
    title = (
        f"Glintlock · stat {stat}{' trained' if trained else ''} · {d['position']} "
        f"(net tags {tags:+d}{die}) · Weak DC {d['weak_dc']} · Strong DC {d['strong_dc']}"
    )
    notes = ()
    if advantage_die and glintlock.position(tags) == glintlock.POSITIONS[-1]:
        notes = ("already controlled: the advantage die waits for a roll it can improve",)
    return OddsReport(result, title, result.to_dict(), notes=notes)


ODDS = OddsCommand(
    help="""Glintlock: each outcome at the position the net tags give.

    \b
    Examples:
      tracker odds glintlock --stat 3 --trained --tags 2
      tracker odds glintlock --stat 3 --tags 2 --advantage-die
    """,
    options=(
        OddsOption("--stat", "The stat rolled.", required=True),
        OddsOption("--trained", "Trained: the stat counts +1.", is_flag=True),
        OddsOption("--tags", "Net tags (sets position).", default=1, show_default=True),
        OddsOption("--bonus", "Added to the kept die (steel yourself: 2).", default=0),
        OddsOption("--advantage-die", "An Advantage Die: one step better.", is_flag=True),
    ),
    compute=_odds,
)


def roll_remarks(event: EventPayload) -> list[str]:
    """A natural 20 or 1 (what the dice did whatever the DCs), and a roll made with --override,
    said in the table's words ("rolled with the GM's override"), since the players read these
    lines on the TV and their phones as the GM reads them in the log.

    Only that --override was given is said, never whether a spend was owed: a secret roll may
    have moved Threat."""
    from tracker.events.play import RollMade

    if not isinstance(event, RollMade):
        return []
    remarks = []
    if event.result.get("max_damage"):
        remarks.append("natural 20: maximum weapon damage")
    elif event.result.get("natural"):
        remarks.append(f"natural {event.result['natural']}")
    if event.inputs.get("bonus"):
        remarks.append(f"+{event.inputs['bonus']} on the kept die (steel yourself)")
    if event.inputs.get("position_steps"):
        remarks.append("an advantage die made the position one step better")
    if event.inputs.get("override"):
        remarks.append("rolled with the GM's override")
    return remarks


def _mettle_spent(e: MettleSpent, who: str) -> str:
    return f"{who} spends {e.cost} Mettle on {e.action.replace('-', ' ')}"


def _mettle_gained(e: MettleGained, who: str) -> str:
    return f"{who} gains {e.amount} Mettle ({e.action.replace('-', ' ')})"


def _threat_added(e: ThreatAdded, who: str) -> str:
    return f"Threat +{e.amount}" + (f" ({e.reason})" if e.reason else "")


def _threat_spent(e: ThreatSpent, who: str) -> str:
    return f"GM spends Threat, {e.tier} ({e.cost})" + (f": {e.note}" if e.note else "")


def _story_tag(e: StoryTagGained, who: str) -> str:
    return f'{who} holds the story tag "{e.name}"'


def _breaks(e: BreakingPointResolved, who: str) -> str:
    return f"{who} breaks: {e.result.rstrip('.')}; lasting: {e.consequence}"


EVENT_WORDS: Mapping[type, Callable[[Any, str], str]] = {
    MettleSpent: _mettle_spent,
    MettleGained: _mettle_gained,
    ThreatAdded: _threat_added,
    ThreatSpent: _threat_spent,
    StoryTagGained: _story_tag,
    BreakingPointResolved: _breaks,
}
