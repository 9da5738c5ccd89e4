"""Whether a stored event is one tracker would have logged where it stands in its campaign.

``tracker verify`` asks this of every event of a log, and ``tracker import`` of every event of a
file before it commits any: beyond the hash chain, an event must agree with its own envelope,
fall in the session that was running, and be one the rules would have taken in the campaign
folded up to it (``problem_with``), a roll deciding again to what it stores.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Set as AbstractSet
from datetime import datetime
from typing import Any

import msgspec

from tracker.app.campaigns import logged_settings_problem
from tracker.app.names import check_name
from tracker.app.sheets import check_scores
from tracker.errors import TrackerError
from tracker.events import StoredEvent
from tracker.events.catalog import (
    CREATED,
    CampaignCreated,
    CampaignSettingsChanged,
    CharacterAdded,
    SessionStarted,
)
from tracker.events.effects import StatChanged
from tracker.events.play import (
    ContestRolled,
    EventsRestored,
    EventsRevoked,
    NoteAdded,
    RollMade,
    StressChanged,
)
from tracker.projections.campaign import (
    NOT_UNDOABLE,
    CampaignState,
    LogUnfoldable,
    apply,
    problem_with,
    refold_state,
)
from tracker.projections.rolls import rolled_types, rolls_in
from tracker.systems import registry
from tracker.systems.base import Feature
from tracker.systems.capabilities import Currencies, Provenance, able
from tracker.systems.registry import UnknownSystem

FOLD_ERRORS = (TrackerError, KeyError, TypeError, ValueError, AttributeError, IndexError)


class LogCheck:
    """Folds one campaign's events in order, saying of each whether it could have been logged
    there. ``walk`` skips exactly the events the campaign's undos leave revoked; ``named`` holds
    every event an undo, a redo or a reveal names (a first read tells)."""

    def __init__(
        self, walk: CampaignState, *, redecide: bool = True, named: AbstractSet[str] = frozenset()
    ) -> None:
        self.walk = walk
        self.redecide = redecide
        # Every session ever begun, undone or not: an event filed under any other was not
        # logged by tracker. (Whether it was the running one depends on undos as they stood.)
        self.sessions: set[int] = set()
        self.as_logged = AsLogged(walk.revoked, named)
        # When the event before was recorded, as read and as written: no command records one
        # earlier.
        self.last_time: tuple[datetime, str] | None = None

    def __call__(self, event: StoredEvent) -> str | None:
        """None when ``event`` could have been logged where it stands (it is then folded in);
        else why not."""
        walk = self.walk
        if isinstance(event.data, SessionStarted):
            self.sessions.add(event.data.number)
        if event.type in NOT_UNDOABLE:
            # An undo naming it is named where it stands; folded without it (the campaign's
            # creation), every later event would be found wanting too.
            walk.revoked.discard(event.event_id)
        problem = self._envelope_problem(event)
        try:
            problem = problem or problem_with(walk, event) or _as_its_command(walk, event.data)
            if problem is None and isinstance(event.data, CharacterAdded):
                problem = _sheet_problem(walk, event.data)
            if problem is None and event.type in rolled_types():
                # Undone since or not: a command logged it from the sheet as it stood then.
                problem = self.as_logged.rolled_from(walk, event)
            apply(walk, event)
            rolled = self.redecide and event.type in rolled_types()
            if problem is None and rolled and event.event_id not in walk.revoked:
                problem = next(filter(None, map(walk.rules.redecide, rolls_in(event.data))), None)
        except UnknownSystem:
            raise  # not this event's fault: the campaign's rules are not here to ask
        except FOLD_ERRORS as exc:
            # What the rules said of it, when they said why (a character never added), says
            # more than the fold's failure that follows from it.
            if problem is None:
                cause = exc.cause if isinstance(exc, LogUnfoldable) else exc
                return f"it cannot be folded into the campaign ({cause})"
        finally:
            self.as_logged.take(event)
        return None if problem is None else f"the rules would not have logged it: {problem}"

    def _envelope_problem(self, event: StoredEvent) -> str | None:
        data = event.data
        field = getattr(data, "character_field", None)
        if field and getattr(data, field) != event.character_id:
            return "its envelope names another character than its payload"
        if not field and event.character_id is not None:
            return "its envelope names a character its payload is not about"
        if not event.event_id.strip():
            return "its id is blank"
        if event.session_id is not None and event.session_id not in self.sessions:
            return f"it is filed under session {event.session_id}, which was never begun"
        if event.visibility != "gm" and getattr(data, "salt", msgspec.UNSET) is not msgspec.UNSET:
            return "it is public but salted as only a secret event is"
        try:
            when = datetime.fromisoformat(event.recorded_at)
        except (TypeError, ValueError):
            return f"its time {event.recorded_at!r} is not a time"
        if when.tzinfo is None:
            return f"its time {event.recorded_at!r} says no time zone"
        before, self.last_time = self.last_time, (when, event.recorded_at)
        if before is not None and when < before[0]:
            return (
                f"its time {event.recorded_at!r} comes before {before[1]!r}, when the event "
                "before it was recorded"
            )
        return None


class AsLogged:
    """The campaign as it stood where each roll was logged, as far as the roll reads it.

    A check folds the log skipping the events its undos leave revoked in the end (``final``),
    yet an event undone only later was in force when a roll before its undo was made (a sheet
    change the roll used, then taken back), and one undone earlier and redone later was not.
    Such events are few. While none of them is about a roll's characters, the check's fold is
    the campaign as it stood; otherwise those characters' sheets are folded again from their
    own events (few, too) as they stood, and their tracks go unheld (``tracks`` False)."""

    def __init__(self, final: AbstractSet[str], named: AbstractSet[str]) -> None:
        self.final = final
        self.named = named
        # The events undone where the log has reached, and those whose standing there is not
        # their standing in ``final``, with the characters each is about (None: every one),
        # counted by character (a session undone long after holds many).
        self.undone: set[str] = set()
        self.differ: dict[str, frozenset[str] | None] = {}
        self.touched: Counter[str | None] = Counter()
        self.about: dict[str, frozenset[str] | None] = {}
        self.sheets: dict[str, list[StoredEvent]] = {}

    def rolled_from(self, walk: CampaignState, event: StoredEvent) -> str | None:
        """Whether the rolls ``event`` holds are what the sheets gave where it was logged;
        ``walk`` is the check's fold just before it."""
        rollers = _rollers(event.data)
        state, tracks = walk, True
        if self.touched[None] or any(self.touched[i] for i in rollers):
            state, tracks = self._sheets_as_they_stood(walk, rollers), False
        if not rollers <= state.characters.keys():
            return "a character it rolls for would not exist where it stands"
        for roll in rolls_in(event.data):
            try:
                problem = able(state.rules, Provenance).rolled_from(
                    roll, state.characters, state, tracks=tracks
                )
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                return f"its recorded inputs cannot be read ({exc})"
            if problem:
                return problem
        return None

    def _sheets_as_they_stood(self, walk: CampaignState, ids: AbstractSet[str]) -> CampaignState:
        scratch = refold_state(walk.campaign_id, self.undone)
        scratch.name, scratch.system, scratch.rules = walk.name, walk.system, walk.rules
        events = {e.event_id: e for i in ids for e in self.sheets.get(i, ())}
        for event in sorted(events.values(), key=lambda e: e.version):
            apply(scratch, event)
        return scratch

    def take(self, event: StoredEvent) -> None:
        """Note what ``event``, just checked, changes of the campaign as it stands."""
        data, ident = event.data, event.event_id
        if ident in self.named or ident in self.final:
            about = _about(event)
            if ident in self.named:
                self.about[ident] = about
            if ident in self.final:
                # In force here (its undo comes later), though the check's fold passes it over.
                self._differs(ident, about)
        for character_id in _sheet_of(event):
            self.sheets.setdefault(character_id, []).append(event)
        if isinstance(data, (EventsRevoked, EventsRestored)):
            for named in data.event_ids:
                if isinstance(data, EventsRevoked):
                    self.undone.add(named)
                else:
                    self.undone.discard(named)
                self._differs(named, self.about.get(named))

    def _differs(self, ident: str, about: frozenset[str] | None) -> None:
        """Note whether ``ident`` stands otherwise where the log has reached than in the end."""
        if ident in self.differ:
            self.touched.subtract(_keys(self.differ.pop(ident)))
        if (ident in self.undone) != (ident in self.final):
            self.differ[ident] = about
            self.touched.update(_keys(about))


