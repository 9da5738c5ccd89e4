"""Whether a stored event is one tracker would have logged where it stands in its campaign.

``tracker verify`` asks this of every event of a log, and ``tracker import`` of every event of a
file before it commits any: beyond the hash chain, an event must agree with its own envelope,
fall in the session that was running, and be one the rules would have taken in the campaign
folded up to it (``problem_with``), a roll deciding again to what it stores.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from tracker.app.campaigns import CREATED, logged_settings_problem
from tracker.app.names import check_name
from tracker.app.sheets import check_scores
from tracker.errors import TrackerError
from tracker.events import StoredEvent
from tracker.events.catalog import (
    CampaignCreated,
    CampaignSettingsChanged,
    CharacterAdded,
    SessionStarted,
)
from tracker.events.play import NoteAdded, StressChanged
from tracker.projections.campaign import (
    NOT_UNDOABLE,
    CampaignState,
    LogUnfoldable,
    apply,
    problem_with,
)
from tracker.projections.rolls import ROLLED, rolls_in
from tracker.systems import registry
from tracker.systems.base import Feature
from tracker.systems.registry import UnknownSystem

FOLD_ERRORS = (TrackerError, KeyError, TypeError, ValueError, AttributeError, IndexError)


class LogCheck:
    """Folds one campaign's events in order, saying of each whether it could have been logged
    there. ``walk`` skips exactly the events the campaign's undos leave revoked."""

    def __init__(self, walk: CampaignState, *, redecide: bool = True) -> None:
        self.walk = walk
        self.redecide = redecide
        # Every session ever begun, undone or not: an event filed under any other was not
        # logged by tracker. (Whether it was the running one depends on undos as they stood.)
        self.sessions: set[int] = set()

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
            apply(walk, event)
            rolled = self.redecide and event.type in ROLLED
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
        return None


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
    return walk.rules.priced(data)


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
