"""What Glintlock keeps of a campaign and its characters, folded from the log: Mettle and what
it bought for the next roll, story tags, breaking-point consequences, and the GM's Threat with
the spending floor it owes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from tracker.events import StoredEvent
from tracker.events import play as p
from tracker.events.effects import Effect
from tracker.systems.base import (
    CampaignFold,
    CharacterFold,
    Folding,
    ObligationKind,
    ObligationView,
    Part,
    Style,
    TrackChart,
    placed,
)
from tracker.systems.glintlock import rules as glintlock
from tracker.systems.glintlock.declared import BREAKING, FLOOR
from tracker.systems.glintlock.events import (
    BreakingPointResolved,
    MettleGained,
    MettleSpent,
    StoryTagGained,
    StoryTagSpent,
    ThreatAdded,
    ThreatSpent,
)


@dataclass(slots=True)
class GlintlockCharacter(Part):
    mettle: int = 0
    story_tags: list[str] = field(default_factory=list)
    consequences: list[str] = field(default_factory=list)
    # One-shot spends waiting for the character's next roll.
    pending_bonus: int = 0
    pending_steps: int = 0
    pending_suppressed: list[str] = field(default_factory=list)
    pending_ids: list[str] = field(default_factory=list)
    # The Advantage Die spend waiting for a roll it can improve (one at a time).
    pending_die_id: str | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> GlintlockCharacter:
        # Lists of strings copied shallowly are copied whole: the consequences grow with a
        # long campaign, and an undo copies the state.
        return GlintlockCharacter(
            self.mettle,
            list(self.story_tags),
            list(self.consequences),
            self.pending_bonus,
            self.pending_steps,
            list(self.pending_suppressed),
            list(self.pending_ids),
            self.pending_die_id,
        )

    def consume(self, consumed: tuple[str, ...]) -> None:
        """A roll uses the one-shot spends waiting for it; an Advantage Die it did not name
        (the roll was controlled already) waits on for the next roll."""
        waiting = self.pending_die_id is not None and self.pending_die_id not in consumed
        self.pending_bonus = 0
        self.pending_suppressed = []
        self.pending_ids = [self.pending_die_id] if waiting and self.pending_die_id else []
        if not waiting:
            self.pending_steps = 0
            self.pending_die_id = None


# ``GlintlockCampaign.floor_id`` before the obligations were looked through for the floor.
UNSOUGHT = False


@dataclass(slots=True)
class GlintlockCampaign(Part):
    threat: int = 0
    # Where the open spending floor is among the obligations (its id; None when none is open),
    # so that a Threat change, which a long campaign makes tens of thousands of times, finds it
    # at once instead of walking every open obligation. Only a cache: never stored with a
    # snapshot, looked for again (``UNSOUGHT``) in a state read from one.
    floor_id: str | bool | None = field(default=UNSOUGHT, compare=False)

    def to_snapshot(self) -> dict[str, Any]:
        return {"threat": self.threat}


def open_floor(state: CampaignFold) -> ObligationView | None:
    """The open spending-floor obligation, or None."""
    own = state.own
    ident = own.floor_id
    if ident is UNSOUGHT:
        found = next((o for o in state.obligations.values() if o.kind == FLOOR), None)
    else:
        # Closed since (a hard spend, a session's end, the GM dismissing it): gone from the
        # open obligations, where an id is never handed out twice to the floor.
        found = None if ident is None else state.obligations.get(ident)
        if found is not None and found.kind != FLOOR:
            found = None
    own.floor_id = None if found is None else found.id
    return found


def floor(state: CampaignFold) -> str:
    """ "none", "owed" or "immediate": the open spending-floor obligation, if any."""
    found = open_floor(state)
    return "none" if found is None else found.severity


# The floor at each Threat level the track can hold (it is clamped into 0 to THREAT_MAX).
_FLOOR_AT = tuple(glintlock.spending_floor(t) for t in range(glintlock.THREAT_MAX + 1))


@cache
def _floor_text(threat: int, severity: str, opened_at: int) -> str:
    # The floor follows the Threat as it moves, and says where it began: "since event 4"
    # beside "Threat 6" would otherwise read as if event 4 had made it 6. A handful of
    # sentences in all (Threat 4 to 6, and where it opened): each is made once, not again at
    # every change of the Threat.
    level = f"Threat {threat}" + (f" ({opened_at} when this opened)" if threat != opened_at else "")
    if severity == "immediate":
        return f"{level}: the GM must spend hard or dire now; player rolls wait for it."
    return f"{level}: the GM owes a hard or dire spend."


def _update_floor(state: CampaignFold, raw: StoredEvent) -> None:
    """Open, raise, lower or discharge the spending floor to match the Threat level."""
    own = state.own
    threat = own.threat
    severity = _FLOOR_AT[threat]
    if severity == "none" and own.floor_id is None:
        # Below the floor with none open (Threat moving between 0 and 3, as it mostly does):
        # nothing to open or close.
        return
    current = open_floor(state)
    if severity == "none":
        if current is not None:
            state.discharge(current, raw, f"Threat fell to {threat}")
        return
    if current is not None:
        current.severity = severity
        opened_at = current.data.get("opened_at", threat)
        current.what = _floor_text(threat, severity, opened_at)
    else:
        text = _floor_text(threat, severity, threat)
        state.own.floor_id = state.open(raw, FLOOR, text, severity=severity, opened_at=threat).id


# Whether each Stress level the track can hold is the breaking point: asked at every move of
# a character's stress.
_BREAKING_AT = tuple(glintlock.breaking_point(s) for s in range(glintlock.STRESS_MAX + 1))


def _set_threat(state: CampaignFold, value: int, raw: StoredEvent) -> None:
    threat = min(max(value, 0), glintlock.THREAT_MAX)
    if threat == state.own.threat:
        return
    state.own.threat = threat
    _update_floor(state, raw)


def _mettle_spent(state: CampaignFold, e: MettleSpent, raw: StoredEvent) -> None:
    own = state.characters[e.character_id].own
    own.mettle = max(own.mettle - e.cost, 0)
    bonus, steps = _next_roll(e.action)
    if bonus or steps:
        own.pending_bonus += bonus
        own.pending_steps += steps
        own.pending_ids.append(raw.event_id)
        if steps:
            own.pending_die_id = raw.event_id
    elif e.action == "suppress-condition" and e.condition:
        own.pending_suppressed.append(e.condition)
        own.pending_ids.append(raw.event_id)


def _next_roll(action: str) -> tuple[int, int]:
    """What a Mettle spend on ``action`` adds to the next roll: a bonus on the kept die and
    steps of better position."""
    if action == "steel-yourself":
        return glintlock.STEEL_YOURSELF_BONUS, 0
    if action == "advantage-die":
        return 0, 1
    return 0, 0


def _mettle_gained(state: CampaignFold, e: MettleGained, _: StoredEvent) -> None:
    own = state.characters[e.character_id].own
    own.mettle = min(own.mettle + e.amount, glintlock.METTLE_MAX)


def _threat_added(state: CampaignFold, e: ThreatAdded, raw: StoredEvent) -> None:
    _set_threat(state, state.own.threat + e.amount, raw)


def _threat_spent(state: CampaignFold, e: ThreatSpent, raw: StoredEvent) -> None:
    if e.tier in ("hard", "dire"):
        owed = open_floor(state)
        if owed is not None:
            state.discharge(owed, raw, f"{e.tier} spend")
    _set_threat(state, state.own.threat - e.cost, raw)


def _story_tag_gained(state: CampaignFold, e: StoryTagGained, _: StoredEvent) -> None:
    state.characters[e.character_id].own.story_tags.append(e.name)


def _breaking_point(state: CampaignFold, e: BreakingPointResolved, raw: StoredEvent) -> None:
    ch = state.characters[e.character_id]
    ch.own.consequences.append(e.consequence)
    for ob in state.open_obligations(BREAKING, ch.character_id):
        state.discharge(ob, raw, f"breaking point: {e.result}")
    state.set_stress(ch, -e.cleared, raw)


def _pre_mettle(state: CampaignFold, e: MettleSpent) -> str | None:
    ch = state.characters[e.character_id]
    if ch.own.mettle < e.cost:
        return f"{ch.name} would have {ch.own.mettle} Mettle for a spend of {e.cost}"
    if (
        e.action == "suppress-condition"
        and e.condition
        and not any(name.casefold() == e.condition.casefold() for name in ch.conditions)
    ):
        return f"{ch.name} would not be {e.condition} to suppress it"
    return None


def _pre_gain(state: CampaignFold, e: MettleGained) -> str | None:
    ch = state.characters[e.character_id]
    if e.action == "lean-into-condition" and not ch.conditions:
        return f"{ch.name} would have no condition to lean into"
    return None


def _pre_threat(state: CampaignFold, e: ThreatSpent) -> str | None:
    threat = state.own.threat
    return f"Threat would be {threat} for a spend of {e.cost}" if threat < e.cost else None


def _pre_breaking_point(state: CampaignFold, e: BreakingPointResolved) -> str | None:
    owed = state.open_obligations(BREAKING, e.character_id)
    return None if owed else "the breaking point would not be owed"


class GlintlockFolding(Folding):
    campaign_part: ClassVar[type[Part]] = GlintlockCampaign
    character_part: ClassVar[type[Part]] = GlintlockCharacter
    handlers: ClassVar[dict[type, Any]] = {
        MettleSpent: _mettle_spent,
        MettleGained: _mettle_gained,
        ThreatAdded: _threat_added,
        ThreatSpent: _threat_spent,
        StoryTagGained: _story_tag_gained,
        BreakingPointResolved: _breaking_point,
    }
    charts: ClassVar[tuple[TrackChart, ...]] = (
        TrackChart("Mettle and Threat", "mettle", "threat", glintlock.METTLE_MAX),
    )
    preconditions: ClassVar[dict[type, Any]] = {
        MettleSpent: _pre_mettle,
        MettleGained: _pre_gain,
        ThreatSpent: _pre_threat,
        BreakingPointResolved: _pre_breaking_point,
    }

    def rolled(
        self, state: CampaignFold, ch: CharacterFold, event: p.RollMade, raw: StoredEvent
    ) -> None:
        if event.consumed:
            ch.own.consume(event.consumed)

    def roll_problem(self, state: CampaignFold, ch: CharacterFold, event: p.RollMade) -> str | None:
        own = ch.own
        if any(i not in own.pending_ids for i in event.consumed):
            return "it used a Mettle spend that would not have happened"
        for effect in event.effects:
            if isinstance(effect, StoryTagSpent) and effect.tag not in own.story_tags:
                return f"it spent the story tag {effect.tag!r}, which would not be held"
        if floor(state) == "immediate" and not event.inputs.get("override"):
            return "it would have been rolled while Threat 6 waited for a hard spend"
        return None

    def track_moved(
        self,
        state: CampaignFold,
        ch: CharacterFold | None,
        track: str,
        delta: int,
        raw: StoredEvent,
    ) -> None:
        if track == "threat":
            _set_threat(state, state.own.threat + delta, raw)
        elif track == "mettle" and ch is not None:
            ch.own.mettle = min(max(ch.own.mettle + delta, 0), glintlock.METTLE_MAX)

    def effect(
        self, state: CampaignFold, ch: CharacterFold | None, effect: Effect, raw: StoredEvent
    ) -> None:
        if type(effect) is StoryTagSpent and ch is not None and effect.tag in ch.own.story_tags:
            ch.own.story_tags.remove(effect.tag)

    def stress_moved(self, state: CampaignFold, ch: CharacterFold, raw: StoredEvent) -> None:
        stress = ch.stress
        at = _BREAKING_AT[stress] if 0 <= stress <= glintlock.STRESS_MAX else None
        if at is None:
            at = glintlock.breaking_point(stress)  # which says what is wrong with it
        if at and not state.open_obligations(BREAKING, ch.character_id):
            state.open(
                raw,
                BREAKING,
                f"{ch.name} is at the breaking point: roll the breaking table, clear 3 stress, "
                "record a lasting consequence.",
                character_id=ch.character_id,
            )

    def session_started(self, state: CampaignFold, raw: StoredEvent) -> None:
        for ch in state.characters.values():
            ch.own.mettle = 0
            # What Mettle bought for "the next roll" lapses with the session it was bought in.
            ch.own.consume(tuple(ch.own.pending_ids))
        if "threat" in state.rules.session_resets(state):
            state.own.threat = 0
        # The floor the last session's end let lapse is owed again when Threat carried over
        # at 4 or more: it follows the Threat on hand (the ruling beside ``spending_floor``).
        _update_floor(state, raw)

    def lapsing(self, state: CampaignFold) -> list[ObligationView]:
        # The spending floor is owed in play, where Threat is spent: a session's end closes it
        # as lapsed, and the next start sets it again from the Threat it begins with. A
        # breaking point is bookkeeping between sessions, and stays owed.
        owed = open_floor(state)
        return [] if owed is None else [owed]

    def character_doc(self, ch: CharacterFold, doc: dict[str, Any]) -> dict[str, Any]:
        own = ch.own
        doc = placed(doc, "stress", {"mettle": own.mettle})
        doc["story_tags"] = list(own.story_tags)
        doc["next_roll"] = {
            "bonus": own.pending_bonus,
            "position_steps": own.pending_steps,
            "suppressed": list(own.pending_suppressed),
        }
        doc["consequences"] = list(own.consequences)
        return doc

    def lasting(self, ch: CharacterFold) -> dict[str, Any]:
        return {"consequences": list(ch.own.consequences)}

    def campaign_doc(self, state: CampaignFold, doc: dict[str, Any]) -> dict[str, Any]:
        doc["threat"] = state.own.threat
        doc["spending_floor"] = floor(state)
        return doc

    def readings(
        self, state: CampaignFold, ch: CharacterFold | None, doc: dict[str, Any]
    ) -> dict[str, Any]:
        if ch is None:
            return {"Threat": state.own.threat, **doc}
        return placed(doc, "stress", {"Mettle": ch.own.mettle})

    def chart(
        self, state: CampaignFold, ch: CharacterFold | None, point: dict[str, Any]
    ) -> dict[str, Any]:
        if ch is None:
            return {**point, "threat": state.own.threat}
        return placed(point, "hp", {"mettle": ch.own.mettle})

    def currencies(self, state: CampaignFold, ch: CharacterFold) -> dict[str, tuple[int, int]]:
        return {
            "threat": (state.own.threat, glintlock.THREAT_MAX),
            "mettle": (ch.own.mettle, glintlock.METTLE_MAX),
        }

    def headline(self, state: CampaignFold) -> str:
        owed = {"none": "", "owed": " (hard spend owed)", "immediate": " (hard spend NOW)"}
        return f" · Threat {state.own.threat}{owed[floor(state)]}"

    def sheet_lines(self, ch: CharacterFold) -> list[str]:
        return [f"  Breaking point: {consequence}" for consequence in ch.own.consequences]

    def status_parts(
        self, doc: Mapping[str, Any], parts: dict[str, str | None], style: Style
    ) -> dict[str, str | None]:
        parts = placed(parts, "stress", {"mettle": f"Mettle {doc['mettle']}"})
        after: dict[str, str | None] = {}
        if doc.get("story_tags"):
            after["story_tags"] = "story: " + ", ".join(doc["story_tags"])
        waiting = doc.get("next_roll") or {}
        if waiting.get("bonus") or waiting.get("position_steps"):
            after["next_roll"] = style.dim(
                f"next roll +{waiting['bonus']}, {waiting['position_steps']} step(s) better"
            )
        return placed(parts, "retired", after)

    def status_lines(self, doc: Mapping[str, Any]) -> list[str]:
        return [f"  Breaking point: {consequence}" for consequence in doc.get("consequences", ())]

    def lapses_at_start(self, state: CampaignFold) -> tuple[str, ...]:
        """What Mettle bought for the next roll that no roll used, which a session start lapses.

        Rulebook: Glintlock, 'Mettle & Threat': Mettle "starts 0 per session". Ruling
        (tracker's, the text being silent): what it bought for "the next roll" lapses with the
        session it was bought in, and the start says so rather than dropping it unseen.
        """
        lapsing = []
        for ch in state.characters.values():
            own = ch.own
            bought = [f"Steel Yourself (+{own.pending_bonus})"] if own.pending_bonus else []
            bought += ["Advantage Die"] if own.pending_steps else []
            bought += [f"Suppress Condition ({name})" for name in own.pending_suppressed]
            if bought:
                lapsing.append(
                    f"{ch.name}'s unused {', '.join(bought)}, paid in Mettle last session"
                )
        return tuple(lapsing)


FOLDING = GlintlockFolding()


def _hard_spend(_: Mapping[str, Any]) -> tuple[tuple[str, ...], dict[str, Any]]:
    """What pays the spending floor: a Threat spend at hard, the least that does."""
    return ("threat", "spend"), {"tier": "hard"}


OBLIGATIONS = {
    BREAKING: ObligationKind("the breaking point"),
    # A hard or dire spend pays the floor, and its own line says so.
    FLOOR: ObligationKind(
        None,
        kept="The spending floor is discharged by a hard or dire spend, not dismissed; "
        "log one with `tracker threat spend hard`.",
        goes_on=_hard_spend,
    ),
}
"""How tracker speaks of each kind of obligation Glintlock's rules open
(``Obligations.obligations``)."""
