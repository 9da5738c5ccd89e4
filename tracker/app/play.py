"""Play at the table: each handler reads the state, asks the rules, and logs what they decided.

The state feeds the rules without the GM typing it: Glintlock stress adds its condition tag and
doubles Mettle costs, active conditions count as -1 tags, steel-yourself and advantage-die apply to
the next roll; Gloom rank 21+ gives advantage and panic or the stress limit disadvantage; GURPS
retry penalties and fright exposures are counted from the log, defaults come from the sheet.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tracker.errors import BadInput, NotFound, Refused
from tracker.events import NewEvent, StoredEvent
from tracker.events import play as ev
from tracker.events.effects import (
    ConditionApplied,
    Effect,
    ObligationOpened,
    StoryTagSpent,
    TrackChange,
)
from tracker.projections.campaign import CampaignState, Character, Obligation
from tracker.systems import registry
from tracker.systems.base import Feature
from tracker.systems.dice import DiceSource, source_for

DiceFactory = Callable[[], DiceSource]


@dataclass
class Logged:
    """What a play command logged: the state after it, the events, and a document to show."""

    state: CampaignState
    events: list[StoredEvent]
    doc: dict[str, Any]
    opened: list[Obligation] = field(default_factory=list)
    discharged: list[Obligation] = field(default_factory=list)

    @property
    def event(self) -> StoredEvent:
        return self.events[-1]


def parse_modifier(text: str) -> Any:
    """``-2``, ``+1:darkness``, or a preset name (``hard``, ``equipment:fine``, ``haste:30``)."""
    from tracker.systems.gurps import rules as gurps

    number, sep, label = text.partition(":")
    try:
        value = int(number)
    except ValueError:
        return gurps.preset(text)
    return gurps.Modifier(value, label.strip() if sep and label.strip() else "modifier")


def _dice_kind(factory: DiceFactory) -> tuple[str, str | None]:
    source = factory()
    return source.kind, str(getattr(source, "seed", None)) if source.kind == "seeded" else None


class PlayHandlers:
    """The commands of play; mixed into ``Tracker``, which provides the store and the state."""

    # Provided by Tracker.
    character: Callable[..., Character]
    _event: Callable[..., NewEvent]
    _decide_and_append: Callable[..., tuple[CampaignState, list[StoredEvent]]]

    def _play(
        self, decide: Callable[[CampaignState], tuple[list[NewEvent], dict[str, Any]]]
    ) -> Logged:
        """Decide and append, then say which obligations the events opened and discharged."""
        box: dict[str, Any] = {}

        def deciding(state: CampaignState) -> list[NewEvent]:
            box["before"] = set(state.obligations)
            box["discharged_before"] = len(state.discharged)
            events, doc = decide(state)
            box["doc"] = doc
            return events

        state, stored = self._decide_and_append(deciding)
        opened = [o for k, o in state.obligations.items() if k not in box["before"]]
        discharged = [o for o in state.discharged if o.id in box["before"]]
        doc = box["doc"]
        doc.setdefault("event_id", stored[-1].event_id)
        doc["version"] = stored[-1].version
        doc["obligations_opened"] = [o.to_dict() for o in opened]
        doc["obligations_discharged"] = [o.to_dict() for o in discharged]
        return Logged(state, stored, doc, opened, discharged)

    # -- rolls ----------------------------------------------------------------------------------

    def roll(
        self,
        name: str,
        trait: str,
        *,
        dl: int = 0,
        mods: Sequence[str] = (),
        tags: Sequence[str] = (),
        advantage: bool = False,
        disadvantage: bool = False,
        trained: bool = False,
        skill: str | None = None,
        secret: bool = False,
        dice: str | None = None,
        seed: str | None = None,
        defense: bool = False,
        task: str | None = None,
        retry: str | None = None,
        spell: bool = False,
        story: Sequence[str] = (),
        override: bool = False,
        no_panic: bool = False,
        backlash_dice: str | None = None,
        feat: str | None = None,
        danger: bool = False,
        danger_dice: str | None = None,
        public: bool = False,
        kind: str = "check",
    ) -> Logged:
        """Roll a character's trait under the campaign's rules and log it.

        GURPS: Vision, Hearing, Taste and Smell are sense rolls against Per with the sheet's
        Acute and Discriminatory senses, logged secret unless ``public``; a failed one for
        something dangerous (``danger``) by a character with Danger Sense is rolled again in
        secret. A failed Swimming roll, or a running roll (``feat="running"``), costs 1 FP.
        """

        def factory() -> DiceSource:
            # A fresh source per attempt: physical dice are used once, and a retried decision
            # (another writer got in first) must be able to read them again.
            return source_for(dice, seed)

        dice_source, seed_text = _dice_kind(factory)

        def decide(state: CampaignState) -> tuple[list[NewEvent], dict[str, Any]]:
            ch = self.character(name, state)
            if state.system == "gloom":
                built = self._gloom_roll(state, ch, trait, dl, advantage, disadvantage, factory)
                if kind == "panic":
                    built = _panic_effects(ch, built)
                    built[4]["notes"] = []
                elif not no_panic:
                    built = _catastrophe_effects(ch, built)
            elif state.system == "gurps":
                built = self._gurps_roll(
                    state, ch, trait, mods, defense, task, retry, factory, feat=feat
                )
            else:
                built = self._glintlock_roll(
                    state,
                    ch,
                    trait,
                    tags,
                    trained,
                    skill,
                    spell,
                    story,
                    override,
                    factory,
                    backlash_dice,
                )
            inputs, result, effects, consumed, doc = built
            if state.system != "gurps" and (feat or danger or public):
                raise BadInput("--feat, --danger and --public are GURPS options.")
            sense = gurps_sense(state, trait)
            hidden = secret or (sense is not None and not public)
            payload = ev.RollMade(
                character_id=ch.character_id,
                system=state.system,
                trait=doc["trait"],
                kind=kind,
                inputs=inputs,
                dice_source=dice_source,
                dice=tuple(result["dice"]),
                result=result,
                effects=tuple(effects),
                consumed=tuple(consumed),
                task=task,
                seed=seed_text,
            )
            event = self._event(payload, state=state, visibility="gm" if hidden else "public")
            doc.update(
                event_id=event.event_id,
                system=state.system,
                character=ch.name,
                kind=kind,
                secret=hidden,
                dice_source=dice_source,
                effects=_describe_effects(state, ch, effects),
            )
            events = [event]
            if danger and sense is None:
                raise BadInput("--danger is for a sense roll (Vision, Hearing, Taste or Smell).")
            if danger and not result["success"] and ch.has_trait("Danger Sense"):
                if dice and not danger_dice:
                    raise BadInput(
                        f"{ch.name}'s Danger Sense rolls Per again; give those dice too with "
                        "--danger-dice N,N,N."
                    )
                again = source_for(danger_dice, f"{seed}:danger" if seed else None)
                events.append(self._danger_sense(state, ch, again, events[0]))
                doc["danger_sense"] = dict(events[-1].payload["result"])
            return events, doc

        return self._play(decide)

    def _gloom_roll(self, state, ch, trait, dl, advantage, disadvantage, factory):
        from tracker.systems.gloom import rules as gloom

        rank, trait_name = _trait_value(ch, trait, state.system)
        reasons = []
        if "panicked" in {c.casefold() for c in ch.conditions}:
            disadvantage = True
            reasons.append("panicked")
        if ch.stress >= state.stress_limit:
            disadvantage = True
            reasons.append(f"stress at the limit ({ch.stress})")
        if rank >= gloom.MASTERY_RANK:
            reasons.append(f"rank {rank}: mastery gives advantage")
        result = gloom.check(
            rank, dl, dice=factory(), advantage=advantage, disadvantage=disadvantage
        )
        inputs = {
            "rank": rank,
            "dl": dl,
            "advantage": advantage,
            "disadvantage": disadvantage,
            "mode": result.mode,
            "reasons": reasons,
        }
        doc = {
            "trait": trait_name,
            "effective": rank,
            "dl": dl,
            "dice": list(result.dice),
            "kept": result.kept,
            "outcome": result.outcome,
            "success": result.success,
            "mode": result.mode,
            "window": result.window.to_dict(),
            "notes": list(result.notes),
            "reasons": reasons,
        }
        if result.may_restore_stress and ch.stress:
            doc["notes"].append(
                f"Perfect success: {ch.name} may restore 1 stress "
                f"(`tracker stress {ch.name} -1 --cause 'perfect success'`)."
            )
        return inputs, result.to_dict(), [], [], doc

    def _danger_sense(self, state, ch, dice: DiceSource, failed: NewEvent) -> NewEvent:
        """Danger Sense: the GM rolls the character's Per again, in secret (gurps.md)."""
        from tracker.systems.gurps import rules as gurps

        per = gurps.base_skill(
            "Per",
            attributes={k: ch.stat(k) for k in ch.stats},
            skills=ch.skills,
            defaults=(),
            character=ch.name,
        )
        result = gurps.success_roll(per.value, [], dice=dice)
        inputs = _gurps_inputs(per, [], after=failed.event_id)
        payload = ev.RollMade(
            character_id=ch.character_id,
            system="gurps",
            trait="Per",
            kind="danger-sense",
            inputs=inputs,
            dice_source=dice.kind,
            dice=tuple(result.dice),
            result=result.to_dict(),
        )
        return self._event(payload, state=state, visibility="gm")

    def _gurps_roll(self, state, ch, trait, mods, defense, task, retry, factory, feat=None):
        from tracker.systems.gurps import rules as gurps

        if feat not in (None, "running"):
            raise BadInput(f"--feat is running (an HT or Running roll to sprint), not {feat!r}.")
        if feat and trait.strip().lower() not in ("ht", "running"):
            raise BadInput("--feat running is for an HT or Running roll.")
        sense = gurps.sense_of(trait)
        base = gurps.base_skill(
            # A sense roll is a roll against Per itself (gurps.md, 'Sense Rolls').
            "Per" if sense else trait,
            attributes={k: ch.stat(k) for k in ch.stats},
            skills=ch.skills,
            defaults=() if sense else _defaults_for(ch, trait) or gurps.rulebook_defaults(trait),
            character=ch.name,
        )
        traits = [*ch.traits, *(g["name"] for g in ch.traits_gained)]
        if any(m.strip().lower() == "total-darkness" for m in mods):
            if sense != "Vision":
                raise BadInput("total-darkness is a modifier for a Vision roll.")
            if not gurps.sees_in_dark(traits):
                raise Refused(
                    f"{ch.name} cannot see in total darkness (Vision is impossible without Dark "
                    "Vision or Infravision); roll another sense, or give light."
                )
            mods = [m for m in mods if m.strip().lower() != "total-darkness"]
        modifiers = [parse_modifier(m) for m in mods]
        if sense:
            modifiers.extend(gurps.sense_modifiers(sense, traits))
        retry_mode = None
        if task:
            record = ch.tasks.get(task, {"attempts": 0, "failures": 0, "mode": None})
            retry_mode = retry or record.get("mode") or "retry-freely"
            if retry_mode not in gurps.RETRY_MODES:
                raise BadInput(f"--retry is one of {', '.join(gurps.RETRY_MODES)}.")
            penalty = gurps.retry_modifier(retry_mode, record["attempts"], record["failures"])
            if penalty is not None and penalty.value:
                modifiers.append(penalty)
        elif retry:
            raise BadInput("--retry needs --task NAME, so earlier attempts can be counted.")
        result = gurps.success_roll(base.value, modifiers, dice=factory(), defense=defense)
        inputs = _gurps_inputs(base, modifiers, defense=defense, retry_mode=retry_mode)
        doc = {
            "trait": base.skill if base.source == "skill" else trait,
            "base": base.value,
            "base_source": base.source,
            "modifiers": [m.to_dict() for m in modifiers],
            "effective": result.effective,
            "dice": list(result.dice),
            "kept": result.total,
            "total": result.total,
            "outcome": result.outcome,
            "success": result.success,
            "margin": result.margin,
            "notes": [],
        }
        if state.cinematic and ch.points and result.outcome != "critical_success":
            doc["notes"].append(
                f"Cinematic: {ch.name} has {ch.points} character points for a buy-up."
            )
        effects = []
        fp = gurps.fp_on_failure(trait, feat)
        if fp and not result.success:
            cause = "inhaled water" if feat is None else "winded"
            effects.append(TrackChange("fp", -fp, cause))
        if feat:
            inputs["feat"] = feat
        return inputs, result.to_dict(), effects, [], doc

    def _glintlock_roll(
        self, state, ch, trait, tags, trained, skill, spell, story, override, factory, backlash
    ):
        from tracker.systems.glintlock import rules as glintlock

        if state.threat_floor == "immediate" and not override:
            raise Refused(
                f"Threat is {state.threat}: the GM must spend hard or dire before any player roll; "
                "log it with `tracker threat spend hard`, or pass --override to roll anyway."
            )
        stat, trait_name = _trait_value(ch, trait, state.system)
        is_trained = trained or ch.is_trained(trait) or bool(skill and ch.is_trained(skill))
        if skill and not trained and not ch.is_trained(skill):
            raise Refused(f"{ch.name} is not trained in {skill}; leave out --skill or add it.")
        parsed = [glintlock.parse_tag(t) for t in tags]
        for name in ch.conditions:
            if name not in ch.pending_suppressed:
                parsed.append(glintlock.Tag(-1, "condition"))
        effects: list[Effect] = []
        for tag_name in story:
            held = next((t for t in ch.story_tags if t.casefold() == tag_name.casefold()), None)
            if held is None:
                have = ", ".join(ch.story_tags) or "none"
                raise Refused(
                    f'{ch.name} holds no story tag "{tag_name}" (story tags: {have}); '
                    f"give one with `tracker tag add {ch.name} NAME`."
                )
            parsed.append(glintlock.Tag(1, "story"))
            effects.append(StoryTagSpent(held))
        # An advantage die bought earlier lifts the position one step, never past controlled.
        source = factory()
        if backlash is not None:
            backlash_source: DiceSource | None = source_for(backlash, None, "--backlash-dice")
        else:
            backlash_source = None if source.kind == "physical" else source
        tag_position = glintlock.position(glintlock.net_tags(parsed, ch.stress))
        room = len(glintlock.POSITIONS) - 1 - glintlock.POSITIONS.index(tag_position)
        steps = min(ch.pending_steps, room)
        result = glintlock.check(
            stat,
            dice=source,
            trained=is_trained,
            tags=parsed,
            stress=ch.stress,
            bonus=ch.pending_bonus,
            spell=spell,
            caster_class=ch.character_class,
            backlash_dice=backlash_source,
            position_steps=steps,
        )
        if result.mettle_delta:
            effects.append(TrackChange("mettle", result.mettle_delta))
        if result.threat_delta:
            effects.append(TrackChange("threat", result.threat_delta))
        if result.backlash is not None:
            effects.append(TrackChange("hp", -result.backlash.total, "backlash"))
        inputs = {
            "stat": stat,
            "trained": is_trained,
            "tags": [t.to_dict() for t in parsed],
            "stress": ch.stress,
            "bonus": ch.pending_bonus,
            "position_steps": steps,
            "spell": spell,
            "caster_class": ch.character_class,
            "override": override and state.threat_floor == "immediate",
        }
        doc = {
            "trait": trait_name,
            "stat": stat,
            "trained": is_trained,
            "effective": result.effective,
            "weak_dc": result.weak_dc,
            "strong_dc": result.strong_dc,
            "net_tags": result.net_tags,
            "position": result.position,
            "dice": list(result.dice),
            "kept": result.kept,
            "bonus": result.bonus,
            "outcome": result.outcome,
            "success": result.success,
            "natural": result.natural,
            "max_damage": result.max_damage,
            "backlash": None if result.backlash is None else result.backlash.to_dict(),
            "notes": [],
        }
        if ch.stress >= glintlock.STRESS_CONDITION_AT:
            doc["notes"].append(f"stress {ch.stress} counts as a -1 condition tag")
        if steps < ch.pending_steps:
            doc["notes"].append("the advantage die had no effect: the roll was already controlled")
        if ch.pending_bonus:
            doc["notes"].append(f"steel yourself: +{ch.pending_bonus} on the kept die")
        return inputs, result.to_dict(), effects, list(ch.pending_ids), doc

    def panic(
        self,
        name: str,
        trait: str,
        *,
        dice: str | None = None,
        seed: str | None = None,
        secret: bool = False,
    ) -> Logged:
        """Gloom: the panic check a catastrophe called for (a check at DL 0 on a trait)."""
        return self.roll(name, trait, dice=dice, seed=seed, secret=secret, kind="panic")

    # -- contests ---------------------------------------------------------------------------

    def contest(
        self,
        a_name: str,
        a_trait: str,
        b_name: str,
        b_trait: str,
        *,
        mode: str | None = None,
        dice_a: str | None = None,
        dice_b: str | None = None,
        seed: str | None = None,
        dl_a: int = 0,
        dl_b: int = 0,
        mods_a: Sequence[str] = (),
        mods_b: Sequence[str] = (),
        supernatural: bool = False,
        secret: bool = False,
    ) -> Logged:
        """A contest of A (the active side) against B (the defender).

        Either side may be a character or an unnamed opponent given as a name and a score
        (``contest Kade Hacking "Corp netrunner" 14``).
        """

        def sources() -> tuple[DiceSource, DiceSource]:
            shared = source_for(None, seed)
            a = source_for(dice_a, None, "--dice-a") if dice_a else shared
            b = source_for(dice_b, None, "--dice-b") if dice_b else shared
            return a, b

        def decide(state: CampaignState):
            a_side = _side(self, state, a_name, a_trait)
            b_side = _side(self, state, b_name, b_trait)
            if state.system == "glintlock":
                raise Refused(
                    "Glintlock has no contested rolls; roll the acting character against the "
                    "position the opposition sets (--tag)."
                )
            chosen = mode or "quick"
            src_a, src_b = sources()
            if state.system == "gloom":
                built = _gloom_contest(state, a_side, b_side, chosen, dl_a, dl_b, src_a, src_b)
            else:
                built = _gurps_contest(
                    state, a_side, b_side, chosen, mods_a, mods_b, supernatural, src_a, src_b
                )
            payload_fields, doc = built
            kind = "physical" if dice_a or dice_b else src_a.kind
            payload = ev.ContestRolled(
                system=state.system, mode=chosen, dice_source=kind, **payload_fields
            )
            event = self._event(payload, state=state, visibility="gm" if secret else "public")
            winner = payload.winner
            doc.update(
                event_id=event.event_id,
                system=state.system,
                mode=chosen,
                winner=None
                if winner is None
                else (a_side["name"] if winner == "a" else b_side["name"]),
                secret=secret,
            )
            return [event], doc

        return self._play(decide)

    # -- currencies, tracks and conditions ----------------------------------------------------

    def spend(
        self,
        name: str,
        action: str,
        *,
        cost: int | None = None,
        condition: str | None = None,
        note: str | None = None,
        to: str | None = None,
        roll: str | None = None,
    ) -> Logged:
        """Glintlock Mettle spends; GURPS character-point buy-ups (``buy-up``)."""
        if action == "buy-up":
            return self._buy_up(name, to, roll)

        def decide(state: CampaignState):
            from tracker.systems.glintlock import rules as glintlock

            registry.require(state.rules, Feature.METTLE, "Spending Mettle")
            ch = self.character(name, state)
            suppress = None
            if action == "suppress-condition":
                suppress = _condition_named(ch, condition)
            if action == "advantage-die" and ch.pending_steps >= len(glintlock.POSITIONS) - 1:
                raise Refused(
                    f"{ch.name}'s next roll is already controlled by advantage dice; "
                    "another cannot improve it."
                )
            spent = glintlock.spend_mettle(
                ch.mettle, action, stress=ch.stress, base=cost, name=ch.name
            )
            payload = ev.MettleSpent(
                character_id=ch.character_id,
                action=action,
                base=spent.base,
                cost=spent.cost,
                doubled=spent.doubled,
                note=note,
                condition=suppress,
            )
            doc = {"character": ch.name, **spent.to_dict(), "note": note, "condition": suppress}
            return [self._event(payload, state=state)], doc

        return self._play(decide)

    def _buy_up(self, name: str, to: str | None, roll_id: str | None) -> Logged:
        def decide(state: CampaignState):
            from tracker.systems.gurps import rules as gurps

            registry.require(state.rules, Feature.CHARACTER_POINTS, "Buying up a roll")
            if not state.cinematic:
                raise Refused(
                    "Buy-ups are for cinematic campaigns; this campaign was not made with "
                    "--cinematic."
                )
            ch = self.character(name, state)
            if ch.last_roll_id is None or (roll_id and not ch.last_roll_id.startswith(roll_id)):
                raise Refused(f"{ch.name} has no recent roll to buy up; roll first.")
            target = to or _next_outcome(ch.last_roll_outcome)
            cost = gurps.buy_up_cost(ch.last_roll_outcome, target)
            if cost > ch.points:
                raise Refused(
                    f"{ch.name} has {ch.points} character points; that buy-up costs {cost}."
                )
            payload = ev.RollBoughtUp(
                character_id=ch.character_id,
                roll_event_id=ch.last_roll_id,
                from_outcome=ch.last_roll_outcome,
                to_outcome=target,
                cost=cost,
            )
            doc = {
                "character": ch.name,
                "roll_event_id": ch.last_roll_id,
                "from": ch.last_roll_outcome,
                "to": target,
                "cost": cost,
                "points_left": ch.points - cost,
            }
            return [self._event(payload, state=state)], doc

        return self._play(decide)

    def gain(self, name: str, action: str, *, note: str | None = None) -> Logged:
        def decide(state: CampaignState):
            from tracker.systems.glintlock import rules as glintlock

            registry.require(state.rules, Feature.METTLE, "Gaining Mettle")
            ch = self.character(name, state)
            change = glintlock.gain_mettle(ch.mettle, action)
            payload = ev.MettleGained(
                character_id=ch.character_id, action=action, amount=change.delta, note=note
            )
            doc = {"character": ch.name, "action": action, **change.to_dict()}
            return [self._event(payload, state=state)], doc

        return self._play(decide)

    def threat_add(self, amount: int, *, reason: str | None = None) -> Logged:
        def decide(state: CampaignState):
            from tracker.systems.glintlock import rules as glintlock

            registry.require(state.rules, Feature.THREAT, "Threat")
            if amount < 1:
                raise BadInput("Threat is added in whole points of 1 or more.")
            change = glintlock.apply_track(state.threat, amount)
            payload = ev.ThreatAdded(amount=amount, reason=reason)
            return [self._event(payload, state=state)], {"reason": reason, **change.to_dict()}

        return self._play(decide)

    def threat_spend(self, tier: str, *, note: str | None = None) -> Logged:
        def decide(state: CampaignState):
            from tracker.systems.glintlock import rules as glintlock

            registry.require(state.rules, Feature.THREAT, "Threat")
            spent = glintlock.spend_threat(state.threat, tier)
            payload = ev.ThreatSpent(tier=tier, cost=spent.cost, note=note)
            return [self._event(payload, state=state)], {"note": note, **spent.to_dict()}

        return self._play(decide)

    def stress(self, name: str, delta: int, *, cause: str | None = None) -> Logged:
        def decide(state: CampaignState):
            registry.require(state.rules, Feature.STRESS, "Stress")
            if delta == 0:
                raise BadInput("Give the stress change as +N or -N, not 0.")
            ch = self.character(name, state)
            limit = state.rules.stress_limit(state.stress_limit)
            after = min(max(ch.stress + delta, 0), limit)
            payload = ev.StressChanged(character_id=ch.character_id, delta=delta, cause=cause)
            doc = {
                "character": ch.name,
                "before": ch.stress,
                "delta": delta,
                "after": after,
                "limit": limit,
                "cause": cause,
                "effects": state.rules.stress_words(after, limit),
            }
            return [self._event(payload, state=state)], doc

        return self._play(decide)

    def track(self, name: str, track: str, delta: int, *, cause: str | None = None) -> Logged:
        def decide(state: CampaignState):
            ch = self.character(name, state)
            current = getattr(ch, track)
            if current is None:
                raise Refused(
                    f"{ch.name}'s sheet has no {track.upper()}; add it to the sheet "
                    f"(--stat {track.upper()}=N) to track it."
                )
            if delta == 0:
                raise BadInput(f"Give the {track.upper()} change as +N or -N, not 0.")
            payload = ev.TrackChanged(
                character_id=ch.character_id, track=track, delta=delta, cause=cause
            )
            top = ch.hp_max if track == "hp" else ch.fp_max
            bottom = state.rules.track_floor(track, top)
            doc = {
                "character": ch.name,
                "track": track,
                "before": current,
                "delta": delta,
                "after": min(max(current + delta, bottom), top),
                "max": top,
                "cause": cause,
            }
            return [self._event(payload, state=state)], doc

        return self._play(decide)

    def condition_set(
        self,
        name: str,
        condition: str,
        *,
        duration: int | None = None,
        unit: str | None = None,
        note: str | None = None,
    ) -> Logged:
        def decide(state: CampaignState):
            ch = self.character(name, state)
            label = condition.strip()
            if not label:
                raise BadInput("Name the condition, like stunned or panicked.")
            if duration is not None and duration < 1:
                raise BadInput("A condition's duration is 1 or more.")
            payload = ev.ConditionSet(
                character_id=ch.character_id, name=label, duration=duration, unit=unit, note=note
            )
            doc = {"character": ch.name, "condition": label, "duration": duration, "unit": unit}
            return [self._event(payload, state=state)], doc

        return self._play(decide)

    def condition_clear(self, name: str, condition: str, *, note: str | None = None) -> Logged:
        def decide(state: CampaignState):
            ch = self.character(name, state)
            label = _condition_named(ch, condition)
            payload = ev.ConditionCleared(character_id=ch.character_id, name=label, note=note)
            return [self._event(payload, state=state)], {"character": ch.name, "condition": label}

        return self._play(decide)

    def tag_add(self, name: str, tag: str) -> Logged:
        def decide(state: CampaignState):
            registry.require(state.rules, Feature.STORY_TAGS, "Story tags")
            ch = self.character(name, state)
            if not tag.strip():
                raise BadInput("Name the story tag, like 'the old map'.")
            payload = ev.StoryTagGained(character_id=ch.character_id, name=tag.strip())
            doc = {"character": ch.name, "story_tag": tag.strip()}
            return [self._event(payload, state=state)], doc

        return self._play(decide)

    def points_award(self, name: str, points: int, *, reason: str | None = None) -> Logged:
        def decide(state: CampaignState):
            registry.require(state.rules, Feature.CHARACTER_POINTS, "Character points")
            if points < 1:
                raise BadInput("Award 1 or more character points.")
            ch = self.character(name, state)
            payload = ev.PointsAwarded(character_id=ch.character_id, points=points, reason=reason)
            doc = {"character": ch.name, "points": points, "total": ch.points + points}
            return [self._event(payload, state=state)], doc

        return self._play(decide)

    def note(self, text: str) -> Logged:
        def decide(state: CampaignState):
            if not text.strip():
                raise BadInput("A note needs some text.")
            payload = ev.NoteAdded(text=text.strip())
            return [self._event(payload, state=state)], {"text": text.strip()}

        return self._play(decide)

    # -- obligations -------------------------------------------------------------------------

    def obligation_dismiss(self, obligation: str, *, reason: str | None = None) -> Logged:
        def decide(state: CampaignState):
            ob = _obligation(state, obligation)
            if ob.kind == "threat-floor":
                raise Refused(
                    "The spending floor is discharged by a hard or dire spend, not dismissed; "
                    "log one with `tracker threat spend hard`."
                )
            payload = ev.ObligationDismissed(obligation=ob.id, reason=reason)
            return [self._event(payload, state=state)], {"obligation": ob.to_dict()}

        return self._play(decide)

    def breaking_point(self, name: str, result: str, consequence: str) -> Logged:
        def decide(state: CampaignState):
            from tracker.systems.glintlock.rules import BREAKING_POINT_CLEARS

            registry.require(state.rules, Feature.BREAKING_POINT, "The breaking point")
            ch = self.character(name, state)
            open_ = state.open_obligations("breaking-point", ch.character_id)
            if not open_:
                raise Refused(f"{ch.name} is not at the breaking point (stress {ch.stress}).")
            if not result.strip() or not consequence.strip():
                raise BadInput("Give the breaking table's result and the lasting consequence.")
            payload = ev.BreakingPointResolved(
                character_id=ch.character_id,
                result=result.strip(),
                consequence=consequence.strip(),
                cleared=BREAKING_POINT_CLEARS,
                obligation=open_[0].id,
            )
            doc = {
                "character": ch.name,
                "result": result.strip(),
                "consequence": consequence.strip(),
                "stress_after": max(ch.stress - BREAKING_POINT_CLEARS, 0),
            }
            return [self._event(payload, state=state)], doc

        return self._play(decide)

    def trait_assign(
        self, name: str, trait: str, *, kind: str | None = None, obligation: str | None = None
    ) -> Logged:
        def decide(state: CampaignState):
            registry.require(state.rules, Feature.FRIGHT_CHECKS, "Assigning fright traits")
            ch = self.character(name, state)
            owed = [
                o
                for o in state.open_obligations("assign-trait", ch.character_id)
                if (obligation is None or o.id == obligation)
                and (kind is None or o.data.get("trait") == kind)
            ]
            if not owed:
                raise Refused(
                    f"No trait is owed to {ch.name}; `tracker obligations` lists what is owed."
                )
            ob = owed[0]
            if not trait.strip():
                raise BadInput("Name the trait, like 'Quirk: flinches at water'.")
            payload = ev.TraitAssigned(
                character_id=ch.character_id,
                kind=ob.data.get("trait", kind or "quirk"),
                name=trait.strip(),
                points=ob.data.get("points"),
                obligation=ob.id,
            )
            doc = {"character": ch.name, "kind": payload.kind, "trait": payload.name}
            return [self._event(payload, state=state)], doc

        return self._play(decide)


