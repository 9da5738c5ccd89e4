"""Play at the table: each handler reads the state, asks the rules, and logs what they decided.

The state feeds the rules without the GM typing it: Glintlock stress adds its condition tag and
doubles Mettle costs, active conditions count as -1 tags, steel-yourself and advantage-die apply to
the next roll; Gloom rank 21+ gives advantage and panic or the stress limit disadvantage; GURPS
retry penalties and fright exposures are counted from the log, defaults come from the sheet.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tracker.errors import BadInput, NotFound, Refused
from tracker.events import NewEvent, StoredEvent
from tracker.events import play as ev
from tracker.events.effects import (
    Effect,
    TrackChange,
)
from tracker.projections.campaign import CampaignState, Character, Obligation
from tracker.systems import registry
from tracker.systems.base import ContestRequest, Feature, RollRequest, Side
from tracker.systems.dice import DiceSource

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

        request = RollRequest(
            trait=trait,
            kind=kind,
            dl=dl,
            mods=tuple(mods),
            tags=tuple(tags),
            story=tuple(story),
            advantage=advantage,
            disadvantage=disadvantage,
            trained=trained,
            skill=skill,
            spell=spell,
            defense=defense,
            task=task,
            retry=retry,
            feat=feat,
            danger=danger,
            public=public,
            override=override,
            no_panic=no_panic,
            dice=dice,
            seed=seed,
            backlash_dice=backlash_dice,
            danger_dice=danger_dice,
        )
        dice_source, seed_text = _dice_kind(request.new_dice)

        def decide(state: CampaignState) -> tuple[list[NewEvent], dict[str, Any]]:
            ch = self.character(name, state)
            rules = state.rules
            decided = rules.decide_roll(request, ch, state)
            if (feat or danger or public) and not rules.has(Feature.SENSE_ROLLS):
                raise BadInput(
                    f"--feat, --danger and --public are "
                    f"{registry.titles_with(Feature.SENSE_ROLLS)} options."
                )
            hidden = secret or decided.secret
            event = self._event(
                ev.RollMade(
                    character_id=ch.character_id,
                    system=state.system,
                    trait=decided.trait,
                    kind=kind,
                    inputs=decided.inputs,
                    dice_source=dice_source,
                    dice=decided.dice,
                    result=decided.result,
                    effects=decided.effects,
                    consumed=decided.consumed,
                    task=task,
                    seed=seed_text,
                ),
                state=state,
                visibility="gm" if hidden else "public",
            )
            doc = decided.doc
            doc.update(
                event_id=event.event_id,
                system=state.system,
                character=ch.name,
                kind=kind,
                secret=hidden,
                dice_source=dice_source,
                effects=_describe_effects(state, ch, decided.effects),
            )
            # What the rules call for at once (Danger Sense) follows the roll it answers.
            followups = [
                self._event(
                    ev.RollMade(
                        character_id=ch.character_id,
                        system=state.system,
                        trait=then.trait,
                        kind=then.kind or kind,
                        inputs={**then.inputs, "after": event.event_id},
                        dice_source=then.dice_source or dice_source,
                        dice=then.dice,
                        result=then.result,
                        effects=then.effects,
                        consumed=then.consumed,
                    ),
                    state=state,
                    visibility="gm" if hidden or then.secret else "public",
                )
                for then in decided.followups
            ]
            return [event, *followups], doc

        return self._play(decide)

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

        request = ContestRequest(
            mode=mode,
            dl_a=dl_a,
            dl_b=dl_b,
            mods_a=tuple(mods_a),
            mods_b=tuple(mods_b),
            supernatural=supernatural,
            dice_a=dice_a,
            dice_b=dice_b,
            seed=seed,
        )

        def decide(state: CampaignState):
            a_side = side(self, state, a_name, a_trait)
            b_side = side(self, state, b_name, b_trait)
            asked = dataclasses.replace(request, running=_running(state, a_side, b_side))
            decided = state.rules.decide_contest(asked, a_side, b_side, state)
            kind = "physical" if dice_a or dice_b else asked.sources()[0].kind
            payload = ev.ContestRolled(
                system=state.system,
                mode=decided.mode,
                a=decided.a,
                b=decided.b,
                winner=decided.winner,
                result=decided.result,
                dice_source=kind,
                contest_id=decided.contest_id,
                round=decided.round,
                decided=decided.decided,
                effects=decided.effects,
            )
            event = self._event(payload, state=state, visibility="gm" if secret else "public")
            winner = payload.winner
            doc = decided.doc
            doc.update(
                event_id=event.event_id,
                system=state.system,
                mode=decided.mode,
                winner=None if winner is None else (a_side.name if winner == "a" else b_side.name),
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


def side(tracker, state: CampaignState, name: str, trait: str) -> Side:
    """A contest side: a character and its trait, or an opponent given as a name and a score
    (``contest Kade Hacking "Corp netrunner" 14``)."""
    ch = state.character(name)
    if ch is not None:
        return Side(ch.name, ch, trait)
    try:
        score = int(trait)
    except ValueError:
        tracker.character(name, state)  # raises the unknown-character sentence
        raise
    if not name.strip():
        raise BadInput("Name the opponent, like 'Corp netrunner'.")
    return Side(name.strip(), None, None, score)


def _running(state: CampaignState, a: Side, b: Side) -> tuple[str, int] | None:
    """The contest still under way between these sides (its id) and the round it is at."""
    for ob in state.open_obligations("regular-contest"):
        if ob.data["a"]["name"] == a.name and (ob.data.get("b") or {}).get("name") == b.name:
            return ob.data["contest_id"], ob.data.get("rounds", 1) + 1
    return None
