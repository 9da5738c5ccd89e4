"""The effects an event records: what a roll (or a fright result) did to the campaign.

A roll stores the effects its rules decided, never a recomputation: a track moved, a condition
set, an obligation opened, a stat changed, or an effect a system registers of its own
(``effect_shape``: Glintlock's story tag spent). Each is a typed value with one way
in from JSON (``effect_from_json``) and one way out (``Effect.to_json``); the stored shapes are
the ones tracker has always written, told apart by their leading key::

    {"track": "mettle", "delta": 1}                      TrackChange (+ "cause")
    {"condition": "stunned", "duration": 2, ...}         ConditionApplied (+ "modifier")
    {"obligation": "panic-check", "what": "..."}         ObligationOpened (+ "suffix", "data")
    {"stat_change": "IQ", "delta": -1}                   StatChanged (+ "derived")

Any of them may name the ``character_id`` it applies to; without one it applies to the
character the event is about. No other key is read: an effect holding one is none tracker
wrote, and its event does not decode.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import msgspec


class Effect:
    """Base of every recorded effect."""

    __slots__ = ()
    character_id: str | None
    """The character it applies to; None: the character the event is about."""

    def to_json(self) -> dict[str, Any]:
        """The effect as stored in an event's payload."""
        return msgspec.to_builtins(self)

    def words(self) -> str:
        """The effect in a few words, as a roll history row shows it."""
        raise NotImplementedError


class TrackChange(
    msgspec.Struct, Effect, frozen=True, omit_defaults=True, gc=False, forbid_unknown_fields=True
):
    """A track moved by ``delta`` (Mettle, Threat, stress, HP, FP); the fold clamps it."""

    track: str
    """The track's name: "stress", "hp", "fp", or one of the system's own (``Folding.track_moved``
    and ``currencies`` take it)."""
    delta: int
    """How far it moves, up or down."""
    cause: str | None = None
    """Why, in a few words ("a miss"), as the log says it."""
    character_id: str | None = None
    """The character whose track moves; None: the one the event is about (a track the
    campaign keeps, such as a party's pool, is moved by ``Folding.track_moved`` all the
    same)."""

    def words(self) -> str:
        return f"{self.delta:+d} {self.track}"


class ConditionApplied(msgspec.Struct, Effect, frozen=True, gc=False, forbid_unknown_fields=True):
    """A condition set on the character, lasting ``duration`` ``unit`` when the rules say.

    Where the rules give a condition a duration, its stored effect always spells it out, if only
    as null (GURPS: scripts read the keys). Where they give it none at all (Gloom's panicked
    lasts until an event clears it) both are ``UNSET`` and the stored effect has no such keys.
    """

    condition: str
    """The condition's name."""
    duration: int | msgspec.UnsetType | None = msgspec.UNSET
    """How long it lasts, in ``unit``s; None: until cleared; unset where the rules give none."""
    unit: str | msgspec.UnsetType | None = msgspec.UNSET
    """What ``duration`` counts ("seconds", "rounds")."""
    note: str | None = None
    """Words kept with it."""
    character_id: str | None = None
    """The character it is set on; None: the one the event is about."""
    modifier: int | None = None
    """A number the condition puts on the rolls it bears on (GURPS: an influence won against a
    player's character, its margin of victory); None for most conditions."""

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"condition": self.condition}
        if self.duration is not msgspec.UNSET:
            doc["duration"] = self.duration
        if self.unit is not msgspec.UNSET:
            doc["unit"] = self.unit
        doc["note"] = self.note
        if self.modifier is not None:
            doc["modifier"] = self.modifier
        if self.character_id is not None:
            doc["character_id"] = self.character_id
        return doc

    def lasts(self) -> tuple[int | None, str | None]:
        """How long it lasts: (duration, unit), None where the rules say no time."""
        duration, unit = self.duration, self.unit
        return (
            None if duration is msgspec.UNSET else duration,
            None if unit is msgspec.UNSET else unit,
        )

    def words(self) -> str:
        return self.condition


