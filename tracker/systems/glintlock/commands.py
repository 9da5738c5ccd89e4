"""Glintlock's own commands: Mettle spent and gained, the GM's Threat gained and spent outside a
roll, story tags, and the breaking point resolved; each with the words the terminal shows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from tracker.errors import BadInput, Refused
from tracker.systems.acts import Acted, Entry, Table
from tracker.systems.base import Style, condition_named
from tracker.systems.glintlock import rules as glintlock
from tracker.systems.glintlock.declared import (
    AddTag,
    GainMettle,
    ResolveBreakingPoint,
    SpendMettle,
    ThreatAdd,
    ThreatSpend,
)
from tracker.systems.glintlock.events import (
    BreakingPointResolved,
    MettleGained,
    MettleSpent,
    StoryTagGained,
    ThreatAdded,
    ThreatSpent,
)

# -- Mettle ---------------------------------------------------------------------------------------


def spend_mettle(table: Table, state: Any, request: SpendMettle) -> Acted:
    """Spend Mettle on an action, priced for the character (doubled when strained)."""
    ch = table.character(request.character, state)
    # As the feed says it ("steel yourself") or as the command line spells it: the same spend.
    action = "-".join(request.action.casefold().split())
    suppress = None
    if action == "suppress-condition":
        suppress = condition_named(ch, request.condition)
    waiting = {
        "steel-yourself": bool(ch.own.pending_bonus),
        "advantage-die": bool(ch.own.pending_steps),
    }
    glintlock.one_at_a_time(action, waiting=waiting.get(action, False), name=ch.name)
    spent = glintlock.spend_mettle(
        ch.own.mettle, action, stress=ch.stress, base=request.cost, name=ch.name
    )
    payload = MettleSpent(
        character_id=ch.character_id,
        action=action,
        base=spent.base,
        cost=spent.cost,
        doubled=spent.doubled,
        note=request.note,
        condition=suppress,
    )
    doc = {"character": ch.name, **spent.to_dict(), "note": request.note, "condition": suppress}
    return Acted((Entry(payload),), doc)


def spent_words(doc: Mapping[str, Any], style: Style) -> list[str]:
    doubled = " (doubled: strained)" if doc["doubled"] else ""
    action = doc["action"]
    what = {
        "steel-yourself": ": +2 on the next roll",
        "advantage-die": ": one step better position on the next roll",
        "suppress-condition": f": {doc.get('condition')} suppressed on the next roll",
    }.get(action, "")
    return [
        f"{doc['character']} spends {doc['cost']} Mettle{doubled} on "
        f"{action.replace('-', ' ')} ({doc['after']} left){what}."
    ]


def gain_mettle(table: Table, state: Any, request: GainMettle) -> Acted:
    """Gain Mettle besides a roll: a deep cut, leaning into a condition, a weakness invoked."""
    ch = table.character(request.character, state)
    action = request.action
    if action == "lean-into-condition" and not ch.conditions:
        raise Refused(
            f"{ch.name} has no condition to lean into; set one with "
            f"`tracker condition set {ch.name} NAME` first."
        )
    change = glintlock.gain_mettle(ch.own.mettle, action)
    payload = MettleGained(
        character_id=ch.character_id, action=action, amount=change.delta, note=request.note
    )
    doc = {"character": ch.name, "action": action, **change.to_dict()}
    return Acted((Entry(payload),), doc)


def gained_words(doc: Mapping[str, Any], style: Style) -> list[str]:
    lost = " (at 6 already: lost)" if doc["lost"] else ""
    return [f"{doc['character']} gains 1 Mettle ({doc['after']}){lost}."]


# -- Threat ---------------------------------------------------------------------------------------


def threat_add(table: Table, state: Any, request: ThreatAdd) -> Acted:
    """Add Threat outside a roll.

    Glintlock, 'Mettle & Threat': Threat is "Gained on Weak Hits (+1), Misses (+2), Nat 1s
    (+3), and per exploration turn in danger", and the GM's spends are what lower it ("Free
    (0) ... Soft (1) ... Hard (2) ... Dire (3)"). So a negative addition is refused with the
    sentence that names those: a spend, or undoing the addition.
    """
    amount = request.amount
    if amount < 0:
        raise BadInput(
            f"Threat is not added as {amount}: it goes down only when the GM spends it "
            "(`tracker threat spend soft`, hard or dire), or undo an addition with "
            "`tracker undo EVENT`."
        )
    if amount < 1:
        raise BadInput(
            f"Threat is added in whole points of 1 or more, not {amount}; give 1 or more, "
            "like `tracker threat add 1`."
        )
    change = glintlock.apply_track(state.own.threat, amount)
    payload = ThreatAdded(amount=amount, reason=request.reason)
    return Acted((Entry(payload),), {"reason": request.reason, **change.to_dict()})


def threat_added_words(doc: Mapping[str, Any], style: Style) -> list[str]:
    lost = f" ({doc['lost']} lost past 6)" if doc["lost"] else ""
    return [f"Threat {doc['before']} → {doc['after']}{lost}."]


def threat_spend(table: Table, state: Any, request: ThreatSpend) -> Acted:
    spent = glintlock.spend_threat(state.own.threat, request.tier)
    payload = ThreatSpent(tier=request.tier, cost=spent.cost, note=request.note)
    return Acted((Entry(payload),), {"note": request.note, **spent.to_dict()})


def threat_spent_words(doc: Mapping[str, Any], style: Style) -> list[str]:
    # In play Threat at 4 or more always has its floor open, so the spend the rules say meets
    # it is the spend that discharges it.
    met = " Spending floor met." if doc["discharges_floor"] else ""
    return [f"Threat {doc['before']} → {doc['after']}.{met}"]


# -- story tags -----------------------------------------------------------------------------------


def tag_add(table: Table, state: Any, request: AddTag) -> Acted:
    ch = table.character(request.character, state)
    tag = request.name.strip()
    if not tag:
        raise BadInput("Name the story tag, like 'the old map'.")
    payload = StoryTagGained(character_id=ch.character_id, name=tag)
    return Acted((Entry(payload),), {"character": ch.name, "story_tag": tag})


def tag_added_words(doc: Mapping[str, Any], style: Style) -> list[str]:
    return [f'{doc["character"]} holds the story tag "{doc["story_tag"]}".']


# -- the breaking point ---------------------------------------------------------------------------


def breaking_point_taken(values: dict[str, Any]) -> dict[str, Any]:
    """The command line's one or two texts as the result (if given) and the consequence."""
    texts = values.pop("texts")
    if not texts or len(texts) > 2:
        raise BadInput("give RESULT and CONSEQUENCE (quote each), or CONSEQUENCE alone")
    result, consequence = (None, texts[0]) if len(texts) == 1 else texts
    return {**values, "result": result, "consequence": consequence}


