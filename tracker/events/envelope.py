"""The envelope every event travels in, and the canonical JSON its hash is taken over.

A ``NewEvent`` is what a command decides; the store gives it a position, a version in its
campaign's stream and a place in the hash chain, and hands back a ``StoredEvent``, which carries
both the typed event (``data``) and the payload's stored text (``raw``), which the hash covers.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec

from tracker.errors import StorageError

_decode_json = msgspec.json.decode

GENESIS_HASH = "0" * 64


def new_event_id() -> str:
    return str(uuid.uuid4())


def loads_payload(text: str | bytes) -> Any:
    """A stored payload (or snapshot) parsed as plain JSON values: msgspec's parser, several
    times faster than ``json.loads``, with the standard one for anything it declines."""
    try:
        return _decode_json(text)
    except msgspec.DecodeError:
        value = json.loads(text)
    # What msgspec declines and the standard parser reads is nested deeper than msgspec goes,
    # or is what no command writes and no hash or output can spell: a number past a float's
    # range, NaN, a lone surrogate. That is refused here, as text that is not tracker's JSON.
    try:
        canonical_json(value).encode("utf-8")
    except ValueError as exc:
        raise ValueError(f"it holds a value JSON cannot spell ({str(exc)[:60]})") from None
    return value


def stored_json(payload: dict[str, Any]) -> str:
    """A payload as the events table stores it: compact, in the order it was written."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def canonical_json(value: Any) -> str:
    """One spelling per value: sorted keys, no spaces, UTF-8 text, no NaN."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event decided by a command, not yet stored; ``data`` is the typed event its payload
    was encoded from (None when a payload was written by hand, as an import or a test does)."""

    type: str
    payload: dict[str, Any]
    schema_version: int = 1
    session_id: int | None = None
    character_id: str | None = None
    visibility: str = "public"
    event_id: str = field(default_factory=new_event_id)
    recorded_at: str | None = None
    data: Any = None


