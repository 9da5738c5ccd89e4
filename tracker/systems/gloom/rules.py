"""Gloom: the d20 "roll between" check, advantage, contested rolls and the dynamic floor.

Rulebook: Gloom; tracker/systems/gloom/RULINGS.md. A check rolls one d20 (two with advantage or
disadvantage) and looks for a die inside the Window of Success: at or above the Difficulty Level
(the floor) and at or below the Skill Rank (the ceiling).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import msgspec

from tracker.errors import BadInput
from tracker.systems.dice import DiceSource
from tracker.systems.gloom.options import TIE_RULES

D20 = 20

OUTCOMES: tuple[str, ...] = (
    "catastrophe",
    "overshoot",
    "undershoot",
    "complication",
    "success",
    "special",
    "perfect",
)
"""Every outcome, ranked worst to best; advantage and disadvantage keep dice by this order."""

OUTCOME_RANK: dict[str, int] = {name: index for index, name in enumerate(OUTCOMES)}

SUCCESS_OUTCOMES = frozenset({"complication", "success", "special", "perfect"})

MODES: tuple[str, ...] = ("normal", "advantage", "disadvantage")

DICE_FOR_MODE: dict[str, int] = {"normal": 1, "advantage": 2, "disadvantage": 2}

MASTERY_RANK = 21
"""A Skill Rank of 21 or more makes a master, who rolls with advantage."""

NOTE_NO_WINDOW = "No window: no success is possible without gear or aid lowering the DL."
NOTE_SINGLE_FACE = "The window is the single face {face}, and it succeeds only with a complication."
NOTE_ROUTINE = "DL 0 is a routine task; it usually needs no roll."


def _require_rank(rank: int) -> None:
    if rank < 1:
        raise BadInput(f"A Skill Rank is 1 or more, not {rank}; check the trait's value.")


DIFFICULTY: dict[str, int] = {"routine": 0, "standard": 5, "hard": 10, "extreme": 15}
"""The rulebook's difficulties by name, and their DL. Rulebook: Gloom, 'Example Modifiers
(Difficulty)'."""
IMPOSSIBLE = "impossible"


def difficulty(dl: int | str, rank: int) -> tuple[int, str | None]:
    """A DL given as a number or a difficulty's name: the DL, and the name when one was given.

    "impossible" is a DL above the rank ("If DL is higher than your Attribute, you have No
    Window"): the rank plus one, so the roll is logged with no window.
    Rulebook: Gloom, 'Example Modifiers (Difficulty)'.

    A number above 20 is refused. Gloom, 'The Core Mechanism: The Window of Success': "a
    d20-based 'Roll Between' system where the Difficulty Level (DL) of the task you want to
    succeed with is the floor", and 'The Skill Check': "You must roll ABOVE this number". No
    face of a d20 is above 20, so such a DL is no floor a roll can stand on at any rank: the
    rulebook's scale ends at Extreme 15 and Impossible, and a number past the die is taken for
    a slip of the keyboard rather than logged as a roll that could not succeed. A task meant to
    be beyond the character is ``impossible``, which keeps its rank-plus-one DL (past 20 for a
    master) as before.
    """
    if isinstance(dl, str):
        with contextlib.suppress(ValueError):
            dl = int(dl)
    if isinstance(dl, int):
        if dl > D20:
            raise BadInput(
                f"No face of a d20 is above 20, so DL {dl} is a floor no roll can reach; give "
                "a DL from 0 to 20, or `impossible` for a task beyond the character."
            )
        return dl, None
    name = dl.strip().casefold()
    if name == IMPOSSIBLE:
        return rank + 1, name
    if name not in DIFFICULTY:
        known = ", ".join([*DIFFICULTY, IMPOSSIBLE])
        raise BadInput(f"{dl!r} is no DL; give a number or one of {known}.")
    return DIFFICULTY[name], name


def _require_dl(dl: int) -> None:
    if dl < 0:
        raise BadInput(f"A Difficulty Level is 0 or more, not {dl}; use 0 for a routine task.")


def _require_above(above: int) -> None:
    if not 0 <= above <= D20:
        raise BadInput(f"The defender's die is 1 to 20 (0 for none), not {above}.")


def _require_face(die: int) -> None:
    if not 1 <= die <= D20:
        raise BadInput(f"A d20 shows 1 to 20, not {die}; check the die.")


def _require_mode(mode: str) -> None:
    if mode not in DICE_FOR_MODE:
        raise BadInput(f"The roll mode is normal, advantage or disadvantage, not {mode!r}.")