# -- helpers ------------------------------------------------------------------------------------


def _trait_value(ch: Character, trait: str, system: str) -> tuple[int, str]:
    value, name = ch.skill(trait), ch.skill_name(trait)
    if value is None:
        value, name = ch.stat(trait), ch.stat_name(trait)
    if value is None and system == "glintlock" and ch.is_trained(trait):
        raise NotFound(
            f"{trait} is a skill {ch.name} is trained in; roll the stat it uses with it, "
            f"like `tracker roll {ch.name} Grit --skill {trait}`."
        )
    if value is None:
        known = ", ".join(k for k in [*ch.stats, *ch.skills] if k.casefold() not in ("hp", "fp"))
        known = known or "none yet"
        raise NotFound(
            f"{ch.name} has no {trait} (traits: {known}); add it with "
            f"`tracker character add` or check the spelling."
        )
    return value, name


def _gurps_inputs(base, modifiers, *, defense=False, retry_mode=None, **extra) -> dict[str, Any]:
    """What a GURPS success roll records of its inputs: the base (and where it came from), each
    labelled modifier, and what else the roll's kind needs to be re-decided or shown."""
    return {
        "base": base.value,
        "base_source": base.source,
        "modifiers": [m.to_dict() for m in modifiers],
        "defense": defense,
        "retry_mode": retry_mode,
        **extra,
    }


