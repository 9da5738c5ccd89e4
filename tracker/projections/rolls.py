"""Roll history: one row per roll, streamed from the log, and the luck in it against exact odds.

Every roll a character made (checks, contest sides, fright checks, project days) becomes a
``RollRow`` with the chance of success the exact odds gave that very roll. ``Luck`` then sums
successes against that expectation per character and session, and tests the die faces against
fair dice with a chi-square test: the dice rolled at the table apart from those tracker rolled,
and the table's dice also per person.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from tracker.errors import StorageError
from tracker.events import StoredEvent
from tracker.events.catalog import CharacterAdded, CharacterUpdated, types_of, types_where
from tracker.events.effects import Effect, TrackChange, effects_text
from tracker.events.play import RollAmended, RollMade
from tracker.projections.player import Sealed
from tracker.systems.base import RuleSystem
from tracker.systems.capabilities import OwnWords, SheetRules, able
from tracker.systems.dice import PHYSICAL, SOFTWARE, PhysicalDice

# The roll history's columns every system shares: these, then each installed system's own
# (``OwnWords.roll_columns``: GURPS's margin, Glintlock's position), then those after.
BEFORE_OWN = (
    "time",
    "session",
    "character",
    "system",
    "kind",
    "trait",
    "base",
    "modifiers",
    "effective",
    "dice",
    "dice_source",
    "kept",
    "outcome",
)
AFTER_OWN = (
    "effects",
    "revoked",
    "secret",
    "success",
    "p_success",
    "event_id",
    "version",
    "bought_up_from",
)


def own_columns() -> tuple[str, ...]:
    """Every installed system's own columns of the roll history, each once, in the systems'
    order: a roll of another system leaves them empty."""
    from tracker.systems import registry

    return _own_columns(registry.generation())


@cache
def _own_columns(generation: int) -> tuple[str, ...]:
    from tracker.systems import registry

    found: dict[str, None] = {}
    for system in registry.systems():
        found.update(dict.fromkeys(able(system, OwnWords).roll_columns))
    return tuple(found)


def columns() -> tuple[str, ...]:
    """The roll history's columns, as the CSV export heads them and a row's ``to_dict`` keys
    them."""
    return (*BEFORE_OWN, *own_columns(), *AFTER_OWN)


@cache
def rolled_types() -> frozenset[str]:
    """The events that roll dice, of every installed system (``EventPayload.rolls``)."""
    return frozenset(types_where(lambda cls: cls.rolls))


@cache
def row_sources() -> tuple[str, ...]:
    """What ``roll_rows`` reads: the events that roll dice, and who the characters are (and
    which of them keep HP and FP: a sheet update may add them)."""
    return ("CharacterAdded", "CharacterUpdated", *sorted(rolled_types()))


def rolls_in(data: Any) -> tuple[Any, ...]:
    """The rolls one stored event holds, for its system to read one by one: a roll and the
    rolls kept inside it (``RollMade.then``), or the event itself."""
    return data.with_followups() if isinstance(data, RollMade) else (data,)


# The tracks a roll's effect may move that a sheet need not have.
SHEET_TRACKS = ("hp", "fp")
SEALED_KIND = "secret"
# What a player view empties in a secret roll's row: it shows that the roll happened, no more.
SECRET_FIELDS = (
    "dice",
    "dice_source",
    "kept",
    "effective",
    "outcome",
    "success",
    "p_success",
    "effects",
    "base",
    "modifiers",
    "bought_up_from",
)


def amending_types() -> list[str]:
    """The stored types of the events that change a roll's outcome after it was rolled
    (``RollAmended``: a GURPS buy-up), of every installed system."""
    return types_of(RollAmended)


def amended(events: Iterable[StoredEvent], revoked: set[str]) -> dict[str, str]:
    """The outcome each roll ended with where a later event changed it (points bought it up,
    in GURPS), by the roll's event id: the last such event in force, since each steps on from
    where the one before left it. One the stream holds sealed (the players' view) changed
    nothing they know; an undone one, nothing at all."""
    out: dict[str, str] = {}
    for event in events:
        data = event.data
        if isinstance(data, RollAmended) and event.event_id not in revoked:
            out[data.roll_event_id] = data.to_outcome
    return out


@dataclass(frozen=True, slots=True)
class RollRow:
    event_id: str
    version: int
    time: str
    session: int | None
    character: str
    character_id: str | None
    system: str
    kind: str
    trait: str
    base: int | None
    modifiers: str
    effective: int | None
    dice: tuple[int, ...]
    # Where the dice came from, as the event recorded it: "physical", "system" or "seeded".
    dice_source: str | None
    faces: int
    kept: int | None
    outcome: str
    success: bool
    # The system's own: its columns' values, the outcome as a line says it, the recap's detail
    # and what a line says before the dice (``RollFacts``).
    columns: Any
    verdict: str
    detail: str
    lead: str
    effects: str
    revoked: bool
    secret: bool
    # What the exact odds are looked up by (``RuleSystem.chance``), and that chance.
    chance_key: Any
    p_success: Fraction | None
    # Where points bought the roll up, the outcome and success its dice gave: ``outcome`` and
    # ``success`` are what it ended with, while its luck is its dice's.
    rolled: tuple[str, bool] | None = None

    @property
    def bought_up_from(self) -> str | None:
        """The outcome the dice gave, where points bought the roll up to ``outcome``."""
        return None if self.rolled is None else self.rolled[0]

    @property
    def sealed(self) -> bool:
        """A secret roll as the players' view holds it before it is revealed: its frame."""
        return self.kind == SEALED_KIND

    def to_dict(self, player_view: bool = False) -> dict[str, Any]:
        """The row as exports write it; a secret roll in the player view keeps only its frame."""
        doc = {
            "time": self.time,
            "session": self.session,
            "character": self.character,
            "system": self.system,
            "kind": self.kind,
            "trait": self.trait,
            "base": self.base,
            "modifiers": self.modifiers,
            "effective": self.effective,
            "dice": list(self.dice),
            "dice_source": self.dice_source,
            "kept": self.kept,
            "outcome": self.outcome,
            **{name: self.columns.get(name) for name in own_columns()},
            "effects": self.effects,
            "revoked": self.revoked,
            "secret": self.secret,
            "success": self.success,
            "p_success": None if self.p_success is None else float(self.p_success),
            "event_id": self.event_id,
            "version": self.version,
            "bought_up_from": self.bought_up_from,
        }
        # The players' stream holds a secret roll whole only once the GM revealed it; until
        # then it is a sealed row, and only its frame is written.
        if player_view and self.sealed:
            for name in (*SECRET_FIELDS, *own_columns()):
                doc[name] = None
            doc["dice"] = []
        return doc


def unreadable_roll(event: StoredEvent, rules: RuleSystem, exc: Exception) -> StorageError:
    """The sentence for a stored roll its system cannot read (its document lacks a field)."""
    return StorageError(
        f"Event {event.version} ({event.event_id}) records a roll the {rules.title} rules cannot "
        f"read ({type(exc).__name__}: {exc}); `tracker verify` names it."
    )


# One roll as the log holds it, read by its system: the event, who rolled, the facts, where
# the dice came from, the outcome and success it ended with, and the outcome its dice gave
# where points bought it up (else None). A sealed roll (the players' view) has no facts.
Read = tuple[StoredEvent, str | None, Any, str | None, str | None, bool, str | None]


def _read(
    events: Iterable[StoredEvent],
    rules: RuleSystem,
    revoked: set[str],
    bought: dict[str, str],
) -> Iterator[Read]:
    """Every roll in the log, in order, as the campaign's system reads each (``roll_rows``)."""
    names: dict[str, str] = {}
    sheets: dict[str, dict[str, int]] = {}
    roll_facts = rules.roll_facts
    for event in events:
        data = event.data
        if type(data) is RollMade:
            # A roll, as most of what the export reads is: one roll, unless it keeps others.
            parts = data.with_followups() if data.then else (data,)
        elif isinstance(data, CharacterAdded):
            names[data.character_id] = data.name
            if event.event_id not in revoked:
                sheets[data.character_id] = dict(data.stats)
            continue
        elif isinstance(data, CharacterUpdated):
            if event.event_id not in revoked and data.character_id in sheets:
                sheets[data.character_id].update(data.stats)
            continue
        elif isinstance(data, Sealed):
            yield event, names.get(event.character_id or ""), None, None, None, False, None
            continue
        else:
            parts = rolls_in(data)
        try:
            rolled = []
            for part in parts:
                for facts in roll_facts(part):
                    rolled.append((part.dice_source, _applied(facts, part, sheets, rules)))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise unreadable_roll(event, rules, exc) from None
        # A buy-up names the roll's event and takes its roll, never a follow-up kept inside it.
        ended = bought.get(event.event_id) if bought and isinstance(data, RollMade) else None
        for i, (source, facts) in enumerate(rolled):
            name = facts.name if facts.name is not None else names.get(facts.character_id, "?")
            if i == 0 and ended is not None and ended != facts.outcome:
                # Every outcome that does not read as bad is a success (a weak hit, a
                # complication), and a buy-up only ever moves a roll up through them.
                yield event, name, facts, source, ended, rules.tone(ended) != "bad", facts.outcome
            else:
                yield event, name, facts, source, facts.outcome, facts.success, None


def roll_rows(
    events: Iterable[StoredEvent],
    rules: RuleSystem,
    revoked: set[str] | None = None,
    bought: dict[str, str] | None = None,
) -> Iterator[RollRow]:
    """Every roll in the log, in order, as the campaign's system reads each; ``revoked`` marks
    the ones an undo took back, and ``bought`` (``amended``, of the same view) gives the
    outcome a roll ended with where points bought it up later in the log."""
    revoked = revoked or set()
    for event, name, facts, source, outcome, success, before in _read(
        events, rules, revoked, bought or {}
    ):
        if facts is None:
            yield sealed_row(event, name, rules, revoked)
            continue
        key = facts.chance_key
        yield RollRow(
            event_id=event.event_id,
            version=event.version,
            time=event.recorded_at,
            session=event.session_id,
            character=name,
            character_id=facts.character_id,
            system=rules.name,
            kind=facts.kind,
            trait=facts.trait,
            base=facts.base,
            modifiers=facts.modifiers,
            effective=facts.effective,
            dice=facts.dice,
            dice_source=source,
            faces=facts.faces,
            kept=facts.kept,
            outcome=outcome,
            success=success,
            columns=facts.columns,
            verdict=facts.verdict,
            detail=facts.detail,
            lead=facts.lead,
            effects=facts.effects,
            revoked=event.event_id in revoked,
            secret=event.visibility == "gm",
            chance_key=key,
            p_success=None if key is None else rules.chance(key),
            rolled=None if before is None else (before, facts.success),
        )


# What a spreadsheet runs as a formula when a cell begins with it.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: str | None) -> str:
    """A text cell: empty for None; a leading quote, the usual guard, where a spreadsheet
    would run it as a formula ("=HYPERLINK(...)" in a name, "+1 Mettle")."""
    if not text:
        return ""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


class _Cells(dict):
    """Text cells already guarded, by their text: a roll's words (its kind, trait, modifiers,
    outcome, effects) are a few dozen sentences repeated over every roll of a campaign, so
    each is guarded once and then looked up. Only for text that repeats: an id would fill it."""

    def __missing__(self, text: str | None) -> str:
        cell = self[text] = _cell(text)
        return cell


def csv_rows(
    events: Iterable[StoredEvent],
    rules: RuleSystem,
    head: str | None,
    *,
    revoked: set[str] | None = None,
    bought: dict[str, str] | None = None,
    keep: Callable[[int | None, str | None, str], bool] | None = None,
) -> Iterator[list[Any]]:
    """The CSV export's rows (``columns()`` and the log's ``head`` last), made straight from
    each roll's facts: what ``roll_rows`` would give, written cell by cell, without building
    the rows. Empty for None; numbers stay numbers, and only text cells are guarded against
    spreadsheet formulas. ``keep`` takes a roll's session, character and time; a sealed roll
    (the players' view) keeps only its frame."""
    revoked = revoked or set()
    system = _cell(rules.name)
    tail = _cell(head)
    chances: dict[Any, float] = {}
    chance = rules.chance
    cell = _Cells()
    # The dice's cell by the dice: a campaign's rolls show a few hundred falls in all.
    dice_cells: dict[tuple[int, ...], str] = {}
    own = own_columns()
    for event, name, facts, source, outcome, success, before in _read(
        events, rules, revoked, bought or {}
    ):
        session = event.session_id
        at = event.recorded_at
        if keep is not None and not keep(session, name, at):
            continue
        time = _cell(at)
        if facts is None:
            yield [
                time,
                "" if session is None else session,
                cell[name],
                system,
                SEALED_KIND,
                *("",) * (9 + len(own)),
                event.event_id in revoked,
                True,
                "",
                "",
                _cell(event.event_id),
                event.version,
                "",
                tail,
            ]
            continue
        key = facts.chance_key
        if key is None:
            p_success: Any = ""
        else:
            p_success = chances.get(key)
            if p_success is None:
                p_success = chances[key] = float(chance(key))
        dice = tuple(facts.dice)  # the same tuple, where a system gave one
        rolled = dice_cells.get(dice)
        if rolled is None:
            rolled = dice_cells[dice] = _cell(" ".join(map(str, dice)))
        base, effective, kept, theirs = facts.base, facts.effective, facts.kept, facts.columns
        yield [
            time,
            "" if session is None else session,
            cell[name],
            system,
            cell[facts.kind],
            cell[facts.trait],
            "" if base is None else base,
            cell[facts.modifiers],
            "" if effective is None else effective,
            rolled,
            cell[source],
            "" if kept is None else kept,
            cell[outcome],
            *(_own_cell(theirs.get(name), cell) for name in own),
            cell[facts.effects],
            event.event_id in revoked,
            event.visibility == "gm",
            success,
            p_success,
            _cell(event.event_id),
            event.version,
            cell[before],
            tail,
        ]


def _own_cell(value: Any, cell: _Cells) -> Any:
    """A system's own column in a CSV row: empty for None, a number as it is, text guarded."""
    if value is None:
        return ""
    return value if isinstance(value, int | float) else cell[str(value)]


def _applied(facts: Any, part: Any, sheets: dict[str, dict[str, int]], rules: RuleSystem) -> Any:
    """``facts`` with its effects saying which were not applied: HP or FP a roll took from a
    character whose sheet kept no such track (a caster's backlash), as the roll's own command
    said when it was logged. The fold applies nothing to a track that is not there."""
    for effect in getattr(part, "effects", ()) or ():
        if isinstance(effect, TrackChange) and effect.track in SHEET_TRACKS:
            break
    else:
        # No HP or FP moved, as in most rolls: nothing a sheet could lack.
        return facts
    effects: tuple[Effect, ...] = tuple(part.effects)
    own = getattr(part, "character_id", None)
    untracked = [
        i
        for i, effect in enumerate(effects)
        if isinstance(effect, TrackChange)
        and effect.track in SHEET_TRACKS
        and not _keeps(sheets, effect.character_id or own, effect.track, rules)
    ]
    if not untracked:
        return facts
    said = effects_text(effects)
    # A row words its roll's effects last, as ``effects_text`` does; a row that words none (a
    # contest's side says its verdict) claims no damage to correct.
    if not said or not facts.effects.endswith(said):
        return facts
    marked = "; ".join(
        effect.words()
        + (f" not applied (no {effect.track.upper()} on the sheet)" if i in untracked else "")
        for i, effect in enumerate(effects)
    )
    return facts._replace(effects=facts.effects[: len(facts.effects) - len(said)] + marked)


def _keeps(
    sheets: dict[str, dict[str, int]], character_id: str | None, track: str, rules: RuleSystem
) -> bool:
    """Whether the character's sheet, as it stood, has the track (GURPS: HP from ST)."""
    stats = sheets.get(character_id or "")
    if stats is None:
        # A character the rows never saw added (a stream cut short): claim nothing new.
        return True
    return any(
        k.casefold() == track for k in (*stats, *able(rules, SheetRules).derived_stats(stats))
    )


def sealed_row(
    event: StoredEvent, name: str | None, rules: RuleSystem, revoked: set[str]
) -> RollRow:
    """The row of a secret roll in the players' view: that it happened, for whom, no more."""
    return RollRow(
        event_id=event.event_id,
        version=event.version,
        time=event.recorded_at,
        session=event.session_id,
        character=name,
        character_id=event.character_id,
        system=rules.name,
        kind=SEALED_KIND,
        trait=None,
        base=None,
        modifiers="",
        effective=None,
        dice=(),
        dice_source=None,
        faces=0,
        kept=None,
        outcome=None,
        success=False,
        columns={},
        verdict="",
        detail="",
        lead="",
        effects="",
        revoked=event.event_id in revoked,
        secret=True,
        chance_key=None,
        p_success=None,
    )


# -- luck --------------------------------------------------------------------------------------


@dataclass
class CharacterLuck:
    character: str
    # The exact chance of success of a roll, by its key (the campaign's ``RuleSystem.chance``).
    chance: Callable[[Any], Fraction]
    rolls: int = 0
    successes: int = 0
    # How many rolls had each exact chance (by its key): summed as fractions once, at the end.
    chances: Counter[Any] = field(default_factory=Counter)
    # Per session: [rolls, successes, the successes the odds predicted], a float being enough
    # for a figure shown to two places and small enough for a campaign of thousands of sessions.
    by_session: dict[int | None, list] = field(default_factory=dict)
    # Cumulative successes above the odds after each roll, for the luck-over-time chart.
    trail: array = field(default_factory=lambda: array("d"))
    _running: float = 0.0

    @property
    def expected(self) -> Fraction:
        """The successes the exact odds predicted for these very rolls."""
        return sum((self.chance(key) * n for key, n in self.chances.items()), Fraction(0))

    @property
    def luck(self) -> float:
        """Successes above (or below) what the exact odds predicted for these very rolls."""
        return self.successes - float(self.expected)

    def to_dict(self) -> dict[str, Any]:
        return {
            "character": self.character,
            "rolls": self.rolls,
            "successes": self.successes,
            "expected": float(self.expected),
            "rate": self.successes / self.rolls if self.rolls else None,
            "expected_rate": float(self.expected / self.rolls) if self.rolls else None,
            "luck": self.luck,
            "by_session": {
                str(k): {"rolls": v[0], "luck": v[1] - v[2]} for k, v in self.by_session.items()
            },
        }


@dataclass
class FaceTest:
    """Die faces seen against fair dice: counts, and a chi-square test of fairness."""

    faces: int
    counts: list[int]

    @property
    def total(self) -> int:
        return sum(self.counts)

    @property
    def chi_square(self) -> float:
        expected = self.total / self.faces
        return sum((c - expected) ** 2 / expected for c in self.counts) if self.total else 0.0

    @property
    def p_value(self) -> float | None:
        """P(a fair die gives a chi-square this large or larger); None with too few dice."""
        if self.total < 5 * self.faces:
            return None
        return chi_square_survival(self.chi_square, self.faces - 1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "faces": self.faces,
            "counts": list(self.counts),
            "dice": self.total,
            "expected_each": self.total / self.faces if self.faces else 0,
            "chi_square": self.chi_square,
            "p_value": self.p_value,
        }


# What a roll records as its dice's source when they were rolled at the table.
_TABLE_DICE = PhysicalDice.kind


def _tally(tests: dict[Any, FaceTest], key: Any, faces: int, dice: Iterable[int]) -> None:
    test = tests.get(key)
    if test is None:
        test = tests[key] = FaceTest(faces, [0] * faces)
    counts = test.counts
    for die in dice:
        counts[die - 1] += 1


@dataclass
class Luck:
    # The exact chance of success of a roll, by its key (the campaign's ``RuleSystem.chance``).
    chance: Callable[[Any], Fraction]
    characters: dict[str, CharacterLuck] = field(default_factory=dict)
    # The faces by who rolled the dice (``PHYSICAL`` or ``SOFTWARE``) and the die's size.
    faces: dict[tuple[str, int], FaceTest] = field(default_factory=dict)
    # The table's own dice by the person whose roll it was (the character; None for the GM's
    # opponents) and the die's size: whose dice, if any, are off.
    people: dict[tuple[str | None, int], FaceTest] = field(default_factory=dict)
    _floats: dict[Any, float] = field(default_factory=dict)

    def count(
        self,
        character: str | None,
        session: int | None,
        faces: int,
        dice: Iterable[int],
        success: bool,
        key: Any,
        source: str | None,
    ) -> None:
        """One roll in force: its dice against fair dice, counted apart by where they came from
        (``source`` as the event recorded it), and, for a character (``character`` None is an
        opponent), its success against the exact chance ``key`` names.

        A rebuild counts every roll of the log here: what is looked up per roll is looked up
        once, in dictionaries keyed by what the roll names."""
        rolled_by = PHYSICAL if source == _TABLE_DICE else SOFTWARE
        test = self.faces.get((rolled_by, faces))
        if test is None:
            test = self.faces[rolled_by, faces] = FaceTest(faces, [0] * faces)
        counts = test.counts
        for die in dice:
            counts[die - 1] += 1
        if rolled_by == PHYSICAL:
            _tally(self.people, (character, faces), faces, dice)
        if character is None or key is None:
            return
        who = self.characters.get(character)
        if who is None:
            who = self.characters[character] = CharacterLuck(character, self.chance)
        expected = self._floats.get(key)
        if expected is None:
            expected = self._floats[key] = float(self.chance(key))
        chances = who.chances
        chances[key] = chances.get(key, 0) + 1
        who.rolls += 1
        tally = who.by_session.get(session)
        if tally is None:
            tally = who.by_session[session] = [0, 0, 0.0]
        tally[0] += 1
        tally[2] += expected
        if success:
            who.successes += 1
            tally[1] += 1
            who._running += 1.0 - expected
        else:
            who._running -= expected
        who.trail.append(who._running)

    def to_dict(self) -> dict[str, Any]:
        """Per character, the luck; ``faces``, one test per origin and die size, the table's dice
        first; ``faces_by_person``, the table's dice per person (``person`` None: the GM's
        opponents), in the order they first rolled and the GM's last."""
        first = {PHYSICAL: 0, SOFTWARE: 1}
        people = sorted(self.people.items(), key=lambda item: item[0][0] is None)
        return {
            "characters": [c.to_dict() for c in self.characters.values()],
            "faces": [
                {"origin": rolled_by, **test.to_dict()}
                for (rolled_by, _), test in sorted(
                    self.faces.items(), key=lambda item: (first[item[0][0]], item[0][1])
                )
            ],
            "faces_by_person": [
                {"person": person, **test.to_dict()} for (person, _), test in people
            ],
        }


def luck(rows: Iterable[RollRow], rules: RuleSystem) -> Luck:
    """Luck per character against the exact odds, and the faces against fair dice.

    Revoked rolls are left out; so are opponents (sides that are not characters).
    """
    out = Luck(rules.chance)
    for row in rows:
        if not row.revoked:
            out.count(
                None if row.character_id is None else row.character,
                row.session,
                row.faces,
                row.dice,
                # The dice's own success: points that bought a roll up are no luck.
                row.success if row.rolled is None else row.rolled[1],
                row.chance_key,
                row.dice_source,
            )
    return out


class LuckTally:
    """Luck folded straight from the log, event by event: what ``luck(roll_rows(events))``
    gives, without building the rows, so a rebuild can feed it the events it folds anyway.
    ``types`` are the events it reads; a caller may pass it those alone."""

    def __init__(self, revoked: set[str], rules: RuleSystem) -> None:
        self.revoked = revoked
        self.rules = rules
        self.rolled = rules.rolled
        self.names: dict[str, str] = {}
        self.luck = Luck(rules.chance)
        self.rolled_types = rolled_types()
        self.types = self.rolled_types | {CharacterAdded.TYPE}

    def add(self, event: StoredEvent) -> None:
        data = event.data
        if event.type not in self.rolled_types:
            if event.type == CharacterAdded.TYPE:
                self.names[data.character_id] = data.name
            return
        if event.event_id in self.revoked:
            return
        try:
            if type(data) is RollMade and data.then:
                rolled = [(part.dice_source, self.rolled(part)) for part in data.with_followups()]
            else:
                dice_sets = self.rolled(data)
                rolled = [(data.dice_source, dice_sets)] if dice_sets else []
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise unreadable_roll(event, self.rules, exc) from None
        count, names, session = self.luck.count, self.names, event.session_id
        for source, dice_sets in rolled:
            for who, side, faces, dice, success, key in dice_sets:
                name = None if who is None else side or names.get(who, "?")
                count(name, session, faces, dice, success, key, source)


def chi_square_survival(x: float, k: int) -> float:
    """Upper tail of the chi-square distribution with ``k`` degrees of freedom at ``x``:
    the regularized upper incomplete gamma Q(k/2, x/2)."""
    a, z = k / 2, x / 2
    if z <= 0:
        return 1.0
    if z < a + 1:
        # Series for the lower function P, then Q = 1 - P.
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= z / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-z + a * math.log(z) - math.lgamma(a)))
    # Continued fraction for Q (Lentz's method).
    tiny = 1e-300
    b = z + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(-z + a * math.log(z) - math.lgamma(a)) * h)
