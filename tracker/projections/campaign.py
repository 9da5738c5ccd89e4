"""The campaign projection: settings, sessions, each character's sheet and tracks, the Threat,
and the GM's obligations, folded from the log.

A fold owns the state it builds: ``apply`` updates it in place and returns it, so folding a long
log allocates little per event. Callers that keep a state across commands copy it
(``CampaignState.copy``) before folding further. ``to_snapshot``/``from_snapshot`` turn a state
into plain JSON and back, for the snapshot cache.
"""

from __future__ import annotations

import copy
import functools
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from tracker.errors import StorageError
from tracker.events import StoredEvent
from tracker.events import catalog as c
from tracker.events import play as p
from tracker.events.catalog import Unreadable
from tracker.events.effects import (
    ConditionApplied,
    Effect,
    ObligationOpened,
    StatChanged,
    TrackChange,
)
from tracker.systems import registry
from tracker.systems.base import CharacterFold, Feature, Folding, ObligationView, RuleSystem
from tracker.systems.capabilities import Conditions, SheetRules, Stress, Thresholds, able
from tracker.words import reads_as

# Bump when the shape or meaning of the state changes: older snapshots are then ignored.
PROJECTION_VERSION = 19
# Each version of a system's fold past the first adds this to the snapshots' key
# (``projection_version``): more than PROJECTION_VERSION will ever be, so no two keys meet.
FOLD_VERSION_STEP = 10_000
RECENT_DISCHARGED = 50
RECENT_SEALED = 16
# Undos open to a redo, newest last: redo takes back the newest, so a long campaign keeps a few.
RECENT_UNDOS = 50
# What no undo takes back: the campaign's creation, and the undo machinery itself. A secret the
# players have been shown cannot be unshown either.
NOT_UNDOABLE = frozenset({"CampaignCreated", "EventsRevoked", "EventsRestored", "EventsRevealed"})
SESSION_TYPES = (c.SessionStarted.TYPE, c.SessionEnded.TYPE)
# The events that decide which others are in force.
UNDO_TYPES = (p.EventsRevoked.TYPE, p.EventsRestored.TYPE)


@dataclass(slots=True)
class Condition:
    name: str
    duration: int | None = None
    unit: str | None = None
    note: str | None = None
    since: str | None = None
    # What it puts on the rolls it bears on (GURPS influence: the margin of victory).
    modifier: int | None = None
    # Set by a secret event: ending it must not tell the players it was there.
    secret: bool = False

    def to_dict(self) -> dict[str, Any]:
        doc = {
            "name": self.name,
            "duration": self.duration,
            "unit": self.unit,
            "note": self.note,
            "since": self.since,
        }
        if self.modifier is not None:
            doc["modifier"] = self.modifier
        if self.secret:
            doc["secret"] = True
        return doc


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
    # Played by the GM rather than a player.
    npc: bool = False
    # Tracks
    stress: int = 0
    hp: int | None = None
    fp: int | None = None
    conditions: dict[str, Condition] = field(default_factory=dict)
    # What play has left on the sheet: traits a result called for, lasting changes to stats.
    traits_gained: list[dict[str, Any]] = field(default_factory=list)
    stat_changes: dict[str, int] = field(default_factory=dict)
    # The event that retired the character from play, while it stands.
    retired_version: int | None = None
    # What the campaign's rule system keeps of the character (``Folding.character_part``).
    own: Any = None

    def stat(self, key: str) -> int | None:
        value = _lookup(self.stats, key)
        if value is None:
            return None
        return value + (_lookup(self.stat_changes, key) or 0)

    def skill(self, key: str) -> int | None:
        return _lookup(self.skills, key)

    def current_stats(self) -> dict[str, int]:
        """Every stat of the sheet as ``stat`` gives it, by the sheet's names, in one pass over
        the sheet (a name read in any case as the first that reads so, as ``stat`` reads it)."""
        first = {}
        for name in self.stats:
            first.setdefault(name.casefold(), name)
        changed = {}
        for name in self.stat_changes:
            changed.setdefault(name.casefold(), name)
        out = {}
        for name in self.stats:
            key = name.casefold()
            value, change = self.stats[first[key]], changed.get(key)
            if value is not None:
                out[name] = value + ((self.stat_changes[change] or 0) if change is not None else 0)
        return out

    def stat_name(self, key: str) -> str | None:
        return _name(self.stats, key)

    def skill_name(self, key: str) -> str | None:
        return _name(self.skills, key)

    def is_trained(self, key: str) -> bool:
        return any(t.casefold() == key.casefold() for t in self.trained)

    def has_trait(self, trait: str) -> bool:
        wanted = trait.casefold()
        return any(t.casefold() == wanted for t in self.traits) or any(
            g["name"].casefold() == wanted for g in self.traits_gained
        )

    @property
    def hp_max(self) -> int | None:
        return self.stat("HP")

    @property
    def fp_max(self) -> int | None:
        return self.stat("FP")

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
            "npc": self.npc,
        }

    def lasting(self, rules: RuleSystem) -> dict[str, Any]:
        """What play has left on the sheet: scores as rolls use them (``stats`` in
        ``to_dict`` are the sheet's), traits gained, and what the system keeps
        (``Folding.lasting``: Glintlock's breaking-point consequences)."""
        return {
            "current_stats": {name: self.stat(name) for name in self.stats},
            "stat_changes": dict(self.stat_changes),
            "traits_gained": [dict(g) for g in self.traits_gained],
            **rules.folding.lasting(self),
        }

    def tracks(self, rules: RuleSystem) -> dict[str, Any]:
        """The character's tracks as ``tracker status CHARACTER --json`` shows them: those every
        system has, and those the campaign's system keeps (``Folding.character_doc``)."""
        out: dict[str, Any] = {"name": self.name, "character_id": self.character_id}
        if self.retired_version is not None:
            out["retired_at"] = self.retired_version
        if rules.has(Feature.STRESS):
            out["stress"] = self.stress
        if self.hp is not None:
            out["hp"] = self.hp
            out["hp_max"] = self.hp_max
        if self.fp is not None:
            out["fp"] = self.fp
            out["fp_max"] = self.fp_max
        out["conditions"] = [cond.to_dict() for cond in self.conditions.values()]
        return rules.folding.character_doc(self, out)