def outcome(rank: int, dl: int, die: int, *, above: int = 0) -> str:
    """Name the outcome of one d20 against Skill Rank ``rank`` and Difficulty Level ``dl``.

    ``above`` is the dynamic floor: the die must be higher than the defender's die (0: none).
    The first matching rule wins: 1 catastrophe; over the rank overshoot; under the DL (or not
    above the defender's die) undershoot; equal to the DL complication; equal to the ceiling
    (the rank, at most 20) perfect; one below it special; otherwise success.

    Rulebook: Gloom, 'The Skill Check', 'The Extreme Outcomes', 'The Mechanics';
    tracker/systems/gloom/RULINGS.md.
    """
    _require_rank(rank)
    _require_dl(dl)
    _require_above(above)
    _require_face(die)
    ceiling = min(rank, D20)
    if die == 1:
        return "catastrophe"
    if die > rank:
        return "overshoot"
    if die < dl or die <= above:
        return "undershoot"
    if die == dl:
        return "complication"
    if die == ceiling:
        return "perfect"
    if die == ceiling - 1:
        return "special"
    return "success"


def mode_for(rank: int, advantage: bool = False, disadvantage: bool = False) -> str:
    """Whether a check rolls normally, with advantage or with disadvantage.

    A rank of 21 or more gives advantage by itself; advantage and disadvantage cancel to one die.

    Rulebook: Gloom, 'Advantage and Disadvantage'; tracker/systems/gloom/RULINGS.md.
    """
    _require_rank(rank)
    has_advantage = advantage or rank >= MASTERY_RANK
    if has_advantage and disadvantage:
        return "normal"
    if has_advantage:
        return "advantage"
    if disadvantage:
        return "disadvantage"
    return "normal"


def keep(rank: int, dl: int, dice: tuple[int, ...], mode: str, *, above: int = 0) -> int:
    """The die a check keeps: the only die, or the best (advantage) or worst (disadvantage).

    Dice are ranked by their outcome (perfect best, catastrophe worst); between dice of equal
    outcome, advantage keeps the higher die and disadvantage the lower.

    Rulebook: Gloom, 'Advantage and Disadvantage'; tracker/systems/gloom/RULINGS.md.
    """
    _require_mode(mode)
    needed = DICE_FOR_MODE[mode]
    if len(dice) != needed:
        raise BadInput(f"A {mode} gloom roll keeps from {needed} d20, not {len(dice)}.")

    def by_outcome(die: int) -> tuple[int, int]:
        return OUTCOME_RANK[outcome(rank, dl, die, above=above)], die

    if mode == "disadvantage":
        return min(dice, key=by_outcome)
    return max(dice, key=by_outcome)


class Window(msgspec.Struct, frozen=True):
    """The Window of Success: the faces of a d20 that succeed against a rank and a DL."""

    rank: int
    dl: int
    floor: int
    ceiling: int
    faces: tuple[int, ...]
    notes: tuple[str, ...]

    @property
    def has_window(self) -> bool:
        """Whether any face of the d20 succeeds."""
        return bool(self.faces)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "rank": self.rank,
            "dl": self.dl,
            "floor": self.floor,
            "ceiling": self.ceiling,
            "faces": list(self.faces),
            "has_window": self.has_window,
            "notes": list(self.notes),
        }


def window(rank: int, dl: int, *, above: int = 0) -> Window:
    """The Window of Success for ``rank`` and ``dl`` (and a dynamic floor ``above``), with notes.

    ``floor`` is the DL (the ruling counts the DL itself as a success with a complication) and
    ``ceiling`` the rank, at most 20. ``faces`` lists the faces that succeed: a natural 1 never
    does. Notes tell the GM when no success is possible, when only a complication is, and when
    DL 0 makes the task routine.

    Rulebook: Gloom, 'The Skill Check', 'Example Modifiers (Difficulty)';
    tracker/systems/gloom/RULINGS.md.
    """
    faces = tuple(
        face
        for face in range(1, D20 + 1)
        if outcome(rank, dl, face, above=above) in SUCCESS_OUTCOMES
    )
    notes: list[str] = []
    if not faces:
        notes.append(NOTE_NO_WINDOW)
    elif len(faces) == 1 and outcome(rank, dl, faces[0], above=above) == "complication":
        notes.append(NOTE_SINGLE_FACE.format(face=faces[0]))
    if dl == 0:
        notes.append(NOTE_ROUTINE)
    return Window(
        rank=rank,
        dl=dl,
        floor=dl,
        ceiling=min(rank, D20),
        faces=faces,
        notes=tuple(notes),
    )


