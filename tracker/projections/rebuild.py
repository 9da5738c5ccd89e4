"""Every projection rebuilt in one pass over the log.

Which events are in force is known before the pass: the undo and redo events alone decide it,
and the store hands those over without the rest (``UNDO_TYPES``). So each event is read and
parsed once, and feeds the campaign state and the roll luck together; nothing is folded twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tracker.events import StoredEvent
from tracker.projections.campaign import CampaignState, fold, refold_state
from tracker.projections.rolls import Luck, LuckTally
from tracker.systems.base import RuleSystem


def rebuild(
    events: Iterable[StoredEvent], campaign_id: str, revoked: set[str], rules: RuleSystem
) -> tuple[CampaignState, Luck]:
    """The campaign state and the luck of its rolls (read by the campaign's system ``rules``),
    from the first event, skipping ``revoked``."""
    state = refold_state(campaign_id, revoked)
    tally = LuckTally(state.revoked, rules)
    add, read = tally.add, tally.types

    def tallied() -> Iterator[StoredEvent]:
        # Each event is tallied once the fold has taken it (the fold asks for the next), so an
        # event the fold refuses is never counted, as when the two took turns in one loop.
        for event in events:
            yield event
            if event.type in read:
                add(event)

    fold(tallied(), campaign_id, state)
    state.fixed_revoked = False
    return state, tally.luck
