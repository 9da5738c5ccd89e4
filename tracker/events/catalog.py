"""One immutable type per kind of event, registered by name with its schema version.

Payloads are stored as JSON. ``encode`` turns a typed event into (type, schema_version, payload);
``decode`` lifts an old payload through the upcasters in ``tracker.events.upcasters`` and builds the
typed event, so projections only ever see current shapes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from tracker.events.upcasters import upcast

CATALOG: dict[str, type[EventPayload]] = {}
P = TypeVar("P", bound="EventPayload")


class EventPayload:
    """Base of every event type: ``TYPE`` names it in the log, ``VERSION`` is its payload schema."""

    TYPE: ClassVar[str]
    VERSION: ClassVar[int] = 1
    # Events about one character carry its id in the envelope's character_id column too.
    character_field: ClassVar[str | None] = None

    def to_payload(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def event_type(cls: type[P]) -> type[P]:
    if cls.TYPE in CATALOG:
        raise RuntimeError(f"Event type {cls.TYPE} is registered twice.")
    CATALOG[cls.TYPE] = cls
    return cls


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def encode(event: EventPayload) -> tuple[str, int, dict[str, Any]]:
    return event.TYPE, event.VERSION, event.to_payload()


def decode(type_: str, schema_version: int, payload: dict[str, Any]) -> EventPayload:
    """The typed event for a stored payload, upcast to the current schema version first."""
    cls = CATALOG.get(type_)
    if cls is None:
        raise ValueError(f"unknown event type {type_!r}")
    if schema_version != cls.VERSION:
        payload = upcast(type_, schema_version, payload, cls.VERSION)
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = frozenset(f.name for f in dataclasses.fields(cls))
    # Lists stay lists below the top level: projections only read them.
    return cls(**{k: tuple(v) if type(v) is list else v for k, v in payload.items() if k in names})


_FIELD_NAMES: dict[type, frozenset[str]] = {}


@event_type
@dataclass(frozen=True, slots=True)
class CampaignCreated(EventPayload):
    """A campaign began: its rule system and the table settings the rulings leave to the GM."""

    TYPE: ClassVar[str] = "CampaignCreated"
    name: str
    system: str
    tie_rule: str = "stat"
    cinematic: bool = False
    stress_limit: int = 6
    threat_carries_over: bool = False


@event_type
@dataclass(frozen=True, slots=True)
class SessionStarted(EventPayload):
    """A session of play began; its number is the session_id of every event logged in it."""

    TYPE: ClassVar[str] = "SessionStarted"
    number: int
    title: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class SessionEnded(EventPayload):
    """A session ended; obligations still open then are recorded as lapsed."""

    TYPE: ClassVar[str] = "SessionEnded"
    number: int
    lapsed: tuple[str, ...] = ()


@event_type
@dataclass(frozen=True, slots=True)
class CharacterAdded(EventPayload):
    """A character joined the campaign with its sheet: stats, skills, training, class, traits."""

    TYPE: ClassVar[str] = "CharacterAdded"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    name: str
    stats: dict[str, int] = field(default_factory=dict)
    skills: dict[str, int] = field(default_factory=dict)
    trained: tuple[str, ...] = ()
    character_class: str | None = None
    defaults: dict[str, list[str]] = field(default_factory=dict)
    traits: tuple[str, ...] = ()
    sheet: str | None = None


@event_type
@dataclass(frozen=True, slots=True)
class CharacterDefaultSet(EventPayload):
    """A GURPS default added to a character's sheet (Lockpicking defaults to IQ-5)."""

    TYPE: ClassVar[str] = "CharacterDefaultSet"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    skill: str
    expression: str