class GloomCheck(msgspec.Struct, frozen=True):
    """One decided gloom check: its inputs, the dice as rolled, the kept die and the outcome."""

    rank: int
    dl: int
    above: int
    mode: str
    dice: tuple[int, ...]
    kept: int
    outcome: str
    window: Window

    @property
    def success(self) -> bool:
        """Whether the outcome is a success (a complication included)."""
        return self.outcome in SUCCESS_OUTCOMES

    @property
    def notes(self) -> tuple[str, ...]:
        """What the GM should hear about the window (none possible, routine task...)."""
        return self.window.notes

    @property
    def may_restore_stress(self) -> bool:
        """A perfect success lets the player restore 1 Stress (their choice)."""
        return self.outcome == "perfect"

    @property
    def panic_check(self) -> bool:
        """A catastrophe triggers a panic check."""
        return self.outcome == "catastrophe"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "rank": self.rank,
            "dl": self.dl,
            "above": self.above,
            "mode": self.mode,
            "dice": list(self.dice),
            "kept": self.kept,
            "outcome": self.outcome,
            "success": self.success,
            "window": self.window.to_dict(),
            "notes": list(self.notes),
            "may_restore_stress": self.may_restore_stress,
            "panic_check": self.panic_check,
        }


def decide(
    rank: int, dl: int, dice: tuple[int, ...], *, mode: str = "normal", above: int = 0
) -> GloomCheck:
    """Decide a check from dice already rolled (how a logged roll is re-checked).

    Rulebook: Gloom, 'The Skill Check', 'Advantage and Disadvantage';
    tracker/systems/gloom/RULINGS.md.
    """
    _require_rank(rank)
    _require_dl(dl)
    _require_above(above)
    kept = keep(rank, dl, tuple(dice), mode, above=above)
    return GloomCheck(
        rank=rank,
        dl=dl,
        above=above,
        mode=mode,
        dice=tuple(dice),
        kept=kept,
        outcome=outcome(rank, dl, kept, above=above),
        window=window(rank, dl, above=above),
    )


def check(
    rank: int,
    dl: int = 0,
    *,
    dice: DiceSource,
    advantage: bool = False,
    disadvantage: bool = False,
    above: int = 0,
    why: Sequence[str] = (),
) -> GloomCheck:
    """Roll a gloom check: one d20, or two with advantage or disadvantage, and decide it.
    ``why`` says what set the mode (panicked, mastery), for dice that do not fit it.

    Rulebook: Gloom, 'The Skill Check', 'The Extreme Outcomes', 'Advantage and
    Disadvantage'; tracker/systems/gloom/RULINGS.md.
    """
    _require_rank(rank)
    _require_dl(dl)
    _require_above(above)
    mode = mode_for(rank, advantage, disadvantage)
    purpose = "a gloom check" if mode == "normal" else f"a gloom check with {mode}"
    if why:
        purpose += f" ({'; '.join(why)})"
    rolled = dice.roll(DICE_FOR_MODE[mode], D20, purpose)
    return decide(rank, dl, rolled, mode=mode, above=above)


class GloomContest(msgspec.Struct, frozen=True):
    """A decided contest: side A (the active side or attacker) against side B (the defender).

    ``winner`` is "a", "b" or None for a stalemate; ``reason`` says which rule decided it.
    """

    kind: str
    a: GloomCheck
    b: GloomCheck
    winner: str | None
    reason: str
    tie_rule: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "kind": self.kind,
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "winner": self.winner,
            "reason": self.reason,
            "tie_rule": self.tie_rule,
        }


# Two successes on equal dice: per tie rule, who wins and why, by which side has the higher rank.
_TIE_BREAKS: dict[str, dict[str, tuple[str, str]]] = {
    "stat": {
        "a_higher": ("a", "tie: higher rank wins"),
        "b_higher": ("b", "tie: higher rank wins"),
        "equal": ("b", "tie: equal ranks, the defender wins"),
    },
    "defender": {
        "a_higher": ("b", "tie: the defender wins"),
        "b_higher": ("b", "tie: the defender wins"),
        "equal": ("b", "tie: the defender wins"),
    },
}


def _break_tie(tie_rule: str, a_rank: int, b_rank: int) -> tuple[str, str]:
    if a_rank > b_rank:
        return _TIE_BREAKS[tie_rule]["a_higher"]
    if b_rank > a_rank:
        return _TIE_BREAKS[tie_rule]["b_higher"]
    return _TIE_BREAKS[tie_rule]["equal"]