def _lookup(table: dict[str, int], key: str) -> int | None:
    name = _name(table, key)
    return None if name is None else table[name]


def _name(table: dict[str, Any], key: str) -> str | None:
    wanted = key.casefold()
    for name in table:
        if name.casefold() == wanted:
            return name
    return None


@dataclass(slots=True)
class SessionInfo:
    number: int
    title: str | None
    started_at: str
    ended_at: str | None = None
    event_count: int = 0
    lapsed: tuple[str, ...] = ()
    # Of ``event_count``, how many are undone (``session_list`` counts them when asked).
    undone_count: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "title": self.title,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "events": self.event_count,
            "undone": self.undone_count,
            "lapsed": list(self.lapsed),
        }


@dataclass(slots=True)
class Obligation:
    """Something the rules say must happen next, with the events that opened and discharged it."""

    id: str
    kind: str
    what: str
    opened_by: str
    opened_version: int
    character_id: str | None = None
    severity: str = "owed"
    discharged_by: str | None = None
    discharged_version: int | None = None
    how: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    # Opened by a secret event: the players' view never holds it, nor may a public event say it.
    secret: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "what": self.what,
            "severity": self.severity,
            "character_id": self.character_id,
            "opened_by": self.opened_by,
            "opened_version": self.opened_version,
            "discharged_by": self.discharged_by,
            "discharged_version": self.discharged_version,
            "how": self.how,
            "data": dict(self.data),
            "secret": self.secret,
        }


@dataclass(slots=True)
class CampaignState:
    campaign_id: str
    name: str = ""
    system: str = ""
    # The table settings, by the name the log stores each under (``OwnSettings.settings`` says
    # which the campaign's system reads): those a creation stores at their default until it
    # is folded, any other absent (read as None) until a change stores it.
    settings: dict[str, Any] = field(default_factory=lambda: dict(c.CREATED))
    version: int = 0
    head_hash: str = ""
    # When the event folded last was recorded: the next is stamped no earlier. Not stored with
    # a snapshot; reading the log on from one reads it again.
    head_time: str = field(default="", compare=False)
    # The newest session in force, running or ended. The state keeps no list of sessions, so a
    # campaign of thousands of sessions folds and snapshots as fast as a new one; the list is
    # ``session_list``, read from the session events when asked for.
    session: SessionInfo | None = None
    current_session: int | None = None
    characters: dict[str, Character] = field(default_factory=dict)
    obligations: dict[str, Obligation] = field(default_factory=dict)
    discharged: deque = field(default_factory=lambda: deque(maxlen=RECENT_DISCHARGED))
    # What the campaign's rule system keeps of it (``Folding.campaign_part``).
    own: Any = None
    # The secret events in force that no reveal has shown the players, under the character
    # their envelope names ("" for none): {character: {event id: [version, recorded_at]}}. Of
    # a character's, the newest RECENT_SEALED: a reveal shows the earlier secrets about the
    # character a later one could count before (or with) it, so the newest stand for the rest
    # (and a campaign whose GM reveals nothing keeps a state of bounded size). Those that name
    # no character may be shown in any order: all are kept.
    sealed: dict[str, dict[str, list]] = field(default_factory=dict)
    # Undo: the events no longer in force, and the undos still open to a redo (newest last).
    revoked: set[str] = field(default_factory=set)
    undo_stack: deque = field(default_factory=lambda: deque(maxlen=RECENT_UNDOS))
    # While folding with a known final revoked set (a refold), undo events do not change it.
    fixed_revoked: bool = False
    needs_refold: bool = False
    # The rule system ``system`` names, looked up once (when the campaign's creation is folded,
    # or a snapshot read): the fold asks it at every track's move.
    rules: RuleSystem = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    def setting(self, name: str) -> Any:
        """The campaign setting ``name`` as it stands (``CampaignView.setting``)."""
        return self.settings.get(name)

    @property
    def stress_limit(self) -> int:
        """The stress limit the campaign set, which the stress track of every system with one
        reads (``Stress.stress_limit``)."""
        return self.settings["stress_limit"]

    def character(self, name: str) -> Character | None:
        """A character by name, matched without regard to case; failing that, the one whose
        name reads the same (``reads_as``: typed in full-width letters, say)."""
        wanted = name.casefold()
        for character in self.characters.values():
            if character.name.casefold() == wanted:
                return character
        shown = reads_as(name)
        return next((ch for ch in self.characters.values() if reads_as(ch.name) == shown), None)

    def unrevealed(
        self, character_id: str | None, *, since: str | None = None, after: int = 0
    ) -> list[int]:
        """The versions of the secret events in force that the players have not been shown,
        of those whose envelope names ``character_id`` (None: those that name no character),
        logged after version ``after`` and, given ``since`` (an ISO time), not before it (of a
        character's, the newest stand for the rest: ``sealed``).

        All the players know of a sealed event is that it happened, when, and whom its
        envelope names. A public event that must be sealed when it could count a secret one
        (a retry's penalty, an exposure, a contest's round, an influence's margin) asks this,
        never what the secret was about: its task, opponent, threat, influencer, trait or
        modifiers must not decide what the players see next."""
        held = self.sealed.get(character_id or "", {})
        moment = datetime.fromisoformat(since) if since is not None else None
        return [
            version
            for version, at in held.values()
            if version > after and (moment is None or datetime.fromisoformat(at) >= moment)
        ]

    @property
    def next_session_number(self) -> int:
        return (self.session.number if self.session else 0) + 1

    def open_obligations(self, kind: str | None = None, character_id: str | None = None):
        return [
            o
            for o in self.obligations.values()
            if (kind is None or o.kind == kind)
            and (character_id is None or o.character_id == character_id)
        ]

    def copy(self) -> CampaignState:
        # The revoked events, the longest list a state keeps, are copied shallowly, which for
        # strings is copying them whole: walked item by item, they were most of an undo's time
        # in a long campaign.
        memo: dict[int, Any] = {id(self.revoked): set(self.revoked)}
        return copy.deepcopy(self, memo)

    # -- what a system's fold handlers may do (``tracker.systems.base.CampaignFold``) ----------

    def open(self, raw: StoredEvent, kind: str, what: str, **data: Any) -> Obligation:
        """Open an obligation: ``character_id``, ``severity`` and ``suffix`` by keyword, any
        other keyword its data."""
        return _open(self, raw, kind, what, **data)

    # A system's fold hands back what the state gave it, typed as the protocols it sees:
    # always this state's own obligation or character.
    def discharge(self, ob: ObligationView, raw: StoredEvent, how: str) -> None:
        _discharge(self, cast(Obligation, ob), raw, how)

    def set_stress(self, ch: CharacterFold, delta: int, raw: StoredEvent) -> None:
        _set_stress(self, cast(Character, ch), delta, raw)

    def apply_effects(
        self, effects: Iterable[Effect], raw: StoredEvent, default_id: str | None
    ) -> None:
        _apply_effects(self, effects, raw, default_id)

    def summary(self) -> dict[str, Any]:
        """The campaign as ``tracker status --json`` shows it."""
        out: dict[str, Any] = {
            "campaign": self.name,
            "system": self.system,
            "version": self.version,
            "session": self.current_session,
            "characters": [ch.tracks(self.rules) for ch in self.characters.values()],
            "obligations": len(self.obligations),
        }
        return self.rules.folding.campaign_doc(self, out)


