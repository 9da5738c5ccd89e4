"""Loading a campaign's state: the newest snapshot that still matches the log, the events since
folded on top, and a refold when an undo or a redo changed which events count.

Snapshots are a cache: one is stored every ``SNAPSHOT_EVERY`` events (the one before the newest
is kept too), as each session starts, and after a refold an undo or a redo caused when the
newest stored state cannot be folded on to it in one pass. A refold starts from the newest
snapshot whose revoked events agree with the ones asked for, so taking back a slip reads the
running session, not the whole log. A short tail whose undos and redos take back or put back
only events after the state it is folded onto is folded once, skipping what they leave revoked:
the commands after an undo of tonight's play fold tonight from the session's start, as the
commands before it did, and the undo writes no state back. The shell keeps each campaign's state
in memory between commands (``warm``), folding only what other writers appended since.
Snapshots are stored under the version of the core's fold and the campaign's system's together
(``projection_version``): one either fold has changed since is never read, only replaced.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import msgspec

from tracker.app.progress import Meter, metered
from tracker.errors import ConcurrencyError
from tracker.events import StoredEvent
from tracker.events.envelope import loads_payload
from tracker.events.play import EventsRestored, EventsRevoked
from tracker.projections.campaign import (
    UNDO_TYPES,
    CampaignState,
    LogUnfoldable,
    apply,
    fold,
    from_snapshot,
    projection_version,
    refold_state,
    to_snapshot,
)
from tracker.store.eventstore import CampaignRow, EventStore
from tracker.systems import registry

if TYPE_CHECKING:
    # The rolls' projection is loaded by the commands that use it, not by every command.
    from tracker.projections.rolls import Luck

SNAPSHOT_EVERY = 500
# A tail of up to this many events is read whole before it is folded (``_fold_agreeing``).
LOOK_AHEAD = 2 * SNAPSHOT_EVERY
CAMPAIGN_SNAPSHOT = "campaign"
# The campaign snapshot before the newest: an undo of the newest events starts from it.
PRIOR_SNAPSHOT = "campaign-prior"
# The state as the running session began: undo, redo and a refold within the session start here.
SESSION_SNAPSHOT = "session-start"
# The state an undo or a redo was last refolded to: the commands after it start from here. Kept
# apart from the campaign snapshot and the one before it, which stay as the starts that agree
# with a redo of that undo or the undo of an event before it.
REFOLDED_SNAPSHOT = "campaign-refolded"
# The campaign as the players know it (the fold of their stream), with the secret events it saw
# revealed: a reveal of an earlier one, or an undo before it, sets it aside.
PLAYERS_SNAPSHOT = "players"
# The players' state as the running session began: their replay of it starts here.
PLAYERS_SESSION_SNAPSHOT = "players-session-start"


# Every stored state of a campaign, for forgetting them all.
ALL_SNAPSHOTS = (
    CAMPAIGN_SNAPSHOT,
    PRIOR_SNAPSHOT,
    SESSION_SNAPSHOT,
    REFOLDED_SNAPSHOT,
    PLAYERS_SNAPSHOT,
    PLAYERS_SESSION_SNAPSHOT,
)
# What folding the log's events onto a stored state raises when the state reads, yet is not one
# this tracker wrote (a character it lost, a field of another type): the cache is then forgotten
# and the log folded anew, which raises again only if the log itself is at fault (then as one
# sentence, ``LogUnfoldable``).
CACHE_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, LogUnfoldable)


def _key(system: str) -> int:
    """The projection version a campaign of ``system`` keeps its snapshots under: the core's
    and its system's fold's together (``projection_version``)."""
    return projection_version(registry.get(system))


class LogReplaced(ConcurrencyError):
    """The log no longer holds the event a state was folded to: the database was replaced or
    restored under a process that kept the state."""


def _parsed(row: CampaignRow, text: str, version: int, head_hash: str) -> CampaignState | None:
    """A snapshot's state from its stored text, or None when it is not one this tracker wrote: a
    cache that does not read, that says it was folded to another event than the one it is
    stored at (``version``, whose hash is ``head_hash``), or that names another campaign, name
    or rule system than the campaign's own row, is folded anew from the log, never trusted and
    never a crash. (Whether a snapshot that reads holds what the log gives is for ``tracker
    verify``, which folds the log to see.)"""
    try:
        doc = loads_payload(text)
        if not isinstance(doc, dict) or (
            doc.get("campaign_id"),
            doc.get("name"),
            doc.get("system"),
            doc.get("version"),
            doc.get("head_hash"),
        ) != (row.campaign_id, row.name, row.system, version, head_hash):
            return None
        return from_snapshot(doc)
    except (*CACHE_ERRORS, RecursionError):
        return None


class _Seen(msgspec.Struct):
    """What a snapshot had seen when it was folded: the events it skipped as revoked and (the
    players' snapshots) the secret events it was shown."""

    revoked: list[str]
    revealed: list[str] | None = None


_SEEN = msgspec.json.Decoder(_Seen)


def _what_it_saw(text: str) -> _Seen | None:
    """The snapshot's ``_Seen``, read without building the rest of its document; None when it
    is not one this tracker wrote."""
    try:
        return _SEEN.decode(text)
    except (msgspec.DecodeError, RecursionError):
        return None


def _revoked_after(revoked: set[str], undos: Iterable[StoredEvent]) -> set[str]:
    """The events left revoked by the undos and redos ``undos`` (oldest first) on top of
    ``revoked``, each taken as a fold takes it: passed over when it is revoked itself."""
    after = set(revoked)
    for event in undos:
        if event.event_id in after:
            continue
        data = event.data
        if isinstance(data, EventsRevoked):
            after.update(data.event_ids)
        elif isinstance(data, EventsRestored):
            after.difference_update(data.event_ids)
    return after


def fold_skipping(
    state: CampaignState, revoked: set[str] | None, events: Iterable[StoredEvent]
) -> CampaignState:
    """Fold ``events`` onto ``state`` skipping exactly ``revoked`` (what ``state`` already skips
    when None), the undos and redos among them changing nothing: what they leave revoked is
    already known."""
    if revoked is not None:
        state.revoked = revoked
    state.fixed_revoked = True
    for event in events:
        apply(state, event)
    state.fixed_revoked = False
    state.needs_refold = False
    return state


class StateLoader:
    """Each campaign's state, from its snapshots and its log."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.warm = False
        self._warm: dict[str, CampaignState] = {}
        self._paused = False
        self._deferred: list[tuple] | None = None
        # The campaigns forgotten inside a write block, by id: their snapshots go when it ends.
        self._forgotten: dict[str, CampaignRow] = {}
        # Of each campaign, the newest stored state this loader read or stored (its version and
        # the events it skipped): where the next command's fold starts, unless another writer
        # stores a newer one.
        self._starts: dict[str, tuple[int, set[str]]] = {}
        # Of each campaign, the stored state this loader last started a fold from: its name,
        # version and head, its text, and the events it skipped. An undo's or a redo's refold
        # usually starts from the same one, and need not read it again nor ask what it skipped.
        self._kept: dict[str, tuple[tuple[str, int, str], str, set[str]]] = {}
        # Told how a fold of a long log goes (see ``tracker.app.progress``); None hears nothing.
        self.meter: Meter | None = None

    def state(self, row: CampaignRow) -> CampaignState:
        """The campaign's state: the latest snapshot, with the events since folded on top.

        When the tail grows past ``SNAPSHOT_EVERY`` events a new snapshot replaces the old one,
        so a campaign of a million events answers as fast as a new one.
        """
        try:
            return self._state(row)
        except CACHE_ERRORS:
            self.forget(row)
            return self._state(row)

    def forget(self, row: CampaignRow) -> None:
        """Drop every state stored or kept of the campaign: the next command folds its log.
        Inside a write block, when the block ends (deleting then would wait for its lock)."""
        self._warm.pop(row.campaign_id, None)
        self._starts.pop(row.campaign_id, None)
        self._kept.pop(row.campaign_id, None)
        if self._deferred is not None:
            self._deferred = [s for s in self._deferred if s[0] != row.campaign_id]
            self._forgotten[row.campaign_id] = row
            return
        self._forget_now(row)

    def _forget_now(self, row: CampaignRow) -> None:
        key = _key(row.system)
        for name in ALL_SNAPSHOTS:
            with contextlib.suppress(*self.store.errors):
                self.store.forget_snapshot(row.campaign_id, name, key)

    def _state(self, row: CampaignRow) -> CampaignState:
        warm = self._warm.get(row.campaign_id) if self.warm else None
        if warm is not None:
            try:
                warm, _ = self._fold_on(row, warm)
            except LogReplaced:
                # Another file under the same name (a backup restored under a running shell):
                # what is kept in memory no longer holds, so the log is read afresh.
                del self._warm[row.campaign_id]
            else:
                self._warm[row.campaign_id] = warm
                return warm
        # Either stored snapshot is a fair start: an undo in the tail refolds (below) anyway.
        names = (CAMPAIGN_SNAPSHOT, REFOLDED_SNAPSHOT, SESSION_SNAPSHOT)
        state = None
        for name, text, version, head in self._candidates(row, names, None):
            state = _parsed(row, text, version, head)
            if state is not None:
                skipped = set(state.revoked)
                self._kept[row.campaign_id] = ((name, version, head), text, skipped)
                self._note_start(state, skipped)
                break
        start = state.version if state is not None else 0
        if state is None:
            # From the first event: which events are in force is known up front (the undo
            # events alone decide it), so the log is folded once, never twice. Both reads stop
            # at the head seen first; what another writer adds meanwhile is folded on below.
            head = self.store.head(row.campaign_id).version
            state = self.refold(row, self.revoked(row, head), until_version=head)
        state, refolded = self._fold_on(row, state)
        if state.version - start >= SNAPSHOT_EVERY:
            self.save(state)
        elif refolded:
            self.save(state, REFOLDED_SNAPSHOT)
        if self.warm:
            self._warm[row.campaign_id] = state
        return state

    def _fold_on(self, row: CampaignRow, state: CampaignState) -> tuple[CampaignState, bool]:
        """``state`` with the events since it folded on, and whether that took a refold: after
        an undo or a redo it is refolded (from a snapshot that agrees, when one does) up to the
        event folded last, and what was logged since is folded on.

        A refolded state is worth a snapshot of its own (``REFOLDED_SNAPSHOT``): without one,
        every later command would refold the same events again."""
        refolded = False
        while True:
            # Read from the event the state was folded to, which must still be the log's: a
            # state is never folded on past a log that was replaced or cut under it.
            known = state.version
            with contextlib.closing(
                self.store.read(row.campaign_id, after_version=max(known - 1, 0))
            ) as tail:
                if known:
                    last = next(tail, None)
                    if last is None or last.version != known or last.hash != state.head_hash:
                        raise LogReplaced(
                            "The campaign's log no longer holds the event this command's state "
                            f"was folded to ({known}): the database was replaced or restored "
                            "under it; run the command again."
                        )
                    state.head_time = last.recorded_at
                # A short tail is read whole first: when the undos and redos in it take back or
                # put back only events after the state, the state agrees with what they leave
                # revoked, and the tail is folded once, skipping that, with no refold.
                ahead = list(itertools.islice(tail, LOOK_AHEAD))
                if len(ahead) < LOOK_AHEAD and self._fold_agreeing(row, state, ahead):
                    return state, refolded
                # Stop at the first undo or redo: what follows it may rest on what it changed
                # (a redo puts back a character a later event names), so it is folded only
                # after.
                for event in itertools.chain(ahead, tail):
                    apply(state, event)
                    if state.needs_refold:
                        break
            if not state.needs_refold:
                return state, refolded
            state = self._refold(row, state.revoked, state.version)
            refolded = True

    def _fold_agreeing(
        self, row: CampaignRow, state: CampaignState, tail: list[StoredEvent]
    ) -> bool:
        """Fold ``tail`` (the events after ``state``, all of them) onto ``state`` when the
        undos and redos among them leave revoked what ``state`` skipped up to its version;
        False, folding nothing, when they take back or put back an event ``state`` has folded
        or skipped, which only a refold from a state before that event can show."""
        if state.needs_refold:
            return False
        undos = [e for e in tail if e.type in UNDO_TYPES]
        if undos:
            revoked = _revoked_after(state.revoked, undos)
            if not self._agrees(row, state.version, state.revoked, revoked, tail):
                return False
        fold_skipping(state, revoked if undos else None, tail)
        return True

    def _agrees(
        self,
        row: CampaignRow,
        version: int,
        skipped: set[str],
        revoked: set[str],
        after: Iterable[StoredEvent] = (),
    ) -> bool:
        """Whether a state folded to ``version`` skipping ``skipped`` agrees with ``revoked``:
        every event one revokes and the other does not comes after ``version`` (``after``
        holds events known to, so the log is asked only about the rest)."""
        changed = skipped ^ revoked
        if not changed:
            return True
        changed.difference_update(e.event_id for e in after)
        if not changed:
            return True
        earliest = self.store.first_version(row.campaign_id, changed)
        return earliest is None or earliest > version

    def _note_start(self, state: CampaignState, skipped: set[str] | None = None) -> None:
        known = self._starts.get(state.campaign_id)
        if known is None or state.version >= known[0]:
            skipped = set(state.revoked) if skipped is None else skipped
            self._starts[state.campaign_id] = (state.version, skipped)

    def _starts_agreeing(self, row: CampaignRow, state: CampaignState) -> bool:
        """Whether the next command, starting from the newest stored state this loader knows,
        folds to ``state`` in one pass: a tail shorter than ``SNAPSHOT_EVERY`` whose undos and
        redos take back or put back only events after that start (``_fold_agreeing``)."""
        start = self._starts.get(row.campaign_id)
        if start is None:
            return False
        version, skipped = start
        if not 0 <= state.version - version < SNAPSHOT_EVERY:
            return False
        return self._agrees(row, version, skipped, state.revoked)

    def held(self, row: CampaignRow) -> CampaignState | None:
        """The campaign's state as kept in memory (the shell's), without asking the database
        what was logged since; None when none is kept."""
        return self._warm.get(row.campaign_id) if self.warm else None

    def catch_up(self, row: CampaignRow, state: CampaignState) -> CampaignState:
        """``state`` (loaded by ``state``) with what was logged since folded on: refolded when
        that holds an undo or a redo, and kept warm in its place."""
        try:
            state, refolded = self._fold_on(row, state)
        except LogReplaced:
            self._warm.pop(row.campaign_id, None)
            return self.state(row)
        if refolded:
            self.save(state, REFOLDED_SNAPSHOT)
        if self.warm:
            self._warm[row.campaign_id] = state
        return state

    def settle(
        self, row: CampaignRow, state: CampaignState, refolded: CampaignState | None = None
    ) -> CampaignState:
        """``state`` after an undo or a redo was folded into it: refolded (from a snapshot that
        agrees) so it shows what counts now, and kept warm in its place. ``refolded`` is that
        state already, when the command folded it while deciding."""
        if not state.needs_refold:
            return state
        if refolded is None:
            refolded = self._refold(row, state.revoked, state.version)
        state = refolded
        # Stored only when the next command could not fold it from its start in one pass: an
        # undo or a redo of the running session's play leaves the stored states as they were,
        # and writing back a long campaign's state cost more than folding that short tail.
        if not self._starts_agreeing(row, state):
            self.save(state, REFOLDED_SNAPSHOT)
        if self.warm:
            self._warm[row.campaign_id] = state
        return state

    def refold(
        self, row: CampaignRow, revoked: Iterable[str], until_version: int | None = None
    ) -> CampaignState:
        """The state folded skipping exactly the ``revoked`` events (up to ``until_version``).

        It starts from a stored snapshot when one agrees with ``revoked`` (the one taken at the
        running session's start serves an undo within the session), else from the first event.
        """
        return self._refold(row, revoked, until_version)

    def _refold(
        self, row: CampaignRow, revoked: Iterable[str], until_version: int | None
    ) -> CampaignState:
        revoked = set(revoked)
        base = self._base_state(row, revoked, until_version)
        try:
            return self._fold_from(row, base, revoked, until_version)
        except CACHE_ERRORS:
            if base is None:
                raise
            self.forget(row)
            return self._fold_from(row, None, revoked, until_version)

    def _fold_from(
        self,
        row: CampaignRow,
        base: CampaignState | None,
        revoked: set[str],
        until_version: int | None,
    ) -> CampaignState:
        state = base or refold_state(row.campaign_id, revoked)
        state.revoked = revoked
        state.fixed_revoked = True
        events = self.store.read(
            row.campaign_id, after_version=state.version, until_version=until_version
        )
        fold(self._metered(events, row, state.version, until_version), row.campaign_id, state)
        state.fixed_revoked = False
        state.needs_refold = False
        return state

    def _base_state(
        self, row: CampaignRow, revoked: set[str], until_version: int | None
    ) -> CampaignState | None:
        """The newest stored snapshot, folded no further than ``until_version``, that skipped
        exactly the events of ``revoked`` it had seen: it revoked none that ``revoked`` keeps,
        and every event of ``revoked`` it did not skip comes after it."""
        names = (CAMPAIGN_SNAPSHOT, REFOLDED_SNAPSHOT, PRIOR_SNAPSHOT, SESSION_SNAPSHOT)
        kept = self._kept.get(row.campaign_id)
        for _, text, version, head in self._candidates(row, names, until_version):
            # Which events a snapshot skipped is read alone, and only the one chosen is parsed
            # whole and built into a state: both cost as much as the state is large.
            if kept is not None and text is kept[1]:
                skipped = kept[2]
            else:
                seen = _what_it_saw(text)
                if seen is None:
                    continue
                skipped = set(seen.revoked)
            if not skipped <= revoked:
                continue
            later = self.store.first_version(row.campaign_id, revoked - skipped)
            if later is not None and later <= version:
                continue
            state = _parsed(row, text, version, head)
            if state is not None:
                return state
        return None

    def _candidates(
        self, row: CampaignRow, names: tuple[str, ...], until_version: int | None
    ) -> Iterator[tuple[str, str, int, str]]:
        """The stored snapshots under ``names`` folded no further than ``until_version``,
        unparsed, newest first, each with its name, its version and its event's hash: each
        one's text is read as the caller comes to it (the one kept, not again)."""
        kept = self._kept.get(row.campaign_id)
        for name, version, head, read in self.store.stored_snapshots(
            row.campaign_id, names, _key(row.system)
        ):
            if until_version is None or version <= until_version:
                if kept is not None and kept[0] == (name, version, head):
                    text: str | None = kept[1]
                else:
                    text = read()
                if text is not None:
                    yield name, text, version, head

    def players_base(
        self,
        row: CampaignRow,
        revoked: set[str],
        revealed: set[str],
        until_version: int | None = None,
    ) -> CampaignState | None:
        """The newest of the players' stored states, folded no further than ``until_version``,
        that still agrees with the log: it skipped exactly the events of ``revoked`` it had
        seen, and every secret event of ``revealed`` it saw sealed comes after it."""
        names = (PLAYERS_SNAPSHOT, PLAYERS_SESSION_SNAPSHOT)
        for _, text, version, head in self._candidates(row, names, until_version):
            seen = _what_it_saw(text)
            if seen is None or seen.revealed is None:
                continue
            skipped, shown = set(seen.revoked), set(seen.revealed)
            if not skipped <= revoked or not shown <= revealed:
                continue
            if any(
                first is not None and first <= version
                for first in (
                    self.store.first_version(row.campaign_id, since)
                    for since in (revoked - skipped, revealed - shown)
                )
            ):
                continue
            state = _parsed(row, text, version, head)
            if state is not None:
                return state
        return None

    def save_players(
        self,
        doc: dict,
        head_hash: str,
        revealed: set[str],
        name: str = PLAYERS_SNAPSHOT,
    ) -> None:
        """Store the players' state ``doc`` (``to_snapshot`` of it, folded to the event whose
        hash is ``head_hash``), with the secret events revealed when it was folded."""
        if self._paused:
            return
        snapshot = (
            doc["campaign_id"],
            name,
            _key(doc["system"]),
            doc["version"],
            head_hash,
            {**doc, "revealed": sorted(revealed)},
        )
        self._keep(snapshot)

    def rebuild_all(self, row: CampaignRow) -> tuple[CampaignState, Luck]:
        """Every projection from the first event in one pass: the state and the rolls' luck."""
        from tracker.projections.rebuild import rebuild

        head = self.store.head(row.campaign_id).version
        events = self._metered(self.store.read(row.campaign_id, until_version=head), row, 0, head)
        return rebuild(events, row.campaign_id, self.revoked(row, head), registry.get(row.system))

    def _metered(
        self, events: Iterable[StoredEvent], row: CampaignRow, after: int, until: int | None
    ) -> Iterable[StoredEvent]:
        """``events`` (those after version ``after``, up to ``until``) told to the meter."""
        if self.meter is None:
            return events
        last = until if until is not None else self.store.head(row.campaign_id).version
        return metered(events, self.meter, f"Folding {row.name}", last - after)

    def revoked(self, row: CampaignRow, until_version: int) -> set[str]:
        """The events the campaign's undos and redos up to ``until_version`` leave revoked,
        read from those alone."""
        undos = self.store.read(
            row.campaign_id, until_version=until_version, types=UNDO_TYPES, sparse=True
        )
        return fold(undos, row.campaign_id).revoked

    def save(self, state: CampaignState, name: str = CAMPAIGN_SNAPSHOT) -> None:
        """Store ``state`` as the campaign's snapshot ``name`` (a cache: failures are silent)."""
        if self._paused:
            return
        if name != PRIOR_SNAPSHOT:
            self._note_start(state)
        snapshot = (
            state.campaign_id,
            name,
            _key(state.system),
            state.version,
            state.head_hash,
            to_snapshot(state),
        )
        self._keep(snapshot)

    def _keep(self, snapshot: tuple) -> None:
        """Write ``snapshot`` now, or when the deferring block ends (``snapshots_deferred``)."""
        if self._deferred is not None:
            self._deferred.append(snapshot)
        else:
            self._write(snapshot)

    def _write(self, snapshot: tuple) -> None:
        # The snapshot is only a cache: a read-only or busy database still answers.
        with contextlib.suppress(*self.store.errors):
            name = snapshot[1]
            self.store.save_snapshot(
                *snapshot, keep_previous_as=PRIOR_SNAPSHOT if name == CAMPAIGN_SNAPSHOT else None
            )

    @contextlib.contextmanager
    def snapshots_paused(self) -> Iterator[None]:
        """No snapshot is written in the block (a Tab only reads)."""
        self._paused = True
        try:
            yield
        finally:
            self._paused = False

    @contextlib.contextmanager
    def snapshots_deferred(self) -> Iterator[None]:
        """Snapshots taken in the block are written when it ends, as they were when taken: one
        written inside a write block would wait for the block's own lock."""
        self._deferred, self._forgotten = [], {}
        try:
            yield
        finally:
            taken, self._deferred = self._deferred, None
        for row in self._forgotten.values():
            self._forget_now(row)
        for snapshot in taken:
            self._write(snapshot)
