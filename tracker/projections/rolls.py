"""Roll history: one row per roll, streamed from the log, and the luck in it against exact odds.

Every roll a character made (checks, contest sides, fright checks, project days) becomes a
``RollRow`` with the chance of success the exact odds gave that very roll. ``Luck`` then sums
successes against that expectation per character and session, and tests the die faces against
fair dice with a chi-square test.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

from tracker.events import StoredEvent
from tracker.events.effects import effects_text
from tracker.events.play import ContestSide, RollMade

COLUMNS = (
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
    "kept",
    "outcome",
    "margin",
    "position",
    "effects",
    "revoked",
    "secret",
    "success",
    "p_success",
    "event_id",
    "version",
)
# What a player view empties in a secret roll's row: it shows that the roll happened, no more.
# What ``roll_rows`` reads: the rolls, and who the characters are.
ROW_SOURCES = ("CharacterAdded", "RollMade", "FrightChecked", "ContestRolled")
SECRET_FIELDS = (
    "dice",
    "kept",
    "effective",
    "margin",
    "outcome",
    "success",
    "p_success",
    "effects",
    "base",
    "modifiers",
    "position",
)
POSITION_NET = {"desperate": 0, "risky": 1, "controlled": 3}
# Glintlock: stress this high counts as a -1 condition tag (glintlock.md, 'Stress').
STRESS_TAG_AT = 2


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
    faces: int
    kept: int | None
    outcome: str
    success: bool
    margin: int | None
    position: str | None
    effects: str
    revoked: bool
    secret: bool
    # What the exact odds are looked up by (``chance``): a system and that roll's inputs.
    chance_key: tuple | None

    @property
    def p_success(self) -> Fraction | None:
        """The exact chance of success the rules gave this very roll."""
        return None if self.chance_key is None else chance(self.chance_key)

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
            "kept": self.kept,
            "outcome": self.outcome,
            "margin": self.margin,
            "position": self.position,
            "effects": self.effects,
            "revoked": self.revoked,
            "secret": self.secret,
            "success": self.success,
            "p_success": None if self.p_success is None else float(self.p_success),
            "event_id": self.event_id,
            "version": self.version,
        }
        if player_view and self.secret:
            for name in SECRET_FIELDS:
                doc[name] = None
            doc["dice"] = []
        return doc


def roll_rows(events: Iterable[StoredEvent], revoked: set[str] | None = None) -> Iterator[RollRow]:
    """Every roll in the log, in order; ``revoked`` marks the ones an undo took back."""
    revoked = revoked or set()
    names: dict[str, str] = {}
    for event in events:
        p = event.data
        if event.type == "CharacterAdded":
            names[p.character_id] = p.name
        elif event.type == "RollMade":
            yield _from_roll(event, names, revoked)
        elif event.type == "FrightChecked":
            yield _from_fright(event, names, revoked)
        elif event.type == "ContestRolled":
            for side in (p.a, p.b):
                if side is not None:
                    yield _from_side(event, side, revoked)


def _base(event: StoredEvent, revoked: set[str], **fields: Any) -> RollRow:
    return RollRow(
        event_id=event.event_id,
        version=event.version,
        time=event.recorded_at,
        session=event.session_id,
        revoked=event.event_id in revoked,
        secret=event.visibility == "gm",
        **fields,
    )


def _mode_words(mode: str, inputs: dict[str, Any]) -> list[str]:
    if mode == "normal":
        return []
    reasons = inputs.get("reasons") or []
    return [f"{mode}" + (f" ({'; '.join(reasons)})" if reasons else "")]


def _mods_text(mods: Iterable[dict[str, Any]]) -> str:
    return "; ".join(f"{m['value']:+d} {m['label']}" for m in mods)


def _from_roll(event: StoredEvent, names: dict[str, str], revoked: set[str]) -> RollRow:
    p = event.data
    inputs, result, system = p.inputs, p.result, p.system
    faces, key = roll_chance(p)
    if system == "gurps":
        base, mods, effective = inputs["base"], _mods_text(inputs["modifiers"]), result["effective"]
        kept, margin, position = result["total"], result["margin"], None
    elif system == "gloom":
        mods = "; ".join([f"DL {inputs['dl']}", *_mode_words(result["mode"], inputs)])
        base, effective = inputs["rank"], inputs["rank"]
        kept, margin, position = result["kept"], None, None
    else:
        words = [f"{t['value']:+d} {t['kind'] or 'tag'}" for t in inputs["tags"]]
        if inputs["stress"] >= STRESS_TAG_AT:
            words.append(f"-1 stress {inputs['stress']}")
        if inputs["position_steps"]:
            words.append(f"advantage die x{inputs['position_steps']}")
        if inputs["bonus"]:
            words.append(f"{inputs['bonus']:+d} on the die (steel yourself)")
        base, mods, effective = inputs["stat"], "; ".join(words), result["effective"]
        kept, margin, position = result["kept"], None, result["position"]
    return _base(
        event,
        revoked,
        character=names.get(p.character_id, "?"),
        character_id=p.character_id,
        system=system,
        kind=p.kind,
        trait=p.trait,
        base=base,
        modifiers=mods,
        effective=effective,
        dice=p.dice,
        faces=faces,
        kept=kept,
        outcome=result["outcome"],
        success=bool(result["success"]),
        margin=margin,
        position=position,
        effects=effects_text(p.effects),
        chance_key=key,
    )


def _from_fright(event: StoredEvent, names: dict[str, str], revoked: set[str]) -> RollRow:
    p = event.data
    roll = p.result["roll"]
    table = p.result.get("table")
    effects = effects_text(p.effects)
    if table:
        effects = f"fright table {table['total']} (row {table['row']})" + (
            f"; {effects}" if effects else ""
        )
    return _base(
        event,
        revoked,
        character=names.get(p.character_id, "?"),
        character_id=p.character_id,
        system="gurps",
        kind="fright",
        trait="Fright Check",
        base=roll["base"],
        modifiers=_mods_text(roll["modifiers"]),
        effective=roll["effective"],
        dice=tuple(roll["dice"]),
        faces=6,
        kept=roll["total"],
        outcome=roll["outcome"],
        success=bool(roll["success"]),
        margin=roll["margin"],
        position=None,
        effects=effects,
        chance_key=("gurps", roll["effective"]),
    )


def _from_side(event: StoredEvent, side: ContestSide, revoked: set[str]) -> RollRow:
    p = event.data
    result = side.result
    faces, key = side_chance(p.system, result)
    if p.system == "gurps":
        effective, kept, margin = result["effective"], result["total"], result["margin"]
        mods = _mods_text(result["modifiers"])
    else:
        effective, kept, margin = result["rank"], result["kept"], None
        mods = ""
    won = p.winner == ("a" if side is p.a else "b")
    return _base(
        event,
        revoked,
        character=side.name,
        character_id=side.character_id,
        system=p.system,
        kind=f"contest ({p.mode})",
        trait=side.trait or "score",
        base=side.inputs.get("base", side.inputs.get("rank")),
        modifiers=mods,
        effective=effective,
        dice=tuple(result["dice"]),
        faces=faces,
        kept=kept,
        outcome=result["outcome"],
        success=bool(result["success"]),
        margin=margin,
        position=None,
        effects="won" if won else ("stalemate" if p.winner is None else "lost"),
        chance_key=key,
    )


@lru_cache(maxsize=4096)
def gurps_chance(effective: int) -> Fraction:
    from tracker.systems.gurps import odds

    return odds.success_roll(effective).success


@lru_cache(maxsize=4096)
def gloom_chance(rank: int, dl: int, mode: str, above: int = 0) -> Fraction:
    from tracker.systems.gloom import odds

    # The recorded mode already folds in mastery, panic and the stress limit; these flags give
    # it back through the same rule (at rank 21+ a plain roll is mastery cancelled).
    advantage = mode == "advantage"
    disadvantage = mode == "disadvantage" or (mode == "normal" and rank >= 21)
    return odds.check(rank, dl, advantage=advantage, disadvantage=disadvantage, above=above).success


@lru_cache(maxsize=4096)
def glintlock_chance(stat: int, trained: bool, position: str, bonus: int) -> Fraction:
    from tracker.systems.glintlock import odds

    return odds.check(stat, trained=trained, tags=POSITION_NET[position], bonus=bonus).success


def roll_chance(p: RollMade) -> tuple[int, tuple]:
    """A ``RollMade``'s die size and the key its exact odds are looked up by."""
    inputs, result, system = p.inputs, p.result, p.system
    if system == "gurps":
        return 6, ("gurps", result["effective"])
    if system == "gloom":
        return 20, ("gloom", inputs["rank"], inputs["dl"], result["mode"], result.get("above", 0))
    return 20, (
        "glintlock",
        inputs["stat"],
        inputs["trained"],
        result["position"],
        inputs["bonus"],
    )


