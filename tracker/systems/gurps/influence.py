"""GURPS's influence roll (``tracker influence``): a Quick Contest of an influence skill against
the subject's Will, read as the subject's reaction (GURPS, 'Influence Rolls')."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracker.errors import BadInput
from tracker.events import play as ev
from tracker.events.envelope import new_event_id
from tracker.systems.acts import Acted, Entry, Table
from tracker.systems.base import Side, Terminal, contest_roll_doc, contest_side
from tracker.systems.dice import source_for
from tracker.systems.gurps import play, tables
from tracker.systems.gurps.declared import Influence
from tracker.systems.gurps.rules.influence import influence_roll
from tracker.systems.gurps.rules.success import effective_skill
from tracker.words import kept_secret


def influence(table: Table, state: Any, request: Influence) -> Acted:
    """An influence roll: a Quick Contest of the character's influence skill against the
    subject's Will (a character, or a name and a Will score), read as the subject's reaction.

    Diplomacy also rolls a reaction and takes the better of the two. A subject with Slave
    Mentality complies without a roll, which is logged as a note.

    A player's character as the subject ('Influencing PCs') reads no reaction: a win puts
    the margin of victory on that character as a condition, "influenced by NAME", which
    rolls take with ``--mod influence:NAME`` until the GM clears it.
    """
    a_side, b_side, on_pc, complies, wants = _parties(table, state, request)
    if complies:
        result = influence_roll(
            request.skill, 0, 0, dice_a=None, dice_b=None, slave_mentality=True, **wants
        )
        text = f"{b_side.name} complies with {a_side.name} (Slave Mentality): no roll."
        doc = {"influence": result.to_dict(), "note": text, "effects": []}
        return Acted((Entry(ev.NoteAdded(text=text)),), doc)
    return _rolled(state, request, a_side, b_side, on_pc, wants)


def _parties(
    table: Table, state: Any, request: Influence
) -> tuple[Side, Side, bool, bool, dict[str, bool]]:
    """The influencer's side and the subject's; whether the subject is a player's character;
    whether it complies without a roll (Slave Mentality); and the traits the roll reads."""
    skill = request.skill
    if skill.strip().lower() not in {s.lower() for s in tables.INFLUENCE_SKILLS}:
        raise BadInput(
            f"{skill!r} is not an influence skill; use one of {', '.join(tables.INFLUENCE_SKILLS)}."
        )
    a_side = table.side(state, request.character, skill)
    if a_side.character is None:
        raise BadInput(f"The influencer must be a character; {request.character!r} is not one.")
    b_side = table.side(state, request.subject, request.will)
    # The sheets speak for themselves; the flags are for a subject who has no sheet.
    subject_ch, influencer = b_side.character, a_side.character

    def subject_has(trait: str, flag: bool) -> bool:
        return flag or (subject_ch is not None and subject_ch.has_trait(trait))

    wants = {
        "indomitable": subject_has("Indomitable", request.indomitable),
        "unfazeable": subject_has("Unfazeable", request.unfazeable),
        "empathy": request.empathy or influencer.has_trait("Empathy"),
    }
    on_pc = subject_ch is not None and not subject_ch.npc
    if on_pc and subject_ch is influencer:
        raise BadInput(f"{influencer.name} cannot influence themselves; name another.")
    # The influencer's reaction modifiers bear on the influence roll itself, so they decide
    # nothing for a player: only a reaction roll and compliance would.
    if on_pc and (request.reaction_dice or request.slave_mentality):
        given = "--slave-mentality" if request.slave_mentality else "--reaction-dice"
        raise BadInput(
            f"{subject_ch.name} is a player's character, who reacts as the player decides; "
            f"leave out {given} (or mark an NPC with `tracker character update "
            f"{subject_ch.name} --npc`)."
        )
    complies = not on_pc and subject_has("Slave Mentality", request.slave_mentality)
    return a_side, b_side, on_pc, complies, wants


def _rolled(
    state: Any,
    request: Influence,
    a_side: Side,
    b_side: Side,
    on_pc: bool,
    wants: dict[str, bool],
) -> Acted:
    """The influence roll made: the Quick Contest (and Diplomacy's reaction), logged as one
    contest, with the influence it puts on a player's character."""
    skill, mods = request.skill, request.mods
    influencer, subject_ch = a_side.character, b_side.character
    shared = source_for(None, request.seed)
    src_a = source_for(request.dice_a, None, "--dice-a") if request.dice_a else shared
    src_b = source_for(request.dice_b, None, "--dice-b") if request.dice_b else shared
    src_r = (
        source_for(request.reaction_dice, None, "--reaction-dice")
        if request.reaction_dice
        else shared
    )
    a_base, a_mods, _ = play.effective(a_side, mods, state.setting("tech_level"))
    reacting = play.reaction_modifiers(request.reaction_mods)
    a_mods = [*a_mods, *reacting]
    a_eff = effective_skill(a_base, a_mods)
    b_base, _, b_eff = play.effective(b_side, ())
    wants_reaction = skill.strip().lower() == "diplomacy" and not on_pc
    result = influence_roll(
        skill,
        a_eff,
        b_eff,
        dice_a=src_a,
        dice_b=src_b,
        reaction_dice=src_r if wants_reaction else None,
        reaction_modifiers=reacting,
        on_pc=on_pc,
        **wants,
    )
    effects = (
        [play.influence_effect(influencer.name, result, subject_ch.character_id)]
        if on_pc and result.won
        else []
    )
    contest = result.contest
    a_inputs = play.side_inputs(a_base, a_mods, a_eff)
    b_inputs = play.side_inputs(b_base, [], b_eff)
    outcome = result.to_dict()
    outcome.pop("contest")
    outcome["margin_of_victory"] = contest.margin_of_victory
    if not on_pc:
        # An influence roll on an NPC stores what it always has.
        del outcome["on_pc"], outcome["modifier"]
    physical = request.dice_a or request.dice_b or request.reaction_dice
    influencer_side = Side(a_side.name, a_side.character, result.skill)
    payload = ev.ContestRolled(
        system=state.system,
        mode="influence",
        a=contest_side(influencer_side, a_inputs, contest.a.to_dict()),
        b=contest_side(b_side, b_inputs, contest.b.to_dict()),
        winner=contest.winner,
        result=outcome,
        dice_source="physical" if physical else shared.kind,
        effects=tuple(effects),
    )
    # Taking the margin a secret influence left would tell the players what it did.
    taken = play.secret_influence(state, influencer, mods)
    hidden = request.secret or bool(taken)
    event_id = new_event_id()
    doc = {
        "event_id": event_id,
        "system": state.system,
        "mode": "influence",
        **_sides_doc(result, a_side, b_side, (a_base, a_inputs, a_eff), b_eff),
        "on_pc": on_pc,
        "modifier": result.modifier if on_pc else None,
        "secret": hidden,
        "effects": [e.to_json() for e in effects],
        "notes": [kept_secret(taken, play.COULD_BE_INFLUENCE)]
        if taken and not request.secret
        else [],
    }
    return Acted((Entry(payload, "gm" if hidden else "public", event_id),), doc)


# Reactions that go the influencer's way, or at least not against it.
REACTION_GOOD = ("Neutral", "Good", "Very Good", "Excellent")


def _sides_doc(
    result: Any,
    a_side: Side,
    b_side: Side,
    a_rolled: tuple[int, Mapping[str, Any], int],
    b_eff: int,
) -> dict[str, Any]:
    """What an influence roll's document says of the contest: the skill, each side's roll
    (the influencer's base, modifiers and effective skill), who won and by how much, and the
    reaction it read."""
    contest = result.contest
    a_base, a_inputs, a_eff = a_rolled
    return {
        "skill": result.skill,
        "a": {
            **contest_roll_doc(a_side, contest.a.to_dict(), a_eff),
            "base": a_base,
            "modifiers": a_inputs["modifiers"],
        },
        "b": contest_roll_doc(b_side, contest.b.to_dict(), b_eff),
        "winner": None
        if contest.winner is None
        else (a_side.name if contest.winner == "a" else b_side.name),
        "margin_of_victory": contest.margin_of_victory,
        "contest_level": result.contest_level,
        "reaction": None if result.reaction is None else result.reaction.to_dict(),
        "level": result.level,
    }


def influence_lines(d: Mapping[str, Any], style: Terminal) -> list[str]:
    if "note" in d:
        return [d["note"]]
    head = (
        f"{style.bold(d['a']['character'])} · {d['skill']} vs "
        f"{style.bold(d['b']['character'])} · Will"
    )
    if d.get("secret"):
        head += style.dim(" (secret)")
    if d["a"]["modifiers"]:
        given = "".join(f" {m['value']:+d} {m['label']}" for m in d["a"]["modifiers"])
        head += f"\n  {d['skill']} {d['a']['base']}{given} = effective {d['a']['effective']}"
    notes = [style.dim(f"  {n}") for n in d.get("notes", [])]
    sides = "  " + "   ".join([style.contest_line(d["a"]), style.contest_line(d["b"])])
    if d["winner"] is None:
        verdict = "tie"
    else:
        verdict = f"{d['winner']} wins" + (
            f" by {d['margin_of_victory']}" if d["margin_of_victory"] else ""
        )
    if d["on_pc"]:
        subject, margin, influencer = d["b"]["character"], d["modifier"], d["a"]["character"]
        if margin:
            reading = (
                f"{subject} is influenced by {influencer}: -{margin} (or +{margin}) on the "
                f"rolls it bears on, as the GM rules (--mod influence:{influencer})"
            )
        else:
            reading = f"{subject} is not swayed"
        return [head, sides, f"  → {verdict}: {reading}", *notes]
    lines = [head, sides, f"  → {verdict}: {d['contest_level']}"]
    if d["reaction"] is not None:
        r = d["reaction"]
        mods = "".join(f" {m['value']:+d}" for m in r["modifiers"])
        lines.append(
            f"  reaction roll {'+'.join(map(str, r['dice']))}{mods} = {r['total']}: {r['level']}"
        )
    tone = "good" if d["level"] in REACTION_GOOD else "bad"
    lines.append(f"  {d['b']['character']}'s reaction: {style.tone(d['level'], tone, bold=True)}")
    return [*lines, *notes]
