"""Exports and import: the roll history (CSV, JSON lines, an HTML report), the whole log as JSON
lines, and reading that log back into an empty database exactly as it was."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from tracker.app.campaigns import Campaigns
from tracker.app.table import Table
from tracker.errors import BadInput, Refused, TrackerError
from tracker.events import StoredEvent
from tracker.events.catalog import Unreadable
from tracker.projections.campaign import CampaignState, apply
from tracker.systems.base import Feature

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
        if self.session is not None and row.session != self.session:
            return False
        if self.character and row.character.casefold() != self.character.casefold():
            return False
        if self.since and row.time < self.since:
            return False
        return not (self.until and row.time > self.until)


def utc_stamp(text: str | None, option: str) -> str | None:
    """A GM's local date or time as the UTC stamp events carry, for --since and --until."""
    if text is None:
        return None
    import pendulum

    try:
        moment = pendulum.parse(text, tz=pendulum.local_timezone())
    except (ValueError, pendulum.parsing.exceptions.ParserError):
        raise BadInput(
            f"{option} takes a date or time like 2026-11-29 or '2026-11-29 21:30'."
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
        state = self.table.player_state() if player_view else self.table.state()
        if flt.character and state.character(flt.character) is None:
            self.table.character(flt.character, state)  # the unknown-character sentence
        if flt.session is not None and self.campaigns.session_info(flt.session) is None:
            raise Refused(f"No session {flt.session}; `tracker session list` shows them.")
        from tracker.projections.rolls import ROW_SOURCES, roll_rows

        if player_view:
            wanted = set(ROW_SOURCES)
            events = (e for e in self.table.player_events() if e.type in wanted)
        else:
            events = self.table.store.read(state.campaign_id, types=ROW_SOURCES)
        rows = roll_rows(events, state.rules, state.revoked)
        return state, (r for r in rows if flt.keep(r))

    def roll_report(self, flt: RollFilter, *, player_view: bool = False) -> dict[str, Any]:
        """Everything the HTML report shows: the rows, the luck against exact odds, and the
        tracks over time (Mettle, Threat, stress, HP, FP) after each roll."""
        from tracker.projections.rolls import luck, roll_rows

        state = self.table.player_state() if player_view else self.table.state()
        if flt.character:
            self.table.character(flt.character, state)
        replay = CampaignState(state.campaign_id)
        replay.revoked = set(state.revoked)
        replay.fixed_revoked = True
        rows: list[RollRow] = []
        tracks: dict[str, list[dict[str, Any]]] = {}
        threat: list[dict[str, Any]] = []
        # In the players' view, their stream: the tracks after each roll are what they saw,
        # and a sealed roll changed none of them.
        events = (
            self.table.player_events() if player_view else self.table.store.read(state.campaign_id)
        )

        def tap(stream: Iterator[StoredEvent]) -> Iterator[StoredEvent]:
            for event in stream:
                apply(replay, event)
                yield event

        rules = state.rules
        for row in roll_rows(tap(events), rules, state.revoked):
            if not flt.keep(row):
                continue
            rows.append(row)
            if row.revoked or row.kind == "secret":
                continue
            for ch in replay.characters.values():
                if flt.character and ch.name.casefold() != flt.character.casefold():
                    continue
                point = {"version": row.version, "time": row.time, "stress": ch.stress}
                if rules.has(Feature.METTLE):
                    point["mettle"] = ch.mettle
                if ch.hp is not None:
                    point["hp"] = ch.hp
                if ch.fp is not None:
                    point["fp"] = ch.fp
                tracks.setdefault(ch.name, []).append(point)
            if rules.has(Feature.THREAT):
                threat.append({"version": row.version, "time": row.time, "threat": replay.threat})
        counted = [r for r in rows if not (player_view and r.secret)]
        summary = luck(counted, rules)
        return {
            "campaign": state.name,
            "system": state.system,
            "system_title": rules.title,
            "has_stress": rules.has(Feature.STRESS),
            "detail_column": rules.detail_column,
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
            "threat": threat,
        }

    def export_events(self, out: TextIO) -> dict[str, Any]:
        """Write every campaign's log as JSON lines: a header, then each event in position order."""
        store = self.table.store
        heads = {row.campaign_id: store.head(row.campaign_id).hash for row in store.campaigns()}
        header = {"format": EXPORT_FORMAT, "campaigns": heads, "events": store.count()}
        out.write(json.dumps(header) + "\n")
        written = 0
        for event in store.read_all():
            out.write(json.dumps(event.to_dict(), ensure_ascii=False, separators=(",", ":")))
            out.write("\n")
            written += 1
        return {"events": written, "campaigns": heads}

    def import_events(self, lines: Iterator[str], source: str) -> dict[str, Any]:
        """Read an events export into this (empty) database, checking every hash as it goes."""
        if self.table.store.campaigns():
            raise Refused(
                "This database already holds campaigns; import into a new one (--db NEW.db)."
            )
        first = next(lines, "")
        try:
            header = json.loads(first)
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("format") != EXPORT_FORMAT:
            raise BadInput(f"{source} is not a tracker events export (its first line says so).")
        imported = self.table.store.import_events(_parse_events(lines, source))
        # Fold each campaign once now, storing its snapshot, so the first command after an
        # import answers as fast as any other instead of folding the whole log itself. The
        # import is done by then: a campaign whose rule system is not installed here is folded
        # (and told so) when a command asks for it.
        for row in self.table.store.campaigns():
            with contextlib.suppress(TrackerError):
                self.table.state(row)
        return {"events": imported, "campaigns": header.get("campaigns", {})}


def _parse_events(lines: Iterator[str], source: str) -> Iterator[StoredEvent]:
    for number, line in enumerate(lines, start=2):
        if not line.strip():
            continue
        try:
            event = StoredEvent.from_export_line(line)
        except ValueError:
            raise BadInput(
                f"{source} line {number} is not an event; nothing was imported."
            ) from None
        if isinstance(event.data, Unreadable):
            raise BadInput(
                f"{source} line {number} is no event this tracker can read "
                f"({event.data.reason}); nothing was imported."
            )
        yield event
