"""``tracker verify``: every campaign's hash chain walked, and every stored roll decided again by
its campaign's rule system from its recorded inputs and dice, those inputs held to the sheet it
was rolled from; ``--against`` an export says whether the log still holds the head that export
named.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tracker.app.checks import LogCheck
from tracker.app.loading import PLAYERS_SESSION_SNAPSHOT, PLAYERS_SNAPSHOT
from tracker.app.progress import metered
from tracker.app.table import Table
from tracker.errors import TrackerError
from tracker.events import StoredEvent
from tracker.events.catalog import CampaignCreated, Unreadable
from tracker.events.envelope import (
    MAX_PAYLOAD,
    ChainProblem,
    canonical_json,
    check_chain,
    loads_payload,
    oversized,
)
from tracker.events.play import EventsRevealed, EventsRevoked
from tracker.events.receipt import Receipt
from tracker.projections.campaign import (
    LogUnfoldable,
    ReferenceCheck,
    fold,
    from_snapshot,
    projection_version,
    refold_state,
    to_snapshot,
)
from tracker.projections.player import player_stream
from tracker.projections.rolls import rolled_types, rolls_in
from tracker.store.eventstore import CampaignRow
from tracker.systems import registry
from tracker.systems.base import RuleSystem
from tracker.words import plural, reads_as


def redecide(event: StoredEvent, rules: RuleSystem | None) -> str | None:
    """None when the rules still give what ``event`` stores; else a sentence saying what
    differs. Without the rules (their system is not installed) only whether it reads."""
    if isinstance(event.data, Unreadable):
        return f"it cannot be read: {event.data.reason}"
    if rules is None or event.type not in rolled_types():
        return None
    try:
        return next(filter(None, map(rules.redecide, rolls_in(event.data))), None)
    except (TrackerError, KeyError, TypeError, ValueError) as exc:
        return f"its recorded inputs no longer decide ({exc})"


def _size_problem(event: StoredEvent) -> str | None:
    """Whether the event's payload is larger than any command logs (an export of it would not
    read back)."""
    size = oversized(event.raw)
    if size is None:
        return None
    return (
        f"its payload holds {size:,} bytes, more than the {MAX_PAYLOAD:,} one event may hold, "
        "so no command logged it"
    )


def _row_problem(row: CampaignRow, first: StoredEvent) -> str | None:
    """Whether the campaigns table still says what the campaign's first event says."""
    data = first.data
    if not isinstance(data, CampaignCreated):
        return "the campaign's log does not begin with its creation"
    if (data.name, data.system) != (row.name, row.system):
        return (
            f"the database names the campaign {row.name!r} ({row.system}) but its log "
            f"{data.name!r} ({data.system}): the campaigns table was edited"
        )
    return None


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
    """One campaign verified: its events, the first broken link if any, the rolls that no
    longer decide to what is stored."""

    campaign: str
    events: int
    problem: ChainProblem | None
    mismatches: tuple[Mismatch, ...] = ()
    rolls: int = 0
    # Why the rolls were not decided again, when they could not be (the chain still was).
    unchecked: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None and not self.mismatches and self.unchecked is None

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
            "unchecked": self.unchecked,
        }


# What reading a stored state that is none tracker wrote raises.
SNAPSHOT_ERRORS = (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError)


