"""A session's recap: the GM's notes, the rolls, luck against the odds, what changed for each
character, and what was still owed when it ended, as one document.

The document is made once, here, in the view asked for; the command line writes it as Markdown,
HTML or JSON, and a page can show the same document. The players' recap is made from their
stream alone (``Table.player_events``, through ``History.walk``): a secret event the GM has not
revealed is a sealed roll in it and changes nothing it shows, exactly as their log, replay and
exports show it. Nothing here looks at a secret event to decide what to leave out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from tracker.app.campaigns import Campaigns
from tracker.app.history import History, readings
from tracker.app.table import Table
from tracker.events import StoredEvent
from tracker.events.catalog import CharacterAdded, CharacterUpdated, SessionEnded, SessionStarted
from tracker.events.play import NoteAdded
from tracker.projections.campaign import CampaignState, Obligation
from tracker.projections.player import SEALED_TYPE, player_stream
from tracker.systems.base import RuleSystem
from tracker.systems.capabilities import OwnWords, able

if TYPE_CHECKING:
    # The rolls' projection is loaded when a recap is made, not with every command.
    from tracker.projections.rolls import RollRow

# The reading every state has that is not a track of anyone's: what is owed is said in full.
OWED_COUNT = "obligations"


class RecapSession(msgspec.Struct, frozen=True):
    """The session recapped: its number, title, and when it began and ended (UTC, ISO 8601);
    ``ended_at`` None while it runs."""

    number: int
    title: str | None
    started_at: str
    ended_at: str | None


class RecapNote(msgspec.Struct, frozen=True):
    """A line of narrative the GM logged (``tracker note``), where it stands in the log."""

    version: int
    time: str
    text: str


class RecapRoll(msgspec.Struct, frozen=True):
    """One roll of the session as the view shows it (a contest gives one per side).

    ``sealed``: a secret event the players have not been shown (a secret roll, or what one led
    to, which reads the same): only who it was for and when; every field about it is empty.
    ``secret``: rolled in secret and shown whole (the GM's view, or revealed since). ``tone``
    is how its system reads the outcome ("good", "mixed", "bad"); ``chance`` the exact chance of
    success it had; ``verdict``, ``detail`` and ``lead`` what its system says of it beyond the
    outcome (``RollFacts``: "success by 3", "+3"; Glintlock's position), if anything."""

    version: int
    time: str
    character: str | None
    kind: str
    sealed: bool
    secret: bool
    trait: str | None = None
    effective: int | None = None
    modifiers: str = ""
    dice: tuple[int, ...] = ()
    kept: int | None = None
    outcome: str | None = None
    tone: str | None = None
    verdict: str = ""
    detail: str = ""
    lead: str = ""
    effects: str = ""
    chance: float | None = None
    bought_up_from: str | None = None


class RecapLuck(msgspec.Struct, frozen=True):
    """A character's luck in the session: successes against the number the exact odds
    predicted for those very rolls (the figure the live page and the report show), and that
    said in words."""

    character: str
    rolls: int
    successes: int
    expected: float
    luck: float
    words: str


class TrackChange(msgspec.Struct, frozen=True):
    """A track as the session found it (after its start) and left it; None where it was not
    there (a character added during the session)."""

    track: str
    before: Any
    after: Any


class RecapChanges(msgspec.Struct, frozen=True):
    """What the session changed for one character (``character`` None: the campaign's own
    tracks), each track by the name its system shows it with, and what it left on the sheet
    (a trait gained, a lasting consequence)."""

    character: str | None
    tracks: tuple[TrackChange, ...]
    lasting: tuple[str, ...] = ()


class RecapObligation(msgspec.Struct, frozen=True):
    """Something the rules still said was owed as the session ended."""

    id: str
    what: str
    severity: str
    character: str | None


class Recap(msgspec.Struct, frozen=True):
    """A session's recap in one view (``view``: "players" or "gm").

    ``owed`` is what was still open at the session's end (now, while it runs); ``lapsed`` what
    its end closed unmet. ``detail_column`` is the heading the campaign's system gives a roll's
    detail (``RecapRoll.detail``); ``log_head`` the hash of the log's last
    event as the view may show it (empty when withheld), and ``log_version`` its number."""

    campaign: str
    system: str
    system_title: str
    detail_column: str
    view: Literal["players", "gm"]
    session: RecapSession
    notes: tuple[RecapNote, ...]
    rolls: tuple[RecapRoll, ...]
    luck: tuple[RecapLuck, ...]
    changes: tuple[RecapChanges, ...]
    owed: tuple[RecapObligation, ...]
    lapsed: tuple[RecapObligation, ...]
    log_version: int
    log_head: str

    @property
    def player_view(self) -> bool:
        return self.view == "players"

    @property
    def sealed(self) -> int:
        """The secret events the players' view shows only as having happened: secret rolls and
        what they led to (a trait a secret Fright Check cost), alike once sealed."""
        return sum(r.sealed for r in self.rolls)

    @property
    def rolls_shown(self) -> int:
        """The rolls the view shows as rolls: all of the session's in the GM's view; in the
        players', those not sealed (a sealed event may be no roll, so it is not counted)."""
        return len(self.rolls) - self.sealed

    def to_dict(self) -> dict[str, Any]:
        return msgspec.to_builtins(self)


def luck_words(successes: int, rolls: int, expected: float) -> str:
    """A character's luck said plainly: the successes, the rolls, what the odds predicted, and
    how far above or below that the dice fell."""
    said = f"{successes} {'success' if successes == 1 else 'successes'} in {rolls} "
    said += f"{'roll' if rolls == 1 else 'rolls'}, where the exact odds predicted {expected:.1f}"
    luck = successes - expected
    if abs(luck) < 0.05:
        return said + ": right at the odds"
    side = "above" if luck > 0 else "below"
    many = "success" if f"{abs(luck):.1f}" == "1.0" else "successes"
    return said + f": {abs(luck):.1f} {many} {side} the odds"


class Recaps:
    """The recap of a session, in the players' view or the GM's."""

    def __init__(self, table: Table, campaigns: Campaigns, history: History) -> None:
        self.table = table
        self.campaigns = campaigns
        self.history = history

    def recap(self, session: int | None = None, *, player_view: bool = True) -> Recap:
        """Session ``session`` (the running or last one when None) recapped in one view; a
        session never held is refused with the sentence that says where to find them."""
        walked = self.history.walk(session, player_view=player_view)
        state, number, walk = walked.state, walked.number, walked.walk
        rules = state.rules
        info = self.campaigns.session_info(number)
        events: list[StoredEvent] = []
        notes: list[RecapNote] = []
        start: dict[tuple[str | None, str], Any] | None = None
        lasting_start: dict[str, tuple[str, ...]] = {}
        lapsed: list[RecapObligation] = []
        for line in walked.lines:
            event = line.event
            if line.revoked:
                continue
            events.append(event)
            data = event.data
            if isinstance(data, SessionStarted) and start is None:
                start = readings(walk)
                lasting_start = _lasting(walk)
            elif isinstance(data, NoteAdded):
                notes.append(RecapNote(event.version, event.recorded_at, data.text))
            elif isinstance(data, SessionEnded):
                # What the end closed in the view's own fold: an obligation a sealed event
                # opened was never in the players' walk, so its lapse is not theirs either.
                lapsed = _listed(
                    walk, [o for o in walk.discharged if o.discharged_by == event.event_id]
                )
        owed = _listed(walk, sorted(walk.obligations.values(), key=lambda o: o.opened_version))
        if start is None:
            start = {}
        rows = self._rolls(state, number, events, player_view)
        return Recap(
            campaign=state.name,
            system=state.system,
            system_title=rules.title,
            detail_column=able(rules, OwnWords).detail_column,
            view="players" if player_view else "gm",
            session=RecapSession(
                number,
                info.title if info else None,
                info.started_at if info else "",
                info.ended_at if info else None,
            ),
            notes=tuple(notes),
            rolls=tuple(_roll(r, rules) for r in rows),
            luck=_luck(rows, rules),
            changes=_changes(start, readings(walk), lasting_start, _lasting(walk)),
            owed=tuple(owed),
            lapsed=tuple(lapsed),
            log_version=state.version,
            log_head=(self.table.player_state() if player_view else state).head_hash or "",
        )

    def _rolls(
        self, state: CampaignState, number: int, events: list[StoredEvent], player_view: bool
    ) -> list[RollRow]:
        """The session's rolls in force, as the roll history reads them in the view: a sealed
        event of any kind is one row, "a secret roll", as in the players' exports."""
        from tracker.projections.rolls import roll_rows, row_sources

        wanted = {*row_sources(), SEALED_TYPE}
        # The rows need each character's name and sheet, from before the session too; in the
        # players' view as their stream holds them.
        named: Iterable[StoredEvent] = self.table.store.read(
            state.campaign_id, types=[CharacterAdded.TYPE, CharacterUpdated.TYPE], sparse=True
        )
        if player_view:
            named = _sheets(player_stream(named, self.table.revealed(self.table.campaign())))
        bought = self.table.amended(player_view=player_view)
        stream = chain(named, (e for e in events if e.type in wanted))
        rows = roll_rows(_once(stream), state.rules, state.revoked, bought)
        return [r for r in rows if r.session == number and not r.revoked]


def _sheets(events: Iterable[StoredEvent]) -> Iterator[StoredEvent]:
    """The characters' sheets a stream holds whole (a sealed event is no sheet)."""
    return (e for e in events if e.type in (CharacterAdded.TYPE, CharacterUpdated.TYPE))


def _once(events: Iterable[StoredEvent]) -> Iterator[StoredEvent]:
    """Each event once: a sheet of the session is read with the sheets and with the session."""
    seen: set[str] = set()
    for event in events:
        if event.event_id not in seen:
            seen.add(event.event_id)
            yield event


def _roll(row: RollRow, rules: RuleSystem) -> RecapRoll:
    if row.sealed:
        return RecapRoll(row.version, row.time, row.character, "secret", True, True)
    return RecapRoll(
        version=row.version,
        time=row.time,
        character=row.character,
        kind=row.kind,
        sealed=False,
        secret=row.secret,
        trait=row.trait,
        effective=row.effective,
        modifiers=row.modifiers,
        dice=tuple(row.dice),
        kept=row.kept,
        outcome=row.outcome,
        tone=rules.tone(row.outcome) if row.outcome else None,
        verdict=row.verdict,
        detail=row.detail,
        lead=row.lead,
        effects=row.effects,
        chance=None if row.p_success is None else float(row.p_success),
        bought_up_from=row.bought_up_from,
    )


def _luck(rows: list[RollRow], rules: RuleSystem) -> tuple[RecapLuck, ...]:
    from tracker.projections.rolls import luck

    found = luck([r for r in rows if not r.sealed], rules)
    out = []
    for name, c in found.characters.items():
        expected = float(c.expected)
        out.append(
            RecapLuck(
                name,
                c.rolls,
                c.successes,
                expected,
                c.luck,
                luck_words(c.successes, c.rolls, expected),
            )
        )
    return tuple(out)


def _lasting(state: CampaignState) -> dict[str, tuple[str, ...]]:
    """What play has left on each character's sheet, in words: traits gained, scores changed,
    and what the system says of its own (``Folding.sheet_lines``)."""
    rules = state.rules
    out = {}
    for ch in state.characters.values():
        said = [_gained(g["kind"], g["name"]) for g in ch.traits_gained]
        said += [f"{stat} {delta:+d}" for stat, delta in ch.stat_changes.items() if delta]
        said += [line.strip() for line in rules.folding.sheet_lines(ch)]
        out[ch.name] = tuple(said)
    return out


def _gained(kind: str, name: str) -> str:
    """A trait gained, named with its kind unless its name says it ("Quirk: hums")."""
    return name if name.casefold().startswith(kind.casefold()) else f"{kind}: {name}"


def _changes(
    before: dict[tuple[str | None, str], Any],
    after: dict[tuple[str | None, str], Any],
    lasting_before: dict[str, tuple[str, ...]],
    lasting_after: dict[str, tuple[str, ...]],
) -> tuple[RecapChanges, ...]:
    """Each character's tracks that the session left other than it found them (the campaign's
    own first), and what it newly left on their sheets."""
    tracks: dict[str | None, list[TrackChange]] = {None: []}
    for (who, track), value in after.items():
        if track == OWED_COUNT and who is None:
            continue
        if before.get((who, track)) != value:
            tracks.setdefault(who, []).append(TrackChange(track, before.get((who, track)), value))
    out = []
    for who in dict.fromkeys([None, *tracks, *lasting_after]):
        had = lasting_before.get(who or "", ())
        new = tuple(s for s in lasting_after.get(who or "", ()) if s not in had)
        if tracks.get(who) or new:
            out.append(RecapChanges(who, tuple(tracks.get(who, ())), new))
    return tuple(out)


def _listed(state: CampaignState, obligations: list[Obligation]) -> list[RecapObligation]:
    names = {c.character_id: c.name for c in state.characters.values()}
    return [
        RecapObligation(o.id, o.what, o.severity, names.get(o.character_id or ""))
        for o in obligations
    ]