class StoredEvent(msgspec.Struct, frozen=True, gc=False):
    """An event as the log holds it: the envelope, the typed event upcast to its current version
    (``data``, or ``catalog.Unreadable``), and the payload's stored JSON text (``raw``).

    A frozen msgspec struct rather than a frozen dataclass or a named tuple: just as immutable,
    and a full rebuild builds one per event and reads several of its fields in every fold
    handler, where a named tuple took three times as long to build and twice as long to read a
    field of. ``gc=False``: it holds plain values and typed events, never a cycle, so the
    collector need not track the hundreds of thousands a rebuild makes.
    """

    position: int
    """Where the event stands in the whole store, across campaigns."""
    event_id: str
    """The event's id, which later events name (an undo, an obligation met, a one-shot used)."""
    campaign_id: str
    """The id of the campaign whose stream holds it."""
    version: int
    """Where it stands in its campaign's stream, from 1."""
    session_id: int | None
    """The number of the session it was logged in; None outside a session."""
    character_id: str | None
    """The character the envelope names, if any."""
    type: str
    """The event's type, as the log names it (``EventPayload.TYPE``)."""
    schema_version: int
    """The version of the payload's schema it was stored in (``data`` is upcast from it)."""
    data: Any
    """The typed event (an ``EventPayload``), upcast to its current version; a
    ``catalog.Unreadable`` when the payload cannot be read."""
    recorded_at: str
    """When it was logged, an ISO time."""
    visibility: str
    """"public", or "gm" for a secret the players have not been shown."""
    prev_hash: str
    """The hash of the event before it in the campaign's chain."""
    hash: str
    """The hash over its envelope and payload, which the next event's ``prev_hash`` holds."""
    raw: str
    """The payload's JSON text exactly as stored: what the hash covers."""
    # Checking the hash of an event read from an export need not parse ``raw`` again.
    parsed: dict[str, Any] | None = None
    """The payload already parsed, when the event was read from an export whose line held it
    parsed; else None."""

    def _replace(self, **changes: Any) -> StoredEvent:
        """The event with ``changes`` made to its fields (a named tuple's spelling, which
        readers of the players' stream use)."""
        return msgspec.structs.replace(self, **changes)

    @property
    def payload(self) -> dict[str, Any]:
        """The payload exactly as stored (parsed from ``raw``): what the hash covers and what
        ``export events`` writes. Readers that want the event's meaning use ``data``."""
        if self.parsed is not None:
            return self.parsed
        try:
            return loads_payload(self.raw)
        except ValueError:
            raise StorageError(
                f"Event {self.version} ({self.event_id}) holds a payload that is not JSON; "
                "`tracker verify` names what was edited, and a backup or an export restores it."
            ) from None

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> StoredEvent:
        """The event an ``export events`` line describes (``to_dict``'s document)."""
        return cls.from_export_line(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))

    @classmethod
    def from_export_line(cls, line: str | bytes) -> StoredEvent:
        """The event one line of ``export events`` holds; ``ValueError`` when it holds none.

        The payload's JSON text is kept as written and read twice, typed (``data``) and as plain
        values (for the hash): the line is never parsed into dictionaries and written again.
        """
        from tracker.events.catalog import decode

        if len(line) > MAX_LINE:
            raise ValueError(f"it is longer than {MAX_LINE:,} bytes")
        try:
            doc = _read_line(line)
            text = bytes(doc.payload).decode("utf-8")
            parsed = loads_payload(text)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise ValueError(str(exc)) from None
        except UnicodeError:
            raise ValueError("it is not UTF-8 text") from None
        except RecursionError:
            raise ValueError("it is nested too deep") from None
        if not isinstance(parsed, dict):
            raise ValueError("an event's payload is a JSON object")
        size = oversized(text)
        if size is not None:
            raise ValueError(
                f"its payload holds {size:,} bytes, more than the {MAX_PAYLOAD:,} one event "
                "may hold"
            )
        try:
            datetime.fromisoformat(doc.recorded_at)
        except ValueError:
            raise ValueError(f"its recorded_at {doc.recorded_at[:40]!r} is not a time") from None
        return cls(
            doc.position,
            doc.event_id,
            doc.campaign_id,
            doc.version,
            doc.session_id,
            doc.character_id,
            doc.type,
            doc.schema_version,
            decode(doc.type, doc.schema_version, text),
            doc.recorded_at,
            doc.visibility,
            doc.prev_hash,
            doc.hash,
            text,
            parsed,
        )

    def chain_fields(self) -> dict[str, Any]:
        """The envelope's fields and the payload the hash is taken over (``event_hash``)."""
        return chain_fields(
            event_id=self.event_id,
            campaign_id=self.campaign_id,
            version=self.version,
            session_id=self.session_id,
            character_id=self.character_id,
            type=self.type,
            schema_version=self.schema_version,
            payload=self.payload,
            recorded_at=self.recorded_at,
            visibility=self.visibility,
            prev_hash=self.prev_hash,
        )

    def computed_hash(self) -> str:
        """The hash the event's fields give now: ``hash`` unless the event was edited."""
        return event_hash(self.chain_fields())

    def to_dict(self, *, payload: bool = True) -> dict[str, Any]:
        """Every stored field, as ``export events`` writes it and ``import`` reads it back; with
        ``payload=False``, the payload as None (for an event whose payload cannot be read)."""
        return {
            "position": self.position,
            "event_id": self.event_id,
            "campaign_id": self.campaign_id,
            "version": self.version,
            "session_id": self.session_id,
            "character_id": self.character_id,
            "type": self.type,
            "schema_version": self.schema_version,
            "payload": self.payload if payload else None,
            "recorded_at": self.recorded_at,
            "visibility": self.visibility,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


def chain_fields(
    *,
    event_id: str,
    campaign_id: str,
    version: int,
    session_id: int | None,
    character_id: str | None,
    type: str,
    schema_version: int,
    payload: dict[str, Any],
    recorded_at: str,
    visibility: str,
    prev_hash: str,
) -> dict[str, Any]:
    """The fields the hash covers: everything but the position, which is local to one database."""
    return {
        "event_id": event_id,
        "campaign_id": campaign_id,
        "version": version,
        "session_id": session_id,
        "character_id": character_id,
        "type": type,
        "schema_version": schema_version,
        "payload": payload,
        "recorded_at": recorded_at,
        "visibility": visibility,
        "prev_hash": prev_hash,
    }


def event_hash(fields: dict[str, Any]) -> str:
    """SHA-256 over the canonical JSON of an event's chained fields."""
    return hashlib.sha256(canonical_json(fields).encode("utf-8")).hexdigest()


# Bounds on what an export line may hold: past them it is no export this tracker wrote (a
# 30-digit number would not fit the database's integers; an id is a UUID).
MAX_LINE = 1 << 20
# The most a payload may hold, in UTF-8 bytes: with its envelope, every event the commands log
# fits an export line, so an export always reads back.
MAX_PAYLOAD = MAX_LINE - 4096
_Count = Annotated[int, msgspec.Meta(ge=1, le=1 << 62)]
_Id = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
_Hash = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class _ExportedEvent(msgspec.Struct):
    """One line of ``export events``, its payload left as the JSON text it was written as."""

    position: _Count
    event_id: _Id
    campaign_id: _Id
    version: _Count
    session_id: Annotated[int, msgspec.Meta(ge=0, le=1 << 62)] | None
    character_id: _Id | None
    type: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    schema_version: Annotated[int, msgspec.Meta(ge=1, le=1000)]
    payload: msgspec.Raw
    recorded_at: Annotated[str, msgspec.Meta(max_length=40)]
    visibility: Literal["public", "gm"]
    prev_hash: _Hash
    hash: _Hash


_read_line = msgspec.json.Decoder(_ExportedEvent).decode


def oversized(raw: str) -> int | None:
    """The size in UTF-8 bytes of a payload's stored text when it is more than one event may
    hold (``MAX_PAYLOAD``), else None."""
    # Text of a quarter of the bound in characters is within it whatever they are: an ordinary
    # payload is never encoded only to be measured.
    if len(raw) <= MAX_PAYLOAD // 4:
        return None
    size = len(raw.encode("utf-8", "surrogatepass"))
    return size if size > MAX_PAYLOAD else None


class ChainProblem(msgspec.Struct, frozen=True):
    """The first place a campaign's stored log stops matching its own hash chain."""

    version: int
    event_id: str
    reason: str


def check_chain(stream) -> ChainProblem | None:
    """Walk one campaign's events in version order; return the first broken link, if any.

    Finds an edited event (its hash no longer matches its fields), an inserted, removed or
    reordered one (a version out of sequence, or a ``prev_hash`` that is not the previous hash),
    and positions swapped under it (the database's order no longer the campaign's: an export
    of it would not import).
    """
    prev = GENESIS_HASH
    expected_version = 1
    position = 0
    for event in stream:
        if event.position <= position:
            return ChainProblem(
                event.version,
                event.event_id,
                "its position in the database comes before the event's before it",
            )
        position = event.position
        if event.version != expected_version:
            what = "missing" if event.version > expected_version else "out of order"
            return ChainProblem(
                event.version,
                event.event_id,
                f"version {expected_version} is {what} before version {event.version}",
            )
        if event.prev_hash != prev:
            return ChainProblem(
                event.version, event.event_id, "it does not follow the event before it"
            )
        try:
            intact = event.computed_hash() == event.hash
        except StorageError:
            return ChainProblem(event.version, event.event_id, "its payload is not JSON")
        if not intact:
            return ChainProblem(
                event.version, event.event_id, "its contents no longer match its hash"
            )
        prev = event.hash
        expected_version += 1
    return None