def apply(state: CampaignState, event: StoredEvent) -> CampaignState:
    """Fold one event into the campaign state; a revoked event is passed over."""
    rules = state.rules
    _apply(state, event, _HANDLERS if rules is None else _dispatch(rules.folding))
    return state


def _apply(
    state: CampaignState,
    event: StoredEvent,
    handlers: dict[type, Callable[[CampaignState, Any, StoredEvent], None]],
) -> None:
    """``apply``, given the handlers of the state's system (``_dispatch``): ``fold`` looks them
    up once for a whole stream, rather than at every event."""
    state.version = event.version
    state.head_hash = event.hash
    state.head_time = event.recorded_at
    session = state.session
    if session is not None and event.session_id == session.number:
        session.event_count += 1
    if event.event_id in state.revoked:
        return
    if event.visibility == "gm":
        _seal(state, event)
    data = event.data
    handler = handlers.get(type(data))
    if handler is not None:
        try:
            handler(state, data, event)
        except FOLD_FAULTS as exc:
            # A log no command wrote (a roll for a character never added, an undo of the
            # campaign's creation): one sentence for every reader, never a traceback.
            raise LogUnfoldable(state, event, exc) from exc
    elif isinstance(data, Unreadable):
        raise unreadable(event)


def _seal(state: CampaignState, event: StoredEvent) -> None:
    """Hold a secret event among those the players have not been shown (``sealed``)."""
    held = state.sealed.setdefault(event.character_id or "", {})
    held[event.event_id] = [event.version, event.recorded_at]
    if event.character_id and len(held) > RECENT_SEALED:
        del held[next(iter(held))]


@functools.cache
def _dispatch(
    folding: Folding,
) -> dict[type, Callable[[CampaignState, Any, StoredEvent], None]]:
    """Every event type's handler in a campaign of the system ``folding`` folds for: the core's,
    and the system's own for the rest, in one table. Asked once per stream (a system's
    handlers are fixed when its class is made)."""
    return {**folding.handlers, **_HANDLERS}


# What a handler raises on an event no command would have logged where it stands.
FOLD_FAULTS = (KeyError, TypeError, ValueError, AttributeError, IndexError)


class LogUnfoldable(StorageError):
    """An event the fold cannot take where it stands in its campaign: the log was edited by
    hand (or the state it was folded onto was no state tracker wrote). ``cause`` says what
    went wrong, for ``tracker verify``."""

    def __init__(self, state: CampaignState, event: StoredEvent, exc: Exception) -> None:
        self.cause = str(exc)
        # Its name is unknown when the campaign's creation was what the fold passed over.
        whose = f'The log of "{state.name}"' if state.name else "The campaign's log"
        super().__init__(
            f"{whose} cannot be read at event {event.version} ({event.event_id}); run "
            "`tracker verify`, which names what was edited."
        )


