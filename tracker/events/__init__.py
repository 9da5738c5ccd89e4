"""The event catalog: one immutable type per kind of event, the typed effects events record, and
upcasters for old payloads."""

from tracker.events import play  # registers the events of play in CATALOG
from tracker.events.catalog import (
    CATALOG,
    CampaignCreated,
    CharacterAdded,
    CharacterDefaultSet,
    EventPayload,
    SessionEnded,
    SessionStarted,
    Unreadable,
    decode,
    encode,
)
from tracker.events.envelope import NewEvent, StoredEvent

__all__ = [
    "CATALOG",
    "CampaignCreated",
    "CharacterAdded",
    "CharacterDefaultSet",
    "EventPayload",
    "NewEvent",
    "SessionEnded",
    "SessionStarted",
    "StoredEvent",
    "Unreadable",
    "decode",
    "encode",
    "play",
]
