"""GURPS's own commands: extra effort and the Fright Check (rolls against Will) here; influence
rolls (``influence``), major projects (``projects``), and character points and fright traits
(``points``) beside them.

Each is a ``SystemCommand`` (``tracker.systems.acts``) declared in ``declared``, which names the
functions here: a campaign of another system is refused it, naming GURPS, and what it decides is
logged as every command's events are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracker.errors import Refused
from tracker.events import play as ev
from tracker.events.effects import Effect, TrackChange
from tracker.events.envelope import new_event_id
from tracker.systems.acts import Acted, Entry, Table
from tracker.systems.base import CampaignView, CharacterView, Terminal
from tracker.systems.dice import source_for
from tracker.systems.gurps import play
from tracker.systems.gurps.declared import Effort, Fright
from tracker.systems.gurps.events import FrightChecked
from tracker.systems.gurps.rules import feats
from tracker.systems.gurps.rules import fright as frights
from tracker.systems.gurps.rules.fright import fright_modifier
from tracker.systems.gurps.rules.fright_table import fright_table_from_rows, rulebook_table
from tracker.words import kept_secret

# -- extra effort ---------------------------------------------------------------------------------


def effort_asked(request: Effort) -> None:
    """Dice that cannot be read are refused before anything else."""
    source_for(request.dice, request.seed)


def extra_effort(table: Table, state: Any, request: Effort) -> Acted:
    """Extra effort: a Will roll (or a Will-based skill's, ``skill``, as the rulebook allows:
    which skills are Will-based is the GM's call) at -1 per 5% more (rounded up), +5 when
    motivated. It always costs 1 FP, and a critical failure as many HP as well."""
    source = source_for(request.dice, request.seed)
    dice_source, seed_text = table.dice_recorded(source)
    ch = table.character(request.character, state)
    skill = request.skill
    trait = skill or "Will"
    will = play.base_skill(ch, trait, play.defaults_for(ch, trait))
    result = feats.extra_effort(
        will.value,
        request.percent,
        dice=source,
        motivated=request.motivated,
        machine=ch.has_trait("Machine"),
    )
    roll = result.roll
    effects: list[Effect] = [TrackChange("fp", -result.fp_cost, "extra effort")]
    if result.hp_loss:
        effects.append(TrackChange("hp", -result.hp_loss, "extra effort, critical failure"))
    inputs = play.roll_inputs(
        will, roll.modifiers, percent=request.percent, motivated=request.motivated
    )
    stored = {
        **roll.to_dict(),
        "granted": result.granted,
        "fp_cost": result.fp_cost,
        "hp_loss": result.hp_loss,
    }
    named = (ch.skill_name(skill) or skill) if skill else "Will"
    payload = ev.RollMade(
        character_id=ch.character_id,
        system=state.system,
        trait=named,
        kind="extra-effort",
        inputs=inputs,
        dice_source=dice_source,
        dice=tuple(roll.dice),
        result=stored,
        effects=tuple(effects),
        seed=seed_text,
    )
    event_id = new_event_id()
    doc = {
        "event_id": event_id,
        "system": state.system,
        "character": ch.name,
        **_effort_doc(named, will.value, inputs, result),
        "percent": request.percent,
        "granted": result.granted,
        "secret": request.secret,
        "effects": table.effects_shown(state, ch, effects),
    }
    return Acted((Entry(payload, "gm" if request.secret else "public", event_id),), doc)


def _effort_doc(named: str, base: int, inputs: Mapping[str, Any], result: Any) -> dict[str, Any]:
    """What extra effort's document says of its roll: the trait and its base, the modifiers
    (the effort's own among them), the dice and the outcome."""
    roll = result.roll
    return {
        "kind": "extra-effort",
        "trait": named,
        "base": base,
        "modifiers": inputs["modifiers"],
        "effective": roll.effective,
        "dice": list(roll.dice),
        "kept": roll.total,
        "outcome": roll.outcome,
        "success": roll.success,
        "margin": roll.margin,
    }


def effort_lines(d: Mapping[str, Any], style: Terminal) -> list[str]:
    mods = "".join(f" {m['value']:+d} {m['label']}" for m in d["modifiers"])
    head = (
        f"{style.bold(d['character'])} · extra effort +{d['percent']}% · "
        f"{d['trait']} {d['base']}{mods}"
    )
    dice = "+".join(map(str, d["dice"]))
    verdict = "granted" if d["granted"] else "not granted"
    return [
        head,
        f"  3d6 {dice} = {d['kept']} vs {d['effective']} → {style.outcome(d['outcome'])}"
        f" ({verdict})",
        "  " + ", ".join(style.effect_words(d["effects"], d["character"])),
    ]


# -- the Fright Check -----------------------------------------------------------------------------


def fright_check(table: Table, state: Any, request: Fright) -> Acted:
    """A Fright Check, and on failure the fright table with its effects."""
    ch = table.character(request.character, state)
    will = _will(ch)
    threat, dice = request.threat, request.dice
    modifiers = [play.fright_modifier(m) for m in request.mods]
    modifiers += play.fright_traits(ch)
    exposures, since = _exposures(state, ch, threat, table.now())
    if exposures:
        modifiers.append(fright_modifier("previous-exposure", exposures))
    # A secret event about the character in the last 24 hours could be a check against this
    # threat, which its modifier would show: this one is secret as well, whatever threat (or
    # other thing) the secret one was about.
    after_a_secret = state.unrevealed(ch.character_id, since=since) if threat else []
    hidden = request.secret or bool(after_a_secret)
    shared = source_for(None, request.seed)
    rows = state.setting("fright_table")
    own_table = fright_table_from_rows(rows) if rows else None
    result = frights.fright_check(
        will,
        modifiers,
        dice=source_for(dice, None) if dice else shared,
        table_dice=source_for(request.table_dice, None, "--table-dice")
        if request.table_dice
        else shared,
        effect_dice=source_for(request.effect_dice, None, "--effect-dice")
        if request.effect_dice
        else shared,
        unfazeable=ch.has_trait("Unfazeable"),
        ht=ch.stat("HT"),
        table=own_table or rulebook_table(),
        character=ch.name,
    )
    effects, notes = play.fright_effects(ch, result)
    inputs = {
        "will": will,
        "modifiers": [m.to_dict() for m in modifiers],
        "ht": ch.stat("HT"),
        "exposures": exposures,
    }
    if own_table is not None:
        # Looked up in the campaign's own table: `verify` then holds the row to it.
        inputs["table"] = "campaign"
    payload = FrightChecked(
        character_id=ch.character_id,
        inputs=inputs,
        dice_source="physical" if dice else shared.kind,
        result=result.to_dict(),
        effects=tuple(effects),
        threat=threat,
    )
    if hidden and not request.secret:
        notes = [*notes, kept_secret(after_a_secret, "a check against this threat")]
    event_id = new_event_id()
    doc = {
        "event_id": event_id,
        "system": state.system,
        "character": ch.name,
        **_checked(will, result),
        "effects": [e.to_json() for e in effects],
        "notes": notes,
        "secret": hidden,
    }
    return Acted((Entry(payload, "gm" if hidden else "public", event_id),), doc)


def _checked(will: int, result: Any) -> dict[str, Any]:
    """What a Fright Check's document says of the roll: the Will it was made against, the
    Rule of 14, the dice and, on a failure, the table's row."""
    roll = result.roll
    return {
        "trait": "Fright Check",
        "will": will,
        "modified_will": result.modified_will,
        "effective": result.effective,
        "rule_of_14": result.rule_of_14,
        "modifiers": [m.to_dict() for m in roll.modifiers],
        "dice": list(roll.dice),
        "kept": roll.total,
        "total": roll.total,
        "outcome": roll.outcome,
        "success": roll.success,
        "margin": roll.margin,
        "table": _looked_up(result.table),
    }


def _will(ch: CharacterView) -> int:
    """What a Fright Check rolls against: Will, or IQ on a sheet without Will."""
    will = ch.stat("Will")
    if will is None:
        will = ch.stat("IQ")
    if will is None:
        raise Refused(f"{ch.name}'s sheet has no Will or IQ; add one (--stat Will=N).")
    return will


def _looked_up(row: Any) -> dict[str, Any] | None:
    """The Fright Check Table's row a failure looked up, as the command's document shows it;
    None for a success, which looks up nothing."""
    if row is None:
        return None
    return {
        "dice": list(row.dice),
        "total": row.total,
        "row": row.row,
        "text": row.text,
        "margin_of_failure": row.margin_of_failure,
        "effects": [e.to_dict() for e in row.effects],
    }


def _exposures(
    state: CampaignView, ch: CharacterView, threat: str | None, now: str
) -> tuple[int, str]:
    """Earlier Fright Checks against the same threat within 24 hours of ``now``, counted from
    the log, and the time 24 hours back (ISO)."""
    import pendulum

    since = pendulum.parse(now).subtract(hours=24)
    if not threat:
        return 0, since.isoformat()
    counted = [
        x
        for x in state.own.exposures
        if x["character_id"] == ch.character_id
        and x["threat"].casefold() == threat.casefold()
        and pendulum.parse(x["at"]) >= since
    ]
    return len(counted), since.isoformat()


def fright_lines(d: Mapping[str, Any], style: Terminal) -> list[str]:
    mods_text = "".join(f" {m['value']:+d} {m['label']}" for m in d["modifiers"])
    cap = " (Rule of 14)" if d["rule_of_14"] else ""
    lines = [
        f"{style.bold(d['character'])} · Fright Check · Will {d['will']}{mods_text} = "
        f"{d['effective']}{cap}",
        f"  3d6: {'+'.join(map(str, d['dice']))} = {d['total']}  →  {style.outcome(d['outcome'])}",
    ]
    if d["table"]:
        t = d["table"]
        lines.append(
            f"  fright table: {'+'.join(map(str, t['dice']))} + {t['margin_of_failure']} "
            f"(the margin of failure) = "
            f"{t['total']} → row {t['row']}: {t['text']}"
        )
    effects = style.effect_words(d["effects"], d["character"])
    if effects:
        lines.append("  " + "  ".join(effects))
    lines += [style.dim(f"  {n}") for n in d["notes"]]
    return lines
