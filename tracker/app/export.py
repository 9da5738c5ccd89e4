"""Exports and import: the roll history (CSV, JSON lines, an HTML report), the whole log as JSON
lines, and reading that log back into an empty database exactly as it was."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from tracker.app.campaigns import Campaigns
from tracker.app.checks import LogCheck
from tracker.app.loading import CAMPAIGN_SNAPSHOT, SESSION_SNAPSHOT
from tracker.app.progress import metered
from tracker.app.table import CURRENT, Table
from tracker.errors import BadInput, Refused
from tracker.events import StoredEvent
from tracker.events.catalog import CampaignCreated, SessionStarted, Unreadable
from tracker.events.envelope import GENESIS_HASH
from tracker.events.play import EventsRevealed, EventsRevoked
from tracker.projections.campaign import (
    NAMING_TYPES,
    NOT_UNDOABLE,
    UNDO_TYPES,
    CampaignState,
    Character,
    ReferenceCheck,
    apply,
    fold,
    refold_state,
)
from tracker.systems.base import Feature, RuleSystem
from tracker.systems.capabilities import OwnWords, able
from tracker.systems.registry import UnknownSystem
from tracker.words import reads_as

if TYPE_CHECKING:
    from tracker.projections.rolls import RollRow

EXPORT_FORMAT = "tracker-events/1"


@dataclass(frozen=True, slots=True)
class RollFilter:
    session: int | None = None
    character: str | None = None
    since: str | None = None
    until: str | None = None

    def keep(self, row: RollRow) -> bool:
        return self.keeps(row.session, row.character, row.time)

    def keeps(self, session: int | None, character: str | None, time: str) -> bool:
        """Whether a roll of ``session`` by ``character`` at ``time`` passes."""
        if self.session is not None and session != self.session:
            return False
        if self.character and (character or "").casefold() != self.character.casefold():
            return False
        if self.since and time < self.since:
            return False
        return not (self.until and time > self.until)


def utc_stamp(text: str | None, option: str) -> str | None:
    """A GM's local date or time as the UTC stamp events carry, for --since and --until."""
    if text is None:
        return None
    import pendulum

    try:
        moment = pendulum.parse(text, tz=pendulum.local_timezone())
    except (ValueError, pendulum.parsing.exceptions.ParserError):
        raise BadInput(
            f"{option} takes a date or time, not {text!r}; give one like {option} 2026-11-29 or "
            f"{option} '2026-11-29 21:30'."
        ) from None
    return moment.in_timezone("UTC").format("YYYY-MM-DDTHH:mm:ss.SSSSSSZ")


