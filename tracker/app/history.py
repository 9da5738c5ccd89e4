"""Looking back and taking back: undo and redo by compensating events, and the state as it stood.

Nothing is ever deleted. An undo appends ``EventsRevoked``; projections then skip the revoked
events. Before it does, it folds the log without them and asks every later event whether it could
still have been logged (``problem_with``): a spend of Mettle an undone roll gave, a roll that used
an undone steel-yourself. Such an undo is refused naming those events, unless ``cascade``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tracker.app.campaigns import Campaigns
from tracker.app.deciding import Decision, Logged, new_event
from tracker.app.table import Table
from tracker.errors import BadInput, NotFound, Refused, TrackerError
from tracker.events import CharacterAdded, SessionStarted, StoredEvent
from tracker.events import play as ev
from tracker.events.effects import ConditionApplied
from tracker.projections.campaign import (
    NOT_UNDOABLE,
    UNDO_TYPES,
    CampaignState,
    apply,
    problem_with,
    revoked_before,
)
from tracker.systems.base import Feature

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


def readings(state: CampaignState) -> dict[tuple[str | None, str], Any]:
    """Every track the campaign's system keeps, by (character or None, track)."""
    rules = state.rules
    out: dict[tuple[str | None, str], Any] = {
        (None, name): value for name, value in rules.folding.readings(state, None, {}).items()
    }
    for ch in state.characters.values():
        doc: dict[str, Any] = {}
        if rules.has(Feature.STRESS):
            doc["stress"] = ch.stress
        if ch.hp is not None:
            doc["HP"] = ch.hp
        if ch.fp is not None:
            doc["FP"] = ch.fp
        doc["conditions"] = ", ".join(sorted(ch.conditions)) or "none"
        for name, value in rules.folding.readings(state, ch, doc).items():
            out[(ch.name, name)] = value
    out[(None, "obligations")] = len(state.obligations)
    return out


def changes_made(walk: CampaignState, event: StoredEvent) -> list[Change]:
    """Fold ``event`` into ``walk`` and say which tracks it moved, as a replay shows them."""
    if walk.rules is None:
        # Before its first event a campaign has no system and no tracks: its creation moves
        # none (a follower that asks for everything from version 0 starts here).
        apply(walk, event)
        return []
    before = readings(walk)
    apply(walk, event)
    after = readings(walk)
    return [
        Change(who, track, before.get((who, track)), value)
        for (who, track), value in after.items()
        if before.get((who, track)) != value
    ]


@dataclass(frozen=True, slots=True)
class SessionWalk:
    """A session's replay: ``lines`` are folded into ``walk`` as they are read, so that once
    they are all read ``walk`` is the campaign as the session left it (in the view asked for).
    ``state`` is the campaign as it stands now."""

    state: CampaignState
    number: int
    walk: CampaignState
    lines: Iterator[ReplayLine]


@dataclass(frozen=True, slots=True)
class Dependent:
    event: StoredEvent
    reason: str