def gurps_sense(state: CampaignState, trait: str) -> str | None:
    """The sense a GURPS roll of ``trait`` is a sense roll of (None outside GURPS)."""
    if state.system != "gurps":
        return None
    from tracker.systems.gurps import rules as gurps

    return gurps.sense_of(trait)


def _defaults_for(ch: Character, skill: str) -> list[str]:
    wanted = skill.casefold()
    return [
        expr for name, exprs in ch.defaults.items() if name.casefold() == wanted for expr in exprs
    ]


def _condition_named(ch: Character, condition: str | None) -> str:
    if not condition:
        raise BadInput("Name the condition with --condition NAME.")
    for name in ch.conditions:
        if name.casefold() == condition.casefold():
            return name
    have = ", ".join(ch.conditions) or "none"
    raise Refused(f"{ch.name} has no condition {condition!r} (conditions: {have}).")


def _next_outcome(outcome: str | None) -> str:
    from tracker.systems.gurps import rules as gurps

    if outcome is None or outcome == gurps.OUTCOMES[-1]:
        raise Refused("That roll is already a critical success; nothing to buy.")
    return gurps.OUTCOMES[gurps.OUTCOMES.index(outcome) + 1]


def _obligation(state: CampaignState, ident: str) -> Obligation:
    ob = state.obligations.get(ident)
    if ob is None:
        ids = ", ".join(state.obligations) or "none"
        raise NotFound(f"No open obligation {ident} (open: {ids}); see `tracker obligations`.")
    return ob