class Exports:
    """The roll history's exports and report, the whole log's export, and import."""

    def __init__(self, table: Table, campaigns: Campaigns) -> None:
        self.table = table
        self.campaigns = campaigns

    def roll_rows(
        self, flt: RollFilter, *, player_view: bool = False
    ) -> tuple[CampaignState, Iterator[RollRow]]:
        """The campaign's rolls that pass ``flt``, streamed, with the state (for the head); in
        the players' view, made from their stream (``Table.player_events``) alone."""
        from tracker.projections.rolls import roll_rows

        state, flt, events, bought = self._rolls(flt, player_view)
        rows = roll_rows(events, state.rules, state.revoked, bought)
        return state, (r for r in rows if flt.keep(r))

    def csv_rows(
        self, flt: RollFilter, *, player_view: bool = False
    ) -> tuple[CampaignState, Iterator[list[Any]]]:
        """``roll_rows`` as the CSV export's cells, the log's head last, made without building
        the rows (``tracker.projections.rolls.csv_rows``), with the state."""
        from tracker.projections.rolls import csv_rows

        state, flt, events, bought = self._rolls(flt, player_view)
        rows = csv_rows(
            events,
            state.rules,
            state.head_hash,
            revoked=state.revoked,
            bought=bought,
            keep=flt.keeps if flt != RollFilter() else None,
        )
        return state, rows

    def _rolls(
        self, flt: RollFilter, player_view: bool
    ) -> tuple[CampaignState, RollFilter, Iterator[StoredEvent], dict[str, str]]:
        """What the rolls' exports read: the state, ``flt`` with its character named as the
        campaign names them, the events rolls are made from, and the buy-ups."""
        state = self.table.player_state() if player_view else self.table.state()
        flt = self._named(flt, state)
        if flt.session is not None and self.campaigns.session_info(flt.session) is None:
            raise Refused(f"No session {flt.session}; `tracker session list` shows them.")
        from tracker.projections.player import SEALED_TYPE
        from tracker.projections.rolls import row_sources

        label = f"Exporting {state.name}'s rolls"
        if player_view:
            wanted = set(row_sources())
            # A secret event of any kind is one row, "a secret roll": its kind is not shown.
            wanted.add(SEALED_TYPE)
            stream = metered(self.table.player_events(), self.table.meter, label, state.version)
            events = (e for e in stream if e.type in wanted)
        else:
            events = self.table.store.read(state.campaign_id, types=row_sources())
            if self.table.meter is not None:
                total = self.table.store.count(state.campaign_id, row_sources())
                events = metered(events, self.table.meter, label, total)
        return state, flt, events, self.table.amended(player_view=player_view)

    def _named(self, flt: RollFilter, state: CampaignState) -> RollFilter:
        """``flt`` with its character named as the campaign names them (found however the GM
        typed the name, or by its start), or the unknown-character sentence."""
        if not flt.character:
            return flt
        found = self.table.character(flt.character, state, retired_ok=True)
        return dataclasses.replace(flt, character=found.name)

    def roll_report(self, flt: RollFilter, *, player_view: bool = False) -> dict[str, Any]:
        """Everything the HTML report shows: the rows, the luck against exact odds, and the
        tracks over time (stress, HP, FP, and the system's own) after each roll."""
        from tracker.projections.rolls import luck

        state = self.table.player_state() if player_view else self.table.state()
        flt = self._named(flt, state)
        rules = state.rules
        rows: list[RollRow] = []
        tracks: dict[str, list[dict[str, Any]]] = {}
        shared: list[dict[str, Any]] = []
        for row, replay in self._replayed(state, player_view):
            if not flt.keep(row):
                continue
            rows.append(row)
            if row.revoked or row.sealed:
                continue
            for ch in replay.characters.values():
                if flt.character and ch.name.casefold() != flt.character.casefold():
                    continue
                tracks.setdefault(ch.name, []).append(_track_point(rules, replay, ch, row))
            # The campaign's own tracks, where its system keeps any.
            kept = rules.folding.chart(replay, None, {})
            if kept:
                shared.append({"version": row.version, "time": row.time, **kept})
        summary = luck([r for r in rows if not r.sealed], rules)
        return {
            "campaign": state.name,
            "system": state.system,
            "system_title": rules.title,
            "has_stress": rules.has(Feature.STRESS),
            "detail_column": able(rules, OwnWords).detail_column,
            "tones": dict(rules.outcome_tones),
            "log_head": state.head_hash,
            "log_version": state.version,
            "filters": {
                "session": flt.session,
                "character": flt.character,
                "since": flt.since,
                "until": flt.until,
                "player_view": player_view,
            },
            "rows": [r.to_dict(player_view) for r in rows],
            "luck": summary.to_dict(),
            "trails": {name: c.trail.tolist() for name, c in summary.characters.items()},
            "tracks": tracks,
            "shared": shared,
        }

    def _replayed(
        self, state: CampaignState, player_view: bool
    ) -> Iterator[tuple[RollRow, CampaignState]]:
        """Every roll row of the campaign, each with the campaign replayed up to it. In the
        players' view, their stream: the tracks after each roll are what they saw, and a
        sealed roll changed none of them."""
        from tracker.projections.rolls import roll_rows

        replay = CampaignState(state.campaign_id)
        replay.revoked = set(state.revoked)
        replay.fixed_revoked = True
        events = metered(
            self.table.player_events() if player_view else self.table.store.read(state.campaign_id),
            self.table.meter,
            f"Reporting {state.name}'s rolls",
            state.version,
        )

        def tap(stream: Iterator[StoredEvent]) -> Iterator[StoredEvent]:
            for event in stream:
                apply(replay, event)
                yield event

        bought = self.table.amended(player_view=player_view)
        for row in roll_rows(tap(events), state.rules, state.revoked, bought):
            yield row, replay

    def export_events(self, out: TextIO) -> dict[str, Any]:
        """Write every campaign's log as JSON lines: a header, then each event in position order."""
        store = self.table.store
        heads = {row.campaign_id: store.head(row.campaign_id).hash for row in store.campaigns()}
        header = {"format": EXPORT_FORMAT, "campaigns": heads, "events": store.count()}
        out.write(json.dumps(header) + "\n")
        written = 0
        for event in metered(store.read_all(), self.table.meter, "Exporting", header["events"]):
            out.write(json.dumps(event.to_dict(), ensure_ascii=False, separators=(",", ":")))
            out.write("\n")
            written += 1
        return {"events": written, "campaigns": heads}

    def import_events(self, lines: Iterable[str | bytes], source: str) -> dict[str, Any]:
        """Read an events export into this (empty) database; nothing is committed until all of
        it checks out.

        Every line is read as strict UTF-8 within bounds, parsed and upcast; every event must
        follow the one before it in its campaign's chain, and be one the rules would have
        logged in the campaign folded up to it (its undos known from a first read of the file);
        the header's count and heads must be what the file holds, so a file cut short at a line
        is refused. The first problem is named with its line, and the database is left as it
        was.
        """
        if self.table.store.campaigns():
            raise Refused(
                "This database already holds campaigns; import into a new one (--db NEW.db)."
            )
        with _rewindable(lines) as handle:
            header = _header(next(iter(handle), b""), source)
            revoked, last_starts, named = _first_read(handle)
            handle.seek(0)
            next(iter(handle), None)
            check = _ImportCheck(source, revoked, header, last_starts, named)
            numbered = _numbered(handle, source)
            total = header["events"] if isinstance(header.get("events"), int) else 0
            numbered = metered(numbered, self.table.meter, "Importing", total)
            try:
                imported = self.table.store.import_events(check.events(numbered))
            except self.table.store.backend.integrity:
                # An id a line repeats: the database's keys hold each once.
                raise BadInput(
                    f"{source} holds an event or a campaign twice (its id repeats) and nothing "
                    "was imported; the file was changed since its export, so export it again "
                    "from the source database."
                ) from None
        # Each campaign folded as it was checked: stored as its snapshot, so the first command
        # after an import answers as fast as any other. A campaign whose rule system is not
        # installed here is folded (and told so) when a command asks for it.
        # Something to play at once: the export's first campaign, as `campaign new` would.
        rows = self.table.store.campaigns()
        if rows and self.table.store.get_setting(CURRENT) is None:
            self.table.store.set_setting(CURRENT, rows[0].campaign_id)
        for cid, folded in check.checks.items():
            # The state as the last session began too, as `session start` stores it: undo,
            # redo, a replay of that session and a look back into it start there.
            starts = check.session_starts.get(cid)
            for state, name in ((starts, SESSION_SNAPSHOT), (folded.walk, CAMPAIGN_SNAPSHOT)):
                if state is not None:
                    state.fixed_revoked = False
                    state.needs_refold = False
                    self.table.loader.save(state, name)
        current = self.table.store.get_setting(CURRENT)
        playing = next((r.name for r in rows if r.campaign_id == current), None)
        return {"events": imported, "campaigns": header["campaigns"], "current": playing}


