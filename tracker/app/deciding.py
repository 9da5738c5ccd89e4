"""The decide-and-append loop every command that logs goes through.

A command reads the campaign's state and decides the events from it (raising a domain error when
the rules or the state refuse: nothing is appended then); holding the write lock, it folds on
what other writers logged meanwhile, decides again if there was any, and appends. What it
logged comes back as a ``Logged``: the state after it, the stored events, the document the
command shows, and the obligations the events opened and discharged.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable
from typing import Any

import msgspec

from tracker.app.loading import CACHE_ERRORS, StateLoader, fold_skipping
from tracker.errors import Refused, TrackerError
from tracker.events import EventPayload, NewEvent, StoredEvent, encode
from tracker.events.envelope import GENESIS_HASH
from tracker.projections.campaign import CampaignState, Obligation, apply
from tracker.store.eventstore import CampaignRow, EventStore
from tracker.store.location import storage_error


class Decision(msgspec.Struct, frozen=True):
    """What a command decided from the state: the events to log and the document it shows."""

    events: list[NewEvent]
    doc: dict[str, Any] = msgspec.field(default_factory=dict)
    # An undo's or a redo's trial: the state decided on, folded to the same head but skipping
    # what the events revoke (or no longer skipping what they restore). With the events folded
    # on it is the state the log settles to, which need not then be folded again.
    trial: CampaignState | None = None


class Logged(msgspec.Struct):
    """What a command logged: the state after it, the stored events, the document to show, and
    the obligations the events opened and discharged."""

    state: CampaignState
    events: list[StoredEvent]
    doc: dict[str, Any]
    opened: list[Obligation] = msgspec.field(default_factory=list)
    discharged: list[Obligation] = msgspec.field(default_factory=list)
    # Still owed, but now more pressingly (Threat 4 to 6: a spend is owed at once).
    raised: list[Obligation] = msgspec.field(default_factory=list)

    @property
    def event(self) -> StoredEvent:
        return self.events[-1]


Decide = Callable[[CampaignState], Decision]


def require_session(state: CampaignState, doing: str) -> None:
    """Refuse ``doing`` (a roll, a spend) when no session is running.

    Play belongs to a session: outside one it would be in no replay, no session's export and
    beyond `tracker undo`'s reach. Bookkeeping between sessions (healing, points, a note, a
    project's downtime roll) is not play and is not asked to pass this.
    """
    if state.current_session is not None:
        return
    ended = f" (session {state.session.number} has ended)" if state.session else ""
    raise Refused(
        f'No session is running in "{state.name}"{ended}; '
        f"start one with `tracker session start` before {doing}."
    )


def new_event(
    payload: EventPayload,
    *,
    state: CampaignState | None = None,
    session_id: int | None = None,
    visibility: str = "public",
) -> NewEvent:
    """``payload`` ready to append: encoded, in the running session (or ``session_id``), and
    naming its character in the envelope when it is about one. A secret event is salted, so
    that its hash can be shown to the players without giving away what it holds."""
    if visibility == "gm" and payload.salt is msgspec.UNSET:
        payload = msgspec.structs.replace(payload, salt=secrets.token_hex(16))
    type_, version, stored = encode(payload)
    character_id = getattr(payload, payload.character_field) if payload.character_field else None
    if session_id is None and state is not None:
        session_id = state.current_session
    return NewEvent(
        type=type_,
        payload=stored,
        schema_version=version,
        session_id=session_id,
        character_id=character_id,
        visibility=visibility,
        data=payload,
    )


class Appender:
    """Decides a command's events on the freshest state and appends them, colliding safely."""

    def __init__(self, store: EventStore, loader: StateLoader, location: str) -> None:
        self.store = store
        self.loader = loader
        self.location = location

    def append(
        self, row: CampaignRow, decide: Decide
    ) -> tuple[CampaignState, list[StoredEvent], Decision]:
        """Decide on ``row``'s state and append; the state after, the stored events, and the
        decision.

        The command decides first on the state as loaded, without the lock: a long decision (an
        undo asking every later event whether it still stands) or a fold of a long tail holds
        no other writer up, and a refusal takes no lock at all (a state kept warm is caught up
        first, so a refusal always stands on the log's head). Then, holding the write lock,
        whatever other writers logged meanwhile is folded on; when there was any, the command
        decides again on that head. Its events are appended in the same locked transaction,
        through one connection: writers never collide, and none is turned away for losing a
        race.
        """
        # Kept warm (the shell), it is caught up under the lock alone.
        held = self.loader.held(row)
        state = held or self.loader.state(row)
        try:
            decision = decide(state)
        except TrackerError:
            if held is None:
                raise
            # A refusal is never decided on what another writer has since changed (a Threat
            # spent, a character added): it stands only on the log's head.
            state = self.loader.catch_up(row, held)
            decision = decide(state)
        except CACHE_ERRORS:
            # A stored state that reads, yet holds values of a kind no fold gives (edited in):
            # forgotten, and the command decided on the log folded anew.
            self.loader.forget(row)
            state = self.loader.state(row)
            decision = decide(state)
        decided_on, decided_at = state, state.version
        try:
            with self.loader.snapshots_deferred(), self.store.writing(row.campaign_id) as append:
                state = self.loader.catch_up(row, state)
                if state is not decided_on or state.version != decided_at:
                    decision = decide(state)
                # Caught up under the lock, the state's head is the log's (its time too: the
                # read that caught up read the head).
                stored = append(
                    decision.events,
                    state.version,
                    state.head_hash or GENESIS_HASH,
                    state.head_time or None,
                )
        except self.store.errors as exc:
            # The transaction rolled back: nothing of the batch is in the log.
            raise storage_error(exc, self.location) from None
        head = (state.version, state.head_hash)
        for event in stored:
            apply(state, event)
        # An undo or a redo changed which events count: what the command reports (the
        # obligations it took back or put back) is read from the state refolded.
        state = self.loader.settle(row, state, _settled(decision.trial, head, state, stored))
        return state, stored, decision


