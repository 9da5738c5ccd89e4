"""Re-deciding stored rolls: ``tracker verify`` asks the campaign's rule system to decide each
roll, contest and check again from its recorded inputs and dice, and reports any event whose
stored outcome differs."""

from __future__ import annotations

from tracker.errors import TrackerError
from tracker.events import StoredEvent
from tracker.events.catalog import Unreadable
from tracker.systems.base import RuleSystem

# The events that record dice the rules decided.
ROLL_TYPES = frozenset({"RollMade", "FrightChecked", "ContestRolled"})


def redecide(event: StoredEvent, rules: RuleSystem) -> str | None:
    """None when the rules still give what ``event`` stores; else a sentence saying what
    differs."""
    if isinstance(event.data, Unreadable):
        return f"it cannot be read: {event.data.reason}"
    if event.type not in ROLL_TYPES:
        return None
    try:
        return rules.redecide(event.data)
    except (TrackerError, KeyError, TypeError, ValueError) as exc:
        return f"its recorded inputs no longer decide ({exc})"
