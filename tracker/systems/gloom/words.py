"""Gloom's results in the words the table uses: a check and its window of success, and
``tracker odds gloom``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracker.events.catalog import EventPayload
from tracker.systems.base import OddsCommand, OddsOption, OddsReport, RollLines, Style

MODE_WORDS = {"normal": "one d20", "advantage": "advantage", "disadvantage": "disadvantage"}
ODDS_DICE = {"normal": "one d20", "advantage": "2d20 keep best", "disadvantage": "2d20 keep worst"}


def d20_words(dice: list[int], kept: int) -> str:
    """'d20: 12', or both dice and the one kept: 'd20: 7, 19 → 19'."""
    return f"d20: {dice[0]}" if len(dice) == 1 else f"d20: {', '.join(map(str, dice))} → {kept}"


def dl_words(dl: int, named: str | None, kind: str) -> str:
    """A check's DL as its line says it: "DL 10 (hard)" when given by name, and "DL 0
    (routine)" for a check at DL 0, the default of a roll given no --dl.

    Gloom, 'Example Modifiers (Difficulty)': "Routine | 0 | Opening a civilian door,
    shooting a target in the open. (Usually no need for a roll)." tracker/systems/gloom/RULINGS.md:
    "DL 0: the output notes that a routine task usually needs no roll." So a roll the GM gave
    no DL says in its own line that it was taken as routine. A panic check is at DL 0 by the
    ruling, not by the task, and is not called routine.
    """
    if named:
        return f"DL {dl} ({named})"
    if dl == 0 and kind != "panic":
        return "DL 0 (routine)"
    return f"DL {dl}"


def render_roll(doc: Mapping[str, Any], style: Style) -> RollLines:
    """A check: the rank, the DL and the window they make, the dice and the outcome, and why
    it rolled with advantage or disadvantage."""
    faces = doc["window"].get("faces") or []
    span = f"window {faces[0]}-{faces[-1]}" if faces else "no window"
    dl = dl_words(doc["dl"], doc.get("difficulty"), doc.get("kind", "check"))
    head = (
        f"{style.bold(doc['character'])} · {doc['trait']} {doc['effective']} · "
        f"{dl} · {span} · {MODE_WORDS[doc['mode']]}"
    )
    dice = f"  {d20_words(doc['dice'], doc['kept'])}  →  {style.outcome(doc['outcome'])}"
    after = (style.dim(f"  {doc['mode']}: {'; '.join(doc['reasons'])}"),) if doc["reasons"] else ()
    return RollLines(head, dice, after)


def _odds(
    rank: int,
    dl: int | str,
    advantage: bool,
    disadvantage: bool,
    vs: int | None,
    vs_dl: int,
    vs_advantage: bool,
    vs_disadvantage: bool,
    dynamic: bool,
    tie_rule: str,
) -> OddsReport:
    from tracker.systems.gloom import odds
    from tracker.systems.gloom import rules as gloom

    dl, _ = gloom.difficulty(dl, rank)
    if vs is None:
        result = odds.check(rank, dl, advantage=advantage, disadvantage=disadvantage)
        window = gloom.window(rank, dl)
        return OddsReport(
            result,
            f"Gloom · rank {rank} · DL {dl} · {ODDS_DICE[result.details['mode']]}",
            {**result.to_dict(), "window": window.to_dict()},
            notes=window.notes,
        )
    modes = {
        "a_advantage": advantage,
        "a_disadvantage": disadvantage,
        "b_advantage": vs_advantage,
        "b_disadvantage": vs_disadvantage,
    }
    if dynamic:
        result = odds.dynamic(rank, vs, base_dl=dl, defender_dl=vs_dl, **modes)
        title = f"Gloom dynamic floor · attacker {rank} vs defender {vs}"
    else:
        result = odds.contest(rank, vs, a_dl=dl, b_dl=vs_dl, tie_rule=tie_rule, **modes)
        title = f"Gloom contested roll · {rank} vs {vs} · ties: {tie_rule}"
    labels = {"a": "attacker wins", "b": "defender wins"}
    return OddsReport(result, title, result.to_dict(), labels)


ODDS = OddsCommand(
    help="""Gloom: each outcome of a check, or who wins a contested roll.

    \b
    Examples:
      tracker odds gloom --rank 14 --dl 5
      tracker odds gloom --rank 14 --dl hard
      tracker odds gloom --rank 16 --vs 14
      tracker odds gloom --rank 18 --vs 14 --dynamic
      tracker odds gloom --rank 14 --vs 16 --vs-advantage
    """,
    options=(
        OddsOption("--rank", "Skill or attribute rank.", required=True),
        OddsOption(
            "--dl",
            "Difficulty level (floor): a number, or routine, standard, hard, extreme, impossible.",
            kind=str,
            default="0",
            show_default=True,
        ),
        OddsOption("--advantage", "Roll 2d20, keep the best (automatic at 21+).", is_flag=True),
        OddsOption("--disadvantage", "Roll 2d20, keep the worst.", is_flag=True),
        OddsOption("--vs", "Contested: the defender's rank.", metavar="RANK"),
        OddsOption("--vs-dl", "Contested: the defender's DL.", default=0),
        OddsOption("--vs-advantage", "Contested: the defender has advantage.", is_flag=True),
        OddsOption("--vs-disadvantage", "Contested: the defender has disadvantage.", is_flag=True),
        OddsOption("--dynamic", "Contested: the defender's die sets the floor.", is_flag=True),
        OddsOption(
            "--tie-rule",
            "Contested: who wins equal dice.",
            kind=str,
            default="stat",
            choices=("stat", "defender"),
        ),
    ),
    compute=_odds,
)


def roll_remarks(event: EventPayload) -> list[str]:
    """A stored check's DL and what made it roll two dice; a stored contest's floors and which
    rule settled it (higher die, only one side succeeded, the tie rule)."""
    from tracker.events.play import ContestRolled, RollMade

    if isinstance(event, ContestRolled):
        sides = [side for side in (event.a, event.b) if side is not None]
        remarks = [f"{side.name}'s DL {side.inputs['dl']}" for side in sides if side.inputs["dl"]]
        remarks += [
            f"{side.name} rolls with {side.result['mode']}"
            for side in sides
            if side.result.get("mode", "normal") != "normal"
        ]
        above = event.a.result.get("above")
        if event.mode == "dynamic" and above:
            remarks.append(f"{event.a.name} must roll above the defence's {above}")
        return remarks + ([event.result["reason"]] if event.result.get("reason") else [])
    if not isinstance(event, RollMade):
        return []
    remarks = [dl_words(event.inputs["dl"], event.inputs.get("difficulty"), event.kind)]
    if event.result.get("mode", "normal") != "normal":
        reasons = event.inputs.get("reasons") or []
        remarks.append(event.result["mode"] + (f" ({'; '.join(reasons)})" if reasons else ""))
    return remarks