def decide_contest(a: GloomCheck, b: GloomCheck, *, tie_rule: str = "stat") -> GloomContest:
    """Decide a contested roll from two decided checks (A active, B the defender).

    One side succeeds: it wins. Both succeed: the higher kept die wins; equal dice go to the
    campaign's tie rule (``stat``: higher rank, equal ranks the defender; ``defender``).
    Both fail: stalemate.

    Rulebook: Gloom, 'Contested Rolls', 'Handling Ties'; tracker/systems/gloom/RULINGS.md.
    """
    if tie_rule not in TIE_RULES:
        raise BadInput(f"The tie rule is stat or defender, not {tie_rule!r}.")
    winner: str | None
    if a.success and not b.success:
        winner, reason = "a", "only one side succeeded"
    elif b.success and not a.success:
        winner, reason = "b", "only one side succeeded"
    elif not a.success:
        winner, reason = None, "both failed"
    elif a.kept != b.kept:
        winner, reason = ("a" if a.kept > b.kept else "b"), "higher die wins"
    else:
        winner, reason = _break_tie(tie_rule, a.rank, b.rank)
    return GloomContest(kind="quick", a=a, b=b, winner=winner, reason=reason, tie_rule=tie_rule)


def contest(
    a_rank: int,
    b_rank: int,
    *,
    dice_a: DiceSource,
    dice_b: DiceSource,
    a_dl: int = 0,
    b_dl: int = 0,
    tie_rule: str = "stat",
    a_advantage: bool = False,
    a_disadvantage: bool = False,
    b_advantage: bool = False,
    b_disadvantage: bool = False,
    a_why: Sequence[str] = (),
    b_why: Sequence[str] = (),
) -> GloomContest:
    """Roll a contested roll: each side checks against its own rank and DL; see ``decide_contest``.

    Rulebook: Gloom, 'Contested Rolls', 'Handling Ties'; tracker/systems/gloom/RULINGS.md.
    """
    if tie_rule not in TIE_RULES:
        raise BadInput(f"The tie rule is stat or defender, not {tie_rule!r}.")
    a = check(
        a_rank, a_dl, dice=dice_a, advantage=a_advantage, disadvantage=a_disadvantage, why=a_why
    )
    b = check(
        b_rank, b_dl, dice=dice_b, advantage=b_advantage, disadvantage=b_disadvantage, why=b_why
    )
    return decide_contest(a, b, tie_rule=tie_rule)


def attacker_floor(base_dl: int, defender: GloomCheck) -> tuple[int, int]:
    """The attacker's (DL, above) under the dynamic floor, given the defender's decided check.

    A successful defence raises the DL to the defender's die (if higher than the base DL) and
    makes the attacker roll above that die; a failed defence leaves the base DL.

    Rulebook: Gloom, 'Advanced Variation: "The Dynamic Floor"'; tracker/systems/gloom/RULINGS.md.
    """
    _require_dl(base_dl)
    if defender.success:
        return max(base_dl, defender.kept), defender.kept
    return base_dl, 0


def decide_dynamic(attacker: GloomCheck, defender: GloomCheck) -> GloomContest:
    """Decide a dynamic-floor contest from the defender's check and the attacker's check.

    The attacker wins if its check succeeds (against the floor the defender's die set, or the
    base DL when the defence failed). Otherwise a successful defence wins, and when both sides
    fail it is a stalemate that changes nothing (winner None).

    Rulebook: Gloom, 'Advanced Variation: "The Dynamic Floor"', 'Scenario C';
    tracker/systems/gloom/RULINGS.md ('Both fail: stalemate').
    """
    winner: str | None
    if attacker.success:
        reason = "the attack beat the defence" if defender.success else "the defence failed"
        winner = "a"
    elif defender.success:
        winner, reason = "b", "the defence held"
    else:
        winner, reason = None, "both failed"
    return GloomContest(
        kind="dynamic", a=attacker, b=defender, winner=winner, reason=reason, tie_rule=None
    )


def dynamic_contest(
    attacker_rank: int,
    defender_rank: int,
    *,
    dice_a: DiceSource,
    dice_b: DiceSource,
    base_dl: int = 0,
    defender_dl: int = 0,
    a_advantage: bool = False,
    a_disadvantage: bool = False,
    b_advantage: bool = False,
    b_disadvantage: bool = False,
    a_why: Sequence[str] = (),
    b_why: Sequence[str] = (),
) -> GloomContest:
    """Roll a dynamic-floor contest: the defender rolls first and its die sets the attacker's floor.

    Rulebook: Gloom, 'Advanced Variation: "The Dynamic Floor"'; tracker/systems/gloom/RULINGS.md.
    """
    _require_dl(base_dl)
    defender = check(
        defender_rank,
        defender_dl,
        dice=dice_b,
        advantage=b_advantage,
        disadvantage=b_disadvantage,
        why=b_why,
    )
    dl, above = attacker_floor(base_dl, defender)
    attacker = check(
        attacker_rank,
        dl,
        dice=dice_a,
        advantage=a_advantage,
        disadvantage=a_disadvantage,
        above=above,
        why=a_why,
    )
    return decide_dynamic(attacker, defender)
