"""One immutable type per kind of event, registered by name with its schema version.

Payloads are stored as JSON. ``encode`` turns a typed event into (type, schema_version, payload);
``decode`` reads a stored payload back as its typed event, lifting an old payload through the
upcasters in ``tracker.events.upcasters`` first, so every reader sees current shapes only. The
store calls ``decode`` as it hands events out: that is the one place it happens.

A payload is a type's fields by name, but for a ``spread`` field: a change of settings stores
each setting under its own name beside its note, and reads every such key back into its
``settings`` by name (a system's own names as well as the ones that were fields of the event
once), so the payloads written before and since are the same text.

The types are ``msgspec`` structs: decoding JSON straight into them is faster than parsing it to
dictionaries, and a payload that does not fit its type exactly (a string where a die should be,
an effect of no known shape, a key no field of its type holds once upcast) is named there, with
where in the payload it went wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import msgspec

from tracker.events import effects as effects_module
from tracker.events.effects import Effect, TrackChange, effect_from_json
from tracker.events.upcasters import upcast

CATALOG: dict[str, type[EventPayload]] = {}
P = TypeVar("P", bound="EventPayload")

# Loads every installed rule system, whose modules register the event types each owns: set by
# the registry (``tracker.systems.registry``), which the events must not import. Asked once, the
# first time a stored type is not in the catalog.
discover: Callable[[], object] | None = None
_discovered = False


def _known(type_: str) -> type[EventPayload] | None:
    cls = CATALOG.get(type_)
    if cls is None and not _discovered:
        _discover_once()
        cls = CATALOG.get(type_)
    return cls


def _discover_once() -> None:
    global _discovered
    if not _discovered and discover is not None:
        _discovered = True
        discover()


def types_where(holds: Callable[[type[EventPayload]], bool]) -> list[str]:
    """The names of every event type of every installed system of which ``holds``."""
    _discover_once()
    return [name for name, cls in CATALOG.items() if holds(cls)]


def types_of(base: type[EventPayload]) -> list[str]:
    """The names of every event type of every installed system that derives from ``base``."""
    return types_where(lambda cls: issubclass(cls, base))


class EventPayload(msgspec.Struct, frozen=True, kw_only=True, gc=False, forbid_unknown_fields=True):
    """Base of every event type: ``TYPE`` names it in the log, ``VERSION`` is its payload schema.

    ``gc=False``: an event holds plain values and never takes part in a reference cycle, so the
    collector need not track the million of them a rebuild reads.

    ``forbid_unknown_fields``: no command writes a key its type has no field for, so a stored
    payload holding one (a number of 400 digits, a megabyte of junk) was written by hand; it is
    ``Unreadable``, which an import refuses and ``verify`` names, rather than hashed and kept
    while no reader looks at it. Subclasses inherit it; an old payload is held to it only once
    its upcasters have lifted it, so a key a later version renamed is no unknown key.
    """

    TYPE: ClassVar[str]
    """The type's name in the log, for ever; a system's own takes a name no other type has
    (one starting with the system's title, ``PoolMomentumSpent``, meets none)."""
    VERSION: ClassVar[int] = 1
    """The payload's schema version; one raised needs an upcaster from the one before
    (``tracker.events.upcasters``)."""
    character_field: ClassVar[str | None] = None
    """The field naming the character the event is about (``"character_id"``): the envelope
    carries its id in its character_id column too. None: about no one character."""
    rolls: ClassVar[bool] = False
    """True for an event that rolls dice: its system reads them back
    (``RuleSystem.roll_facts``)."""
    changes_sheet: ClassVar[bool] = False
    """True for an event that changes the sheet of the character it is about, as a roll reads
    it."""
    salt: str | msgspec.UnsetType = msgspec.UNSET
    """A secret event's 128 random bits, inside the hashed payload: its hash then commits to
    what it holds without letting anyone who sees the hash try every fall of the dice
    (``tracker reveal`` opens it). Unset, and absent from the payload, on public events; a
    command never sets it."""
    spread: ClassVar[str | None] = None
    """A map field whose entries the payload stores each under its own key, beside the other
    fields (a change of settings stores each setting by its name): every key of a stored
    payload that is no other field's is read into it. None: no such field."""

    def to_payload(self) -> dict[str, Any]:
        """The payload as stored: every field by name, effects in their stored shapes; a field
        left unset is not written."""
        return {
            name: _plain(value)
            for name in self.__struct_fields__
            if (value := getattr(self, name)) is not msgspec.UNSET
        }


class Unreadable(msgspec.Struct, frozen=True):
    """A stored payload that is none of the catalog's events as this tracker knows them: an
    unknown type, or a payload that does not fit its type. Readers that need the event's
    meaning refuse it with ``reason``; the hash chain still covers its stored text."""

    type: str
    reason: str


def event_type(cls: type[P]) -> type[P]:
    """Register an event type in the catalog under its ``TYPE``."""
    if cls.TYPE in CATALOG:
        raise RuntimeError(f"Event type {cls.TYPE} is registered twice.")
    CATALOG[cls.TYPE] = cls
    _DECODERS.pop(cls.TYPE, None)
    return cls


def _plain(value: Any) -> Any:
    if isinstance(value, Effect):
        return value.to_json()
    if isinstance(value, EventPayload):
        return value.to_payload()
    if isinstance(value, msgspec.Struct):
        return {name: _plain(getattr(value, name)) for name in value.__struct_fields__}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _dec_hook(kind: type, value: Any) -> Any:
    if kind is Effect:
        # The commonest effect, a currency's move ({"track": "mettle", "delta": 1}), checked and
        # built here: a rebuild meets one in every few events.
        if type(value) is dict and len(value) == 2:
            track, delta = value.get("track"), value.get("delta")
            if type(track) is str and type(delta) is int:
                return TrackChange(track, delta)
        return effect_from_json(value)
    raise NotImplementedError(f"no decoding for {kind.__name__}")


class _Gathering:
    """Reads a payload of a type with a ``spread`` field straight from its JSON text, as
    ``msgspec.json.Decoder`` reads any other's."""

    def __init__(self, cls: type[EventPayload]) -> None:
        self.cls = cls

    def decode(self, text: str | bytes) -> EventPayload:
        return msgspec.convert(
            _gathered(self.cls, msgspec.json.decode(text)), self.cls, dec_hook=_dec_hook
        )


def _gathered(cls: type[EventPayload], payload: Any) -> Any:
    """``payload`` as ``cls``'s fields: the keys that are no other field's gathered into its
    ``spread`` field (a payload that is no object is left for the conversion to refuse)."""
    if cls.spread is None or not isinstance(payload, dict):
        return payload
    own = set(cls.__struct_fields__) - {cls.spread}
    fields = {name: value for name, value in payload.items() if name in own}
    fields[cls.spread] = {name: value for name, value in payload.items() if name not in own}
    return fields


_DECODERS: dict[str, msgspec.json.Decoder | _Gathering] = {}


def encode(event: EventPayload) -> tuple[str, int, dict[str, Any]]:
    """The type name, schema version and payload an event is stored with."""
    return event.TYPE, event.VERSION, event.to_payload()


def current_decoder(type_: str) -> tuple[int, msgspec.json.Decoder | _Gathering] | None:
    """The current schema version of ``type_`` and the decoder that reads a payload of that
    version straight from its JSON text (None for a type this tracker does not know)."""
    cls = _known(type_)
    if cls is None:
        return None
    decoder = _DECODERS.get(type_)
    if decoder is None:
        decoder = _DECODERS[type_] = (
            msgspec.json.Decoder(cls, dec_hook=_dec_hook) if cls.spread is None else _Gathering(cls)
        )
    return cls.VERSION, decoder


def decode(type_: str, schema_version: int, payload: str | bytes | dict[str, Any]) -> Any:
    """The typed event for a stored payload (JSON text, or already parsed), upcast to the
    current schema version first; ``Unreadable`` when it is no event this tracker knows."""
    cls = _known(type_)
    if cls is None:
        return Unreadable(type_, f"{type_!r} is not an event type this tracker knows")
    try:
        if schema_version == cls.VERSION and not isinstance(payload, dict):
            return current_decoder(type_)[1].decode(payload)  # type: ignore[index]
        if not isinstance(payload, dict):
            payload = msgspec.json.decode(payload)
        if schema_version != cls.VERSION:
            payload = upcast(type_, schema_version, payload, cls.VERSION)
        return msgspec.convert(_gathered(cls, payload), cls, dec_hook=_dec_hook)
    except (msgspec.ValidationError, msgspec.DecodeError, ValueError) as exc:
        return Unreadable(type_, f"its payload does not fit {type_} ({exc})")
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        # An upcaster that meets a payload it was not written for.
        return Unreadable(
            type_, f"its payload could not be lifted to {type_} version {cls.VERSION} ({exc!r})"
        )


@event_type
class CampaignCreated(EventPayload, frozen=True):
    """A campaign began: its rule system and the table settings the rulings leave to the GM."""

    TYPE: ClassVar[str] = "CampaignCreated"
    name: str
    system: str
    tie_rule: str = "stat"
    cinematic: bool = False
    stress_limit: int = 6
    threat_carries_over: bool = False


@event_type
class CampaignSettingsChanged(EventPayload, frozen=True):
    """Table settings the GM changed (`campaign set`, or given to `campaign new`): only those
    changed are in ``settings``, each by the name its rule system declares it under
    (``tracker.systems.commands.Setting``), a system's own as well as tracker's, in the order
    the system declares them. The payload stores each under its name beside ``note``
    (``spread``), as the log always has: an event stored when tracker's own settings were
    fields of the event, in those fields' order, reads as one naming them, and is written back
    the same. A table setting holds a campaign's own table (``fright_table`` its rows,
    ``breaking_table`` the table), None for none of its own; ``tech_level`` None clears it."""

    TYPE: ClassVar[str] = "CampaignSettingsChanged"
    spread: ClassVar[str | None] = "settings"
    settings: dict[str, Any] = msgspec.field(default_factory=dict)
    note: str | None = None

    def changed(self) -> dict[str, Any]:
        """The settings this event sets, by name, in the order it stores them."""
        return dict(self.settings)

    def to_payload(self) -> dict[str, Any]:
        """Each setting under its name, then the note, then a salt."""
        stored = super().to_payload()
        del stored["settings"]
        return {name: _plain(value) for name, value in self.settings.items()} | stored


RESERVED = frozenset(("settings", "note", "salt"))
"""Names no setting may have: the payload of a change holds its note and salt beside them."""

CREATED = {
    field.name: field.default
    for field in msgspec.structs.fields(CampaignCreated)
    if field.name not in ("name", "system", "salt")
}
"""The settings a ``CampaignCreated`` stores whatever the system reads, at the table's default
unless ``campaign new`` was given one: every setting a campaign has before its creation is
folded (any other reads as None, not set, until a change logs it)."""


@event_type
class SessionStarted(EventPayload, frozen=True):
    """A session of play began; its number is the session_id of every event logged in it."""

    TYPE: ClassVar[str] = "SessionStarted"
    number: int
    title: str | None = None


@event_type
class SessionEnded(EventPayload, frozen=True):
    """A session ended; obligations still open then are recorded as lapsed."""

    TYPE: ClassVar[str] = "SessionEnded"
    number: int
    lapsed: tuple[str, ...] = ()


@event_type
class CharacterAdded(EventPayload, frozen=True):
    """A character joined the campaign with its sheet: stats, skills, training, class, traits.
    ``npc``: the GM plays it (an influence roll it wins against a player's character leaves a
    modifier on that character rather than a reaction)."""

    TYPE: ClassVar[str] = "CharacterAdded"
    character_field: ClassVar[str | None] = "character_id"
    changes_sheet: ClassVar[bool] = True
    character_id: str
    name: str
    stats: dict[str, int] = {}
    skills: dict[str, int] = {}
    trained: tuple[str, ...] = ()
    character_class: str | None = None
    defaults: dict[str, list[str]] = {}
    traits: tuple[str, ...] = ()
    sheet: str | None = None
    # Set (True) only for an NPC: a player's character is stored as it always was.
    npc: bool | msgspec.UnsetType = msgspec.UNSET


@event_type
class CharacterUpdated(EventPayload, frozen=True):
    """A character's sheet changed in play (a skill raised, a trait bought) or was replaced by a
    newer sheet. Only what changed is recorded: new scores, skills and traits dropped, training
    added; the sheet as it stood before is the fold of the events before this one.

    ``reset_tracks`` sets HP and FP to their new maximum; otherwise what play left of them is
    kept (at most the new maximum). ``npc`` marks who plays the character from here on (unset:
    unchanged).
    """

    TYPE: ClassVar[str] = "CharacterUpdated"
    character_field: ClassVar[str | None] = "character_id"
    changes_sheet: ClassVar[bool] = True
    character_id: str
    stats: dict[str, int] = {}
    skills: dict[str, int] = {}
    dropped_skills: tuple[str, ...] = ()
    trained: tuple[str, ...] = ()
    traits: tuple[str, ...] = ()
    dropped_traits: tuple[str, ...] = ()
    character_class: str | None = None
    sheet: str | None = None
    reset_tracks: bool = False
    note: str | None = None
    npc: bool | msgspec.UnsetType = msgspec.UNSET


@event_type
class CharacterRetired(EventPayload, frozen=True):
    """A character left play: still on every record, no longer rolling or spending. Undoing
    this event brings the character back."""

    TYPE: ClassVar[str] = "CharacterRetired"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    note: str | None = None


@event_type
class CharacterDefaultSet(EventPayload, frozen=True):
    """A GURPS default added to a character's sheet (Lockpicking defaults to IQ-5)."""

    TYPE: ClassVar[str] = "CharacterDefaultSet"
    character_field: ClassVar[str | None] = "character_id"
    changes_sheet: ClassVar[bool] = True
    character_id: str
    skill: str
    expression: str


# A stored effect of a key no system loaded so far registered: load them all, as for a type.
effects_module.discover = _discover_once