def _track_point(
    rules: RuleSystem, replay: CampaignState, ch: Character, row: RollRow
) -> dict[str, Any]:
    """A character's tracks after a roll, as the report charts them: stress, HP and FP where
    the sheet has them, and what else the rule system charts."""
    point = {"version": row.version, "time": row.time, "stress": ch.stress}
    if ch.hp is not None:
        point["hp"] = ch.hp
    if ch.fp is not None:
        point["fp"] = ch.fp
    return rules.folding.chart(replay, ch, point)


@contextlib.contextmanager
def _rewindable(lines: Iterable[str | bytes]) -> Iterator[Any]:
    """``lines`` as a file that can be read twice: itself when it can seek, else a copy."""
    seekable = getattr(lines, "seekable", None)
    if seekable is not None and seekable():
        yield lines
        return
    with tempfile.TemporaryFile() as copy:
        for line in lines:
            copy.write(line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line)
        copy.seek(0)
        yield copy


def _header(first: str | bytes, source: str) -> dict[str, Any]:
    try:
        header = json.loads(first)
    except (ValueError, RecursionError):
        header = None
    if not isinstance(header, dict) or header.get("format") != EXPORT_FORMAT:
        raise BadInput(
            f"{source} is not a tracker events export (its first line says so); make one with "
            "`tracker export events -o FILE`."
        )
    heads, count = header.get("campaigns"), header.get("events")
    if not isinstance(heads, dict) or type(count) is not int:
        raise BadInput(
            f"{source}'s first line does not name its events and heads, so it is damaged and "
            "nothing was imported; export it again from the source database."
        )
    return header