def side_chance(system: str, result: dict[str, Any]) -> tuple[int, tuple]:
    """One side of a ``ContestRolled``: its die size and the key of its exact odds."""
    if system == "gurps":
        return 6, ("gurps", result["effective"])
    return 20, ("gloom", result["rank"], result["dl"], result["mode"], result["above"])


_CHANCE = {"gurps": gurps_chance, "gloom": gloom_chance, "glintlock": glintlock_chance}
_CHANCE_FLOAT: dict[tuple, float] = {}


def chance(key: tuple) -> Fraction:
    """The exact chance of success of the roll ``key`` describes (see ``roll_chance``)."""
    return _CHANCE[key[0]](*key[1:])


def _chance_float(key: tuple) -> float:
    found = _CHANCE_FLOAT.get(key)
    if found is None:
        found = _CHANCE_FLOAT[key] = float(chance(key))
    return found


# -- luck --------------------------------------------------------------------------------------


@dataclass
class CharacterLuck:
    character: str
    rolls: int = 0
    successes: int = 0
    # How many rolls had each exact chance (by its key): summed as fractions once, at the end.
    chances: Counter[tuple] = field(default_factory=Counter)
    # Per session: [rolls, successes, the successes the odds predicted], a float being enough
    # for a figure shown to two places and small enough for a campaign of thousands of sessions.
    by_session: dict[int | None, list] = field(default_factory=dict)
    # Cumulative successes above the odds after each roll, for the luck-over-time chart.
    trail: array = field(default_factory=lambda: array("d"))
    _running: float = 0.0

    @property
    def expected(self) -> Fraction:
        """The successes the exact odds predicted for these very rolls."""
        return _sum(self.chances)

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