def _settled(
    trial: CampaignState | None,
    head: tuple[int, str | None],
    state: CampaignState,
    stored: list[StoredEvent],
) -> CampaignState | None:
    """The decision's trial with the stored events folded on, skipping what ``state`` (with
    them folded) skips: the state refolded, when the trial was folded to the head they were
    appended to; else None."""
    if trial is None or (trial.version, trial.head_hash) != head:
        return None
    return fold_skipping(trial, set(state.revoked), stored)


def logged(
    state: CampaignState,
    stored: list[StoredEvent],
    decision: Decision,
    owed_before: dict[str, tuple[Obligation, str]],
) -> Logged:
    """What the command logged, with the obligations its events opened and discharged: those
    open now that were not when it decided, and those open then that are not now (discharged,
    or taken back with the event that opened them). ``owed_before`` holds each obligation open
    when the command decided, with its severity then."""
    opened = [o for k, o in state.obligations.items() if k not in owed_before]
    # One opened and discharged by the same command (a catastrophe of a panicked character,
    # which the panic answers) is said as discharged, so the GM reads why nothing is owed.
    logged = {e.event_id for e in stored}
    discharged = [
        o
        for o in state.discharged
        if o.id in owed_before or (o.opened_by in logged and o.discharged_by in logged)
    ]
    gone = {o.id for o in discharged} | set(state.obligations)
    for ident, (ob, severity) in owed_before.items():
        if ident not in gone:
            discharged.append(
                dataclasses.replace(
                    ob,
                    severity=severity,
                    discharged_by=stored[-1].event_id,
                    discharged_version=stored[-1].version,
                    how="taken back with the event that opened it",
                )
            )
    raised = [
        o
        for k, o in state.obligations.items()
        if k in owed_before and o.severity != owed_before[k][1]
    ]
    doc = decision.doc
    doc.setdefault("event_id", stored[-1].event_id)
    doc["version"] = stored[-1].version
    doc["obligations_opened"] = [o.to_dict() for o in opened]
    doc["obligations_discharged"] = [o.to_dict() for o in discharged]
    doc["obligations_changed"] = [o.to_dict() for o in raised]
    return Logged(state, stored, doc, opened, discharged, raised)