def _numbered(handle: Iterable[str | bytes], source: str) -> Iterator[tuple[int, StoredEvent]]:
    """Each event of the file after its header, with its line number."""
    for number, line in enumerate(handle, start=2):
        if not line.strip():
            continue
        try:
            event = StoredEvent.from_export_line(line)
        except ValueError as exc:
            raise BadInput(
                f"{source} line {number} is not an event ({exc}) and nothing was imported; "
                "export it again, or restore the file from a backup."
            ) from None
        if isinstance(event.data, Unreadable):
            raise BadInput(
                f"{source} line {number} is no event this tracker can read "
                f"({event.data.reason}) and nothing was imported; upgrade tracker, or export "
                "it again."
            )
        yield number, event


def _first_read(
    handle: Iterable[str | bytes],
) -> tuple[dict[str, set[str]], dict[str, int], set[str]]:
    """The events each campaign's undos and redos leave revoked, the version of each
    campaign's last session start, and every event an undo or a reveal names, from a first read
    that parses only the lines naming an undo, a redo, a reveal or a session start (the second
    read names any line that is amiss)."""
    undos: dict[str, list[StoredEvent]] = {}
    starts: dict[str, int] = {}
    named: set[str] = set()
    for line in handle:
        marks = _MARKS[isinstance(line, bytes)]
        if not any(mark in line for mark in marks):
            continue
        try:
            event = StoredEvent.from_export_line(line)
        except ValueError:
            continue
        if isinstance(event.data, (EventsRevoked, EventsRevealed)):
            named.update(event.data.event_ids)
        if event.type in UNDO_TYPES:
            undos.setdefault(event.campaign_id, []).append(event)
        elif event.type == SessionStarted.TYPE:
            starts[event.campaign_id] = event.version
    return {cid: fold(found, cid).revoked for cid, found in undos.items()}, starts, named


_MARKS = {
    False: (*NAMING_TYPES, SessionStarted.TYPE),
    True: tuple(t.encode() for t in (*NAMING_TYPES, SessionStarted.TYPE)),
}


