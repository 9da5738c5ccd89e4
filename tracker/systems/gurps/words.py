"""GURPS's results in the words the table uses: a success roll with its modifiers, and
``tracker odds gurps``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracker.systems.base import OddsCommand, OddsOption, OddsReport, RollLines, Style


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
    success "by" the amount it went over the skill (gurps.md, 'Success Rolls')."""
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
) -> OddsReport:
    from tracker.systems.gurps import odds

    effective = skill + sum(mods)
    labels = {"a": "active side wins", "b": "other side wins"}
    if fright:
        result = odds.fright(skill, sum(mods))
        d = result.details
        rows = [f"    {row:>3}: {p:7.2%}" for row, p in d["rows"].items()]
        return OddsReport(
            result,
            f"GURPS Fright Check · Will {d['modified_will']} → {d['effective']} (Rule of 14)",
            result.to_dict(),
            labels,
            lines=("  fright table rows on a failure (share of all checks):", *rows),
        )
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


ODDS = OddsCommand(
    help="""GURPS: each outcome of a 3d6 success roll, a contest, or a Fright Check.

    \b
    Examples:
      tracker odds gurps --skill 12
      tracker odds gurps --skill 14 --vs 12
      tracker odds gurps --skill 18 --vs 12 --contest resistance --supernatural
      tracker odds gurps --skill 15 --fright --mod -2
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
    ),
    compute=_odds,
)


def roll_remarks(event: Any) -> list[str]:
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
