"""``tracker verify``: every campaign's hash chain walked, and every stored roll decided again by
its campaign's rule system from its recorded inputs and dice; ``--against`` an export says
whether the log still holds the head that export named.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tracker.app.table import Table
from tracker.errors import TrackerError
from tracker.events import StoredEvent
from tracker.events.catalog import Unreadable
from tracker.events.envelope import ChainProblem, check_chain
from tracker.projections.rolls import ROLLED, rolls_in
from tracker.store.eventstore import CampaignRow
from tracker.systems import registry
from tracker.systems.base import RuleSystem


def redecide(event: StoredEvent, rules: RuleSystem) -> str | None:
    """None when the rules still give what ``event`` stores; else a sentence saying what
    differs."""
    if isinstance(event.data, Unreadable):
        return f"it cannot be read: {event.data.reason}"
    if event.type not in ROLLED:
        return None
    try:
        return next(filter(None, map(rules.redecide, rolls_in(event.data))), None)
    except (TrackerError, KeyError, TypeError, ValueError) as exc:
        return f"its recorded inputs no longer decide ({exc})"


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


class Verifier:
    """Checks the logs of one database."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def verify(self) -> list[VerifyReport]:
        """Check every campaign (the chosen one, when one was named): the hash chain, and every
        stored roll re-decided from its recorded inputs and dice."""
        store = self.table.store
        rows = [self.table.campaign()] if self.table.chosen else store.campaigns()
        return [self.campaign(row) for row in rows]

    def verify_against(self, heads: dict[str, str]) -> list[dict[str, Any]]:
        """Whether the log still holds each exported head hash, in an intact chain.

        ``heads`` maps a campaign id (or "" when the export did not say) to the hash of the last
        event the export saw. Events logged since the export are fine; an edit, removal or
        replacement of anything up to the head is not.
        """
        store = self.table.store
        results = []
        for campaign_id, digest in heads.items():
            found = store.find_hash(digest)
            ok = found is not None and (not campaign_id or found.campaign_id == campaign_id)
            row = store.find_campaign(found.campaign_id) if found else None
            chain_ok = False
            if ok and row is not None:
                chain_ok = self.campaign(row).problem is None
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

    def campaign(self, row: CampaignRow) -> VerifyReport:
        """One campaign's chain walked, and its rolls decided again as they go by. The chain
        needs no rules: a campaign whose system is not installed still has it walked."""
        rules: RuleSystem | None
        try:
            rules = registry.get(row.system)
            unchecked = None
        except TrackerError:
            rules = None
            unchecked = (
                f'its rolls were not decided again: the rule system "{row.system}" is not '
                "installed here"
            )
        counted = rolls = 0
        mismatches: list[Mismatch] = []

        def checking(stream: Iterable[StoredEvent]) -> Iterator[StoredEvent]:
            nonlocal counted, rolls
            for event in stream:
                counted += 1
                rolls += event.type in ROLLED
                reason = redecide(event, rules) if rules is not None else None
                if reason is not None:
                    mismatches.append(Mismatch(event.version, event.event_id, reason))
                yield event

        problem = check_chain(checking(self.table.store.read(row.campaign_id)))
        if problem is not None:
            # The broken link already names that event; its payload says nothing more.
            mismatches = [m for m in mismatches if m.event_id != problem.event_id]
        return VerifyReport(row.name, counted, problem, tuple(mismatches), rolls, unchecked)
