"""GURPS's results in the words the table uses: a success roll with its modifiers, and
``tracker odds gurps``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tracker.events.catalog import EventPayload
from tracker.systems.base import OddsCommand, OddsOption, OddsReport, RollLines, Style
from tracker.systems.gurps.events import (
    FrightChecked,
    PointsAwarded,
    ProjectStarted,
    RollBoughtUp,
    TraitAssigned,
)
from tracker.words import by_margin, outcome_words, plural


def render_roll(doc: Mapping[str, Any], style: Style) -> RollLines:
    """A success roll: base, every labelled modifier and the effective skill, the 3d6 and the
    outcome by its margin, and Danger Sense's secret roll when one followed."""
    mods = "".join(f" {m['value']:+d} {m['label']}" for m in doc["modifiers"])
    source = "" if doc["base_source"] == "skill" else f" ({doc['base_source']})"
    head = (
        f"{style.bold(doc['character'])} · {doc['trait']} {doc['base']}{source}{mods} = "
        f"effective {doc['effective']}"
    )
    by = _margin_words(doc)
    dice = (
        f"  3d6: {'+'.join(map(str, doc['dice']))} = {doc['total']}  →  "
        f"{style.outcome(doc['outcome'])}{by}"
    )
    after = ()
    again = doc.get("danger_sense")
    if again:
        sensed = "senses the danger anyway" if again["success"] else "senses nothing"
        after = (
            f"  Danger Sense (secret): 3d6: {'+'.join(map(str, again['dice']))} = "
            f"{again['total']} vs Per {again['effective']}  →  {sensed}",
        )
    return RollLines(head, dice, after)


def _margin_words(doc: Mapping[str, Any]) -> str:
    """The margin in the sense the outcome has: "by 3" when the roll decided it, and the rule
    when the roll's number did (a 3 or 4 always succeeds, a 17 or 18 always fails), never a
    success "by" the amount it went over the skill (GURPS, 'Success Rolls')."""
    margin, total = doc["margin"], doc["total"]
    if doc["success"] and margin < 0:
        return f" (a {total} always succeeds: {-margin} over effective {doc['effective']})"
    if not doc["success"] and margin >= 0:
        under = f": {margin} under effective {doc['effective']}" if margin else ""
        return f" (a {total} always fails{under})"
    return f" by {abs(margin)}" if margin else ""


def _odds(
    skill: int,
    mods: tuple[int, ...],
    vs: int | None,
    contest: str,
    supernatural: bool,
    fright: bool,
    project: bool = False,
    supervisor: int | None = None,
    supervisor_bonus: int = 1,
    workers: int | None = None,
    influence: str | None = None,
    on_pc: bool = False,
    reaction_mod: int = 0,
) -> OddsReport:
    from tracker.errors import BadInput
    from tracker.systems.gurps import odds

    effective = skill + sum(mods)
    labels = {"a": "active side wins", "b": "other side wins"}
    if supervisor is not None and not project:
        raise BadInput("--supervisor is for a project day; add --project.")
    if workers is not None and not project:
        raise BadInput("--workers is for a project day; add --project.")
    if project:
        return _project_odds(effective, supervisor, supervisor_bonus, workers)
    if influence is not None:
        return _influence_odds(influence, effective, vs, on_pc, reaction_mod)
    if fright:
        return _fright_odds(skill, mods, labels)
    if vs is None:
        result = odds.success_roll(effective)
        title = f"GURPS success roll · effective skill {effective}"
    elif contest == "quick":
        result = odds.quick_contest(effective, vs)
        title = f"GURPS Quick Contest · {effective} vs {vs}"
    elif contest == "resistance":
        result = odds.resistance(effective, vs, supernatural=supernatural)
        title = f"GURPS Resistance Roll · {result.details['effective']} vs {vs}"
    else:
        result = odds.regular_contest(effective, vs)
        d = result.details
        title = f"GURPS Regular Contest · {d['a_normalised']} vs {d['b_normalised']}"
    return OddsReport(result, title, result.to_dict(), labels)