def _keys(about: frozenset[str] | None) -> tuple[str | None, ...]:
    return (None,) if about is None else tuple(about)


def _rollers(data: Any) -> frozenset[str]:
    """The characters whose sheets a stored roll, check or contest was rolled from."""
    if isinstance(data, ContestRolled):
        sides = (data.a, data.b)
        return frozenset(s.character_id for s in sides if s is not None and s.character_id)
    return frozenset({data.character_id})


def _about(event: StoredEvent) -> frozenset[str] | None:
    """The characters whose state ``event`` changes: its envelope's, a contest's sides', its
    effects'; None for a change of the campaign's settings, which every roll may read."""
    data = event.data
    if isinstance(data, CampaignSettingsChanged):
        return None
    about = {event.character_id} if event.character_id else set()
    for side in (getattr(data, "a", None), getattr(data, "b", None)):
        if getattr(side, "character_id", None):
            about.add(side.character_id)
    for part in data.with_followups() if isinstance(data, RollMade) else (data,):
        for effect in getattr(part, "effects", ()) or ():
            if getattr(effect, "character_id", None):
                about.add(effect.character_id)
    return frozenset(about)


def _sheet_of(event: StoredEvent) -> set[str]:
    """The characters whose sheets ``event`` changes."""
    # A sheet as a roll reads it changes with the events that say so about it
    # (``EventPayload.changes_sheet``), and with a StatChanged effect (an attribute lost for
    # good to a Fright Check).
    sheet = getattr(event.data, "changes_sheet", False)
    changed = {event.character_id} if sheet and event.character_id else set()
    for effect in getattr(event.data, "effects", ()) or ():
        if isinstance(effect, StatChanged):
            changed.add(effect.character_id or event.character_id)
    changed.discard(None)
    return changed


