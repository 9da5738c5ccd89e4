"""The running campaign as a live view follows it: what is new since a version, in the GM's
view or the players', and the board (tracks, Threat, what is owed, the session's luck).

The players' view is made from their stream alone (``Table.player_events``), so a page, a
follower or a bot fed from here can show nothing a secret roll held. Undos are public, as
everywhere: which events are no longer in force is the same in both views.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from tracker.app.history import Change, changes_made
from tracker.app.table import Table
from tracker.events import StoredEvent
from tracker.events.play import ContestRolled
from tracker.projections.campaign import CampaignState, Character
from tracker.store.eventstore import CampaignRow
from tracker.systems.base import Feature
from tracker.systems.capabilities import Currencies, able
from tracker.words import table_words


@dataclass(frozen=True)
class Page:
    """New events since a version, and which events are no longer in force."""

    events: list[StoredEvent]
    undone: set[str]
    head: int


# How long after its files last changed a SQLite database is still looked at (its head read)
# on every tick.
SETTLE_S = 1.0


class Watcher:
    """Whether the log may have grown since last asked, as cheaply as the database allows: on
    SQLite the sizes and times of its files (a commit from any process changes them), on
    PostgreSQL a notification each append sends when it commits (``listening``)."""

    def __init__(self, table: Table) -> None:
        self.files = table.files()
        self.stamp = self._stamp()
        self.settled_at = 0.0
        self.listener: Any = None
        if not self.files:
            from tracker.store.postgres import listen_appended

            try:
                self.listener = listen_appended(table.url)
            except Exception:
                self.listener = None

    @property
    def listening(self) -> bool:
        return self.listener is not None

    def changed(self) -> bool:
        """SQLite: whether a file changed in the last ``SETTLE_S`` seconds (two ``stat`` calls);
        elsewhere without a listener, always (the head is asked instead).

        A commit writes the write-ahead log's file a moment before readers can see it: asked
        in between, the head has not moved yet, and a change reported once would be missed
        until the next commit. So a change is reported until the files have been still for a
        while."""
        if not self.files:
            return True
        now = self._stamp()
        if now != self.stamp:
            self.stamp = now
            self.settled_at = time.monotonic() + SETTLE_S
            return True
        return time.monotonic() < self.settled_at

    def wait(self, timeout: float) -> bool:
        """PostgreSQL: wait up to ``timeout`` seconds for an append's notification."""
        return bool(self.heard(timeout))

    def heard(self, timeout: float) -> set[str]:
        """PostgreSQL: the campaigns appended to, by the notifications that came within
        ``timeout`` seconds of the first (none when none came): waits for one, then takes
        what else is there already."""
        heard = set()
        for note in self.listener.notifies(timeout=timeout, stop_after=1):
            heard.add(note.payload)
        for note in self.listener.notifies(timeout=0):
            heard.add(note.payload)
        return heard

    def close(self) -> None:
        if self.listener is not None:
            self.listener.close()

    def _stamp(self) -> tuple[tuple[int, int], ...]:
        import os

        out = []
        for name in self.files:
            try:
                st = os.stat(name)
            except OSError:
                out.append((0, 0))
            else:
                out.append((st.st_mtime_ns, st.st_size))
        return tuple(out)


