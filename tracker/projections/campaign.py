"""The campaign projection: its settings, its sessions and its characters' sheets.

A fold owns the state it builds: ``apply`` updates it in place and returns it, so folding a long
log allocates nothing per event beyond the decoded payload. Callers that keep a state across
commands copy it before folding further.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tracker.events import (
    CampaignCreated,
    CharacterAdded,
    CharacterDefaultSet,
    SessionEnded,
    SessionStarted,
    StoredEvent,
    decode,
)


@dataclass(slots=True)
class Character:
    character_id: str
    name: str
    stats: dict[str, int]
    skills: dict[str, int]
    trained: tuple[str, ...]
    character_class: str | None
    defaults: dict[str, list[str]]
    traits: tuple[str, ...]
    sheet: str | None

    def stat(self, key: str) -> int | None:
        return _lookup(self.stats, key)

    def skill(self, key: str) -> int | None:
        return _lookup(self.skills, key)

    def to_dict(self) -> dict[str, Any]:
        return {
            "character_id": self.character_id,
            "name": self.name,
            "stats": dict(self.stats),
            "skills": dict(self.skills),
            "trained": list(self.trained),
            "class": self.character_class,
            "defaults": {k: list(v) for k, v in self.defaults.items()},
            "traits": list(self.traits),
            "sheet": self.sheet,
        }


def _lookup(table: dict[str, int], key: str) -> int | None:
    wanted = key.casefold()
    for name, value in table.items():
        if name.casefold() == wanted:
            return value
    return None


@dataclass(slots=True)
class SessionInfo:
    number: int
    title: str | None
    started_at: str
    ended_at: str | None = None
    event_count: int = 0
    lapsed: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "title": self.title,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "events": self.event_count,
            "lapsed": list(self.lapsed),
        }


@dataclass(slots=True)
class CampaignState:
    campaign_id: str
    name: str = ""
    system: str = ""
    tie_rule: str = "stat"
    cinematic: bool = False
    stress_limit: int = 6
    threat_carries_over: bool = False
    version: int = 0
    head_hash: str = ""
    sessions: dict[int, SessionInfo] = field(default_factory=dict)
    current_session: int | None = None
    characters: dict[str, Character] = field(default_factory=dict)

    def character(self, name: str) -> Character | None:
        """A character by name, matched without regard to case."""
        wanted = name.casefold()
        for character in self.characters.values():
            if character.name.casefold() == wanted:
                return character
        return None

    @property
    def next_session_number(self) -> int:
        return max(self.sessions, default=0) + 1


def apply(state: CampaignState, event: StoredEvent) -> CampaignState:
    """Fold one event into the campaign state."""
    state.version = event.version
    state.head_hash = event.hash
    if event.session_id is not None and event.session_id in state.sessions:
        state.sessions[event.session_id].event_count += 1
    handler = _HANDLERS.get(event.type)
    if handler is not None:
        handler(state, decode(event.type, event.schema_version, event.payload), event)
    return state


def fold(events: Iterable[StoredEvent], campaign_id: str) -> CampaignState:
    state = CampaignState(campaign_id)
    for event in events:
        apply(state, event)
    return state


def _campaign_created(state: CampaignState, e: CampaignCreated, _: StoredEvent) -> None:
    state.name = e.name
    state.system = e.system
    state.tie_rule = e.tie_rule
    state.cinematic = e.cinematic
    state.stress_limit = e.stress_limit
    state.threat_carries_over = e.threat_carries_over


def _session_started(state: CampaignState, e: SessionStarted, raw: StoredEvent) -> None:
    state.sessions[e.number] = SessionInfo(e.number, e.title, raw.recorded_at, event_count=1)
    state.current_session = e.number


def _session_ended(state: CampaignState, e: SessionEnded, raw: StoredEvent) -> None:
    session = state.sessions[e.number]
    session.ended_at = raw.recorded_at
    session.lapsed = e.lapsed
    state.current_session = None


def _character_added(state: CampaignState, e: CharacterAdded, _: StoredEvent) -> None:
    state.characters[e.character_id] = Character(
        e.character_id,
        e.name,
        dict(e.stats),
        dict(e.skills),
        tuple(e.trained),
        e.character_class,
        {k: list(v) for k, v in e.defaults.items()},
        tuple(e.traits),
        e.sheet,
    )


def _default_set(state: CampaignState, e: CharacterDefaultSet, _: StoredEvent) -> None:
    character = state.characters[e.character_id]
    character.defaults.setdefault(e.skill, [])
    if e.expression not in character.defaults[e.skill]:
        character.defaults[e.skill].append(e.expression)


_HANDLERS = {
    CampaignCreated.TYPE: _campaign_created,
    SessionStarted.TYPE: _session_started,
    SessionEnded.TYPE: _session_ended,
    CharacterAdded.TYPE: _character_added,
    CharacterDefaultSet.TYPE: _default_set,
}