def _catastrophe_effects(ch: Character, built):
    inputs, result, effects, consumed, doc = built
    if result["outcome"] == "catastrophe":
        effects = [
            *effects,
            ObligationOpened(
                "panic-check",
                f"{ch.name} rolled a catastrophe: call a panic check "
                f"(`tracker panic {ch.name} TRAIT`) or dismiss it.",
            ),
        ]
    return inputs, result, effects, consumed, doc


def _panic_effects(ch: Character, built):
    inputs, result, effects, consumed, doc = built
    if not result["success"]:
        effects = [*effects, ConditionApplied("panicked", note="failed panic check")]
    return inputs, result, effects, consumed, doc


def _describe_effects(
    state: CampaignState, ch: Character, effects: Sequence[Effect]
) -> list[dict[str, Any]]:
    """Each requested effect with the value it moves from and to, as the GM will see it."""
    out = []
    held = {"threat": state.threat, "mettle": ch.mettle}
    for effect in effects:
        doc = effect.to_json()
        if isinstance(effect, TrackChange) and effect.track in held:
            before = held[effect.track]
            after = min(max(before + effect.delta, 0), 6)
            doc.update(before=before, after=after, lost=max(before + effect.delta - 6, 0))
            held[effect.track] = after
        out.append(doc)
    return out