class _ImportCheck:
    """Checks an import's events as they go by, before the store commits any of them."""

    def __init__(
        self,
        source: str,
        revoked: dict[str, set[str]],
        header: dict[str, Any],
        last_starts: dict[str, int],
        named: set[str],
    ) -> None:
        self.source = source
        # The events undos and reveals name, and each campaign's undos, redos and reveals.
        self.named = named
        self.references: dict[str, ReferenceCheck] = {}
        # The campaigns' names so far, by how they read.
        self.names: dict[str, str] = {}
        self.revoked = revoked
        self.header = header
        self.last_starts = last_starts
        # Each campaign's state just before its last session started (``last_starts``), and the
        # revoked events each campaign's fold has passed over so far.
        self.session_starts: dict[str, CampaignState] = {}
        self.skipped: dict[str, set[str]] = {}
        self.checks: dict[str, LogCheck] = {}
        self.heads: dict[str, tuple[int, str]] = {}
        # Campaigns whose rule system is not installed here: their chains are checked, their
        # rules cannot be.
        self.unfolded: set[str] = set()

    def events(self, numbered: Iterable[tuple[int, StoredEvent]]) -> Iterator[StoredEvent]:
        count = 0
        for number, event in numbered:
            self.check(number, event)
            count += 1
            yield event
        self.finish(count)

    def check(self, number: int, event: StoredEvent) -> None:
        cid = event.campaign_id
        version, prev = self.heads.get(cid, (0, GENESIS_HASH))
        if event.version != version + 1 or event.prev_hash != prev:
            self.refuse(number, "does not follow the event before it in its campaign")
        self.heads[cid] = (event.version, event.hash)
        if isinstance(event.data, CampaignCreated) and event.version != 1:
            self.refuse(number, "creates its campaign a second time")
        references = self.references.get(cid)
        if references is None:
            references = self.references[cid] = ReferenceCheck(self.named)
        # Held whether or not the campaign's rules are here: a look back relies on it.
        problem = references(event)
        if problem is not None:
            self.refuse(number, f"is not an event tracker would have logged ({problem})")
        if cid in self.unfolded:
            return
        check = self.checks.get(cid)
        if check is None:
            if not isinstance(event.data, CampaignCreated):
                self.refuse(number, "begins a campaign with something else than its creation")
            # As `campaign new` refuses it: a name that reads as one taken.
            name, shown = event.data.name, reads_as(event.data.name)
            if shown in self.names:
                taken = self.names[shown]
                self.refuse(number, f"names a campaign {name!r}, read as {taken!r} before it")
            self.names[shown] = name
            check = self.checks[cid] = LogCheck(
                refold_state(cid, self.revoked.get(cid, ())), named=self.named
            )
        revoked = check.walk.revoked
        if event.version == self.last_starts.get(cid) and event.type == SessionStarted.TYPE:
            start = self.session_starts[cid] = check.walk.copy()
            # What it skipped so far, not what later undos revoke: a look back to before those
            # undos starts from it too.
            start.revoked = set(self.skipped.get(cid, ()))
        if event.event_id in revoked:
            if event.type in NOT_UNDOABLE:
                # Its undo is refused where it stands; folding without it goes wrong first.
                self.refuse(
                    number, f"is undone by a later line, yet no undo takes back a {event.type}"
                )
            self.skipped.setdefault(cid, set()).add(event.event_id)
        try:
            problem = check(event)
        except UnknownSystem:
            self.unfolded.add(cid)
            self.checks.pop(cid, None)
            return
        if problem is not None:
            self.refuse(number, f"is not an event tracker would have logged ({problem})")

    def finish(self, count: int) -> None:
        heads = {cid: digest for cid, (_, digest) in self.heads.items()}
        if count != self.header["events"] or heads != self.header["campaigns"]:
            raise BadInput(
                f"{self.source} holds {count:,} events but its first line names "
                f"{self.header['events']:,} and other heads, so it was cut short or added to and "
                "nothing was imported; export it again from the source database."
            )

    def refuse(self, number: int, why: str) -> NoReturn:
        raise BadInput(
            f"{self.source} line {number} {why} and nothing was imported; the file was changed "
            "since its export, so export it again from the source database."
        )
