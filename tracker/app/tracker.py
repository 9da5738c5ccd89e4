"""The application service: one open database, the current campaign, and the command handlers.

Every handler that changes the campaign follows the same steps: fold the current state, decide
the events from it (raising a domain error when the rules or the state refuse), and append them
with the state's version as the expected version. When another writer got in first, the handler
decides again on the fresh state, a bounded number of times.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import DatabaseError

from tracker.app.export import ExportHandlers
from tracker.app.gurps_play import GurpsHandlers
from tracker.app.history import HistoryHandlers
from tracker.app.play import PlayHandlers
from tracker.app.sheets import Sheet, check_scores, parse_pairs, read_sheet
from tracker.errors import BadInput, ConcurrencyError, NotFound, Refused, StorageError
from tracker.events import (
    CampaignCreated,
    CharacterAdded,
    CharacterDefaultSet,
    EventPayload,
    NewEvent,
    SessionEnded,
    SessionStarted,
    StoredEvent,
    encode,
)
from tracker.events.envelope import ChainProblem, check_chain
from tracker.projections.campaign import (
    PROJECTION_VERSION,
    SESSION_TYPES,
    UNDO_TYPES,
    CampaignState,
    Character,
    SessionInfo,
    apply,
    fold,
    from_snapshot,
    refold_state,
    session_list,
    to_snapshot,
)
from tracker.store.engine import create_engine_for, prepare_sqlite_file, resolve_url, sqlite_path
from tracker.store.eventstore import CampaignRow, EventStore
from tracker.store.migrate import ensure_schema
from tracker.systems import registry
from tracker.systems.base import Feature

if TYPE_CHECKING:
    from tracker.projections.rolls import Luck

TIE_RULES = ("stat", "defender")
CURRENT = "current_campaign"
APPEND_ATTEMPTS = 8
# Attempts that decide without a lock before the rest decide holding the write lock.
OPTIMISTIC_ATTEMPTS = 2
APPEND_BACKOFF = 0.02  # seconds, times the attempt number
SNAPSHOT_EVERY = 500
CAMPAIGN_SNAPSHOT = "campaign"
# The campaign snapshot before the newest: an undo of the newest events starts from it.
PRIOR_SNAPSHOT = "campaign-prior"
# The state as the running session began: undo, redo and a refold within the session start here.
SESSION_SNAPSHOT = "session-start"


def describe_storage_error(exc: DatabaseError, location: str) -> StorageError:
    """One sentence for a database the driver cannot use."""
    message = str(exc.orig) if exc.orig is not None else str(exc)
    # Server drivers explain over several lines; the first says what happened.
    message = message.strip().splitlines()[0] if message.strip() else type(exc).__name__
    if "file is not a database" in message or "malformed" in message:
        return StorageError(
            f"{location} is not a readable tracker database ({message}); "
            "check the --db path or restore a backup."
        )
    if "readonly" in message or "read-only" in message:
        return StorageError(
            f"{location} is read-only; make it writable or copy it somewhere you can write."
        )
    if "unable to open" in message:
        if _read_only(location):
            return StorageError(
                f"{location} is on a read-only disk or in a read-only folder; tracker writes its "
                "journal beside it, so copy it somewhere writable."
            )
        return StorageError(f"Cannot open {location}; check that the path and folder exist.")
    if "disk is full" in message or "database or disk is full" in message:
        return StorageError(f"The disk holding {location} is full; free some space and retry.")
    return StorageError(f"The database at {location} failed: {message}; nothing was changed.")


def _read_only(location: str) -> bool:
    path = Path(location)
    if not path.exists():
        return False
    return not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK)


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A stored roll whose outcome the rules, run again on its inputs and dice, do not give."""

    version: int
    event_id: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"version": self.version, "event_id": self.event_id, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class VerifyReport:
    campaign: str
    events: int
    problem: ChainProblem | None
    mismatches: tuple[Mismatch, ...] = ()
    rolls: int = 0

    @property
    def ok(self) -> bool:
        return self.problem is None and not self.mismatches

    def to_dict(self) -> dict[str, Any]:
        return {
            "campaign": self.campaign,
            "events": self.events,
            "rolls_redecided": self.rolls,
            "ok": self.ok,
            "problem": None
            if self.problem is None
            else {
                "version": self.problem.version,
                "event_id": self.problem.event_id,
                "reason": self.problem.reason,
            },
            "mismatches": [m.to_dict() for m in self.mismatches],
        }


