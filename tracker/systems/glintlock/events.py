"""Glintlock's own events: Mettle spent and gained, the GM's Threat, story tags, and the
breaking point resolved. Their stored type names are the ones tracker has always written."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from tracker.events.catalog import EventPayload, event_type
from tracker.events.effects import Effect, effect_shape


@event_type
class MettleSpent(EventPayload, frozen=True):
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
class MettleGained(EventPayload, frozen=True):
    """Glintlock: Mettle gained besides a roll (deep cut, leaning into a condition, a weakness)."""

    TYPE: ClassVar[str] = "MettleGained"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    action: str
    amount: int = 1
    note: str | None = None


@event_type
class ThreatAdded(EventPayload, frozen=True):
    """Glintlock: Threat the GM gains outside a roll (an exploration turn in danger)."""

    TYPE: ClassVar[str] = "ThreatAdded"
    amount: int
    reason: str | None = None


@event_type
class ThreatSpent(EventPayload, frozen=True):
    """Glintlock: a GM move paid for with Threat (free, soft, hard or dire)."""

    TYPE: ClassVar[str] = "ThreatSpent"
    tier: str
    cost: int
    note: str | None = None


@event_type
class StoryTagGained(EventPayload, frozen=True):
    """Glintlock: a story tag the character may spend once for +1 on a roll."""

    TYPE: ClassVar[str] = "StoryTagGained"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    name: str


@event_type
class BreakingPointResolved(EventPayload, frozen=True):
    """Glintlock: the breaking point at stress 6 resolved: table result, 3 stress cleared."""

    TYPE: ClassVar[str] = "BreakingPointResolved"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    result: str
    consequence: str
    cleared: int = 3
    obligation: str | None = None
    # The roll on the campaign's breaking table that gave ``result``, when it was rolled here.
    roll: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET


@effect_shape("story_tag_spent")
class StoryTagSpent(
    msgspec.Struct, Effect, frozen=True, omit_defaults=True, gc=False, forbid_unknown_fields=True
):
    """A held story tag used on the roll, and so spent: an effect its roll stores as
    ``{"story_tag_spent": "the old map"}``."""

    tag: str = msgspec.field(name="story_tag_spent")
    character_id: str | None = None

    def words(self) -> str:
        return f"spent {self.tag}"
