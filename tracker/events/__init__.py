"""The event catalog: one immutable type per kind of event, and upcasters for old payloads."""

from tracker.events import play  # registers the events of play in CATALOG
from tracker.events.catalog import (
    CATALOG,
    CampaignCreated,
    CharacterAdded,
    CharacterDefaultSet,
    EventPayload,
    SessionEnded,
    SessionStarted,
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
    "decode",
    "encode",
    "play",
]