def unreadable(event: StoredEvent) -> StorageError:
    """The sentence for an event the store could not read as any event this tracker knows."""
    return StorageError(
        f"Event {event.version} ({event.event_id}) cannot be read: {event.data.reason}; "
        "`tracker verify` says whether the log was edited."
    )


def fold(
    events: Iterable[StoredEvent], campaign_id: str, state: CampaignState | None = None
) -> CampaignState:
    """Fold events onto ``state`` (a new one when None).

    An undo or redo changes which earlier events count, which a forward fold cannot take back:
    it sets ``needs_refold``, and the caller folds again from the first event with
    ``refold_state``, knowing the final set of revoked events.
    """
    state = state or CampaignState(campaign_id)
    rules, handlers = None, _HANDLERS
    for event in events:
        if state.rules is not rules:
            # Set by the campaign's creation, or by the snapshot the fold goes on from.
            rules = state.rules
            handlers = _HANDLERS if rules is None else _dispatch(rules.folding)
        _apply(state, event, handlers)
    return state


def session_list(
    events: Iterable[StoredEvent], revoked: set[str], counts: dict[int, int]
) -> list[SessionInfo]:
    """Every session in force, oldest first, from the log's session events (``SESSION_TYPES``)
    and the number of events logged in each (``counts``, counted by the store)."""
    sessions: dict[int, SessionInfo] = {}
    for event in events:
        if event.event_id in revoked:
            continue
        e = event.data
        number = e.number
        if event.type == c.SessionStarted.TYPE:
            sessions[number] = SessionInfo(
                number, e.title, event.recorded_at, event_count=counts.get(number, 0)
            )
        elif event.type == c.SessionEnded.TYPE and number in sessions:
            sessions[number].ended_at = event.recorded_at
            sessions[number].lapsed = tuple(e.lapsed)
    return sorted(sessions.values(), key=lambda s: s.number)


def refold_state(campaign_id: str, revoked: Iterable[str]) -> CampaignState:
    """An empty state that will skip exactly ``revoked`` while folding from the first event."""
    state = CampaignState(campaign_id)
    state.revoked = set(revoked)
    state.fixed_revoked = True
    return state


def problem_with(state: CampaignState, event: StoredEvent) -> str | None:
    """Why ``event`` could not have been logged in ``state``, or None if it still could.

    Undo asks this of every later event, folding without the events it would revoke: a spend
    that used Mettle from an undone roll, a roll that used an undone steel-yourself.
    """
    if event.event_id in state.revoked:
        return None
    if isinstance(event.data, Unreadable):
        raise unreadable(event)
    check = _PRECONDITIONS.get(type(event.data))
    added = event.type == c.CharacterAdded.TYPE
    if not added and event.character_id is not None:
        ch = state.characters.get(event.character_id)
        if ch is None:
            return "its character would not exist"
        if ch.retired_version is not None and event.type not in AFTER_RETIREMENT:
            return f"{ch.name} would have retired from play at event {ch.retired_version}"
    if check is None and state.rules is not None:
        kind = type(event.data)
        if kind not in _HANDLERS and kind not in state.rules.folding.handlers:
            owners = [s.title for s in registry.systems() if kind in s.folding.handlers]
            if owners:
                whose = " and ".join(owners)
                return f"{event.type} is {whose}'s, and the campaign plays {state.rules.title}"
        check = state.rules.folding.preconditions.get(kind)
    return None if check is None else check(state, event.data)


# What a command still logs about a character retired from play: its sheet, which a look at it
# may correct. Anything else about it waits until its retirement is undone.
AFTER_RETIREMENT = frozenset({c.CharacterUpdated.TYPE, c.CharacterDefaultSet.TYPE})


# -- obligations ---------------------------------------------------------------------------------


def _open(
    state: CampaignState,
    raw: StoredEvent,
    kind: str,
    what: str,
    *,
    character_id: str | None = None,
    severity: str = "owed",
    suffix: str = "",
    **data: Any,
) -> Obligation:
    ob = Obligation(
        id=f"{raw.version}{suffix}",
        kind=kind,
        what=what,
        opened_by=raw.event_id,
        opened_version=raw.version,
        character_id=character_id,
        severity=severity,
        data=data,
        secret=raw.visibility == "gm",
    )
    state.obligations[ob.id] = ob
    return ob


def _discharge(state: CampaignState, ob: Obligation, raw: StoredEvent, how: str) -> None:
    ob.discharged_by = raw.event_id
    ob.discharged_version = raw.version
    ob.how = how
    del state.obligations[ob.id]
    state.discharged.append(ob)


def _set_stress(state: CampaignState, ch: Character, delta: int, raw: StoredEvent) -> None:
    rules = state.rules
    ch.stress = min(max(ch.stress + delta, 0), able(rules, Stress).stress_limit(state.stress_limit))
    rules.folding.stress_moved(state, ch, raw)