class ObligationOpened(
    msgspec.Struct, Effect, frozen=True, omit_defaults=True, gc=False, forbid_unknown_fields=True
):
    """Something the rules say must happen next (a panic check, a trait to assign).

    Its id is the opening event's version followed by ``suffix``, so one event can open several.
    """

    obligation: str
    """Its kind ("panic-check"), as ``Obligations.obligations`` names it."""
    what: str
    """What is owed, in one sentence the GM reads."""
    suffix: str = ""
    """Told apart from others the same event opens (its id is the event's version and this)."""
    data: dict[str, Any] = {}
    """What the command that meets it needs to know (``ObligationKind.goes_on`` reads it)."""
    character_id: str | None = None
    """The character it is about; None: the one the event is about."""

    def words(self) -> str:
        return f"owes {self.obligation}"


class StatChanged(
    msgspec.Struct, Effect, frozen=True, omit_defaults=True, gc=False, forbid_unknown_fields=True
):
    """A lasting change to a stat (a fright result's -1 IQ).

    ``derived``: the stats based on it move by as much (GURPS: Will and Per with IQ, HP with
    ST, FP with HT), as every command has written since that ruling. A change stored without it
    was logged when a lasting change moved the stat alone, and the rolls after it were decided
    so: it still moves the stat alone (tracker/app/RULINGS.md, 'Sheets that change').
    """

    stat: str = msgspec.field(name="stat_change")
    """The stat changed (stored as ``stat_change``)."""
    delta: int = 0
    """By how much, for good."""
    character_id: str | None = None
    """The character whose stat it is; None: the one the event is about."""
    derived: bool = False
    """The stats based on it move with it (see above)."""

    def words(self) -> str:
        return f"{self.delta:+d} {self.stat}"


E = TypeVar("E", bound="Effect")

# Loads every installed rule system, whose modules register the effects each owns: set by the
# event catalog, which loads them for the event types it does not know.
discover: Callable[[], object] | None = None

# The leading key of each stored shape, and the type it is read as: those every system shares
# here, a system's own registered by it (``effect_shape``).
_SHAPES: dict[str, type[Effect]] = {
    "track": TrackChange,
    "condition": ConditionApplied,
    "obligation": ObligationOpened,
    "stat_change": StatChanged,
}


def effect_shape(key: str) -> Callable[[type[E]], type[E]]:
    """Register a rule system's own effect, stored with the leading key ``key`` (Glintlock's
    story tag spent)."""

    def register(cls: type[E]) -> type[E]:
        _SHAPES[key] = cls
        return cls

    return register


def effect_from_json(doc: Any) -> Effect:
    """The typed effect a stored effect describes; ``ValueError`` when it describes none."""
    if isinstance(doc, Mapping):
        shape = _shape_of(doc)
        if shape is None and discover is not None:
            # Perhaps a system's own, not registered yet: have every system loaded, once.
            discover()
            shape = _shape_of(doc)
        if shape is not None:
            try:
                return msgspec.convert(doc, shape)
            except msgspec.ValidationError as exc:
                raise ValueError(
                    f"a {next(k for k in doc if k in _SHAPES)} effect: {exc}"
                ) from None
    raise ValueError(f"an effect must name one of {', '.join(_SHAPES)}")


def _shape_of(doc: Mapping[str, Any]) -> type[Effect] | None:
    # The leading key comes first in every stored shape: usually one lookup finds it.
    for key in doc:
        shape = _SHAPES.get(key)
        if shape is not None:
            return shape
    return None


def effects_text(effects: Iterable[Effect]) -> str:
    """Effects in a few words each, as a roll history row shows them."""
    if type(effects) is tuple:
        try:
            return _worded(effects)
        except TypeError:
            pass  # an effect holding a dictionary (an obligation's data) is no key to keep
    return "; ".join(effect.words() for effect in effects)


@functools.lru_cache(maxsize=1024)
def _worded(effects: tuple[Effect, ...]) -> str:
    # A campaign's rolls repeat a few dozen sets of effects (+1 Threat, +1 Mettle and +1
    # Threat, ...), and an export words every roll's: each set is worded once. Effects are
    # frozen values, so equal sets word alike.
    return "; ".join(effect.words() for effect in effects)
