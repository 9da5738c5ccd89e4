"""The application: one open tracker database, and its commands grouped by what they are about.

``Tracker`` is a ``Table`` (the database, the campaign chosen, its state and the decide-and-append
loop) with a handler group per subject::

    tracker.campaigns   campaigns, sessions, characters, status, obligations, the log
    tracker.rolls       rolls, panic checks, contests
    tracker.tracks      Mettle, Threat, stress, HP and FP, conditions, tags, points, notes
    tracker.gurps       fright checks, influence, extra effort, major projects
    tracker.history     undo, redo, replay, the state as of an event or a time
    tracker.exports     the roll history's exports and report, the log's export and import
    tracker.verifier    the hash chains, and every roll decided again

Each group works through the table alone; none calls into another except where it says so
(history and the exports look sessions up through ``campaigns``).
"""

from __future__ import annotations

from tracker.app.campaigns import Campaigns
from tracker.app.export import Exports
from tracker.app.gurps_extras import GurpsExtras
from tracker.app.history import History
from tracker.app.rolls import Rolls
from tracker.app.table import Table
from tracker.app.tracks import Tracks
from tracker.app.verify import Verifier


class Tracker(Table):
    """One open tracker database and every command that acts on it."""

    def __init__(self, db: str | None = None, campaign: str | None = None) -> None:
        super().__init__(db, campaign)
        self.campaigns = Campaigns(self)
        self.rolls = Rolls(self)
        self.tracks = Tracks(self)
        self.gurps = GurpsExtras(self)
        self.history = History(self, self.campaigns)
        self.exports = Exports(self, self.campaigns)
        self.verifier = Verifier(self)