def _apply_effects(
    state: CampaignState,
    effects: Iterable[Effect],
    raw: StoredEvent,
    default_id: str | None,
) -> None:
    for effect in effects:
        ch = state.characters.get(effect.character_id or default_id or "")
        kind = type(effect)
        if kind is TrackChange:
            track, delta = effect.track, effect.delta
            if track == "stress":
                if ch is not None:
                    _set_stress(state, ch, delta, raw)
            elif track in ("hp", "fp"):
                if ch is not None:
                    _change_track(state, ch, track, delta)
            else:
                state.rules.folding.track_moved(state, ch, track, delta, raw)
        elif kind is ConditionApplied and ch is not None:
            ch.conditions[effect.condition] = Condition(
                effect.condition,
                *effect.lasts(),
                effect.note,
                raw.event_id,
                effect.modifier,
                raw.visibility == "gm",
            )
        elif kind is ObligationOpened:
            _open(
                state,
                raw,
                effect.obligation,
                effect.what,
                character_id=ch.character_id if ch else None,
                suffix=effect.suffix,
                **effect.data,
            )
        elif kind is StatChanged and ch is not None:
            _stat_changed(state, ch, effect)
        else:
            state.rules.folding.effect(state, ch, effect, raw)


def _stat_changed(state: CampaignState, ch: Character, effect: StatChanged) -> None:
    """A lasting change to a stat, and to the stats based on it by as much (GURPS: Will and Per
    with IQ, HP with ST, FP with HT), as a sheet change moves them.

    Ruling (tracker/app/RULINGS.md, 'Sheets that change'): a stat based on another moves with
    it, whether the sheet or play changes it; a skill keeps the level its sheet gives. A change
    logged before that ruling (its effect does not say ``derived``) moved the stat alone, and
    the rolls after it were decided at the old levels: it still moves the stat alone.
    """
    key = ch.stat_name(effect.stat) or effect.stat
    ch.stat_changes[key] = ch.stat_changes.get(key, 0) + effect.delta
    if not effect.derived:
        return
    for name, source in able(state.rules, SheetRules).derived:
        own = ch.stat_name(name)
        if source.casefold() == key.casefold() and own is not None:
            ch.stat_changes[own] = ch.stat_changes.get(own, 0) + effect.delta


def _change_track(state: CampaignState, ch: Character, track: str, delta: int) -> None:
    value = getattr(ch, track)
    if value is None:
        return
    top = ch.hp_max if track == "hp" else ch.fp_max
    floor = able(state.rules, Thresholds).track_floor(track, top)
    setattr(ch, track, min(max(value + delta, floor), top))


# -- handlers ------------------------------------------------------------------------------------


def _campaign_created(state: CampaignState, e: c.CampaignCreated, _: StoredEvent) -> None:
    state.name = e.name
    state.system = e.system
    state.rules = registry.get(e.system)
    state.own = state.rules.folding.new_campaign()
    state.settings.update({name: getattr(e, name) for name in c.CREATED})


def _settings_changed(state: CampaignState, e: c.CampaignSettingsChanged, _: StoredEvent) -> None:
    for name, value in e.changed().items():
        state.settings[name] = list(value) if isinstance(value, tuple) else value


def _session_started(state: CampaignState, e: c.SessionStarted, raw: StoredEvent) -> None:
    state.session = SessionInfo(e.number, e.title, raw.recorded_at, event_count=1)
    state.current_session = e.number
    state.rules.folding.session_started(state, raw)


def lapsing(state: CampaignState) -> list[Obligation]:
    """What a session's end closes as lapsed: what its system says only play discharges
    (``Folding.lapsing``). Everything else can still be settled after the session, and stays
    owed."""
    return state.rules.folding.lapsing(state)


def _session_ended(state: CampaignState, e: c.SessionEnded, raw: StoredEvent) -> None:
    session = state.session
    if session is not None and session.number == e.number:
        session.ended_at = raw.recorded_at
        session.lapsed = tuple(e.lapsed)
    state.current_session = None
    # Closed by the event that records it, so undoing the session's end puts it back.
    for ob in lapsing(state):
        _discharge(state, ob, raw, f"lapsed at the end of session {e.number}")


def _character_added(state: CampaignState, e: c.CharacterAdded, _: StoredEvent) -> None:
    ch = Character(
        e.character_id,
        e.name,
        dict(e.stats),
        dict(e.skills),
        tuple(e.trained),
        e.character_class,
        {k: list(v) for k, v in e.defaults.items()},
        tuple(e.traits),
        e.sheet,
        e.npc is True,
    )
    ch.own = state.rules.folding.new_character()
    ch.stats.update(able(state.rules, SheetRules).derived_stats(ch.stats))
    ch.hp = ch.hp_max
    ch.fp = ch.fp_max
    state.characters[e.character_id] = ch


