"""GURPS at the table beyond the plain roll: fright checks, influence rolls, extra effort and
major projects (``Feature.FRIGHT_CHECKS``, ``INFLUENCE``, ``EXTRA_EFFORT``, ``PROJECTS``).

These are GURPS's own rules: each command is refused in a campaign whose system lacks its
feature, and decides with the GURPS package's rules (``tracker.systems.gurps``).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from tracker.app.deciding import Decision, Logged, new_event
from tracker.app.rolls import describe_effects, dice_kind, side
from tracker.app.table import Table
from tracker.errors import BadInput, NotFound, Refused
from tracker.events import play as ev
from tracker.events.effects import Effect, TrackChange
from tracker.projections.campaign import CampaignState, Character
from tracker.systems import registry
from tracker.systems.base import Feature, Side, contest_roll_doc, contest_side
from tracker.systems.dice import source_for
from tracker.systems.gurps import play as gurps_play
from tracker.words import kept_secret, plural


class GurpsExtras:
    """Fright checks, influence rolls, extra effort and major projects at one table."""

    def __init__(self, table: Table) -> None:
        self.table = table

    # -- influence and extra effort (GURPS) ----------------------------------------------------

    def influence(
        self,
        name: str,
        skill: str,
        subject: str,
        will: str,
        *,
        mods: Sequence[str] = (),
        reaction_mods: Sequence[str] = (),
        dice_a: str | None = None,
        dice_b: str | None = None,
        reaction_dice: str | None = None,
        seed: str | None = None,
        indomitable: bool = False,
        empathy: bool = False,
        unfazeable: bool = False,
        slave_mentality: bool = False,
        secret: bool = False,
    ) -> Logged:
        """An influence roll: a Quick Contest of the character's influence skill against the
        subject's Will (a character, or a name and a Will score), read as the subject's reaction.

        Diplomacy also rolls a reaction and takes the better of the two. A subject with Slave
        Mentality complies without a roll, which is logged as a note.

        A player's character as the subject ('Influencing PCs') reads no reaction: a win puts
        the margin of victory on that character as a condition, "influenced by NAME", which
        rolls take with ``--mod influence:NAME`` until the GM clears it.
        """
        from tracker.systems.gurps import tables
        from tracker.systems.gurps.rules.influence import influence_roll
        from tracker.systems.gurps.rules.success import effective_skill

        def decide(state: CampaignState) -> Decision:
            registry.require(state.rules, Feature.INFLUENCE, "Influence rolls", "are")
            if skill.strip().lower() not in {s.lower() for s in tables.INFLUENCE_SKILLS}:
                raise BadInput(
                    f"{skill!r} is not an influence skill; use one of "
                    f"{', '.join(tables.INFLUENCE_SKILLS)}."
                )
            a_side = side(self.table, state, name, skill)
            if a_side.character is None:
                raise BadInput(f"The influencer must be a character; {name!r} is not one.")
            b_side = side(self.table, state, subject, will)
            # The sheets speak for themselves; the flags are for a subject who has no sheet.
            subject_ch, influencer = b_side.character, a_side.character

            def subject_has(trait: str, flag: bool) -> bool:
                return flag or (subject_ch is not None and subject_ch.has_trait(trait))

            wants = {
                "indomitable": subject_has("Indomitable", indomitable),
                "unfazeable": subject_has("Unfazeable", unfazeable),
                "empathy": empathy or influencer.has_trait("Empathy"),
            }
            on_pc = subject_ch is not None and not subject_ch.npc
            if on_pc and subject_ch is influencer:
                raise BadInput(f"{influencer.name} cannot influence themselves; name another.")
            # The influencer's reaction modifiers bear on the influence roll itself, so they
            # decide nothing for a player: only a reaction roll and compliance would.
            if on_pc and (reaction_dice or slave_mentality):
                given = "--slave-mentality" if slave_mentality else "--reaction-dice"
                raise BadInput(
                    f"{subject_ch.name} is a player's character, who reacts as the player "
                    f"decides; leave out {given} (or mark an NPC with `tracker character "
                    f"update {subject_ch.name} --npc`)."
                )
            if not on_pc and subject_has("Slave Mentality", slave_mentality):
                result = influence_roll(
                    skill, 0, 0, dice_a=None, dice_b=None, slave_mentality=True, **wants
                )
                text = f"{b_side.name} complies with {a_side.name} (Slave Mentality): no roll."
                event = new_event(ev.NoteAdded(text=text), state=state)
                return Decision(
                    [event], {"influence": result.to_dict(), "note": text, "effects": []}
                )
            shared = source_for(None, seed)
            src_a = source_for(dice_a, None, "--dice-a") if dice_a else shared
            src_b = source_for(dice_b, None, "--dice-b") if dice_b else shared
            src_r = source_for(reaction_dice, None, "--reaction-dice") if reaction_dice else shared
            a_base, a_mods, _ = gurps_play.effective(a_side, mods, state.tech_level)
            reacting = gurps_play.reaction_modifiers(reaction_mods)
            a_mods = [*a_mods, *reacting]
            a_eff = effective_skill(a_base, a_mods)
            b_base, _, b_eff = gurps_play.effective(b_side, ())
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
                [gurps_play.influence_effect(influencer.name, result, subject_ch.character_id)]
                if on_pc and result.won
                else []
            )
            contest = result.contest
            a_inputs = gurps_play.side_inputs(a_base, a_mods, a_eff)
            b_inputs = gurps_play.side_inputs(b_base, [], b_eff)
            outcome = result.to_dict()
            outcome.pop("contest")
            outcome["margin_of_victory"] = contest.margin_of_victory
            if not on_pc:
                # An influence roll on an NPC stores what it always has.
                del outcome["on_pc"], outcome["modifier"]
            dice_kind = "physical" if dice_a or dice_b or reaction_dice else shared.kind
            influencer_side = Side(a_side.name, a_side.character, result.skill)
            payload = ev.ContestRolled(
                system=state.system,
                mode="influence",
                a=contest_side(influencer_side, a_inputs, contest.a.to_dict()),
                b=contest_side(b_side, b_inputs, contest.b.to_dict()),
                winner=contest.winner,
                result=outcome,
                dice_source=dice_kind,
                effects=tuple(effects),
            )
            # Taking the margin a secret influence left would tell the players what it did.
            taken = gurps_play.secret_influence(state, influencer, mods)
            hidden = secret or bool(taken)
            event = new_event(payload, state=state, visibility="gm" if hidden else "public")
            doc = {
                "event_id": event.event_id,
                "system": state.system,
                "mode": "influence",
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
                "on_pc": on_pc,
                "modifier": result.modifier if on_pc else None,
                "secret": hidden,
                "effects": [e.to_json() for e in effects],
                "notes": [kept_secret(taken, gurps_play.COULD_BE_INFLUENCE)]
                if taken and not secret
                else [],
            }
            return Decision([event], doc)

        return self.table.play(decide, at_table="rolling")

    def effort(
        self,
        name: str,
        percent: int,
        *,
        motivated: bool = False,
        skill: str | None = None,
        dice: str | None = None,
        seed: str | None = None,
        secret: bool = False,
    ) -> Logged:
        """Extra effort: a Will roll (or a Will-based skill's, ``skill``, as the rulebook
        allows: which skills are Will-based is the GM's call) at -1 per 5% more (rounded up),
        +5 when motivated. It always costs 1 FP, and a critical failure as many HP as well."""
        from tracker.systems.gurps.rules.feats import extra_effort

        dice_source, seed_text = dice_kind(source_for(dice, seed))

        def decide(state: CampaignState) -> Decision:
            registry.require(state.rules, Feature.EXTRA_EFFORT, "Extra effort")
            ch = self.table.character(name, state)
            trait = skill or "Will"
            will = gurps_play.base_skill(ch, trait, gurps_play.defaults_for(ch, trait))
            result = extra_effort(
                will.value,
                percent,
                dice=source_for(dice, seed),
                motivated=motivated,
                machine=ch.has_trait("Machine"),
            )
            roll = result.roll
            effects: list[Effect] = [TrackChange("fp", -result.fp_cost, "extra effort")]
            if result.hp_loss:
                effects.append(TrackChange("hp", -result.hp_loss, "extra effort, critical failure"))
            inputs = gurps_play.roll_inputs(
                will, roll.modifiers, percent=percent, motivated=motivated
            )
            stored = {
                **roll.to_dict(),
                "granted": result.granted,
                "fp_cost": result.fp_cost,
                "hp_loss": result.hp_loss,
            }
            payload = ev.RollMade(
                character_id=ch.character_id,
                system=state.system,
                trait=(ch.skill_name(skill) or skill) if skill else "Will",
                kind="extra-effort",
                inputs=inputs,
                dice_source=dice_source,
                dice=tuple(roll.dice),
                result=stored,
                effects=tuple(effects),
                seed=seed_text,
            )
            event = new_event(payload, state=state, visibility="gm" if secret else "public")
            doc = {
                "event_id": event.event_id,
                "system": state.system,
                "character": ch.name,
                "kind": "extra-effort",
                "trait": (ch.skill_name(skill) or skill) if skill else "Will",
                "base": will.value,
                "modifiers": inputs["modifiers"],
                "effective": roll.effective,
                "dice": list(roll.dice),
                "kept": roll.total,
                "outcome": roll.outcome,
                "success": roll.success,
                "margin": roll.margin,
                "percent": percent,
                "granted": result.granted,
                "secret": secret,
                "effects": describe_effects(state, ch, effects),
            }
            return Decision([event], doc)

        return self.table.play(decide, at_table="rolling")

    # -- fright checks -------------------------------------------------------------------------

    def fright(
        self,
        name: str,
        *,
        mods: Sequence[str] = (),
        threat: str | None = None,
        dice: str | None = None,
        table_dice: str | None = None,
        effect_dice: str | None = None,
        seed: str | None = None,
        secret: bool = False,
        now: str | None = None,
    ) -> Logged:
        """GURPS: a Fright Check, and on failure the fright table with its effects."""
        from tracker.systems.gurps.rules.fright import fright_check, fright_modifier
        from tracker.systems.gurps.rules.fright_table import FRIGHT_TABLE, fright_table_from_rows

        def decide(state: CampaignState) -> Decision:
            registry.require(state.rules, Feature.FRIGHT_CHECKS, "The Fright Check")
            ch = self.table.character(name, state)
            will = ch.stat("Will")
            if will is None:
                will = ch.stat("IQ")
            if will is None:
                raise Refused(f"{ch.name}'s sheet has no Will or IQ; add one (--stat Will=N).")
            modifiers = [gurps_play.fright_modifier(m) for m in mods]
            modifiers += gurps_play.fright_traits(ch)
            exposures, since = _exposures(state, ch, threat, now)
            if exposures:
                modifiers.append(fright_modifier("previous-exposure", exposures))
            # A secret event about the character in the last 24 hours could be a check against
            # this threat, which its modifier would show: this one is secret as well, whatever
            # threat (or other thing) the secret one was about.
            after_a_secret = state.unrevealed(ch.character_id, since=since) if threat else []
            hidden = secret or bool(after_a_secret)
            shared = source_for(None, seed)
            own_table = fright_table_from_rows(state.fright_table) if state.fright_table else None
            result = fright_check(
                will,
                modifiers,
                dice=source_for(dice, None) if dice else shared,
                table_dice=source_for(table_dice, None, "--table-dice") if table_dice else shared,
                effect_dice=source_for(effect_dice, None, "--effect-dice")
                if effect_dice
                else shared,
                unfazeable=ch.has_trait("Unfazeable"),
                ht=ch.stat("HT"),
                table=own_table or FRIGHT_TABLE,
                character=ch.name,
            )
            effects, notes = gurps_play.fright_effects(ch, result)
            roll = result.roll
            inputs = {
                "will": will,
                "modifiers": [m.to_dict() for m in modifiers],
                "ht": ch.stat("HT"),
                "exposures": exposures,
            }
            if own_table is not None:
                # Looked up in the campaign's own table: `verify` then holds the row to it.
                inputs["table"] = "campaign"
            payload = ev.FrightChecked(
                character_id=ch.character_id,
                inputs=inputs,
                dice_source="physical" if dice else shared.kind,
                result=result.to_dict(),
                effects=tuple(effects),
                threat=threat,
            )
            event = new_event(payload, state=state, visibility="gm" if hidden else "public")
            if hidden and not secret:
                notes = [*notes, kept_secret(after_a_secret, "a check against this threat")]
            table = None
            if result.table is not None:
                t = result.table
                table = {
                    "dice": list(t.dice),
                    "total": t.total,
                    "row": t.row,
                    "text": t.text,
                    "margin_of_failure": t.margin_of_failure,
                    "effects": [e.to_dict() for e in t.effects],
                }
            doc = {
                "event_id": event.event_id,
                "system": state.system,
                "character": ch.name,
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
                "table": table,
                "effects": [e.to_json() for e in effects],
                "notes": notes,
                "secret": hidden,
            }
            return Decision([event], doc)

        return self.table.play(decide, at_table="rolling")

    # -- major projects -------------------------------------------------------------------

    def project_start(self, name: str, *, skill: str, hours: int) -> Logged:
        def decide(state: CampaignState) -> Decision:
            registry.require(state.rules, Feature.PROJECTS, "Major projects", "are")
            if hours < 1:
                raise BadInput(
                    f"A project needs 1 or more man-hours, not {hours}; give --hours 1 or more."
                )
            if _project(state, name, missing_ok=True):
                raise Refused(f'A project named "{name}" already exists; pick another name.')
            payload = ev.ProjectStarted(
                project_id=str(uuid.uuid4()), name=name.strip(), skill=skill, man_hours=hours
            )
            doc = {"project": name.strip(), "skill": skill, "man_hours": hours}
            return Decision([new_event(payload, state=state)], doc)

        return self.table.play(decide)

    def project_roll(
        self,
        project: str,
        workers: str | Sequence[str],
        *,
        mods: Sequence[str] = (),
        supervisor: str | None = None,
        supervisor_skill: str = "Leadership",
        supervisor_bonus: int = 1,
        supervisor_dice: str | None = None,
        dice: Sequence[str] = (),
        destroyed_dice: Sequence[str] = (),
        seed: str | None = None,
    ) -> Logged:
        """One day of a project's team: each worker's skill roll and the man-hours it adds.

        A supervisor directs the day instead of working (GURPS, 'Major projects': "A
        supervisor using Leadership or Administration instead of working personally can give
        the team +1 to +2 on success"): one Leadership or Administration roll for the whole
        team, logged first as a roll of its own; its success gives every worker +1 (or +2,
        the GM's choice) that day. Every event of the day carries the same day id in its
        inputs, so the project counts days, not rolls.

        ``mods`` apply to every worker's roll; ``dice`` are the workers' physical 3d6, one set
        per worker in the order named; ``destroyed_dice`` the 2d of each critical failure, in
        the order the workers are named.
        """
        from tracker.systems.gurps.rules.projects import project_day, supervisor_modifier

        if supervisor_skill.casefold() not in SUPERVISING:
            raise BadInput(
                f"A supervisor rolls Leadership or Administration, not {supervisor_skill}; give "
                "--supervisor-skill leadership or administration."
            )
        if isinstance(workers, str):
            # One worker by name, as callers before team days gave it.
            workers = (workers,)
        if not workers:
            raise BadInput("A project day needs a worker; name one or more after the project.")
        if dice and len(dice) != len(workers):
            raise BadInput(
                f"--dice was given {_times(len(dice))} for "
                f"{plural(len(workers), 'worker')}; give it once per worker, in the order the "
                "workers are named."
            )
        bonus = supervisor_modifier(supervisor_bonus)

        def decide(state: CampaignState) -> Decision:
            registry.require(state.rules, Feature.PROJECTS, "Major projects", "are")
            found = _project(state, project)
            team = [self.table.character(name, state) for name in workers]
            seen: set[str] = set()
            for ch in team:
                if ch.character_id in seen:
                    raise BadInput(
                        f"{ch.name} is named twice; a worker rolls once a day, so name each "
                        "worker once."
                    )
                seen.add(ch.character_id)
            day = str(uuid.uuid4())
            extra = list(mods)
            shared = source_for(None, seed)
            events = []
            supervised: dict[str, Any] | None = None
            if supervisor is not None:
                boss = self.table.character(supervisor, state)
                if boss.character_id in seen:
                    raise BadInput(
                        f"{boss.name} cannot supervise and work the same day, since a "
                        "supervisor directs instead of working; leave them out of the workers, "
                        "or name another character with --supervisor."
                    )
                led = state.rules.decide_roll(
                    state.rules.roll_request(
                        supervisor_skill,
                        source=source_for(supervisor_dice, None, "--supervisor-dice")
                        if supervisor_dice
                        else shared,
                    ),
                    boss,
                    state,
                )
                event = new_event(
                    ev.RollMade(
                        character_id=boss.character_id,
                        system=state.system,
                        trait=led.trait,
                        kind="supervision",
                        inputs={**led.inputs, "project_id": found.project_id, "day": day},
                        dice_source="physical" if supervisor_dice else shared.kind,
                        dice=led.dice,
                        result=led.result,
                    ),
                    state=state,
                    visibility="gm" if led.secret else "public",
                )
                events.append(event)
                supervised = {
                    "event_id": event.event_id,
                    "character": boss.name,
                    "secret": led.secret,
                    **led.doc,
                }
                if led.result["success"]:
                    extra.append(f"{bonus.value}:supervisor {boss.name} ({led.trait})")
            done = found.done
            crits = 0
            rolled = []
            for i, ch in enumerate(team):
                worked = state.rules.decide_roll(
                    state.rules.roll_request(
                        found.skill,
                        mods=tuple(extra),
                        source=source_for(dice[i], None) if dice else shared,
                    ),
                    ch,
                    state,
                )
                destroying = shared
                if worked.result["outcome"] == "critical_failure" and destroyed_dice:
                    if crits >= len(destroyed_dice):
                        raise BadInput(
                            f"{ch.name}'s critical failure destroys 2d hours of work, but "
                            f"--destroyed-dice was given {_times(len(destroyed_dice))}; "
                            "give it once per critical failure, in the order the workers are "
                            "named."
                        )
                    destroying = source_for(destroyed_dice[crits], None, "--destroyed-dice")
                    crits += 1
                worker_day = project_day(worked.result["outcome"], dice=destroying)
                result = {
                    **worked.result,
                    "man_hours": worker_day.man_hours,
                    "destroyed": worker_day.destroyed_hours,
                    "destroyed_dice": list(worker_day.dice),
                }
                inputs = {**worked.inputs, "project_id": found.project_id, "day": day}
                payload = ev.RollMade(
                    character_id=ch.character_id,
                    system=state.system,
                    trait=worked.trait,
                    kind="project",
                    inputs=inputs,
                    dice_source="physical" if dice else shared.kind,
                    dice=tuple(result["dice"]),
                    result=result,
                    task=None,
                )
                # Secret as the rules make a roll of the same skill and modifiers: a sense, or
                # a margin a secret influence left.
                event = new_event(
                    payload, state=state, visibility="gm" if worked.secret else "public"
                )
                events.append(event)
                # As the project's fold adds it up: no day takes the work below none.
                done = max(done + worker_day.man_hours - worker_day.destroyed_hours, 0)
                rolled.append(
                    {
                        **worked.doc,
                        "event_id": event.event_id,
                        "character": ch.name,
                        "kind": "project",
                        "man_hours": worker_day.man_hours,
                        "destroyed": worker_day.destroyed_hours,
                        "secret": worked.secret,
                        "effects": [],
                    }
                )
            doc = {
                "event_id": events[-1].event_id,
                "system": state.system,
                "kind": "project-day",
                "project": found.name,
                "day": day,
                "days": found.days + 1,
                "supervisor": supervised,
                "workers": rolled,
                "man_hours": sum(w["man_hours"] for w in rolled),
                "destroyed": sum(w["destroyed"] for w in rolled),
                "done": done,
                "needed": found.man_hours,
                "effects": [],
            }
            return Decision(events, doc)

        return self.table.play(decide)


def _exposures(
    state: CampaignState, ch: Character, threat: str | None, now: str | None
) -> tuple[int, str]:
    """Earlier Fright Checks against the same threat within 24 hours, counted from the log,
    and the time 24 hours back (ISO)."""
    import pendulum

    moment = pendulum.parse(now) if now else pendulum.now("UTC")
    since = moment.subtract(hours=24)
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


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def _project(state: CampaignState, name: str, missing_ok: bool = False):
    for project in state.own.projects.values():
        if project.name.casefold() == name.strip().casefold() or project.project_id == name:
            return project
    if missing_ok:
        return None
    have = ", ".join(p.name for p in state.own.projects.values()) or "none"
    raise NotFound(
        f'No project named "{name}" (projects: {have}); start one with '
        "`tracker project start NAME --skill SKILL --hours N`."
    )


# The skills a supervisor directs a project's team with (GURPS, 'Major projects').
SUPERVISING = ("leadership", "administration")