def _side(tracker, state: CampaignState, name: str, trait: str) -> dict[str, Any]:
    """A contest side: a character and its trait, or an opponent with a score."""
    ch = state.character(name)
    if ch is not None:
        return {"name": ch.name, "character_id": ch.character_id, "trait": trait, "ch": ch}
    try:
        score = int(trait)
    except ValueError:
        tracker.character(name, state)  # raises the unknown-character sentence
        raise
    if not name.strip():
        raise BadInput("Name the opponent, like 'Corp netrunner'.")
    return {"name": name.strip(), "character_id": None, "trait": None, "score": score, "ch": None}


def _gloom_contest(state, a, b, mode, dl_a, dl_b, src_a, src_b):
    from tracker.systems.gloom import rules as gloom

    if mode not in ("quick", "dynamic"):
        raise BadInput("A Gloom contest is quick (contested roll) or dynamic (dynamic floor).")

    def rank_and_flags(side):
        ch = side["ch"]
        if ch is None:
            return side["score"], False
        rank, side["trait"] = _trait_value(ch, side["trait"], "gloom")
        dis = "panicked" in {c.casefold() for c in ch.conditions} or ch.stress >= state.stress_limit
        return rank, dis

    a_rank, a_dis = rank_and_flags(a)
    b_rank, b_dis = rank_and_flags(b)
    if mode == "quick":
        result = gloom.contest(
            a_rank,
            b_rank,
            dice_a=src_a,
            dice_b=src_b,
            a_dl=dl_a,
            b_dl=dl_b,
            tie_rule=state.tie_rule,
            a_disadvantage=a_dis,
            b_disadvantage=b_dis,
        )
    else:
        result = gloom.dynamic_contest(
            a_rank,
            b_rank,
            dice_a=src_a,
            dice_b=src_b,
            base_dl=dl_a,
            defender_dl=dl_b,
            a_disadvantage=a_dis,
            b_disadvantage=b_dis,
        )
    effects = []
    for side, check in ((a, result.a), (b, result.b)):
        if side["ch"] is not None and check is not None and check.outcome == "catastrophe":
            effects.append(
                ObligationOpened(
                    "panic-check",
                    f"{side['name']} rolled a catastrophe: call a panic check "
                    f"(`tracker panic {side['name']} TRAIT`) or dismiss it.",
                    suffix="a" if side is a else "b",
                    character_id=side["character_id"],
                )
            )
    fields = {
        "a": _side_doc(a, {"rank": a_rank, "dl": dl_a}, result.a.to_dict()),
        "b": _side_doc(b, {"rank": b_rank, "dl": dl_b}, result.b.to_dict()),
        "winner": result.winner,
        "result": result.to_dict(),
        "effects": tuple(effects),
    }
    doc = {
        "a": _roll_doc(a, result.a.to_dict(), a_rank),
        "b": _roll_doc(b, result.b.to_dict(), b_rank),
        "reason": result.reason,
        "tie_rule": state.tie_rule,
        "effects": [e.to_json() for e in effects],
    }
    return fields, doc