class Verifier:
    """Checks the logs of one database."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def verify(self) -> list[VerifyReport]:
        """Check every campaign (the chosen one, when one was named): the hash chain, and every
        stored roll re-decided from its recorded inputs and dice."""
        store = self.table.store
        if self.table.chosen:
            return [self.campaign(self.table.campaign())]
        reports = [self.campaign(row) for row in store.campaigns()]
        # A campaign's row removed hides its log from every command, but not from here.
        for campaign_id, count in store.unlisted():
            hidden = ChainProblem(
                1,
                "-",
                f"its {plural(count, 'event')} belong to no campaign of the campaigns table "
                "(its row was removed)",
            )
            reports.append(VerifyReport(f"campaign {campaign_id}", count, hidden))
        return reports

    def _name_taken(self, row: CampaignRow) -> str | None:
        """Whether a campaign made before this one has a name that reads the same, as
        `campaign new` would have refused."""
        for other in self.table.store.campaigns():
            if other.campaign_id == row.campaign_id:
                return None
            if reads_as(other.name) == reads_as(row.name):
                return f"its name {row.name!r} reads as {other.name!r}, a campaign made before it"
        return None

    def verify_against(self, heads: dict[str, str]) -> list[dict[str, Any]]:
        """Whether the log still holds each exported head hash, in an intact chain.

        ``heads`` maps a campaign id (or "" when the export did not say) to the hash of the last
        event the export saw. Events logged since the export are fine; an edit, removal or
        replacement of anything up to the head is not, nor a campaigns table whose row no
        longer says what the campaign's first event says (the table is not hashed). Each
        result's ``problem`` says why it does not match (None when it does).
        """
        store = self.table.store
        results = []
        for campaign_id, digest in heads.items():
            found = store.find_hash(digest)
            ok = found is not None and (not campaign_id or found.campaign_id == campaign_id)
            row = store.find_campaign(found.campaign_id) if found else None
            chain_ok = False
            if found is None:
                problem = "the log no longer holds its head"
            elif not ok:
                problem = "its head is an event of another campaign here"
            elif row is None:
                problem = "its campaign's row was removed from the campaigns table"
            else:
                chain_ok = self.campaign(row).problem is None
                if not chain_ok:
                    problem = (
                        f"the chain up to event {found.version} is broken; run `tracker verify`"
                    )
                else:
                    first = next(store.read(row.campaign_id, until_version=1), None)
                    problem = None if first is None else _row_problem(row, first)
            results.append(
                {
                    "campaign_id": campaign_id or (found.campaign_id if found else None),
                    "campaign": row.name if row else None,
                    "head": digest,
                    "found_at": found.version if found else None,
                    "matches": problem is None,
                    "chain_intact": chain_ok,
                    "problem": problem,
                }
            )
        return results

    def verify_receipt(self, kept: Receipt) -> dict[str, Any]:
        """Whether the log still holds the head a receipt names, in an intact chain: the
        receipt's campaign, an event at its version, whose hash begins as the receipt says."""
        store = self.table.store
        named = [r for r in store.campaigns() if r.campaign_id.startswith(kept.campaign)]
        if len(named) > 1:
            # Two campaigns behind one receipt: one was made to stand in for the other.
            return {
                "receipt": str(kept),
                "campaign": None,
                "campaign_id": None,
                "version": kept.version,
                "matches": False,
                "problem": f"{len(named)} campaigns here have the id the receipt names; one was "
                "forged to stand in for the other",
            }
        row = named[0] if named else None
        at = None
        if row is not None:
            at = next(
                store.read(
                    row.campaign_id, after_version=kept.version - 1, until_version=kept.version
                ),
                None,
            )
        holds = at is not None and at.hash.startswith(kept.digest)
        report = self.campaign(row) if holds and row is not None else None
        chain_ok = report is not None and report.ok
        if row is None:
            why = "this database holds no campaign with that id: it was removed or replaced"
        elif at is None:
            head = store.head(row.campaign_id).version
            why = f"the log ends at event {head}: the events after it were cut off"
        elif not holds:
            why = f"event {kept.version} is not the one the receipt names: the log was rewritten"
        elif not chain_ok:
            why = "the chain up to it is broken; run `tracker verify`"
        else:
            why = None
        return {
            "receipt": str(kept),
            "campaign": row.name if row else None,
            "campaign_id": row.campaign_id if row else None,
            "version": kept.version,
            "matches": why is None,
            "problem": why,
        }

    def campaign(self, row: CampaignRow) -> VerifyReport:
        """One campaign's chain walked, and its rolls decided again as they go by. The chain
        needs no rules: a campaign whose system is not installed still has it walked."""
        rules, unchecked = _rules_for(row)
        counted = rolls = 0
        mismatches: list[Mismatch] = []
        named = self._named(row)
        references = ReferenceCheck(named)
        head = self.table.store.head(row.campaign_id).version
        walk = self._walk(row, head, named) if rules is not None else None

        def checking(stream: Iterable[StoredEvent]) -> Iterator[StoredEvent]:
            nonlocal counted, rolls
            for event in stream:
                counted += 1
                rolls += event.type in rolled_types()
                reason = _size_problem(event) or redecide(event, rules)
                if event.version == 1:
                    reason = reason or _row_problem(row, event) or self._name_taken(row)
                # An undo of what is undone, a redo of what stands, a reveal of what was never
                # secret: a look back in time, and the players' view, would show it wrongly.
                referring = references(event)
                reason = reason or referring
                # Folded whatever the roll said, so the events after it are checked as well.
                folded = walk(event) if walk is not None else None
                reason = reason or folded
                if reason is not None:
                    mismatches.append(Mismatch(event.version, event.event_id, reason))
                yield event

        logged = self.table.store.read(row.campaign_id, until_version=head)
        logged = metered(logged, self.table.meter, f"Verifying {row.name}", head)
        problem = check_chain(checking(logged))
        if problem is None and not counted:
            problem = ChainProblem(0, "-", "the campaign has no events, not even its creation")
        if problem is not None:
            # The broken link already names that event; its payload says nothing more.
            mismatches = [m for m in mismatches if m.event_id != problem.event_id]
        elif rules is not None:
            mismatches.extend(self.snapshots(row, counted))
        return VerifyReport(row.name, counted, problem, tuple(mismatches), rolls, unchecked)

    def _named(self, row: CampaignRow) -> set[str]:
        """The events the undos and reveals name, from a read of those alone."""
        return {
            ident
            for event in self.table.store.read(
                row.campaign_id, types=[EventsRevoked.TYPE, EventsRevealed.TYPE], sparse=True
            )
            if isinstance(event.data, (EventsRevoked, EventsRevealed))
            for ident in event.data.event_ids
        }

    def _walk(self, row: CampaignRow, head: int, named: set[str]) -> LogCheck:
        """The log folded as it is walked, with the events in force that its undos leave: each
        event must be one the rules would have taken in the state before it (a spend of
        Mettle the log never gave, a roll for a character never added, is not)."""
        return LogCheck(
            refold_state(row.campaign_id, self.table.loader.revoked(row, head)),
            redecide=False,  # done as the chain is walked, in words that name an unreadable roll
            named=named,
        )

    def snapshots(self, row: CampaignRow, head: int) -> list[Mismatch]:
        """Every stored snapshot of the campaign against a fold of the log up to its head.

        A snapshot is a cache, but one that saw events the log no longer holds is evidence of
        a cut tail, and one that holds what the log does not fold to is evidence of an edit.
        Either is named, then dropped, so that no command starts from it again."""
        store = self.table.store
        found: list[Mismatch] = []
        bad: list[tuple[str, int]] = []
        current = projection_version(registry.get(row.system))
        for stored in store.snapshots_of(row.campaign_id):
            name, version = stored[:2]
            if version != current:
                continue  # another tracker's or another fold's cache, which this one never reads
            mismatch = self._snapshot_mismatch(row, head, stored)
            if mismatch is not None:
                bad.append((name, version))
                found.append(mismatch)
        for name, version in bad:
            with contextlib.suppress(*store.errors):  # a read-only database keeps its cache
                store.forget_snapshot(row.campaign_id, name, version)
        return found

    def _snapshot_mismatch(
        self, row: CampaignRow, head: int, stored: tuple[str, int, int, str, str]
    ) -> Mismatch | None:
        """What is wrong with one stored snapshot (``EventStore.snapshots_of``'s row), or None
        when the log still holds the event it was folded to and folds to what it holds."""
        name, _, version, head_hash, text = stored
        if type(version) is not int or not isinstance(head_hash, str):
            # A row no tracker wrote (the table's columns take any value in SQLite).
            return Mismatch(0, "-", f"the {name} snapshot cannot be read")
        at = next(
            self.table.store.read(
                row.campaign_id, after_version=version - 1, until_version=version
            ),
            None,
        )
        where = f"the {name} snapshot, folded to event {version}"
        if at is None or at.hash != head_hash:
            return Mismatch(
                version,
                at.event_id if at else "-",
                f"{where} ({head_hash[:12]}…), saw events the log no longer holds: the log "
                f"was cut short (it ends at event {head}) or replaced",
            )
        players = name in (PLAYERS_SNAPSHOT, PLAYERS_SESSION_SNAPSHOT)
        try:
            doc, revoked, revealed = _snapshot_read(row, text, players)
        except (*SNAPSHOT_ERRORS, TrackerError):
            return Mismatch(version, at.event_id, f"{where}, cannot be read")
        # The players' state was folded with reveals the log holds: one naming an event
        # no reveal names would show the players a secret.
        if players and not revealed <= self.table.revealed(row):
            return Mismatch(
                version,
                at.event_id,
                f"{where}, counts as revealed an event no reveal in the log names",
            )
        try:
            expected = self._refolded(row, name, version, revoked, revealed if players else None)
        except LogUnfoldable:
            return None  # the log itself is at fault, and the walk above named where
        if canonical_json(doc) != canonical_json(expected):
            return Mismatch(
                version, at.event_id, f"{where}, holds a state the log does not fold to"
            )
        return None

    def _refolded(
        self,
        row: CampaignRow,
        name: str,
        version: int,
        revoked: set[str],
        revealed: set[str] | None,
    ) -> dict[str, Any]:
        """The snapshot ``name`` should hold: the log folded up to ``version`` with the undos
        it names in force; the players' (``revealed`` given) is the fold of their stream, as it
        stood with what was revealed then."""
        label = f"Checking {row.name}'s {name} snapshot"
        events = metered(
            self.table.store.read(row.campaign_id, until_version=version),
            self.table.meter,
            label,
            version,
        )
        if revealed is not None:
            events = player_stream(events, revealed)
        folded = fold(events, row.campaign_id, refold_state(row.campaign_id, revoked))
        shown = to_snapshot(folded)
        if revealed is not None:
            shown["revealed"] = sorted(revealed)
        # Compared as JSON both ways: the stored one went through JSON once.
        return loads_payload(json.dumps(shown))


def _snapshot_read(
    row: CampaignRow, text: str, players: bool
) -> tuple[dict[str, Any], set[str], set[str]]:
    """A stored snapshot's state, the undos it was folded with, and (the ``players``' own)
    the reveals; a snapshot of another campaign's state is refused as unreadable."""
    doc = loads_payload(text)
    if (doc["campaign_id"], doc["name"], doc["system"]) != (
        row.campaign_id,
        row.name,
        row.system,
    ):
        raise ValueError("another campaign's state")
    revoked = set(from_snapshot(doc).revoked)
    revealed = set(doc["revealed"]) if players else set()
    return doc, revoked, revealed


def _rules_for(row: CampaignRow) -> tuple[RuleSystem | None, str | None]:
    """The campaign's rule system, or None and why its rolls go unchecked: it is not installed
    here."""
    try:
        return registry.get(row.system), None
    except TrackerError:
        return None, (
            f'its rolls were not decided again, as the rule system "{row.system}" is not '
            "installed here; install the package that provides it and verify again"
        )