class Tracker(PlayHandlers, GurpsHandlers, HistoryHandlers, ExportHandlers):
    """One open tracker database."""

    def __init__(self, db: str | None = None, campaign: str | None = None) -> None:
        self.url = resolve_url(db)
        path = sqlite_path(self.url)
        self.location = str(path) if path else self.url.split("@")[-1]
        self.created = prepare_sqlite_file(path) if path else False
        self.engine = create_engine_for(self.url)
        self.store = EventStore(self.engine)
        self.backup: str | None = None
        self._campaign_name = campaign
        # The shell keeps each campaign's state in memory between commands ("warm"), folding
        # only what other writers appended since; one-shot commands start from the snapshot.
        self.warm = False
        self._warm: dict[str, CampaignState] = {}
        self._snapshots_paused = False
        try:
            self.backup = ensure_schema(self.engine)
        except DatabaseError as exc:
            raise describe_storage_error(exc, self.location) from None

    def close(self) -> None:
        self.engine.dispose()

    # -- campaigns ---------------------------------------------------------------------------

    def campaign(self, name: str | None = None) -> CampaignRow:
        """The named campaign, else the one chosen with --campaign, else the current one."""
        wanted = name or self._campaign_name
        if wanted:
            row = self.store.find_campaign(wanted)
            if row is None:
                raise NotFound(
                    f'No campaign named "{wanted}"; see `tracker campaign list` for the names.'
                )
            return row
        current = self.store.get_setting(CURRENT)
        row = self.store.find_campaign(current) if current else None
        if row is None:
            raise Refused(
                "No campaign is selected; create one with `tracker campaign new NAME --system "
                "gloom|gurps|glintlock` or choose one with `tracker campaign use NAME`."
            )
        return row

    def state(self, campaign: CampaignRow | None = None) -> CampaignState:
        """The campaign's state: the latest snapshot, with the events since folded on top.

        When the tail grows past ``SNAPSHOT_EVERY`` events a new snapshot replaces the old one,
        so a campaign of a million events answers as fast as a new one.
        """
        row = campaign or self.campaign()
        warm = self._warm.get(row.campaign_id) if self.warm else None
        if warm is not None:
            warm, _ = self._fold_on(row, warm)
            self._warm[row.campaign_id] = warm
            return warm
        # Either stored snapshot is a fair start: an undo in the tail refolds (below) anyway.
        cached = self.store.load_snapshot(
            row.campaign_id, (CAMPAIGN_SNAPSHOT, SESSION_SNAPSHOT), PROJECTION_VERSION
        )
        if cached:
            state = from_snapshot(cached[1])
        else:
            # From the first event: which events are in force is known up front (the undo
            # events alone decide it), so the log is folded once, never twice. Both reads stop
            # at the head seen first; what another writer adds meanwhile is folded on below.
            head = self.store.head(row.campaign_id).version
            state = self.refold(row, self._revoked(row, head), until_version=head)
        start = cached[0] if cached else 0
        state, from_first = self._fold_on(row, state)
        if from_first or state.version - start >= SNAPSHOT_EVERY:
            self._save_snapshot(state)
        if self.warm:
            self._warm[row.campaign_id] = state
        return state

    def _fold_on(self, row: CampaignRow, state: CampaignState) -> tuple[CampaignState, bool]:
        """``state`` with the events since it folded on, and whether that took a fold from the
        first event: after an undo or a redo it is refolded (from a snapshot that agrees, when
        one does) up to the event folded last, and what was logged since is folded on.

        Only a fold from the first event is worth a new snapshot. The snapshot a refold started
        from stays as it is: the next undo or redo of a recent event starts from it too, where a
        snapshot at the head, holding this undo, would not agree with a redo of it."""
        from_first = False
        while True:
            # Stop at the first undo or redo: what follows it may rest on what it changed (a
            # redo puts back a character a later event names), so it is folded only after.
            with contextlib.closing(
                self.store.read(row.campaign_id, after_version=state.version)
            ) as tail:
                for event in tail:
                    apply(state, event)
                    if state.needs_refold:
                        break
            if not state.needs_refold:
                return state, from_first
            state, scratch = self._refold(row, state.revoked, state.version)
            from_first = from_first or scratch

    def refold(self, row: CampaignRow, revoked, until_version: int | None = None) -> CampaignState:
        """The state folded skipping exactly the ``revoked`` events (up to ``until_version``).

        It starts from a stored snapshot when one agrees with ``revoked`` (the one taken at the
        running session's start serves an undo within the session), else from the first event.
        """
        return self._refold(row, revoked, until_version)[0]

    def _refold(
        self, row: CampaignRow, revoked, until_version: int | None
    ) -> tuple[CampaignState, bool]:
        revoked = set(revoked)
        base = self._base_state(row, revoked, until_version)
        state = base or refold_state(row.campaign_id, revoked)
        state.revoked = revoked
        state.fixed_revoked = True
        fold(
            self.store.read(
                row.campaign_id, after_version=state.version, until_version=until_version
            ),
            row.campaign_id,
            state,
        )
        state.fixed_revoked = False
        state.needs_refold = False
        return state, base is None

    def _base_state(
        self, row: CampaignRow, revoked: set[str], until_version: int | None
    ) -> CampaignState | None:
        """The newest stored snapshot, folded no further than ``until_version``, that skipped
        exactly the events of ``revoked`` it had seen: it revoked none that ``revoked`` keeps,
        and every event of ``revoked`` it did not skip comes after it."""
        best: CampaignState | None = None
        for name in (CAMPAIGN_SNAPSHOT, PRIOR_SNAPSHOT, SESSION_SNAPSHOT):
            cached = self.store.load_snapshot(row.campaign_id, name, PROJECTION_VERSION)
            if cached is None or (until_version is not None and cached[0] > until_version):
                continue
            if best is not None and cached[0] <= best.version:
                continue
            skipped = set(cached[1]["revoked"])
            if not skipped <= revoked:
                continue
            later = self.store.first_version(row.campaign_id, revoked - skipped)
            if later is not None and later <= cached[0]:
                continue
            best = from_snapshot(cached[1])
        return best

    def rebuild(self, campaign: CampaignRow | None = None) -> CampaignState:
        """The campaign's state folded from the first event, ignoring any snapshot."""
        return self.rebuild_all(campaign)[0]

    def rebuild_all(self, campaign: CampaignRow | None = None) -> tuple[CampaignState, Luck]:
        """Every projection from the first event in one pass: the state and the rolls' luck."""
        from tracker.projections.rebuild import rebuild

        row = campaign or self.campaign()
        head = self.store.head(row.campaign_id).version
        events = self.store.read(row.campaign_id, until_version=head)
        return rebuild(events, row.campaign_id, self._revoked(row, head), registry.get(row.system))

    def _revoked(self, row: CampaignRow, until_version: int) -> set[str]:
        """The events the campaign's undos and redos up to ``until_version`` leave revoked,
        read from those alone."""
        undos = self.store.read(row.campaign_id, until_version=until_version, types=UNDO_TYPES)
        return fold(undos, row.campaign_id).revoked

    def _save_snapshot(self, state: CampaignState, name: str = CAMPAIGN_SNAPSHOT) -> None:
        if self._snapshots_paused:
            return
        # The snapshot is only a cache: a read-only or busy database still answers.
        with contextlib.suppress(DatabaseError):
            self.store.save_snapshot(
                state.campaign_id,
                name,
                PROJECTION_VERSION,
                state.version,
                state.head_hash,
                to_snapshot(state),
                keep_previous_as=PRIOR_SNAPSHOT if name == CAMPAIGN_SNAPSHOT else None,
            )

    def campaign_new(
        self,
        name: str,
        system: str,
        *,
        tie_rule: str = "stat",
        cinematic: bool = False,
    ) -> CampaignRow:
        name = name.strip()
        if not name:
            raise BadInput("A campaign needs a name; give one in quotes.")
        known = registry.names()
        if system not in known:
            raise BadInput(f"The system must be one of {', '.join(known)}, not {system!r}.")
        if tie_rule not in TIE_RULES:
            raise BadInput("--tie-rule must be stat or defender.")
        if cinematic and not registry.get(system).has(Feature.CHARACTER_POINTS):
            raise BadInput(
                f"--cinematic is a {registry.titles_with(Feature.CHARACTER_POINTS)} option; "
                f"leave it out for {system}."
            )
        campaign_id = str(uuid.uuid4())
        created = CampaignCreated(name=name, system=system, tie_rule=tie_rule, cinematic=cinematic)
        self.store.create_campaign(campaign_id, name, system, [self._event(created)])
        self.store.set_setting(CURRENT, campaign_id)
        return CampaignRow(campaign_id, name, system, "")

    def campaign_list(self) -> list[tuple[CampaignRow, bool, int]]:
        """Every campaign, whether it is the current one, and its number of events."""
        current = self.store.get_setting(CURRENT)
        return [
            (row, row.campaign_id == current, self.store.count(row.campaign_id))
            for row in self.store.campaigns()
        ]

    def campaign_use(self, name: str) -> CampaignRow:
        row = self.campaign(name)
        self.store.set_setting(CURRENT, row.campaign_id)
        return row

    # -- sessions ----------------------------------------------------------------------------

    def session_start(self, title: str | None = None) -> tuple[CampaignState, SessionInfo]:
        def decide(state: CampaignState) -> list[NewEvent]:
            if state.current_session is not None:
                raise Refused(
                    f"Session {state.current_session} is still running; end it with "
                    "`tracker session end` first."
                )
            number = state.next_session_number
            return [self._event(SessionStarted(number=number, title=title), session_id=number)]

        state, _ = self._decide_and_append(decide)
        self._save_snapshot(state, SESSION_SNAPSHOT)
        return state, state.session

    def session_end(self) -> tuple[CampaignState, SessionInfo]:
        def decide(state: CampaignState) -> list[NewEvent]:
            if state.current_session is None:
                raise Refused("No session is running; start one with `tracker session start`.")
            number = state.current_session
            # Ending a session with something still owed is allowed; the event records it lapsed.
            lapsed = tuple(o.what for o in state.obligations.values())
            return [self._event(SessionEnded(number=number, lapsed=lapsed), session_id=number)]

        state, _ = self._decide_and_append(decide)
        return state, state.session

    def session_list(self) -> list[SessionInfo]:
        """Every session in force, oldest first, with the number of events each logged."""
        row = self.campaign()
        state = self.state(row)
        return session_list(
            self.store.read(row.campaign_id, types=SESSION_TYPES),
            state.revoked,
            self.store.session_counts(row.campaign_id),
        )

    def session_info(self, number: int) -> SessionInfo | None:
        """Session ``number`` if it was held (and its start is in force)."""
        state = self.state()
        if state.session is not None and state.session.number == number:
            return state.session
        return next((s for s in self.session_list() if s.number == number), None)

    # -- characters --------------------------------------------------------------------------

    def character_add(
        self,
        name: str | None,
        *,
        stats: Sequence[str] = (),
        skills: Sequence[str] = (),
        trained: Sequence[str] = (),
        character_class: str | None = None,
        sheet_path: str | None = None,
    ) -> Character:
        sheet = read_sheet(sheet_path) if sheet_path else Sheet()
        name = (name or sheet.name or "").strip()
        if not name:
            raise BadInput("A character needs a name; give it as NAME or in the sheet.")
        if any(ch in name for ch in "\r\n\t"):
            raise BadInput("A character's name must be on one line; remove the line breaks.")
        sheet.stats.update(parse_pairs(stats, "--stat"))
        sheet.skills.update(parse_pairs(skills, "--skill"))
        sheet.trained.extend(t for t in trained if t not in sheet.trained)
        character_id = str(uuid.uuid4())

        def decide(state: CampaignState) -> list[NewEvent]:
            existing = state.character(name)
            if existing is not None:
                raise Refused(f'{existing.name} is already in "{state.name}"; pick another name.')
            check_scores(state.rules, sheet.stats, "Stat")
            check_scores(state.rules, sheet.skills, "Skill")
            for skill, exprs in sheet.defaults.items():
                for expr in exprs:
                    self._check_default(state, skill, expr)
            added = CharacterAdded(
                character_id=character_id,
                name=name,
                stats=sheet.stats,
                skills=sheet.skills,
                trained=tuple(sheet.trained),
                character_class=character_class or sheet.character_class,
                defaults=sheet.defaults,
                traits=tuple(sheet.traits),
                sheet=sheet.source,
            )
            return [self._event(added, state=state)]

        state, _ = self._decide_and_append(decide)
        return state.characters[character_id]

    def character(self, name: str, state: CampaignState | None = None) -> Character:
        state = state or self.state()
        character = state.character(name)
        if character is None:
            known = ", ".join(sorted(c.name for c in state.characters.values())) or "none yet"
            raise NotFound(
                f'No character named "{name}" in "{state.name}" (characters: {known}); '
                "add one with `tracker character add NAME`."
            )
        return character

    def movement(self, name: str) -> dict[str, int] | None:
        """What a character's movement allows where the rules say (GURPS: the sprint, water
        Move and standing jumps Basic Move gives), or None."""
        state = self.state()
        return state.rules.movement(self.character(name, state))

    def character_default(self, name: str, skill: str, expression: str) -> Character:
        def decide(state: CampaignState) -> list[NewEvent]:
            character = self.character(name, state)
            self._check_default(state, skill, expression)
            return [
                self._event(
                    CharacterDefaultSet(
                        character_id=character.character_id,
                        skill=skill.strip(),
                        expression=expression.strip(),
                    ),
                    state=state,
                )
            ]

        state, stored = self._decide_and_append(decide)
        return state.characters[stored[0].character_id]

    @staticmethod
    def _check_default(state: CampaignState, skill: str, expression: str) -> None:
        registry.require(state.rules, Feature.DEFAULTS, "Defaults", "are")
        if not skill.strip():
            raise BadInput("Name the skill the default is for, like Lockpicking.")
        state.rules.check_default(expression)

    # -- looking at the state --------------------------------------------------------------------

    def status(self, name: str | None = None) -> tuple[CampaignState, Character | None]:
        state = self.state()
        return state, (self.character(name, state) if name else None)

    def player_state(self) -> CampaignState:
        """The campaign as the players know it: folded without the GM's secret rolls, whose
        effects would otherwise give them away."""
        row = self.campaign()
        state = self.state(row)
        upto = state.version
        secret = {
            e.event_id
            for e in self.store.read(row.campaign_id, until_version=upto)
            if e.visibility == "gm"
        }
        return self.refold(row, state.revoked | secret, until_version=upto)

    def obligations(self) -> tuple[CampaignState, list]:
        state = self.state()
        return state, sorted(state.obligations.values(), key=lambda o: o.opened_version)

    # -- the log -----------------------------------------------------------------------------

    def log(self, session: int | None = None) -> Iterator[StoredEvent]:
        row = self.campaign()
        return self.store.read(row.campaign_id, session_id=session)

    def verify(self) -> list[VerifyReport]:
        """Check every campaign (the chosen one, when one was named): the hash chain, and every
        stored roll re-decided from its recorded inputs and dice."""
        rows = [self.campaign()] if self._campaign_name else self.store.campaigns()
        return [self._verify_campaign(row) for row in rows]

    def verify_against(self, heads: dict[str, str]) -> list[dict[str, Any]]:
        """Whether the log still holds each exported head hash, in an intact chain.

        ``heads`` maps a campaign id (or "" when the export did not say) to the hash of the last
        event the export saw. Events logged since the export are fine; an edit, removal or
        replacement of anything up to the head is not.
        """
        results = []
        for campaign_id, digest in heads.items():
            found = self.store.find_hash(digest)
            ok = found is not None and (not campaign_id or found.campaign_id == campaign_id)
            row = self.store.find_campaign(found.campaign_id) if found else None
            chain_ok = False
            if ok and row is not None:
                report = self._verify_campaign(row)
                chain_ok = report.problem is None
            results.append(
                {
                    "campaign_id": campaign_id or (found.campaign_id if found else None),
                    "campaign": row.name if row else None,
                    "head": digest,
                    "found_at": found.version if found else None,
                    "matches": bool(ok and chain_ok),
                    "chain_intact": chain_ok,
                }
            )
        return results

    def _verify_campaign(self, row: CampaignRow) -> VerifyReport:
        from tracker.app.redecide import ROLL_TYPES, redecide

        rules = registry.get(row.system)
        counted = rolls = 0
        mismatches: list[Mismatch] = []

        def checking(stream):
            nonlocal counted, rolls
            for event in stream:
                counted += 1
                rolls += event.type in ROLL_TYPES
                reason = redecide(event, rules)
                if reason is not None:
                    mismatches.append(Mismatch(event.version, event.event_id, reason))
                yield event

        problem = check_chain(checking(self.store.read(row.campaign_id)))
        return VerifyReport(row.name, counted, problem, tuple(mismatches), rolls)

    # -- plumbing ----------------------------------------------------------------------------

    def _event(
        self,
        payload: EventPayload,
        *,
        state: CampaignState | None = None,
        session_id: int | None = None,
        visibility: str = "public",
    ) -> NewEvent:
        type_, version, stored = encode(payload)
        character_id = (
            getattr(payload, payload.character_field) if payload.character_field else None
        )
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

    def _decide_locked(
        self, row: CampaignRow, decide: Callable[[CampaignState], list[NewEvent]]
    ) -> tuple[CampaignState, list[StoredEvent]]:
        self._snapshots_paused = True  # a snapshot write would wait for our own lock
        try:
            with self.store.writing(row.campaign_id) as append:
                state = self.state(row)
                expected = state.version
                return state, append(decide(state), expected)
        finally:
            self._snapshots_paused = False

    def _decide_and_append(
        self, decide: Callable[[CampaignState], list[NewEvent]]
    ) -> tuple[CampaignState, list[StoredEvent]]:
        row = self.campaign()
        for attempt in range(APPEND_ATTEMPTS):
            try:
                if attempt < OPTIMISTIC_ATTEMPTS:
                    state = self.state(row)
                    # Read before deciding: a decision that looks at the state again (warm in
                    # the shell) may fold newer events into it, and must then collide.
                    expected = state.version
                    batch = decide(state)
                    stored = self.store.append(row.campaign_id, batch, expected)
                else:
                    # Still colliding: decide with the write lock held, so nobody moves the log
                    # between reading the state and appending to it.
                    state, stored = self._decide_locked(row, decide)
            except ConcurrencyError:
                if attempt == APPEND_ATTEMPTS - 1:
                    raise
                # Writers that collided would collide again at once: step apart at random.
                time.sleep(random.uniform(0, APPEND_BACKOFF * (attempt + 1)))
                continue
            except DatabaseError as exc:
                # The transaction rolled back: nothing of the batch is in the log.
                raise describe_storage_error(exc, self.location) from None
            for event in stored:
                apply(state, event)
            return state, stored
        raise AssertionError("unreachable")