def _project_odds(
    effective: int, supervisor: int | None, supervisor_bonus: int, workers: int | None
) -> OddsReport:
    """A project day's odds: each worker's outcome and the team's expected man-hours."""
    from tracker.systems.gurps import odds, tables
    from tracker.systems.gurps.rules.projects import supervisor_modifier

    supervisor_modifier(supervisor_bonus)
    team = 1 if workers is None else workers
    result = odds.project_day(
        effective, supervisor=supervisor, bonus=supervisor_bonus, workers=team
    )
    led = (
        f" · supervisor {supervisor} (+{supervisor_bonus} to the team, not working)"
        if supervisor is not None
        else ""
    )
    who = f"worker {effective}" if team == 1 else f"{team} workers at {effective}"
    return OddsReport(
        result,
        f"GURPS project day · {who}{led}",
        result.to_dict(),
        lines=(
            "  man-hours: "
            + ", ".join(
                f"{name.replace('_', ' ')} {hours}" for name, hours in tables.PROJECT_HOURS.items()
            )
            + " (and 2d destroyed)",
            *(
                ()
                if team == 1
                else ("  the outcomes are each worker's roll; the expectations the team's day",)
            ),
        ),
    )


def _influence_odds(
    influence: str, effective: int, vs: int | None, on_pc: bool, reaction_mod: int
) -> OddsReport:
    """An influence roll's odds: the subject's reaction, or on a player's character the
    margin of victory left on them."""
    from tracker.errors import BadInput
    from tracker.systems.gurps import odds, tables
    from tracker.systems.gurps.rules.influence import REACTION_LEVELS

    if influence.strip().lower() not in {s.lower() for s in tables.INFLUENCE_SKILLS}:
        raise BadInput(
            f"{influence!r} is not an influence skill; use one of "
            f"{', '.join(tables.INFLUENCE_SKILLS)}."
        )
    if vs is None:
        raise BadInput("An influence roll needs the subject's Will: add --vs WILL.")
    result = odds.influence(influence, effective, vs, on_pc=on_pc, reaction=reaction_mod)
    d = result.details
    if on_pc:
        margins = [f"    by {m:>2}: {p:7.2%}" for m, p in d["margins"].items()]
        return OddsReport(
            result,
            f"GURPS influence on a player's character · {d['skill']} {d['effective']} vs Will {vs}",
            result.to_dict(),
            {"a": "influencer wins", "b": "no influence"},
            lines=("  margin of victory left on the character:", *margins),
        )
    # The reactions are outcomes of their own: their tones go with them, for scripts too.
    tones = {level: "good" if level in REACTION_LEVELS[4:] else "bad" for level in result.outcomes}
    return OddsReport(
        result,
        f"GURPS influence · {d['skill']} {d['effective']} vs Will {vs}",
        {**result.to_dict(), "tones": tones},
        {level: level for level in result.outcomes},
        tones=tones,
    )


def _fright_odds(skill: int, mods: tuple[int, ...], labels: dict[str, str]) -> OddsReport:
    """A Fright Check's odds: success, and each row of the Fright Check Table on a failure."""
    from tracker.systems.gurps import odds

    result = odds.fright(skill, sum(mods))
    d = result.details
    rows = [f"    {row:>3}: {p:7.2%}" for row, p in d["rows"].items()]
    capped = (
        f"{d['modified_will']} → {d['effective']} (Rule of 14)"
        if d["modified_will"] > d["effective"]
        else str(d["effective"])
    )
    return OddsReport(
        result,
        f"GURPS Fright Check · Will {capped}",
        result.to_dict(),
        labels,
        lines=("  fright table rows on a failure (share of all checks):", *rows),
    )