def _character_updated(state: CampaignState, e: c.CharacterUpdated, _: StoredEvent) -> None:
    ch = state.characters[e.character_id]
    before = dict(ch.stats)
    for key, value in e.stats.items():
        ch.stats[_name(ch.stats, key) or key] = value
    # A stat based on another moves with it (Will with IQ), unless the change names it too.
    given = {key.casefold() for key in e.stats}
    for name, source in able(state.rules, SheetRules).derived:
        old, new = _lookup(before, source), _lookup(ch.stats, source)
        own = _name(ch.stats, name)
        if own is not None and name.casefold() not in given and old is not None and new != old:
            ch.stats[own] += new - old
    ch.stats.update(able(state.rules, SheetRules).derived_stats(ch.stats))
    for key, value in e.skills.items():
        ch.skills[_name(ch.skills, key) or key] = value
    for key in e.dropped_skills:
        ch.skills.pop(_name(ch.skills, key) or key, None)
    ch.trained = (*ch.trained, *(t for t in e.trained if not ch.is_trained(t)))
    dropped = {t.casefold() for t in e.dropped_traits}
    kept = tuple(t for t in ch.traits if t.casefold() not in dropped)
    ch.traits = (*kept, *(t for t in e.traits if t.casefold() not in {k.casefold() for k in kept}))
    if e.character_class is not None:
        ch.character_class = e.character_class
    if e.sheet is not None:
        ch.sheet = e.sheet
    if isinstance(e.npc, bool):
        ch.npc = e.npc
    for track, top in (("hp", ch.hp_max), ("fp", ch.fp_max)):
        now = getattr(ch, track)
        if e.reset_tracks or now is None:
            setattr(ch, track, top)
        elif top is not None:
            setattr(ch, track, min(now, top))
        else:
            setattr(ch, track, None)


def _character_retired(state: CampaignState, e: c.CharacterRetired, raw: StoredEvent) -> None:
    state.characters[e.character_id].retired_version = raw.version


def _default_set(state: CampaignState, e: c.CharacterDefaultSet, _: StoredEvent) -> None:
    ch = state.characters[e.character_id]
    ch.defaults.setdefault(e.skill, [])
    if e.expression not in ch.defaults[e.skill]:
        ch.defaults[e.skill].append(e.expression)


def _roll_made(state: CampaignState, e: p.RollMade, raw: StoredEvent) -> None:
    ch = state.characters[e.character_id]
    # The roll's effects, then those of the rolls kept inside it (``with_followups``), without
    # a tuple of them made for each of a long campaign's rolls.
    _apply_effects(state, e.effects, raw, e.character_id)
    if e.then:
        for part in e.then:
            _apply_effects(state, part.effects, raw, e.character_id)
    state.rules.folding.rolled(state, ch, e, raw)


def _contest_rolled(state: CampaignState, e: p.ContestRolled, raw: StoredEvent) -> None:
    _apply_effects(state, e.effects, raw, None)
    if raw.visibility == "gm":
        for character_id, name in able(state.rules, Conditions).at_stake(e):
            ch = state.characters.get(character_id)
            held = _name(ch.conditions, name) if ch is not None else None
            if held is not None:
                ch.conditions[held].secret = True
    state.rules.folding.contested(state, e, raw)


def _stress_changed(state: CampaignState, e: p.StressChanged, raw: StoredEvent) -> None:
    _set_stress(state, state.characters[e.character_id], e.delta, raw)


def _track_changed(state: CampaignState, e: p.TrackChanged, _: StoredEvent) -> None:
    _change_track(state, state.characters[e.character_id], e.track, e.delta)


def _condition_set(state: CampaignState, e: p.ConditionSet, raw: StoredEvent) -> None:
    state.characters[e.character_id].conditions[e.name] = Condition(
        e.name, e.duration, e.unit, e.note, raw.event_id, secret=raw.visibility == "gm"
    )


def _condition_cleared(state: CampaignState, e: p.ConditionCleared, _: StoredEvent) -> None:
    conditions = state.characters[e.character_id].conditions
    name = _name(conditions, e.name)
    if name is not None:
        del conditions[name]


def _dismissed(state: CampaignState, e: p.ObligationDismissed, raw: StoredEvent) -> None:
    ob = state.obligations.get(e.obligation)
    if ob is not None:
        _discharge(state, ob, raw, f"dismissed: {e.reason}" if e.reason else "dismissed")


def _revoked(state: CampaignState, e: p.EventsRevoked, raw: StoredEvent) -> None:
    state.undo_stack.append({"event_id": raw.event_id, "event_ids": list(e.event_ids)})
    if not state.fixed_revoked:
        state.revoked.update(e.event_ids)
        state.needs_refold = True


# The events that name earlier ones of their campaign by id.
NAMING_TYPES = (p.EventsRevoked.TYPE, p.EventsRestored.TYPE, p.EventsRevealed.TYPE)