@dataclass
class Luck:
    characters: dict[str, CharacterLuck] = field(default_factory=dict)
    faces: dict[int, FaceTest] = field(default_factory=dict)

    def count(
        self,
        character: str | None,
        session: int | None,
        faces: int,
        dice: Iterable[int],
        success: bool,
        key: tuple | None,
    ) -> None:
        """One roll in force: its dice against fair dice, and, for a character (``character``
        None is an opponent), its success against the exact chance ``key`` names."""
        test = self.faces.get(faces)
        if test is None:
            test = self.faces[faces] = FaceTest(faces, [0] * faces)
        counts = test.counts
        for die in dice:
            counts[die - 1] += 1
        if character is None or key is None:
            return
        who = self.characters.get(character)
        if who is None:
            who = self.characters[character] = CharacterLuck(character)
        won = 1 if success else 0
        who.rolls += 1
        who.successes += won
        who.chances[key] += 1
        expected = _chance_float(key)
        tally = who.by_session.get(session)
        if tally is None:
            tally = who.by_session[session] = [0, 0, 0.0]
        tally[0] += 1
        tally[1] += won
        tally[2] += expected
        who._running += won - expected
        who.trail.append(who._running)

    def to_dict(self) -> dict[str, Any]:
        return {
            "characters": [c.to_dict() for c in self.characters.values()],
            "faces": [f.to_dict() for f in sorted(self.faces.values(), key=lambda f: f.faces)],
        }


def luck(rows: Iterable[RollRow]) -> Luck:
    """Luck per character against the exact odds, and the faces against fair dice.

    Revoked rolls are left out; so are opponents (sides that are not characters).
    """
    out = Luck()
    for row in rows:
        if not row.revoked:
            out.count(
                None if row.character_id is None else row.character,
                row.session,
                row.faces,
                row.dice,
                row.success,
                row.chance_key,
            )
    return out


class LuckTally:
    """Luck folded straight from the log, event by event: what ``luck(roll_rows(events))``
    gives, without building the rows, so a rebuild can feed it the events it folds anyway."""

    def __init__(self, revoked: set[str]) -> None:
        self.revoked = revoked
        self.names: dict[str, str] = {}
        self.luck = Luck()

    def add(self, event: StoredEvent) -> None:
        kind = event.type
        if kind == "RollMade":
            if event.event_id in self.revoked:
                return
            p = event.data
            faces, key = roll_chance(p)
            name = self.names.get(p.character_id, "?") if p.character_id else None
            self.luck.count(name, event.session_id, faces, p.dice, p.result["success"], key)
        elif kind == "FrightChecked":
            if event.event_id in self.revoked:
                return
            p = event.data
            roll = p.result["roll"]
            name = self.names.get(p.character_id, "?") if p.character_id else None
            key = ("gurps", roll["effective"])
            self.luck.count(name, event.session_id, 6, roll["dice"], roll["success"], key)
        elif kind == "ContestRolled":
            if event.event_id in self.revoked:
                return
            p = event.data
            for side in (p.a, p.b):
                if side is not None:
                    result = side.result
                    faces, key = side_chance(p.system, result)
                    name = side.name if side.character_id is not None else None
                    self.luck.count(
                        name, event.session_id, faces, result["dice"], result["success"], key
                    )
        elif kind == "CharacterAdded":
            self.names[event.data.character_id] = event.data.name


def _sum(chances: Counter[tuple]) -> Fraction:
    return sum((chance(key) * n for key, n in chances.items()), Fraction(0))


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