def _as_its_command(walk: CampaignState, data: Any) -> str | None:
    """Why a creation, a setting, a stress change or a spend or gain of a currency holds what
    its command would never have logged, whatever the campaign's state: a forger who rehashed
    the chain can write any number there. (Whether it could be afforded where it stands is
    ``problem_with``'s to ask.)"""
    if isinstance(data, CampaignCreated):
        created = {name: getattr(data, name) for name in CREATED}
        return logged_settings_problem(registry.get(data.system), created, created=True)
    if isinstance(data, CampaignSettingsChanged):
        if not data.changed():
            return "it changes no setting, which `campaign set` never logs"
        return logged_settings_problem(walk.rules, data.changed(), created=False)
    if isinstance(data, NoteAdded) and not data.text.strip():
        return "it is a note without text, which `note` never logs"
    if isinstance(data, StressChanged):
        if not walk.rules.has(Feature.STRESS):
            return f"{walk.rules.title} has no stress"
        if data.delta == 0 or abs(data.delta) >= 10**15:
            return f"a change of {data.delta} stress is none a command logs"
        return None
    return able(walk.rules, Currencies).priced(data)


def _sheet_problem(walk: CampaignState, added: CharacterAdded) -> str | None:
    if added.character_id in walk.characters:
        return "it adds a character whose id another character has"
    # As `character add` refuses it: found in any case, or by a name that reads the same.
    taken = walk.character(added.name)
    if taken is not None:
        alike = "" if taken.name == added.name else f", which reads as {taken.name!r}"
        return f"it adds {added.name!r}{alike}, a name already in the campaign"
    try:
        check_name(added.name, "A character's name")
        check_scores(walk.rules, added.stats, "The stat")
        check_scores(walk.rules, added.skills, "The skill")
    except TrackerError as exc:
        return str(exc).rstrip(".")
    return None