class Live:
    """One campaign followed as it is logged."""

    def __init__(self, table: Table, campaign: CampaignRow | None = None) -> None:
        self.table = table
        self.row = campaign or table.campaign()
        # A view opened on a campaign by name stays on it; otherwise it follows the current
        # campaign, as the next command typed at the table would.
        self.pinned = campaign is not None or table.chosen is not None
        self._state: tuple[tuple[str, int], CampaignState] | None = None

    def follow(self) -> bool:
        """Whether the current campaign is another since last asked (``campaign use`` or
        ``campaign new`` in any process); if so, the view follows it from now on. Two small
        reads: asked when the database changed, never per page."""
        if self.pinned:
            return False
        row = self.table.current()
        if row is None or row.campaign_id == self.row.campaign_id:
            return False  # none is current any more: stay on the one shown
        self.row = row
        # What the table acts on from now (a console's forms) is the campaign shown.
        if self.table.chosen is not None:
            self.table.chosen = row.campaign_id
        return True

    @property
    def token(self) -> str:
        """What the feed's event ids begin with: a page that comes back from another campaign
        (or database) is told to start afresh."""
        return self.campaign_id[:8]

    @property
    def campaign_id(self) -> str:
        return self.row.campaign_id

    def watcher(self) -> Watcher:
        """What tells a follower, cheaply, that the log may have grown."""
        return Watcher(self.table)

    def head(self) -> int:
        """The campaign's last version: one indexed lookup, so it can be asked often."""
        return self.table.store.head(self.campaign_id).version

    def session_start(self) -> int:
        """The version just before the first event of the session shown (the running one, else
        the last that ended, whose recap stays up until the next starts; the head when there
        has been none): where a follower that has seen nothing starts."""
        state = self.table.state(self.row)
        if state.session is None:
            return state.version
        first = next(self.table.store.read(self.campaign_id, session_id=state.session.number), None)
        return first.version - 1 if first is not None else state.version

    def since(self, version: int, *, player_view: bool) -> Page:
        """The events after ``version`` in the view asked for, and the undone ones."""
        store = self.table.store
        # Up to the head as it is now: what is logged meanwhile is the next page's.
        head = self.head()
        if head <= version:
            return Page([], set(self.table.state(self.row).revoked), version)
        if player_view:
            revealed = self.table.revealed(self.row)
            # The event before decides whether the hash the first new one follows may be shown.
            stream = self.table.player_stream_from(
                self.row, max(version - 1, 0), revealed, until_version=head
            )
            events = [e for e in stream if e.version > version]
        else:
            events = list(store.read(self.campaign_id, after_version=version, until_version=head))
        state = self.table.state(self.row)
        return Page(events, set(state.revoked), head)

    def changes(self, page: Page, after: int, *, player_view: bool) -> dict[str, list[Change]]:
        """What each event of ``page`` (read after version ``after``) moved on the tracks, by
        its id, as the view knows it: in the players' view a sealed event moved nothing. The
        walk starts from the state just before (a snapshot of the session's start serves)."""
        if not page.events:
            return {}
        if player_view:
            walk = self.table.player_state(self.row, until_version=after)
        else:
            revoked = self.table.state(self.row).revoked
            walk = self.table.loader.refold(self.row, revoked, until_version=after)
        walk.fixed_revoked = True
        return {event.event_id: changes_made(walk, event) for event in page.events}

    def board(self, *, player_view: bool) -> dict[str, Any]:
        """The campaign now, as the view may know it: each character's tracks, Threat, what is
        owed, and the session shown with its luck: the running one, else the last that ended
        (``running`` false), which the table reads as the night's recap."""
        from tracker.projections.player import SEALED_TYPE
        from tracker.projections.rolls import luck, roll_rows, row_sources

        state = self.table.player_state(self.row) if player_view else self.table.state(self.row)
        rules = state.rules
        session = state.session
        luck_doc: dict[str, Any] = {}
        if session is not None:
            wanted = {*row_sources(), SEALED_TYPE}
            events = (
                self.table.player_events(self.row, session=session.number)
                if player_view
                else self.table.store.read(self.campaign_id, session_id=session.number)
            )
            # The rows need each character's name and sheet, which their CharacterAdded and
            # CharacterUpdated events give, from before the session too.
            named = self.table.store.read(
                self.campaign_id, types=["CharacterAdded", "CharacterUpdated"], sparse=True
            )
            rows = [
                r
                for r in roll_rows(
                    (e for e in _chain(named, events) if e.type in wanted),
                    rules,
                    state.revoked,
                )
                if not r.sealed and r.session == session.number
            ]
            found = luck(rows, rules)
            luck_doc = {name: c.to_dict() for name, c in found.characters.items()}
        return {
            "campaign": state.name,
            "system": state.system,
            "system_title": rules.title,
            "version": state.version,
            "session": session.to_dict() if session else None,
            "running": state.current_session is not None,
            # The campaign's own tracks, by the names the table knows them by (Threat).
            "shared": rules.folding.readings(state, None, {}),
            "characters": [
                {**ch.tracks(rules), "npc": ch.npc, "readings": readings_shown(state, ch)}
                for ch in state.characters.values()
            ],
            "obligations": [
                _owed(o.to_dict(), player_view)
                for o in sorted(state.obligations.values(), key=lambda o: o.opened_version)
            ],
            "luck": luck_doc,
            "player_view": player_view,
            "sealed": self.sealed(state) if player_view else None,
            "recap": self._recap(player_view)
            if session and state.current_session is None
            else None,
        }

    def sealed(self, state: CampaignState) -> dict[str, Any]:
        """How many secret events not yet revealed may have moved what the players are shown:
        the campaign's own tracks (``campaign``: any secret event since those tracks were last
        set back to 0, a session start where the system resets them all), and each character's
        (``characters``, by name: that character's). The players' view leaves out what a secret
        event changed, so a track it moved reads "+ ? sealed" rather than a number the next
        public event would contradict (after a secret miss, a Threat of 3 that is really 5)."""
        since = self._shared_since(state)
        campaign = sum(
            1 for held in state.sealed.values() for version, _ in held.values() if version > since
        )
        characters = {
            ch.name: len(state.sealed.get(ch.character_id, {}))
            for ch in state.characters.values()
            if state.sealed.get(ch.character_id)
        }
        shared = state.rules.folding.readings(state, None, {})
        return {"campaign": campaign if shared else 0, "characters": characters}

    def _shared_since(self, state: CampaignState) -> int:
        """The version after which a secret event may still weigh on the campaign's tracks: the
        start of the session shown when a session start sets every one of them back to 0,
        else the campaign's beginning."""
        shared = {name.casefold() for name in state.rules.folding.readings(state, None, {})}
        resets = {name.casefold() for name in able(state.rules, Currencies).session_resets(state)}
        if state.session is None or not shared or not shared <= resets:
            return 0
        span = self.table.store.session_span(self.campaign_id, state.session.number)
        return span[0] - 1 if span else 0

    def _recap(self, player_view: bool) -> list[dict[str, Any]] | None:
        """What the session that ended changed, character by character, as ``tracker recap``
        says it in the same view: the TV shows it until the next session starts."""
        recaps = getattr(self.table, "recaps", None)
        if recaps is None:  # a bare table, as a test may open, has no recaps
            return None
        import msgspec

        return msgspec.to_builtins(recaps.recap(player_view=player_view).changes)

    def state(self) -> CampaignState:
        """The campaign's state, folded once per head: a feed's batch asks for it for every
        line it words (its rules, its tone), and with no state kept in memory between
        commands each ask would read the snapshot and the log's tail again. The state is the
        log's alone, so its head names it; as a warm table's, it is shared, not to be
        changed."""
        at = (self.campaign_id, self.head())
        if self._state is not None and self._state[0] == at:
            return self._state[1]
        state = self.table.state(self.row)
        if state.version == at[1]:
            self._state = (at, state)
        return state

    def tone(self, data: Any) -> str | None:
        """How the feed colours an event: the tone the campaign's system gives the outcome of
        the one roll it made ("good", "mixed", "bad"), whether a roll, a panic check or a
        fright check, each read by the system as its roll history reads it. None for an event
        that rolled nothing, and for a contest, whose two sides have an outcome each."""
        if isinstance(data, ContestRolled):
            return None
        rules = self.table.state(self.row).rules
        try:
            facts = rules.roll_facts(data)
        except (KeyError, TypeError, ValueError, IndexError):
            return None  # `tracker verify` names a roll its system cannot read
        if len(facts) != 1 or facts[0].outcome is None:
            return None
        return rules.tone(facts[0].outcome)