def breaking_point(table: Table, state: Any, request: ResolveBreakingPoint) -> Acted:
    """Resolve a breaking point: the table's result (given, or rolled on the campaign's breaking
    table), the lasting consequence, and stress cleared."""
    result, consequence = request.result, request.consequence
    ch = table.character(request.character, state)
    open_ = state.open_obligations("breaking-point", ch.character_id)
    if not open_:
        raise Refused(
            f"{ch.name} is not at the breaking point (stress {ch.stress}); add stress "
            f"with `tracker stress {ch.name} +N` first if it is due."
        )
    if not consequence.strip() or (result is not None and not result.strip()):
        raise BadInput("Give the breaking table's result and the lasting consequence.")
    rolled: dict[str, Any] | None = None
    text = (result or "").strip()
    if result is None:
        rolled = _roll_breaking_table(state, request.dice, request.seed)
        text = rolled["text"]
    elif request.dice or request.seed:
        raise BadInput("--dice and --seed roll the campaign's table; leave out RESULT.")
    clears = glintlock.BREAKING_POINT_CLEARS
    payload = BreakingPointResolved(
        character_id=ch.character_id,
        result=text,
        consequence=consequence.strip(),
        cleared=clears,
        obligation=open_[0].id,
        roll=msgspec.UNSET if rolled is None else rolled,
    )
    doc = {
        "character": ch.name,
        "result": text,
        "roll": rolled,
        "consequence": consequence.strip(),
        "stress_after": max(ch.stress - clears, 0),
    }
    return Acted((Entry(payload),), doc)


def _roll_breaking_table(state: Any, dice: str | None, seed: str | None) -> dict[str, Any]:
    """A roll on the campaign's breaking table: the dice, their total and the row's text."""
    from tracker.systems.dice import source_for

    table = state.setting("breaking_table")
    if table is None:
        raise BadInput(
            f'"{state.name}" has no breaking table of its own; give the result as the table '
            "reads (`tracker breaking-point NAME RESULT CONSEQUENCE`), or load one with "
            "`tracker campaign set --breaking-table FILE`."
        )
    count, faces = (int(n) for n in table["dice"].split("d"))
    rolled = source_for(dice, seed).roll(count, faces, "the breaking table")
    total = sum(rolled)
    row = next(r for r in table["rows"] if r["first"] <= total <= r["last"])
    return {"dice": list(rolled), "total": total, "text": row["text"]}


def resolved_words(doc: Mapping[str, Any], style: Style) -> list[str]:
    rolled = ""
    if doc["roll"]:
        r = doc["roll"]
        shown = "+".join(map(str, r["dice"])) + (f" = {r['total']}" if len(r["dice"]) > 1 else "")
        rolled = f"breaking table {shown}: "
    return [
        f"{doc['character']}: {rolled}{doc['result'].rstrip('.')}; "
        f"lasting: {doc['consequence'].rstrip('.')}. "
        f"Stress {doc['stress_after']}."
    ]