class History:
    """Undo, redo, replay and time travel at one table."""

    def __init__(self, table: Table, campaigns: Campaigns) -> None:
        self.table = table
        self.campaigns = campaigns

    # -- undo and redo ----------------------------------------------------------------------------

    def undo(
        self,
        event: str | None = None,
        *,
        session: int | None = None,
        cascade: bool = False,
        reason: str | None = None,
    ) -> Logged:
        """Revoke an event (the last one in force in the running session when none is named),
        or every event of a session, by appending ``EventsRevoked``."""
        if event is not None and session is not None:
            raise BadInput("Name an event or a session to undo, not both.")

        def decide(state: CampaignState) -> Decision:
            targets = self._targets(state, event, session)
            ids = {e.event_id for e in targets}
            dependents, trial = self._dependents(state, ids, min(e.version for e in targets))
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
            return Decision([new_event(payload, state=state)], doc, trial)

        return self.table.play(decide)

    def next_undo(self, state: CampaignState) -> list[StoredEvent]:
        """What ``undo`` without an argument would take back now: none when it would be
        refused (no session running, nothing left in it)."""
        try:
            return self._targets(state, None, None)
        except TrackerError:
            return []

    def next_redo(self, state: CampaignState) -> list[StoredEvent]:
        """What ``redo`` would put back now, oldest first; none when there is nothing to redo,
        or when something was logged after the undo (``redo`` then asks for ``anyway``)."""
        if not state.undo_stack or self._logged_since(state, state.undo_stack[-1]) is not None:
            return []
        ids = set(state.undo_stack[-1]["event_ids"])
        first = self.table.store.first_version(state.campaign_id, ids) or 1
        read = self.table.store.read(state.campaign_id, after_version=first - 1)
        return [e for e in read if e.event_id in ids]

    def redo(self, *, reason: str | None = None, anyway: bool = False) -> Logged:
        """Restore the events the most recent undo still open to a redo revoked, as an editor
        does: while nothing but undos and redos has been logged since that undo. After anything
        else, only ``anyway``: what was logged since is then checked against what comes back."""

        def decide(state: CampaignState) -> Decision:
            if not state.undo_stack:
                raise Refused("There is nothing to redo; `tracker undo` takes an event back.")
            last = state.undo_stack[-1]
            since = None if anyway else self._logged_since(state, last)
            if since is not None:
                raise Refused(
                    f"Event {since.version} was logged after the last undo, so there is nothing "
                    "to redo; `tracker redo --anyway` puts back what that undo took on purpose, "
                    f"after event {since.version}."
                )
            ids = set(last["event_ids"])
            first = self.table.store.first_version(state.campaign_id, ids) or 1
            # Only the events from the first restored one on can change: fold up to it once.
            trial = self._trial(state.revoked - ids, first)
            restored = []
            for stored in self.table.store.read(state.campaign_id, after_version=first - 1):
                if stored.event_id in ids:
                    _refuse_a_name_taken_since(state, stored)
                    restored.append(_brief(stored))
                else:
                    problem = problem_with(trial, stored)
                    if problem is not None:
                        raise Refused(
                            f"Redoing would leave event {stored.version} invalid ({problem}); "
                            "undo it first, or leave the redo."
                        )
                apply(trial, stored)
            payload = ev.EventsRestored(
                event_ids=tuple(last["event_ids"]), revocation=last["event_id"], reason=reason
            )
            return Decision([new_event(payload, state=state)], {"restored": restored}, trial)

        return self.table.play(decide)

    def _logged_since(self, state: CampaignState, undo: dict[str, Any]) -> StoredEvent | None:
        """The first event after the undo ``undo`` (an entry of the undo stack) that is no undo
        or redo: an edit, after which an editor's redo no longer applies. Usually the event just
        after it, so the read stops at once."""
        cid = state.campaign_id
        after = self.table.store.first_version(cid, [undo["event_id"]]) or 0
        events = self.table.store.read(cid, after_version=after)
        try:
            # What an editor's redo stays open across: undos and redos, never an edit.
            return next((e for e in events if e.type not in UNDO_TYPES), None)
        finally:
            events.close()

    # -- revealing -----------------------------------------------------------------------------

    def reveal(self, event: str | None = None, *, session: int | None = None) -> Logged:
        """Show the players a secret event, or every secret event of a session, by appending
        ``EventsRevealed``: their view holds those events whole from then on, salt and all, so
        anyone who kept their hashes can check that they were what the GM now says."""
        if (event is None) == (session is None):
            raise BadInput("Name the secret event to reveal, or give --session N for a session's.")

        def decide(state: CampaignState) -> Decision:
            row = self.table.campaign()
            shown = self.table.revealed(row)
            cid = state.campaign_id
            if session is not None:
                chosen = self._in_session(
                    cid, session, lambda e: e.visibility == "gm" and e.event_id not in shown
                )
                if not chosen:
                    raise Refused(
                        f"Session {session} holds no secret event left to reveal; check the "
                        "session number with `tracker session list`."
                    )
            else:
                found = self.table.store.find_event(cid, event or "")
                if found.visibility != "gm":
                    raise Refused(
                        f"Event {found.version} is not secret, so the players saw it already; "
                        "`tracker log` marks which events are secret."
                    )
                if found.event_id in shown:
                    raise Refused(
                        f"Event {found.version} is revealed already; nothing more to do, or name "
                        "another secret event from `tracker log`."
                    )
                chosen = [found]
            self._counted_first(state, chosen, shown)
            payload = ev.EventsRevealed(
                event_ids=tuple(e.event_id for e in chosen), session=session
            )
            doc = {
                "revealed": [
                    {**_brief(e), "hash": e.hash, "opening": e.chain_fields()} for e in chosen
                ]
            }
            return Decision([new_event(payload, state=state)], doc)

        return self.table.play(decide)

    def _trial(self, revoked: set[str], first: int) -> CampaignState:
        """The state just before event ``first`` without ``revoked``, set to keep skipping
        exactly ``revoked`` while the events from ``first`` on are asked about and folded."""
        trial = self.table.refold(revoked, until_version=first - 1)
        trial.fixed_revoked = True
        return trial

    def must_wait(self, state: CampaignState, event: StoredEvent, shown: set[str]) -> bool:
        """Whether ``reveal`` would refuse to show the secret ``event`` alone now, since a
        sealed secret event it counted must be shown first; ``shown``: the events revealed."""
        try:
            self._counted_first(state, [event], shown)
        except Refused:
            return True
        return False

    def _counted_first(
        self, state: CampaignState, chosen: list[StoredEvent], shown: set[str]
    ) -> None:
        """Refuse to show an event whole while a secret one it counted or names is sealed: a
        retry's penalty, an influence's margin, an exposure count, a contest's round, or the
        roll a buy-up, an assignment, a dismissal or a clear settles would tell the players how
        the sealed one went. So would any later roll of a character a sealed event was about:
        what the sealed one left on them (panic, stress, a die it did not use, a margin) is in
        the later one's inputs, and its absence says as much. An event undone when it was
        decided was not counted."""
        row = self.table.campaign()
        revealing = {e.event_id for e in chosen}
        last = max(e.version for e in chosen)
        earlier = [
            e
            for e in self.table.store.read(state.campaign_id, until_version=last - 1, secret=True)
            if e.event_id not in shown | revealing
        ]
        for event in chosen:
            undone = self.table.loader.revoked(row, event.version - 1)
            sealed = [
                e
                for e in earlier
                if e.version < event.version
                and e.event_id not in undone
                and (not _about(event).isdisjoint(_about(e)) or _refers_to(event, e))
            ]
            if sealed:
                them = "secret events" if len(sealed) > 1 else "secret event"
                listed = ", ".join(str(e.version) for e in sealed)
                raise Refused(
                    f"Event {event.version} counts {them} {listed}, which would show through "
                    f"it; reveal {'them' if len(sealed) > 1 else 'it'} first (`tracker reveal "
                    f"{sealed[0].version}`), or keep event {event.version} secret."
                )

    def _in_session(
        self, campaign_id: str, session: int, keep: Callable[[StoredEvent], bool]
    ) -> list[StoredEvent]:
        """The events of session ``session`` that ``keep`` keeps (refused when it was never
        held)."""
        if self.campaigns.session_info(session) is None:
            raise NotFound(f"No session {session}; `tracker session list` shows them.")
        return [e for e in self.table.store.read(campaign_id, session_id=session) if keep(e)]

    def _targets(
        self, state: CampaignState, event: str | None, session: int | None
    ) -> list[StoredEvent]:
        cid = state.campaign_id
        if session is not None:
            chosen = self._in_session(
                cid,
                session,
                lambda e: (
                    e.event_id not in state.revoked and e.type not in SESSION_FRAME | NOT_UNDOABLE
                ),
            )
            if not chosen:
                raise Refused(
                    f"Session {session} has nothing left to undo; check the number with "
                    "`tracker session list`, or use `tracker redo` to put back what was undone."
                )
            return chosen
        if event is not None:
            found = self.table.store.find_event(cid, event)
            if found.event_id in state.revoked:
                raise Refused(f"Event {found.version} is already undone; `tracker redo` restores.")
            if found.type in NOT_UNDOABLE:
                raise Refused(
                    f"Event {found.version} ({found.type}) cannot be undone; `tracker log` shows "
                    "the events you can undo, and `tracker redo` takes back an undo."
                )
            if found.type == SessionStarted.TYPE:
                # As a session undo leaves it: the session was held, whatever is struck in it.
                # (Its end may be undone: the session then runs again.)
                raise Refused(
                    f"Event {found.version} ({found.type}) cannot be undone; `tracker undo "
                    f"--session {found.session_id}` takes back what happened in the session."
                )
            return [found]
        if state.current_session is None:
            raise Refused(
                "No session is running; name the event to undo (`tracker undo EVENT_ID`, "
                "see `tracker log`)."
            )
        newest = next(
            (
                e
                for e in self.table.store.read(
                    cid, session_id=state.current_session, newest_first=True
                )
                if e.event_id not in state.revoked
                and e.type not in NOT_UNDOABLE
                and e.type != "SessionStarted"
            ),
            None,
        )
        if newest is None:
            raise Refused(
                f"Nothing has been logged in session {state.current_session} yet to undo; to "
                "undo an earlier event, name it (`tracker undo EVENT`, see `tracker log`)."
            )
        return [newest]

    def _dependents(
        self, state: CampaignState, targets: set[str], first: int
    ) -> tuple[list[Dependent], CampaignState | None]:
        """Later events that could not have been logged without ``targets``, transitively, and
        the state folded to the head without them all (None when the rounds ran out first).

        Each round folds on from the state before ``first`` (the earliest target), skipping the
        targets and the dependents found so far. Each round folds a state of its own, refolded
        from a snapshot: a second round (a cascade) is rare, so keeping a copy for it would cost
        every undo a copy of the whole state.
        """
        revoking = set(targets)
        found: list[Dependent] = []
        for _ in range(MAX_CASCADE_ROUNDS):
            trial = self._trial(state.revoked, first)
            trial.revoked = state.revoked | revoking
            new: list[Dependent] = []
            for stored in self.table.store.read(state.campaign_id, after_version=first - 1):
                problem = problem_with(trial, stored) if stored.version > first else None
                if problem is not None:
                    new.append(Dependent(stored, problem))
                    trial.revoked.add(stored.event_id)
                apply(trial, stored)
            if not new:
                return found, trial
            found.extend(new)
            revoking.update(d.event.event_id for d in new)
        # The last round found more: no trial skips them all, so the command refolds.
        return found, None

    # -- replay -------------------------------------------------------------------------------

    def replay(
        self, session: int | None = None, *, player_view: bool = False
    ) -> tuple[CampaignState, Iterator[ReplayLine]]:
        """A session (the running or last one when none is named) event by event, with the
        changes each event made to the tracks; revoked events are marked and changed nothing.
        In the players' view, their stream alone: a sealed event changed nothing they saw."""
        walked = self.walk(session, player_view=player_view)
        return walked.state, walked.lines

    def walk(self, session: int | None = None, *, player_view: bool = False) -> SessionWalk:
        """A session's replay (``replay``) with the state its lines are folded into, so that a
        reader who has read every line holds the campaign as the session left it."""
        state = self.table.state()
        if session is None:
            session = state.current_session or (state.session.number if state.session else None)
        if session is None or self.campaigns.session_info(session) is None:
            raise NotFound(
                f"No session {session}; `tracker session list` shows them."
                if session is not None
                else "No session has been played yet; `tracker session start` begins one."
            )
        span = self.table.store.session_span(state.campaign_id, session)
        if span is None:
            return SessionWalk(state, session, state, iter(()))
        first, last = span
        if player_view:
            # The players' walk folds their stream alone, where a sealed event changed nothing,
            # from their state as the session began (``Table.player_state``).
            walk = self.table.player_state(until_version=first - 1)
            walk.fixed_revoked = True
            events = self.table.player_events(session=session)
        else:
            # The state just before the session, from the snapshot taken as it began when one
            # agrees: a replay of tonight reads tonight's events, not the whole log.
            walk = self.table.refold(state.revoked, until_version=first - 1)
            walk.fixed_revoked = True
            events = self.table.store.read(
                state.campaign_id, after_version=first - 1, until_version=last
            )
        lines = self._replay_lines(state, session, walk, events)
        return SessionWalk(state, session, walk, lines)

    def _replay_lines(
        self,
        state: CampaignState,
        session: int,
        walk: CampaignState,
        events: Iterator[StoredEvent],
    ) -> Iterator[ReplayLine]:
        for event in events:
            if event.session_id != session:
                apply(walk, event)
                continue
            changes = changes_made(walk, event)
            names = {c.character_id: c.name for c in walk.characters.values()}
            yield ReplayLine(event, event.event_id in state.revoked, changes, names)

    # -- time travel --------------------------------------------------------------------------

    def as_of(self, when: str) -> tuple[CampaignState, StoredEvent]:
        """The campaign as it stood at an event (its number, id or id prefix) or at a time."""
        row = self.table.campaign()
        target = self._moment(row.campaign_id, when)
        # The undos logged by then decide what was in force; later ones had not happened. What
        # is in force now, with the undos and redos since taken back (read through the type
        # index: a look back within the evening meets few), is what was then.
        since = self.table.store.read(
            row.campaign_id, after_version=target.version, types=UNDO_TYPES, sparse=True
        )
        revoked = revoked_before(self.table.state(row).revoked, since)
        return self.table.loader.refold(row, revoked, target.version), target

    def _moment(self, campaign_id: str, when: str) -> StoredEvent:
        try:
            return self.table.store.find_event(campaign_id, when)
        except NotFound:
            # A number names an event, never a year: one past the log is refused, not read
            # as a time after everything.
            if when.strip().isascii() and when.strip().isdigit():
                raise

        import pendulum

        try:
            moment = pendulum.parse(when, tz=pendulum.local_timezone())
        except (ValueError, pendulum.parsing.exceptions.ParserError):
            raise BadInput(
                f"--as-of takes an event number or id, or a time, not {when!r}; give one like "
                "--as-of 118 or --as-of '2026-11-29 21:30'."
            ) from None
        stamp = moment.in_timezone("UTC").format("YYYY-MM-DDTHH:mm:ss.SSSSSSZ")
        found = self.table.store.last_event_by(campaign_id, stamp)
        if found is None:
            raise Refused(
                f"The campaign had not begun at {when}; give a later time, or an event number "
                "from `tracker log`."
            )
        return found