def readings_shown(state: CampaignState, ch: Character) -> list[list[str]]:
    """``ch``'s tracks as every screen shows them (the TV's and the console's cards, the
    phone), as [name, figure] pairs in the order its system reads them: those every system
    keeps (stress, HP and FP against their most), then wherever the system places them its
    own (``Folding.readings``: Glintlock's Mettle, GURPS's CP, what an installed system keeps
    of a character). A screen draws these and knows no system's tracks by name."""
    rules = state.rules
    doc: dict[str, Any] = {}
    if rules.has(Feature.STRESS):
        doc["stress"] = ch.stress
    if ch.hp is not None:
        doc["HP"] = f"{ch.hp}/{ch.hp_max}"
    if ch.fp is not None:
        doc["FP"] = f"{ch.fp}/{ch.fp_max}"
    return [[name, str(value)] for name, value in rules.folding.readings(state, ch, doc).items()]


def _owed(doc: dict[str, Any], player_view: bool) -> dict[str, Any]:
    """An obligation as the board shows it: in the players' view in the table's words, without
    the command that discharges it, which the GM's command line gives."""
    if player_view:
        doc["what"] = table_words(doc["what"])
    return doc


def _chain(first: Any, second: Any) -> Any:
    seen: set[str] = set()
    for stream in (first, second):
        for event in stream:
            if event.event_id not in seen:
                seen.add(event.event_id)
                yield event