ODDS = OddsCommand(
    help="""GURPS: rolls, contests, Fright Checks, projects, influence.

    \b
    Examples:
      tracker odds gurps --skill 12
      tracker odds gurps --skill 14 --vs 12
      tracker odds gurps --skill 18 --vs 12 --contest resistance --supernatural
      tracker odds gurps --skill 15 --fright --mod -2

    A sense contest is a Quick Contest of Per with the sense's Acute bonus (Per 12 and Acute
    Vision 2 against Stealth 13); a project day is a team's (--workers), whose supervisor
    rolls once for them all; an influence roll reads a reaction, or on a player's character
    (--on-pc) the margin it leaves.

    \b
      tracker odds gurps --skill 12 --mod 2 --vs 13
      tracker odds gurps --skill 12 --project --workers 3 --supervisor 13
      tracker odds gurps --skill 15 --vs 11 --influence Diplomacy --reaction-mod 1
      tracker odds gurps --skill 14 --vs 12 --influence "Sex Appeal" --on-pc
    """,
    options=(
        OddsOption("--skill", "Effective skill (or Will for --fright).", required=True),
        OddsOption("--mod", "A modifier to add.", multiple=True, metavar="N", dest="mods"),
        OddsOption("--vs", "Contest: the other side's skill.", metavar="N"),
        OddsOption(
            "--contest",
            "The kind of contest.",
            kind=str,
            default="quick",
            choices=("quick", "resistance", "regular"),
            show_default=True,
        ),
        OddsOption("--supernatural", "Resistance: apply the Rule of 16.", is_flag=True),
        OddsOption("--fright", "A Fright Check: --skill is Will (Rule of 14).", is_flag=True),
        OddsOption("--project", "A project day: --skill is the worker's.", is_flag=True),
        OddsOption("--workers", "Project: the team's workers, each at --skill.", metavar="N"),
        OddsOption(
            "--supervisor",
            "Project: the Leadership of a supervisor who directs the team, not working.",
            metavar="N",
        ),
        OddsOption(
            "--supervisor-bonus",
            "Project: what the supervisor's success gives.",
            default=1,
            choices=None,
            show_default=True,
        ),
        OddsOption(
            "--influence",
            "An influence roll with this skill; --vs is the subject's Will.",
            kind=str,
            metavar="SKILL",
        ),
        OddsOption("--on-pc", "Influence: the subject is a player's character.", is_flag=True),
        OddsOption(
            "--reaction-mod",
            "Influence: reaction modifiers in all (to the roll, and Diplomacy's reaction).",
            default=0,
        ),
    ),
    compute=_odds,
)


def roll_remarks(event: EventPayload) -> list[str]:
    """What set a stored contest's result apart from its bare scores: scores a Regular Contest
    normalised, an attacker held to the Rule of 16, a resistance tie the defender wins, an
    attacker whose failed resistance roll left the defender nothing to roll."""
    from tracker.events.play import ContestRolled

    if not isinstance(event, ContestRolled):
        return []
    result = event.result
    if event.mode == "regular":
        before = (result["a_effective"], result["b_effective"])
        after = (result["a_normalised"], result["b_normalised"])
        if before == after:
            return []
        return [f"scores {before[0]} vs {before[1]} normalised to {after[0]} vs {after[1]}"]
    remarks = []
    if result.get("rule_of_16"):
        remarks.append(
            f"Rule of 16: {result['a_uncapped']} counts as {event.a.result['effective']}"
        )
    if event.mode == "resistance":
        if event.b is None:
            remarks.append("the attack failed, so there was nothing to resist")
        elif result.get("margin_of_victory") == 0:
            remarks.append("a tie goes to the resisting side")
    return remarks


INFLUENCE = "influence"
"""The mode an influence roll is stored under (``ContestRolled.mode``)."""


def contest_said(event: EventPayload, verdict: str) -> str | None:
    """An influence roll: who used which skill on whom, and the reaction it got (or, on a
    player's character, whether it swayed them and by how much)."""
    if event.mode != INFLUENCE:
        return None
    a, b = event.a.name, event.b_named
    if event.result.get("on_pc"):
        margin = event.result.get("modifier")
        held = f", {b} influenced (±{margin})" if margin else f", {b} not swayed"
        return f"{a} uses {event.a.trait} on {b}: {verdict}{held}"
    return f"{a} uses {event.a.trait} on {b}: {verdict}, reaction {event.result['level']}"


def _fright(e: FrightChecked, who: str) -> str:
    table = e.result.get("table")
    row = f", fright table row {table['row']}" if table else ""
    roll = e.result["roll"]
    dice = "+".join(map(str, roll["dice"])) + f" = {roll['total']}"
    verdict = by_margin(outcome_words(roll["outcome"]), roll["success"], roll["margin"])
    return f"{who} makes a Fright Check at {roll['effective']}: {dice} → {verdict}{row}"


def _awarded(e: PointsAwarded, who: str) -> str:
    return f"{who} is awarded {plural(e.points, 'character point')}"


def _bought_up(e: RollBoughtUp, who: str) -> str:
    before, after = outcome_words(e.from_outcome), outcome_words(e.to_outcome)
    return f"{who} buys up a roll: {before} → {after}"


def _trait(e: TraitAssigned, who: str) -> str:
    return f'{who} gains the {e.kind} "{e.name}"'


def _project(e: ProjectStarted, who: str) -> str:
    return f'project "{e.name}" started ({e.man_hours} man-hours)'


EVENT_WORDS: Mapping[type, Callable[[Any, str], str]] = {
    FrightChecked: _fright,
    PointsAwarded: _awarded,
    RollBoughtUp: _bought_up,
    TraitAssigned: _trait,
    ProjectStarted: _project,
}
