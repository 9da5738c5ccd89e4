"""Re-deciding stored rolls: ``tracker verify`` runs the rules again on each roll's recorded
inputs and dice, and reports any event whose stored outcome differs."""

from __future__ import annotations

from typing import Any

from tracker.errors import TrackerError
from tracker.events import StoredEvent
from tracker.events.catalog import Unreadable
from tracker.events.play import ContestRolled, FrightChecked, RollMade


def redecide(event: StoredEvent) -> str | None:
    """None when the rules still give the stored outcome; else a sentence saying what differs."""
    if isinstance(event.data, Unreadable):
        return f"it cannot be read: {event.data.reason}"
    check = _CHECKS.get(event.type)
    if check is None:
        return None
    try:
        return check(event.data)
    except (TrackerError, KeyError, TypeError, ValueError) as exc:
        return f"its recorded inputs no longer decide ({exc})"


def _differs(what: str, stored: Any, now: Any) -> str | None:
    if stored == now:
        return None
    return f"{what} is stored as {stored} but the rules give {now}"


def _roll(payload: RollMade) -> str | None:
    system, inputs, result = payload.system, payload.inputs, payload.result
    dice = payload.dice
    if system == "gloom":
        from tracker.systems.gloom import rules as gloom

        decided = gloom.decide(inputs["rank"], inputs["dl"], dice, mode=inputs["mode"])
        return _differs("the outcome", result["outcome"], decided.outcome)
    if system == "gurps":
        return _gurps(result, inputs["base"], inputs["modifiers"], dice)
    from tracker.systems.glintlock import rules as glintlock

    backlash = result.get("backlash")
    decided = glintlock.decide(
        inputs["stat"],
        dice,
        trained=inputs["trained"],
        tags=[glintlock.Tag(t["value"], t["kind"]) for t in inputs["tags"]],
        stress=inputs["stress"],
        bonus=inputs["bonus"],
        spell=inputs["spell"],
        caster_class=inputs["caster_class"],
        backlash=None if backlash is None else backlash["dice"],
        position_steps=inputs["position_steps"],
    )
    return _differs("the outcome", result["outcome"], decided.outcome) or _differs(
        "the position", result["position"], decided.position
    )


def _gurps(result: dict[str, Any], base: int, modifiers, dice) -> str | None:
    from tracker.systems.gurps import rules as gurps

    decided = gurps.decide_roll(
        base, [gurps.Modifier(m["value"], m["label"]) for m in modifiers], dice
    )
    return _differs("the outcome", result["outcome"], decided.outcome)


def _fright(payload: FrightChecked) -> str | None:
    from tracker.systems.gurps import rules as gurps

    roll = payload.result["roll"]
    problem = _gurps(roll, roll["base"], roll["modifiers"], roll["dice"])
    table = payload.result.get("table")
    if problem or table is None:
        return problem
    total = sum(table["dice"]) + table["margin_of_failure"]
    return _differs("the fright table total", table["total"], total) or _differs(
        "the fright table row", table["row"], gurps.FRIGHT_TABLE.lookup(total).first
    )


def _contest(payload: ContestRolled) -> str | None:
    for side in (payload.a, payload.b):
        if side is None:
            continue
        result = side.result
        if payload.system == "gurps":
            problem = _gurps(result, result["base"], result["modifiers"], result["dice"])
        else:
            from tracker.systems.gloom import rules as gloom

            decided = gloom.decide(
                result["rank"],
                result["dl"],
                tuple(result["dice"]),
                mode=result["mode"],
                above=result["above"],
            )
            problem = _differs(f"{side.name}'s outcome", result["outcome"], decided.outcome)
        if problem:
            return problem
    if payload.mode == "influence":
        return _influence(payload)
    return None


def _influence(payload: ContestRolled) -> str | None:
    """An influence roll decided again from both sides' dice (and Diplomacy's reaction dice):
    who won, the level the contest gave, the reaction, and the reading that stands."""
    from tracker.systems.dice import PhysicalDice
    from tracker.systems.gurps import rules as gurps

    if payload.b is None:
        return "an influence roll records no roll for its subject"
    result, a, b = payload.result, payload.a.result, payload.b.result
    reaction = result.get("reaction")
    decided = gurps.influence_roll(
        result["skill"],
        a["effective"],
        b["effective"],
        dice_a=PhysicalDice(a["dice"]),
        dice_b=PhysicalDice(b["dice"]),
        reaction_dice=None if reaction is None else PhysicalDice(reaction["dice"]),
        reaction_modifiers=[]
        if reaction is None
        else [gurps.Modifier(m["value"], m["label"]) for m in reaction["modifiers"]],
    )
    winner = decided.contest.winner if decided.contest else None
    return (
        _differs("the winner", payload.winner, winner)
        or _differs("the contest's reading", result["contest_level"], decided.contest_level)
        or _differs(
            "the reaction roll",
            None if reaction is None else reaction["level"],
            None if decided.reaction is None else decided.reaction.level,
        )
        or _differs("the reading that stands", result["level"], decided.level)
    )


_CHECKS = {"RollMade": _roll, "FrightChecked": _fright, "ContestRolled": _contest}
ROLL_TYPES = frozenset(_CHECKS)