class ReferenceCheck:
    """Holds one campaign's undos, redos and reveals to what the commands log, in log order and
    without folding the rest of it: an undo takes back only events in force, logged before it,
    of a kind an undo takes back; a redo puts back all that the newest undo still open to one
    took back; a reveal shows only secret events not shown yet; each is public and names its
    events once. Every log tracker writes keeps this, and an import is held to it: a look back
    takes the undos after a moment back one by one to tell what was in force then
    (``revoked_before``), and the players' view trusts each reveal.

    ``named`` holds every event such an event names (a first read of them tells), so that the
    type and visibility of only those are kept as the log goes by."""

    def __init__(self, named: set[str]) -> None:
        self.named = named
        self.earlier: dict[str, tuple[str, str]] = {}
        self.revoked: set[str] = set()
        self.revealed: set[str] = set()
        # The undos open to a redo, newest last, as the state's ``undo_stack`` keeps them.
        self.open: deque[tuple[str, tuple[str, ...]]] = deque(maxlen=RECENT_UNDOS)

    def __call__(self, event: StoredEvent) -> str | None:
        """Why ``event`` could not follow the events before it (None if it could); it is then
        taken in either way, so that the events after it are held to the log as it stands."""
        problem = None
        data = event.data
        if isinstance(data, (p.EventsRevoked, p.EventsRestored, p.EventsRevealed)):
            problem = self._problem(event, data)
            self._take(event, data)
        if event.event_id in self.named:
            self.earlier[event.event_id] = (event.type, event.visibility)
        return problem

    def _problem(
        self, event: StoredEvent, data: p.EventsRevoked | p.EventsRestored | p.EventsRevealed
    ) -> str | None:
        ids = data.event_ids
        if event.visibility != "public":
            return "it is secret, which no undo, redo or reveal is"
        if not ids:
            return "it names no event"
        if len(set(ids)) != len(ids):
            return "it names an event twice"
        if isinstance(data, p.EventsRestored):
            if not self.revoked.issuperset(ids):
                return "it redoes an event that is not undone"
            if not self.open or self.open[-1] != (data.revocation, ids):
                return "it redoes other than the newest undo still open to a redo"
            return None
        verb = "undoes" if isinstance(data, p.EventsRevoked) else "reveals"
        for ident in ids:
            found = self.earlier.get(ident)
            if found is None:
                return f"it {verb} {ident}, which is no event logged before it in its campaign"
            kind, visibility = found
            if isinstance(data, p.EventsRevoked) and kind in NOT_UNDOABLE:
                return f"it undoes an event no undo takes back ({kind})"
            if isinstance(data, p.EventsRevealed) and visibility != "gm":
                return "it reveals an event that was never secret"
        if isinstance(data, p.EventsRevoked) and not self.revoked.isdisjoint(ids):
            return "it undoes an event that is undone already"
        if isinstance(data, p.EventsRevealed) and not self.revealed.isdisjoint(ids):
            return "it reveals an event revealed already"
        return None

    def _take(
        self, event: StoredEvent, data: p.EventsRevoked | p.EventsRestored | p.EventsRevealed
    ) -> None:
        if isinstance(data, p.EventsRevoked):
            self.revoked.update(data.event_ids)
            self.open.append((event.event_id, data.event_ids))
        elif isinstance(data, p.EventsRestored):
            self.revoked.difference_update(data.event_ids)
            kept = [u for u in self.open if u[0] != data.revocation]
            self.open.clear()
            self.open.extend(kept)
        else:
            self.revealed.update(data.event_ids)


def revoked_before(revoked: set[str], undos_since: Iterable[StoredEvent]) -> set[str]:
    """The events revoked before the undos and redos ``undos_since`` (oldest first), given the
    events they leave revoked: each taken back, newest first. Exact because each undo revoked
    only events in force and each redo restored only revoked ones (``ReferenceCheck``)."""
    before = set(revoked)
    for event in reversed(list(undos_since)):
        data = event.data
        if isinstance(data, p.EventsRevoked):
            before.difference_update(data.event_ids)
        elif isinstance(data, p.EventsRestored):
            before.update(data.event_ids)
    return before


def _revealed(state: CampaignState, e: p.EventsRevealed, _: StoredEvent) -> None:
    shown = set(e.event_ids)
    for held in state.sealed.values():
        for ident in shown.intersection(held):
            del held[ident]


def _restored(state: CampaignState, e: p.EventsRestored, raw: StoredEvent) -> None:
    kept = [u for u in state.undo_stack if u["event_id"] != e.revocation]
    state.undo_stack.clear()
    state.undo_stack.extend(kept)
    if not state.fixed_revoked:
        state.revoked.difference_update(e.event_ids)
        state.needs_refold = True


def _pre_condition_cleared(state: CampaignState, e: p.ConditionCleared) -> str | None:
    ch = state.characters[e.character_id]
    if _name(ch.conditions, e.name) is None:
        return f"{ch.name} would have no {e.name} to clear"
    return None


def _pre_roll(state: CampaignState, e: p.RollMade) -> str | None:
    return state.rules.folding.roll_problem(state, state.characters[e.character_id], e)


def _pre_contest(state: CampaignState, e: p.ContestRolled) -> str | None:
    for side in (e.a, e.b):
        if side is None or side.character_id is None:
            continue
        ch = state.characters.get(side.character_id)
        if ch is None:
            return f"its side {side.name} would be no character of the campaign"
        if ch.retired_version is not None:
            return f"{ch.name} would have retired from play at event {ch.retired_version}"
    return state.rules.folding.contest_problem(state, e)


def _pre_dismissed(state: CampaignState, e: p.ObligationDismissed) -> str | None:
    return None if e.obligation in state.obligations else "the obligation would not be open"


def _pre_session_start(state: CampaignState, e: c.SessionStarted) -> str | None:
    return "another session would still be running" if state.current_session else None


def _pre_session_end(state: CampaignState, e: c.SessionEnded) -> str | None:
    return None if state.current_session == e.number else "its session would not be running"


def _pre_track(state: CampaignState, e: p.TrackChanged) -> str | None:
    ch = state.characters[e.character_id]
    if e.track not in ("hp", "fp") or getattr(ch, e.track) is None:
        return f"{ch.name} has no {e.track!r} track to change"
    if e.delta == 0 or abs(e.delta) >= 10**15:
        return f"a change of {e.delta} {e.track.upper()} is none a command logs"
    return None


_PRECONDITIONS: dict[type, Callable[[CampaignState, Any], str | None]] = {
    p.ConditionCleared: _pre_condition_cleared,
    p.TrackChanged: _pre_track,
    p.RollMade: _pre_roll,
    p.ContestRolled: _pre_contest,
    p.ObligationDismissed: _pre_dismissed,
    c.SessionStarted: _pre_session_start,
    c.SessionEnded: _pre_session_end,
}


