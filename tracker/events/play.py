"""Events of play at the table: rolls, contests, fright checks, currencies, stress, conditions.

Events record facts, not recomputations: a roll keeps its inputs (trait, base value, every labelled
modifier, tags), the dice as rolled and their source, the decided result, and the effects it
requested on each track. Projections apply the recorded effects; ``tracker verify`` re-decides the
result from the recorded inputs and dice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from tracker.events.catalog import EventPayload, event_type


@event_type
@dataclass(frozen=True, slots=True)
class RollMade(EventPayload):
    """One roll of a character: a check, a defense, a panic check, a project day, extra effort.

    ``effects`` are the changes the roll requests: ``{"track": "mettle", "delta": 1}``,
    ``{"track": "threat", "delta": 2}``, ``{"track": "hp", "delta": -7, "cause": "backlash"}``,
    ``{"condition": "panicked"}``, ``{"obligation": "panic-check"}``. ``consumed`` names the
    earlier events whose one-shot effect this roll used (a steel-yourself spend, a story tag).
    """

    TYPE: ClassVar[str] = "RollMade"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    system: str
    trait: str
    kind: str
    inputs: dict[str, Any]
    dice_source: str
    dice: tuple[int, ...]
    result: dict[str, Any]
    effects: tuple[dict[str, Any], ...] = ()
    consumed: tuple[str, ...] = ()
    task: str | None = None
    seed: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class ContestRolled(EventPayload):
    """A contest between two sides; each side is a character or a named opponent with a score.

    ``a`` and ``b`` hold each side's name, character id (None for an opponent), trait, inputs
    and result; ``b`` is None when the defender did not roll. A GURPS regular contest logs one
    event per round, sharing ``contest_id``.
    """

    TYPE: ClassVar[str] = "ContestRolled"
    character_field: ClassVar[str | None] = None
    system: str
    mode: str
    a: dict[str, Any]
    b: dict[str, Any] | None
    winner: str | None
    result: dict[str, Any]
    dice_source: str
    contest_id: str | None = None
    round: int | None = None
    decided: bool = True
    effects: tuple[dict[str, Any], ...] = ()


@event_type
@dataclass(frozen=True, slots=True)
class FrightChecked(EventPayload):
    """A GURPS Fright Check, and on failure the table roll with its structured effects."""

    TYPE: ClassVar[str] = "FrightChecked"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    inputs: dict[str, Any]
    dice_source: str
    result: dict[str, Any]
    effects: tuple[dict[str, Any], ...] = ()
    threat: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class MettleSpent(EventPayload):
    """Glintlock: Mettle spent on an action, at the cost the stress level made it."""

    TYPE: ClassVar[str] = "MettleSpent"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    action: str
    base: int
    cost: int
    doubled: bool = False
    note: str | None = None
    condition: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class MettleGained(EventPayload):
    """Glintlock: Mettle gained besides a roll (deep cut, leaning into a condition, a weakness)."""

    TYPE: ClassVar[str] = "MettleGained"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    action: str
    amount: int = 1
    note: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class ThreatAdded(EventPayload):
    """Glintlock: Threat the GM gains outside a roll (an exploration turn in danger)."""

    TYPE: ClassVar[str] = "ThreatAdded"
    amount: int
    reason: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class ThreatSpent(EventPayload):
    """Glintlock: a GM move paid for with Threat (free, soft, hard or dire)."""

    TYPE: ClassVar[str] = "ThreatSpent"
    tier: str
    cost: int
    note: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class StressChanged(EventPayload):
    """Stress gained or cleared, with its cause."""

    TYPE: ClassVar[str] = "StressChanged"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    delta: int
    cause: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class TrackChanged(EventPayload):
    """HP or FP lost or regained (GURPS; HP in Glintlock), with its cause."""

    TYPE: ClassVar[str] = "TrackChanged"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    track: str
    delta: int
    cause: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class ConditionSet(EventPayload):
    """A condition on a character, with how long it lasts when the rules say."""

    TYPE: ClassVar[str] = "ConditionSet"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    name: str
    duration: int | None = None
    unit: str | None = None
    note: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class ConditionCleared(EventPayload):
    """A condition ends."""

    TYPE: ClassVar[str] = "ConditionCleared"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    name: str
    note: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class StoryTagGained(EventPayload):
    """Glintlock: a story tag the character may spend once for +1 on a roll."""

    TYPE: ClassVar[str] = "StoryTagGained"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    name: str


@event_type
@dataclass(frozen=True, slots=True)
class PointsAwarded(EventPayload):
    """GURPS: character points awarded (spent on buy-ups in cinematic campaigns)."""

    TYPE: ClassVar[str] = "PointsAwarded"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    points: int
    reason: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class RollBoughtUp(EventPayload):
    """GURPS cinematic: points spent to improve a roll's outcome; the roll itself never changes."""

    TYPE: ClassVar[str] = "RollBoughtUp"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    roll_event_id: str
    from_outcome: str
    to_outcome: str
    cost: int


@event_type
@dataclass(frozen=True, slots=True)
class TraitAssigned(EventPayload):
    """GURPS: the GM assigns a trait a fright result called for (a quirk, delusion, phobia)."""

    TYPE: ClassVar[str] = "TraitAssigned"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    kind: str
    name: str
    points: int | None = None
    obligation: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class BreakingPointResolved(EventPayload):
    """Glintlock: the breaking point at stress 6 resolved: table result, 3 stress cleared."""

    TYPE: ClassVar[str] = "BreakingPointResolved"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    result: str
    consequence: str
    cleared: int = 3
    obligation: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class ObligationDismissed(EventPayload):
    """The GM waives an obligation (a panic check not called for, say), with the reason."""

    TYPE: ClassVar[str] = "ObligationDismissed"
    obligation: str
    reason: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class ProjectStarted(EventPayload):
    """GURPS: a major project and the man-hours it needs."""

    TYPE: ClassVar[str] = "ProjectStarted"
    project_id: str
    name: str
    skill: str
    man_hours: int


@event_type
@dataclass(frozen=True, slots=True)
class NoteAdded(EventPayload):
    """A GM's line of narrative, shown in place in replays."""

    TYPE: ClassVar[str] = "NoteAdded"
    text: str
    tags: tuple[str, ...] = field(default_factory=tuple)


@event_type
@dataclass(frozen=True, slots=True)
class EventsRevoked(EventPayload):
    """Undo: the named events no longer count. Nothing is deleted; projections skip them."""

    TYPE: ClassVar[str] = "EventsRevoked"
    event_ids: tuple[str, ...]
    reason: str | None = None
    cascade: bool = False


@event_type
@dataclass(frozen=True, slots=True)
class EventsRestored(EventPayload):
    """Redo: events an earlier undo revoked count again."""

    TYPE: ClassVar[str] = "EventsRestored"
    event_ids: tuple[str, ...]
    revocation: str | None = None
    reason: str | None = None