def _gurps_effective(side, mods):
    """A GURPS contest side's base (skill, attribute or an opponent's score), its modifiers and
    its effective skill."""
    from tracker.systems.gurps import rules as gurps

    modifiers = [parse_modifier(m) for m in mods]
    ch = side["ch"]
    if ch is None:
        base = side["score"]
    else:
        found = gurps.base_skill(
            side["trait"],
            attributes={k: ch.stat(k) for k in ch.stats},
            skills=ch.skills,
            defaults=_defaults_for(ch, side["trait"]),
            character=ch.name,
        )
        base = found.value
    return base, modifiers, gurps.effective_skill(base, modifiers)


def _gurps_contest(state, a, b, mode, mods_a, mods_b, supernatural, src_a, src_b):
    from tracker.systems.gurps import rules as gurps

    a_base, a_mods, a_eff = _gurps_effective(a, mods_a)
    b_base, b_mods, b_eff = _gurps_effective(b, mods_b)
    extra: dict[str, Any] = {}
    if mode == "quick":
        result = gurps.quick_contest(a_eff, b_eff, dice_a=src_a, dice_b=src_b)
        a_roll, b_roll, winner = result.a, result.b, result.winner
        extra["margin_of_victory"] = result.margin_of_victory
    elif mode == "resistance":
        result = gurps.resistance_roll(
            a_eff, b_eff, dice_a=src_a, dice_b=src_b, supernatural=supernatural
        )
        a_roll, b_roll, winner = result.a, result.b, result.winner
        extra["margin_of_victory"] = result.margin_of_victory
        extra["rule_of_16"] = result.rule_of_16
    elif mode == "regular":
        running = [
            o
            for o in state.open_obligations("regular-contest")
            if o.data["a"]["name"] == a["name"] and (o.data.get("b") or {}).get("name") == b["name"]
        ]
        contest_id = running[0].data["contest_id"] if running else new_id()
        round_number = _next_round(state, contest_id) if running else 1
        result = gurps.regular_round(
            a_eff, b_eff, dice_a=src_a, dice_b=src_b, round_number=round_number
        )
        a_roll, b_roll, winner = result.a, result.b, result.winner
        extra.update(contest_id=contest_id, round=round_number, decided=result.decided)
    else:
        raise BadInput("A GURPS contest is quick, resistance or regular.")
    a_inputs = {"base": a_base, "modifiers": [m.to_dict() for m in a_mods], "effective": a_eff}
    b_inputs = {"base": b_base, "modifiers": [m.to_dict() for m in b_mods], "effective": b_eff}
    fields = {
        "a": _side_doc(a, a_inputs, a_roll.to_dict()),
        "b": None if b_roll is None else _side_doc(b, b_inputs, b_roll.to_dict()),
        "winner": winner,
        "result": result.to_dict(),
        "contest_id": extra.get("contest_id"),
        "round": extra.get("round"),
        "decided": extra.get("decided", True),
    }
    doc = {
        "a": _roll_doc(a, a_roll.to_dict(), a_eff),
        "b": None if b_roll is None else _roll_doc(b, b_roll.to_dict(), b_eff),
        **extra,
        "effects": [],
    }
    if mode == "regular":
        doc["decided"] = result.decided
    return fields, doc


def _next_round(state: CampaignState, contest_id: str) -> int:
    for ob in state.open_obligations("regular-contest"):
        if ob.data.get("contest_id") == contest_id:
            return ob.data.get("rounds", 1) + 1
    return 1


def _side_doc(side, inputs, result) -> ev.ContestSide:
    return ev.ContestSide(side["name"], side["character_id"], side["trait"], inputs, result)


def _roll_doc(side, result: dict[str, Any], effective: int) -> dict[str, Any]:
    """One side of a contest as the scripting contract's roll document."""
    return {
        "character": side["name"],
        "trait": side["trait"] or "score",
        "effective": result.get("effective", effective),
        "dice": result["dice"],
        "kept": result.get("kept", result.get("total")),
        "outcome": result["outcome"],
        "success": result["success"],
        "margin": result.get("margin"),
    }


def new_id() -> str:
    return str(uuid.uuid4())
