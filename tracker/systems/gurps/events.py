"""GURPS's own events: Fright Checks, character points awarded and spent on buy-ups, traits a
result called for, and major projects. Their stored type names are the ones tracker has always
written."""

from __future__ import annotations

from typing import Any, ClassVar

from tracker.events.catalog import EventPayload, event_type
from tracker.events.effects import Effect
from tracker.events.play import RollAmended


@event_type
class FrightChecked(EventPayload, frozen=True):
    """A GURPS Fright Check, and on failure the table roll with its structured effects."""

    TYPE: ClassVar[str] = "FrightChecked"
    character_field: ClassVar[str | None] = "character_id"
    rolls: ClassVar[bool] = True
    character_id: str
    inputs: dict[str, Any]
    dice_source: str
    result: dict[str, Any]
    effects: tuple[Effect, ...] = ()
    threat: str | None = None


@event_type
class PointsAwarded(EventPayload, frozen=True):
    """GURPS: character points awarded (spent on buy-ups in cinematic campaigns)."""

    TYPE: ClassVar[str] = "PointsAwarded"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    points: int
    reason: str | None = None


@event_type
class RollBoughtUp(RollAmended, frozen=True):
    """GURPS cinematic: points spent to improve a roll's outcome; the roll itself never changes."""

    TYPE: ClassVar[str] = "RollBoughtUp"
    cost: int


@event_type
class TraitAssigned(EventPayload, frozen=True):
    """GURPS: the GM assigns a trait a fright result called for (a quirk, delusion, phobia)."""

    TYPE: ClassVar[str] = "TraitAssigned"
    character_field: ClassVar[str | None] = "character_id"
    changes_sheet: ClassVar[bool] = True
    character_id: str
    kind: str
    name: str
    points: int | None = None
    obligation: str | None = None


@event_type
class ProjectStarted(EventPayload, frozen=True):
    """GURPS: a major project and the man-hours it needs."""

    TYPE: ClassVar[str] = "ProjectStarted"
    project_id: str
    name: str
    skill: str
    man_hours: int
