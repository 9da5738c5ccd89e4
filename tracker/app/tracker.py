"""The application: one open tracker database, and its commands grouped by what they are about.

``Tracker`` is a ``Table`` (the database, the campaign chosen, its state and the decide-and-append
loop) with a handler group per subject::

    tracker.campaigns   campaigns, sessions, characters, status, obligations, the log
    tracker.rolls       rolls (and the kinds a system names), contests
    tracker.tracks      stress, HP and FP, conditions, notes, obligations dismissed
    tracker.acting      each rule system's own commands (``tracker.systems.acts``)
    tracker.history     undo, redo, replay, the state as of an event or a time
    tracker.exports     the roll history's exports and report, the log's export and import
    tracker.recaps      a session's recap: notes, rolls, luck, what changed, what is owed
    tracker.verifier    the hash chains, and every roll decided again
    tracker.invitations the links into the GM's console and the phones (not the log)

Each group works through the table alone; none calls into another except where it says so
(history, the exports and the recaps look sessions up through ``campaigns``; the recaps walk a
session through ``history``). A group's module is imported the first time it is used: a roll
at the table loads the rolls, not the exporters.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from tracker.app.table import Table

if TYPE_CHECKING:
    from tracker.app.acting import Acting
    from tracker.app.campaigns import Campaigns
    from tracker.app.export import Exports
    from tracker.app.history import History
    from tracker.app.invitations import Invitations
    from tracker.app.recap import Recaps
    from tracker.app.rolls import Rolls
    from tracker.app.tracks import Tracks
    from tracker.app.verify import Verifier


class Tracker(Table):
    """One open tracker database and every command that acts on it."""

    @cached_property
    def campaigns(self) -> Campaigns:
        from tracker.app.campaigns import Campaigns

        return Campaigns(self)

    @cached_property
    def rolls(self) -> Rolls:
        from tracker.app.rolls import Rolls

        return Rolls(self)

    @cached_property
    def acting(self) -> Acting:
        from tracker.app.acting import Acting

        return Acting(self)

    @cached_property
    def tracks(self) -> Tracks:
        from tracker.app.tracks import Tracks

        return Tracks(self)

    @cached_property
    def history(self) -> History:
        from tracker.app.history import History

        return History(self, self.campaigns)

    @cached_property
    def exports(self) -> Exports:
        from tracker.app.export import Exports

        return Exports(self, self.campaigns)

    @cached_property
    def recaps(self) -> Recaps:
        from tracker.app.recap import Recaps

        return Recaps(self, self.campaigns, self.history)

    @cached_property
    def verifier(self) -> Verifier:
        from tracker.app.verify import Verifier

        return Verifier(self)

    @cached_property
    def invitations(self) -> Invitations:
        from tracker.app.invitations import Invitations

        return Invitations(self)
