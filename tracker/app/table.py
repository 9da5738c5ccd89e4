"""The table: one open tracker database and the campaign its commands act on.

Every handler group (``tracker.app.campaigns``, ``rolls``, ``tracks``, ...) works through a
``Table``: it picks the campaign, loads its state (``loading``), and runs the decide-and-append
loop (``deciding``). A database that is new is made; an older one is upgraded; one that cannot be
used is refused with a sentence.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Self

from tracker.app.deciding import Appender, Decide, Decision, Logged, logged, require_session
from tracker.app.loading import (
    CACHE_ERRORS,
    PLAYERS_SESSION_SNAPSHOT,
    SNAPSHOT_EVERY,
    StateLoader,
)
from tracker.app.names import one_named
from tracker.app.progress import Meter
from tracker.errors import BadInput, NotFound, Refused
from tracker.events import StoredEvent
from tracker.events.play import EventsRevealed
from tracker.projections.campaign import (
    CampaignState,
    Character,
    Obligation,
    fold,
    refold_state,
    to_snapshot,
)
from tracker.projections.player import player_stream
from tracker.store.backend import Backend
from tracker.store.eventstore import CampaignRow, EventStore, now_utc
from tracker.store.location import (
    prepare_sqlite_file,
    refuse_foreign_sqlite,
    resolve_url,
    sqlite_path,
    storage_error,
)
from tracker.store.revisions import HEAD_REVISION
from tracker.store.sqlite import SqliteBackend, stamped_revision
from tracker.systems import registry

if TYPE_CHECKING:
    # The rolls' projection is loaded by the commands that use it, not by every command.
    from tracker.projections.rolls import Luck

# The setting that names the current campaign (the one made or chosen last).
CURRENT = "current_campaign"


class Table:
    """One open tracker database, and the campaign chosen with ``campaign`` (else the current
    one)."""

    def __init__(self, db: str | None = None, campaign: str | None = None) -> None:
        self.url = resolve_url(db)
        path = sqlite_path(self.url)
        self.location = str(path) if path else self.url.split("@")[-1]
        self.created = prepare_sqlite_file(path) if path else False
        if path and not self.created:
            refuse_foreign_sqlite(path)
        self.backend = self._open(path)
        self.store = EventStore(self.backend)
        self.loader = StateLoader(self.store)
        self.appender = Appender(self.store, self.loader, self.location)
        self.chosen = campaign

    def _open(self, path: Path | None) -> Backend:
        """The database's backend, its schema brought to head (``self.backup`` names the copy
        made before an upgrade).

        A SQLite file is read through the standard ``sqlite3``, and PostgreSQL through psycopg:
        SQLAlchemy and Alembic check and migrate the schema, which on a SQLite file at head
        takes neither."""
        self.backup: str | None = None
        if path is not None:
            backend: Backend = SqliteBackend(path)
            try:
                if stamped_revision(backend) == HEAD_REVISION:
                    return backend
            except backend.errors as exc:
                backend.close()
                raise storage_error(exc, self.location) from None
        from sqlalchemy.exc import DatabaseError

        from tracker.store.engine import AlchemyBackend, create_engine_for
        from tracker.store.migrate import ensure_schema

        engine = create_engine_for(self.url)
        try:
            self.backup = ensure_schema(engine)
        except DatabaseError as exc:
            engine.dispose()
            if path is not None:
                backend.close()
            raise storage_error(exc, self.location) from None
        if path is not None:
            engine.dispose()
            return backend
        if engine.dialect.name == "postgresql":
            from tracker.store.postgres import PostgresBackend

            engine.dispose()
            return PostgresBackend(self.url)
        return AlchemyBackend(engine)

    def close(self) -> None:
        self.backend.close()

    def on(self, campaign_id: str) -> Self:
        """This open database again, acting on ``campaign_id`` whatever is chosen here or
        current: each campaign a server serves at its own address acts through one. It
        shares the connection and the store (closing this one closes it), and has a loader
        and an appender of its own: a loader holds what one append defers (its snapshots), so
        two campaigns appending at once on two threads each need their own."""
        sibling = copy.copy(self)
        # The app's parts (``Tracker``'s cached properties) were made for this one's choice.
        for name, value in vars(self).items():
            if getattr(value, "table", None) is self:
                del vars(sibling)[name]
        sibling.loader = StateLoader(self.store)
        sibling.loader.warm, sibling.loader.meter = self.loader.warm, self.loader.meter
        sibling.appender = Appender(self.store, sibling.loader, self.location)
        sibling.chosen = campaign_id
        return sibling

    @property
    def meter(self) -> Meter | None:
        """What hears how long work goes (see ``tracker.app.progress``); None by default."""
        return self.loader.meter

    @meter.setter
    def meter(self, value: Meter | None) -> None:
        self.loader.meter = value

    @property
    def warm(self) -> bool:
        """Whether states stay in memory between commands (the shell's evening)."""
        return self.loader.warm

    @warm.setter
    def warm(self, value: bool) -> None:
        self.loader.warm = value

    # -- the campaign and its state --------------------------------------------------------------

    def campaign(self, name: str | None = None) -> CampaignRow:
        """The named campaign, else the one chosen with --campaign, else the current one."""
        wanted = name or self.chosen
        if wanted:
            row = self.store.find_campaign(wanted)
            if row is None:
                raise NotFound(
                    f'No campaign named "{wanted}"; see `tracker campaign list` for the names.'
                )
            return row
        row = self.current()
        if row is None:
            systems = "|".join(registry.names())
            raise Refused(
                f"No campaign is selected; create one with `tracker campaign new NAME --system "
                f"{systems}` or choose one with `tracker campaign use NAME`."
            )
        return row

    def current(self) -> CampaignRow | None:
        """The current campaign (made or chosen last, in any process), whatever ``--campaign``
        chose for this table; None when there is none."""
        current = self.store.get_setting(CURRENT)
        return self.store.find_campaign(current) if current else None

    def files(self) -> list[str]:
        """The files a commit to this SQLite database changes (the database and its write-ahead
        log); none on PostgreSQL."""
        path = sqlite_path(self.url)
        return [str(path), f"{path}-wal"] if path else []

    def state(self, campaign: CampaignRow | None = None) -> CampaignState:
        """The campaign's state as it stands (see ``StateLoader.state``)."""
        return self.loader.state(campaign or self.campaign())

    def refold(self, revoked: Iterable[str], until_version: int | None = None) -> CampaignState:
        """The campaign's state skipping exactly ``revoked``, up to ``until_version``."""
        return self.loader.refold(self.campaign(), revoked, until_version)

    def rebuild(self, campaign: CampaignRow | None = None) -> CampaignState:
        """The campaign's state folded from the first event, ignoring any snapshot."""
        return self.rebuild_all(campaign)[0]

    def rebuild_all(self, campaign: CampaignRow | None = None) -> tuple[CampaignState, Luck]:
        """Every projection from the first event in one pass: the state and the rolls' luck."""
        return self.loader.rebuild_all(campaign or self.campaign())

    def character(
        self, name: str, state: CampaignState | None = None, *, retired_ok: bool = False
    ) -> Character:
        """A character of the campaign by name (any case) or by the start of the one name it
        begins ("mi" for "Mira Kell"); one sentence when there is none, when the start is
        several's, or when it has retired from play and ``retired_ok`` (a look at the sheet) is
        not given."""
        state = state or self.state()
        character = state.character(name)
        if character is None:
            named = one_named(
                name, (c.name for c in state.characters.values()), "characters' names"
            )
            character = state.character(named) if named is not None else None
        if character is None:
            known = ", ".join(sorted(c.name for c in state.characters.values())) or "none yet"
            raise NotFound(
                f'No character named "{name}" in "{state.name}" (characters: {known}); '
                "add one with `tracker character add NAME`."
            )
        if character.retired_version is not None and not retired_ok:
            raise Refused(
                f"{character.name} retired at event {character.retired_version}; "
                f"`tracker undo {character.retired_version}` brings them back into play."
            )
        return character

    def now(self) -> str:
        """The time at the table (ISO 8601, UTC), which a window of play is counted back from."""
        return now_utc()

    # -- what the players may know ---------------------------------------------------------------

    def revealed(self, campaign: CampaignRow) -> set[str]:
        """The secret events the GM has revealed to the players."""
        reveals = self.store.read(campaign.campaign_id, types=[EventsRevealed.TYPE], sparse=True)
        return {i for e in reveals if isinstance(e.data, EventsRevealed) for i in e.data.event_ids}

    def player_events(
        self, campaign: CampaignRow | None = None, *, session: int | None = None
    ) -> Iterator[StoredEvent]:
        """The campaign's events (of one session) as the players may see them: every output of
        the players' view is made from this stream alone (``tracker.projections.player``)."""
        row = campaign or self.campaign()
        revealed = self.revealed(row)
        events = self.store.read(row.campaign_id, session_id=session)
        if session is None:
            return player_stream(events, revealed)
        first = next(events, None)
        if first is None:
            return iter(())
        # The event just before the session decides whether the hash its first one follows
        # may be shown, and whether that first one is an older answer to a secret roll.
        before = self.store.read(
            row.campaign_id, after_version=first.version - 2, until_version=first.version - 1
        )
        stream = player_stream(
            chain(before, [first], events),
            revealed,
            self._secret_before(row, revealed, first.version - 2),
        )
        return (e for e in stream if e.version >= first.version)

    def amended(
        self, campaign: CampaignRow | None = None, *, player_view: bool = False
    ) -> dict[str, str]:
        """The outcome each roll ended with where a later event changed it (a buy-up), by the
        roll's event id (``tracker.projections.rolls.amended``): read through the type index,
        so every view of a roll can say it without a second pass over the log. In the
        players' view, from their stream: a change they were not shown changed nothing they
        know."""
        from tracker.projections.rolls import amended, amending_types

        row = campaign or self.campaign()
        events: Iterable[StoredEvent] = self.store.read(
            row.campaign_id, types=amending_types(), sparse=True
        )
        if player_view:
            events = player_stream(events, self.revealed(row))
        return amended(events, self.state(row).revoked)

    def _secret_before(
        self, row: CampaignRow, revealed: set[str], until_version: int
    ) -> Callable[[str], bool]:
        """Whether an event (by id) at or before ``until_version`` is a secret the players were
        not shown: what a players' stream that starts after it asks of an older answer."""

        def secret(ident: str) -> bool:
            try:
                event = self.store.find_event(row.campaign_id, ident)
            except (NotFound, BadInput):
                return False
            return (
                event.version <= until_version
                and event.visibility == "gm"
                and event.event_id not in revealed
            )

        return secret

    def player_stream_from(
        self,
        campaign: CampaignRow,
        after_version: int,
        revealed: set[str] | None = None,
        *,
        until_version: int | None = None,
    ) -> Iterator[StoredEvent]:
        """The players' stream of the events after ``after_version`` (up to ``until_version``):
        what a follower that has seen up to there reads next."""
        if revealed is None:
            revealed = self.revealed(campaign)
        events = self.store.read(
            campaign.campaign_id, after_version=after_version, until_version=until_version
        )
        return player_stream(
            events, revealed, self._secret_before(campaign, revealed, after_version)
        )

    def players_see(self, state: CampaignState, character_id: str, condition: str) -> bool:
        """Whether the players' own view, at ``state``'s version, shows the condition on the
        character: clearing one a secret event set must not tell them it was there."""
        players = self.player_state(until_version=state.version)
        ch = players.characters.get(character_id)
        return ch is not None and condition in ch.conditions

    def player_state(
        self, campaign: CampaignRow | None = None, *, until_version: int | None = None
    ) -> CampaignState:
        """The campaign as the players know it (up to ``until_version``): the fold of their
        stream, where a sealed event changes nothing.

        It starts from the players' newest stored state that still agrees (``StateLoader.
        players_base``), so asking at a long campaign's table reads the evening, not the log.
        A fold to the head that read ``SNAPSHOT_EVERY`` events or more is stored for the next,
        with the players' state as the running session began when the fold passed it (their
        replay of the session starts there)."""
        row = campaign or self.campaign()
        try:
            return self._player_state(row, until_version)
        except CACHE_ERRORS:
            self.loader.forget(row)
            return self._player_state(row, until_version)

    def _player_state(self, row: CampaignRow, until_version: int | None) -> CampaignState:
        gm = self.state(row)
        revealed = self.revealed(row)
        # The undos are public: which events are in force is the GM's state's answer.
        walk = self.loader.players_base(row, gm.revoked, revealed, until_version)
        if walk is None:
            walk = refold_state(row.campaign_id, gm.revoked)
        else:
            walk.revoked = set(gm.revoked)
            walk.fixed_revoked = True
        start = walk.version
        stream = self.player_stream_from(row, start, revealed, until_version=until_version)
        began: list[tuple[dict, str]] = []
        if until_version is None and gm.current_session is not None:
            span = self.store.session_span(row.campaign_id, gm.current_session)
            if span is not None and span[0] > start + 1:
                stream = self._noting_before(stream, walk, span[0], began)
        state = fold(stream, row.campaign_id, walk)
        # Stored only folded to the head the GM's state read, whose hash is known.
        if until_version is None and state.version - start >= SNAPSHOT_EVERY:
            if state.version == gm.version:
                self.loader.save_players(to_snapshot(state), gm.head_hash, revealed)
            for doc, head_hash in began:
                self.loader.save_players(doc, head_hash, revealed, PLAYERS_SESSION_SNAPSHOT)
        return state

    def _noting_before(
        self,
        events: Iterator[StoredEvent],
        walk: CampaignState,
        first: int,
        began: list[tuple[dict, str]],
    ) -> Iterator[StoredEvent]:
        """``events`` as they are folded into ``walk``, noting in ``began`` the state (and the
        hash of the event it was folded to) just before the event numbered ``first``."""
        last_hash = None
        for event in events:
            if event.version == first and walk.version == first - 1 and last_hash is not None:
                # Copied whole: the fold goes on changing the state after this.
                began.append((copy.deepcopy(to_snapshot(walk)), last_hash))
            last_hash = event.hash
            yield event

    # -- logging ---------------------------------------------------------------------------------

    def decide_and_append(
        self, decide: Decide
    ) -> tuple[CampaignState, list[StoredEvent], Decision]:
        """Decide on the campaign's freshest state and append what was decided."""
        return self.appender.append(self.campaign(), decide)

    def play(self, decide: Decide, *, at_table: str | None = None) -> Logged:
        """Decide and append, then say which obligations the events opened and discharged.

        ``at_table`` names play that only happens in a running session ("rolling"): it is
        refused between sessions, once what was asked is known to be otherwise sound.
        """
        owed_before: dict[str, tuple[Obligation, str]] = {}

        def deciding(state: CampaignState) -> Decision:
            owed_before.clear()
            # Each with its severity: folding the new events changes an obligation in place (its
            # severity, and its discharge). A copy of each, per command, was a shell roll's
            # largest cost in a campaign with many open.
            owed_before.update({k: (o, o.severity) for k, o in state.obligations.items()})
            decision = decide(state)
            if at_table is not None:
                require_session(state, at_table)
            return decision

        state, stored, decision = self.decide_and_append(deciding)
        return logged(state, stored, decision, owed_before)