def _refuse_a_name_taken_since(state: CampaignState, stored: StoredEvent) -> None:
    """Refused when ``stored`` adds a character whose name, since it was undone, another
    character in the campaign has come to read as."""
    data = stored.data
    if not isinstance(data, CharacterAdded):
        return
    taken = state.character(data.name)
    if taken is not None and taken.character_id != data.character_id:
        raise Refused(
            f"Redoing would bring {data.name} back beside {taken.name}, added since, and the "
            "two could not be told apart; leave this redo undone."
        )


def _versions(events: list[StoredEvent]) -> str:
    if len(events) == 1:
        return f"event {events[0].version}"
    return f"{len(events)} events ({events[0].version}-{events[-1].version})"


def _about(event: StoredEvent) -> set[str]:
    """The characters an event is about: its envelope's, a contest's sides', its effects'."""
    data = event.data
    about = {event.character_id} if event.character_id else set()
    for side in (getattr(data, "a", None), getattr(data, "b", None)):
        if getattr(side, "character_id", None):
            about.add(side.character_id)
    for effect in getattr(data, "effects", ()) or ():
        if getattr(effect, "character_id", None):
            about.add(effect.character_id)
    return about


def _refers_to(event: StoredEvent, earlier: StoredEvent) -> bool:
    """Whether ``event`` names ``earlier`` or settles what it left: the catastrophes a panic
    check answers, the failed roll a follow-up was rolled for, the roll a buy-up buys up, the
    obligation an assignment, a resolution or a dismissal settles, the condition a clear ends."""
    data = event.data
    inputs = getattr(data, "inputs", None)
    if isinstance(inputs, dict):
        answers = inputs.get("answers")
        if inputs.get("after") == earlier.event_id:
            return True
        if isinstance(answers, list) and earlier.event_id in answers:
            return True
    if getattr(data, "roll_event_id", None) == earlier.event_id:
        return True
    settled = getattr(data, "obligation", None)
    if isinstance(settled, str) and settled.partition("-")[0] == str(earlier.version):
        return True
    if isinstance(data, ev.ConditionCleared):
        return any(
            isinstance(effect, ConditionApplied)
            and effect.condition.casefold() == data.name.casefold()
            and (effect.character_id or earlier.character_id) == data.character_id
            for effect in getattr(earlier.data, "effects", ())
        )
    return False


def _brief(event: StoredEvent) -> dict[str, Any]:
    return {"version": event.version, "event_id": event.event_id, "type": event.type}
