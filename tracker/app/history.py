"""Looking back and taking back: undo and redo by compensating events, and the state as it stood.

Nothing is ever deleted. An undo appends ``EventsRevoked``; projections then skip the revoked
events. Before it does, it folds the log without them and asks every later event whether it could
still have been logged (``problem_with``): a spend of Mettle an undone roll gave, a roll that used
an undone steel-yourself. Such an undo is refused naming those events, unless ``cascade``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tracker.errors import BadInput, NotFound, Refused
from tracker.events import NewEvent, StoredEvent
from tracker.events import play as ev
from tracker.projections.campaign import (
    CampaignState,
    apply,
    fold,
    problem_with,
    refold_state,
)

# Events an undo never takes back: the campaign's own start and the undo machinery itself.
NOT_UNDOABLE = frozenset({"CampaignCreated", "EventsRevoked", "EventsRestored"})
# A session undo strikes what happened in it; that the session was held stays on record.
SESSION_FRAME = frozenset({"SessionStarted", "SessionEnded"})
MAX_CASCADE_ROUNDS = 50


@dataclass(frozen=True, slots=True)
class Change:
    """One track an event moved: who (None for the campaign), which track, from and to."""

    who: str | None
    track: str
    before: Any
    after: Any


@dataclass(frozen=True, slots=True)
class ReplayLine:
    event: StoredEvent
    revoked: bool
    changes: list[Change]
    names: dict[str, str]


def _readings(state: CampaignState) -> dict[tuple[str | None, str], Any]:
    out: dict[tuple[str | None, str], Any] = {}
    if state.system == "glintlock":
        out[(None, "Threat")] = state.threat
    for ch in state.characters.values():
        if state.system == "glintlock":
            out[(ch.name, "Mettle")] = ch.mettle
        if state.system != "gurps":
            out[(ch.name, "stress")] = ch.stress
        if ch.hp is not None:
            out[(ch.name, "HP")] = ch.hp
        if ch.fp is not None:
            out[(ch.name, "FP")] = ch.fp
        if state.system == "gurps":
            out[(ch.name, "CP")] = ch.points
        out[(ch.name, "conditions")] = ", ".join(sorted(ch.conditions)) or "none"
    out[(None, "obligations")] = len(state.obligations)
    return out


@dataclass(frozen=True, slots=True)
class Dependent:
    event: StoredEvent
    reason: str


class HistoryHandlers:
    """Undo, redo and time travel; mixed into ``Tracker``."""

    campaign: Callable[..., Any]
    store: Any
    refold: Callable[..., CampaignState]
    session_info: Callable[[int], Any]
    _event: Callable[..., NewEvent]
    _play: Callable[..., Any]

    # -- undo and redo ----------------------------------------------------------------------------

    def undo(
        self,
        event: str | None = None,
        *,
        session: int | None = None,
        cascade: bool = False,
        reason: str | None = None,
    ):
        """Revoke an event (the last one in force in the running session when none is named),
        or every event of a session, by appending ``EventsRevoked``."""
        if event is not None and session is not None:
            raise BadInput("Name an event or a session to undo, not both.")

        def decide(state: CampaignState):
            events = list(self.store.read(state.campaign_id))
            targets = self._targets(state, events, event, session)
            dependents = self._dependents(state, events, {e.event_id for e in targets})
            if dependents and not cascade:
                named = "; ".join(f"{d.event.version} ({d.reason})" for d in dependents[:5])
                more = f" and {len(dependents) - 5} more" if len(dependents) > 5 else ""
                raise Refused(
                    f"Undoing {_versions(targets)} would leave later events invalid: "
                    f"{named}{more}; undo them too with --cascade."
                )
            revoked = [*targets, *(d.event for d in dependents)]
            payload = ev.EventsRevoked(
                event_ids=tuple(e.event_id for e in revoked), reason=reason, cascade=cascade
            )
            doc = {
                "revoked": [_brief(e) for e in revoked],
                "cascade": [_brief(d.event) | {"reason": d.reason} for d in dependents],
                "session": session,
            }
            return [self._event(payload, state=state)], doc

        return self._play(decide)

    def redo(self, *, reason: str | None = None):
        """Restore the events the most recent undo still open to a redo revoked."""

        def decide(state: CampaignState):
            if not state.undo_stack:
                raise Refused("There is nothing to redo; `tracker undo` takes an event back.")
            last = state.undo_stack[-1]
            ids = set(last["event_ids"])
            events = list(self.store.read(state.campaign_id))
            trial = refold_state(state.campaign_id, state.revoked - ids)
            for stored in events:
                problem = problem_with(trial, stored)
                if problem is not None and stored.event_id not in ids:
                    raise Refused(
                        f"Redoing would leave event {stored.version} invalid ({problem}); "
                        "undo it first, or leave the redo."
                    )
                apply(trial, stored)
            payload = ev.EventsRestored(
                event_ids=tuple(last["event_ids"]), revocation=last["event_id"], reason=reason
            )
            restored = [_brief(e) for e in events if e.event_id in ids]
            return [self._event(payload, state=state)], {"restored": restored}

        return self._play(decide)

    def _targets(
        self,
        state: CampaignState,
        events: list[StoredEvent],
        event: str | None,
        session: int | None,
    ) -> list[StoredEvent]:
        in_force = [e for e in events if e.event_id not in state.revoked]
        if session is not None:
            if self.session_info(session) is None:
                raise NotFound(f"No session {session}; `tracker session list` shows them.")
            chosen = [
                e
                for e in in_force
                if e.session_id == session and e.type not in SESSION_FRAME | NOT_UNDOABLE
            ]
            if not chosen:
                raise Refused(f"Session {session} has nothing left to undo.")
            return chosen
        if event is not None:
            found = find_event(events, event)
            if found.event_id in state.revoked:
                raise Refused(f"Event {found.version} is already undone; `tracker redo` restores.")
            if found.type in NOT_UNDOABLE:
                raise Refused(f"Event {found.version} ({found.type}) cannot be undone.")
            return [found]
        if state.current_session is None:
            raise Refused(
                "No session is running; name the event to undo (`tracker undo EVENT_ID`, "
                "see `tracker log`)."
            )
        candidates = [
            e
            for e in in_force
            if e.session_id == state.current_session
            and e.type not in NOT_UNDOABLE
            and e.type != "SessionStarted"
        ]
        if not candidates:
            raise Refused(
                f"Nothing has been logged in session {state.current_session} yet to undo."
            )
        return [candidates[-1]]

    def _dependents(
        self, state: CampaignState, events: list[StoredEvent], targets: set[str]
    ) -> list[Dependent]:
        """Later events that could not have been logged without ``targets``, transitively."""
        revoking = set(targets)
        first = min(e.version for e in events if e.event_id in targets)
        found: list[Dependent] = []
        for _ in range(MAX_CASCADE_ROUNDS):
            trial = refold_state(state.campaign_id, state.revoked | revoking)
            new: list[Dependent] = []
            for stored in events:
                problem = problem_with(trial, stored) if stored.version > first else None
                if problem is not None:
                    new.append(Dependent(stored, problem))
                    trial.revoked.add(stored.event_id)
                apply(trial, stored)
            if not new:
                return found
            found.extend(new)
            revoking.update(d.event.event_id for d in new)
        return found

    # -- replay -------------------------------------------------------------------------------

    def replay(self, session: int | None = None) -> tuple[CampaignState, Iterator[ReplayLine]]:
        """A session (the running or last one when none is named) event by event, with the
        changes each event made to the tracks; revoked events are marked and changed nothing."""
        state = self.state()
        if session is None:
            session = state.current_session or (state.session.number if state.session else None)
        if session is None or self.session_info(session) is None:
            raise NotFound(
                f"No session {session}; `tracker session list` shows them."
                if session is not None
                else "No session has been played yet; `tracker session start` begins one."
            )
        return state, self._replay_lines(state, session)

    def _replay_lines(self, state: CampaignState, session: int) -> Iterator[ReplayLine]:
        walk = refold_state(state.campaign_id, state.revoked)
        for event in self.store.read(state.campaign_id):
            if event.session_id != session:
                apply(walk, event)
                continue
            before = _readings(walk)
            apply(walk, event)
            after = _readings(walk)
            changes = [
                Change(who, track, before.get((who, track)), value)
                for (who, track), value in after.items()
                if before.get((who, track)) != value
            ]
            names = {c.character_id: c.name for c in walk.characters.values()}
            yield ReplayLine(event, event.event_id in state.revoked, changes, names)

    # -- time travel --------------------------------------------------------------------------

    def as_of(self, when: str) -> tuple[CampaignState, StoredEvent]:
        """The campaign as it stood at an event (its number, id or id prefix) or at a time."""
        row = self.campaign()
        events = self.store.read(row.campaign_id)
        target = _resolve_moment(list(events), when)
        state = fold(
            self.store.read(row.campaign_id, until_version=target.version), row.campaign_id
        )
        if state.needs_refold:
            state = self.refold(row, state.revoked, until_version=target.version)
        return state, target


def find_event(events: Iterable[StoredEvent], ident: str) -> StoredEvent:
    """An event by its number in the log, its id, or an unambiguous prefix of its id."""
    events = list(events)
    if ident.isdigit():
        for e in events:
            if e.version == int(ident):
                return e
        raise NotFound(f"No event {ident} in this campaign; `tracker log` lists them.")
    matches = [e for e in events if e.event_id.startswith(ident.lower())]
    if len(ident) < 4 or not matches:
        raise NotFound(f"No event {ident!r}; give its number or id from `tracker log`.")
    if len(matches) > 1:
        raise BadInput(f"{ident!r} matches {len(matches)} events; give more of the id.")
    return matches[0]


def _resolve_moment(events: list[StoredEvent], when: str) -> StoredEvent:
    try:
        return find_event(events, when)
    except NotFound:
        pass
    import pendulum

    try:
        moment = pendulum.parse(when, tz=pendulum.local_timezone())
    except (ValueError, pendulum.parsing.exceptions.ParserError):
        raise BadInput(
            f"--as-of takes an event number or id, or a time like '2026-11-29 21:30', not {when!r}."
        ) from None
    stamp = moment.in_timezone("UTC").format("YYYY-MM-DDTHH:mm:ss.SSSSSSZ")
    before = [e for e in events if e.recorded_at <= stamp]
    if not before:
        raise Refused(f"The campaign had not begun at {when}.")
    return before[-1]


def _versions(events: list[StoredEvent]) -> str:
    if len(events) == 1:
        return f"event {events[0].version}"
    return f"{len(events)} events ({events[0].version}-{events[-1].version})"


def _brief(event: StoredEvent) -> dict[str, Any]:
    return {"version": event.version, "event_id": event.event_id, "type": event.type}