# Each event type's handler, by the event's typed class: a payload the store could not read as
# its type (``Unreadable``) has none, and is refused rather than passed over.
_HANDLERS: dict[type, Callable[[CampaignState, Any, StoredEvent], None]] = {
    p.EventsRevoked: _revoked,
    p.EventsRestored: _restored,
    p.EventsRevealed: _revealed,
    c.CampaignCreated: _campaign_created,
    c.CampaignSettingsChanged: _settings_changed,
    c.SessionStarted: _session_started,
    c.SessionEnded: _session_ended,
    c.CharacterAdded: _character_added,
    c.CharacterDefaultSet: _default_set,
    c.CharacterUpdated: _character_updated,
    c.CharacterRetired: _character_retired,
    p.RollMade: _roll_made,
    p.ContestRolled: _contest_rolled,
    p.StressChanged: _stress_changed,
    p.TrackChanged: _track_changed,
    p.ConditionSet: _condition_set,
    p.ConditionCleared: _condition_cleared,
    p.ObligationDismissed: _dismissed,
}


# -- snapshots -----------------------------------------------------------------------------------


def projection_version(rules: RuleSystem) -> int:
    """The version a campaign of ``rules`` stores its snapshots under and looks them up by: the
    core's ``PROJECTION_VERSION`` with the system's ``Folding.version`` joined on. A snapshot of
    another fold (a plugin upgraded to one that makes another state of the same events) is then
    passed over and the log folded anew, never read as the state the log gives. A fold at
    version 1 adds nothing, so the snapshots stored before folds had versions still serve."""
    return PROJECTION_VERSION + (rules.folding.version - 1) * FOLD_VERSION_STEP


# A snapshot holds the settings between these, by name.
_STATE_FIELDS = ("campaign_id", "name", "system")
_STATE_FIELDS_AFTER = ("version", "head_hash", "current_session")
_CHARACTER_TRACKS = (
    "stress",
    "hp",
    "fp",
    "traits_gained",
    "stat_changes",
    "retired_version",
)


def to_snapshot(state: CampaignState) -> dict[str, Any]:
    """The state as plain JSON values (the snapshot cache stores this)."""
    doc = {name: getattr(state, name) for name in _STATE_FIELDS}
    doc["settings"] = dict(state.settings)
    doc.update({name: getattr(state, name) for name in _STATE_FIELDS_AFTER})
    doc["session"] = state.session.to_dict() if state.session else None
    doc["characters"] = [_character_snapshot(ch) for ch in state.characters.values()]
    doc["obligations"] = [o.to_dict() for o in state.obligations.values()]
    doc["discharged"] = [o.to_dict() for o in state.discharged]
    doc["own"] = None if state.own is None else state.own.to_snapshot()
    doc["sealed"] = {who: dict(held) for who, held in state.sealed.items() if held}
    doc["revoked"] = sorted(state.revoked)
    doc["undo_stack"] = copy.deepcopy(list(state.undo_stack))
    return doc


def _character_snapshot(ch: Character) -> dict[str, Any]:
    doc = ch.to_dict()
    for name in _CHARACTER_TRACKS:
        value = getattr(ch, name)
        doc[name] = copy.deepcopy(value)
    doc["conditions"] = [cond.to_dict() for cond in ch.conditions.values()]
    doc["own"] = None if ch.own is None else ch.own.to_snapshot()
    return doc


def from_snapshot(doc: dict[str, Any]) -> CampaignState:
    """Rebuild a state from ``to_snapshot``'s document."""
    state = CampaignState(doc["campaign_id"])
    for name in (*_STATE_FIELDS[1:], *_STATE_FIELDS_AFTER):
        setattr(state, name, doc[name])
    state.settings = dict(doc["settings"])
    state.rules = registry.get(state.system)
    folding = state.rules.folding
    s = doc["session"]
    if s is not None:
        state.session = SessionInfo(
            s["number"], s["title"], s["started_at"], s["ended_at"], s["events"], tuple(s["lapsed"])
        )
    for d in doc["characters"]:
        ch = Character(
            d["character_id"],
            d["name"],
            d["stats"],
            d["skills"],
            tuple(d["trained"]),
            d["class"],
            d["defaults"],
            tuple(d["traits"]),
            d["sheet"],
            d["npc"],
        )
        for name in _CHARACTER_TRACKS:
            setattr(ch, name, d[name])
        ch.conditions = {cd["name"]: Condition(**cd) for cd in d["conditions"]}
        own = d["own"]
        ch.own = None if own is None else folding.character_part.from_snapshot(own)
        state.characters[ch.character_id] = ch
    state.obligations = {o["id"]: Obligation(**o) for o in doc["obligations"]}
    state.discharged.extend(Obligation(**o) for o in doc["discharged"])
    own = doc["own"]
    state.own = None if own is None else folding.campaign_part.from_snapshot(own)
    state.sealed = {
        who: {ident: [int(version), str(at)] for ident, (version, at) in held.items()}
        for who, held in doc["sealed"].items()
    }
    revoked = doc["revoked"]
    if not all(isinstance(i, str) for i in revoked):
        # Ids are text; another value would not sort when the state is stored again.
        raise TypeError("a revoked event's id is not text")
    state.revoked = set(revoked)
    state.undo_stack.extend(copy.deepcopy(doc["undo_stack"]))
    return state
