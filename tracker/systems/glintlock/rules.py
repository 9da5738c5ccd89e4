"""Glintlock: the d20 dual-threshold check, tag-driven position, Mettle, Threat and Stress.

Rulebook: Glintlock; tracker/systems/glintlock/RULINGS.md. A check compares the kept d20 with a
Weak DC and a Strong DC derived from the stat; the position (from net tags) decides how many d20 are
rolled and which one is kept; every outcome moves the Mettle and Threat tracks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from tracker.errors import BadInput, Refused
from tracker.systems.dice import DiceSource

# Results are frozen msgspec structs: immutable and compared by value as frozen dataclasses are,
# and made at import in a fraction of a dataclass's time, which every one-shot command pays.

D20 = 20
TRAINING_BONUS = 1

# --------------------------------------------------------------------------- DCs and outcomes


def effective_stat(stat: int, trained: bool) -> int:
    """The stat the DCs are computed from: the stat, +1 when trained in a relevant skill.

    Rulebook: Glintlock, 'Core Mechanic'; tracker/systems/glintlock/RULINGS.md.
    """
    if stat < 0:
        raise BadInput(f"A Glintlock stat is 0 or more, not {stat}; check the character sheet.")
    return stat + (TRAINING_BONUS if trained else 0)


def weak_dc(effective: int) -> int:
    """Weak DC = 20 - 2 x effective stat.

    Rulebook: Glintlock, 'Core Mechanic'.
    """
    return D20 - 2 * effective


def strong_dc(effective: int) -> int:
    """Strong DC = 20 - effective stat.

    Rulebook: Glintlock, 'Core Mechanic'.
    """
    return D20 - effective


OUTCOMES: tuple[str, ...] = ("miss", "weak_hit", "strong_hit")
"""Every outcome, worst to best."""

HIT_OUTCOMES = frozenset({"weak_hit", "strong_hit"})

NATURAL_OUTCOMES: dict[int, str] = {20: "strong_hit", 1: "miss"}
"""A natural 20 always hits strongly and a natural 1 always misses, whatever the DCs or bonus."""

OUTCOME_DELTAS: dict[str, tuple[int, int]] = {
    "strong_hit": (1, 0),
    "weak_hit": (1, 1),
    "miss": (0, 2),
}
"""(Mettle, Threat) each outcome gives."""

NATURAL_DELTAS: dict[int, tuple[int, int]] = {20: (2, 0), 1: (0, 3)}
"""(Mettle, Threat) a natural 20 or 1 gives in place of its outcome's deltas."""

BACKLASH_CLASSES = frozenset({"invoker", "seer"})
BACKLASH_DICE = (2, 12)
"""A natural 1 on a spell by an Invoker or Seer rolls 2d12 backlash (HP damage to the caster)."""


def _require_face(die: int) -> None:
    if not 1 <= die <= D20:
        raise BadInput(f"A d20 shows 1 to 20, not {die}; check the die.")


def outcome(effective: int, kept: int, bonus: int = 0) -> str:
    """Name the outcome of the kept d20 (plus a bonus such as Steel Yourself's +2).

    A natural 20 is always a strong hit and a natural 1 always a miss; otherwise kept + bonus at
    or above the Strong DC is a strong hit, at or above the Weak DC a weak hit, else a miss.

    Rulebook: Glintlock, 'Core Mechanic', 'Natural 20 / Natural 1';
    tracker/systems/glintlock/RULINGS.md.
    """
    if effective < 0:
        raise BadInput(f"An effective stat is 0 or more, not {effective}.")
    _require_face(kept)
    if kept in NATURAL_OUTCOMES:
        return NATURAL_OUTCOMES[kept]
    total = kept + bonus
    if total >= strong_dc(effective):
        return "strong_hit"
    if total >= weak_dc(effective):
        return "weak_hit"
    return "miss"


def natural(kept: int) -> int | None:
    """The natural result of the kept die (20 or 1), or None.

    Rulebook: Glintlock, 'Natural 20 / Natural 1'; tracker/systems/glintlock/RULINGS.md (with
    two dice, "natural" means the kept die).
    """
    _require_face(kept)
    return kept if kept in NATURAL_OUTCOMES else None


def deltas(result: str, kept: int) -> tuple[int, int]:
    """The (Mettle, Threat) an outcome gives; a natural 20 or 1 replaces its outcome's deltas.

    Rulebook: Glintlock, 'Core Mechanic', 'Natural 20 / Natural 1', 'Mettle & Threat'.
    """
    if result not in OUTCOME_DELTAS:
        raise BadInput(f"A Glintlock outcome is strong_hit, weak_hit or miss, not {result!r}.")
    _require_face(kept)
    return NATURAL_DELTAS.get(kept, OUTCOME_DELTAS[result])


# --------------------------------------------------------------------------- tags and position


class TagKind(msgspec.Struct, frozen=True):
    """What a kind of tag is worth, and whether using it spends it."""

    values: tuple[int, ...]
    single_use: bool = False


TAG_KINDS: dict[str, TagKind] = {
    "power": TagKind((1,)),
    "gear": TagKind((1,)),
    "scene": TagKind((1, -1)),
    "story": TagKind((1,), single_use=True),
    "weakness": TagKind((-1,)),
    "condition": TagKind((-1,)),
}
"""Tag kinds and their values. Rulebook: Glintlock, 'Tag-Driven Position'."""

STRESS_CONDITION_AT = 2
"""Stress of 2 or more counts as a -1 condition tag by itself."""


def _signed(value: int) -> str:
    return f"{value:+d}"


class Tag(msgspec.Struct, frozen=True):
    """One tag on a roll: its value and its kind (None for a tag the GM counts without a kind)."""

    value: int
    kind: str | None = None

    def __post_init__(self) -> None:
        if self.kind is None:
            return
        if self.kind not in TAG_KINDS:
            raise BadInput(
                f"{self.kind!r} is no tag kind; choose one of {', '.join(TAG_KINDS)}, like "
                "--tag 1:gear."
            )
        allowed = TAG_KINDS[self.kind].values
        if self.value not in allowed:
            worth = " or ".join(_signed(v) for v in allowed)
            forms = " or ".join(f"--tag {v}:{self.kind}" for v in allowed)
            raise BadInput(
                f"A {self.kind} tag is worth {worth}, not {_signed(self.value)}; give it as "
                f"{forms}, with one --tag for each tag."
            )

    @property
    def single_use(self) -> bool:
        """Whether using the tag spends it (a story tag)."""
        return self.kind is not None and TAG_KINDS[self.kind].single_use

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"value": self.value, "kind": self.kind}


def parse_tag(text: str) -> Tag:
    """Parse a tag as given on the command line: "N" or "N:KIND" (e.g. "1:gear", "-1:scene").

    Rulebook: Glintlock, 'Tag-Driven Position'.
    """
    number, sep, kind = text.strip().partition(":")
    try:
        value = int(number.strip())
    except ValueError:
        raise BadInput(
            f"A tag is a number with an optional kind, not {text!r}; give one like --tag 1:gear "
            "or --tag -1:condition."
        ) from None
    if not sep:
        return Tag(value)
    kind = kind.strip().lower()
    if not kind:
        raise BadInput(f"Name the tag's kind after the colon, like 1:gear, not {text!r}.")
    return Tag(value, kind)


def net_tags(tags: Sequence[Tag], stress: int = 0) -> int:
    """Helpful tags minus hindering tags; stress 2 or more adds a -1 condition tag by itself.

    Rulebook: Glintlock, 'Tag-Driven Position', 'Stress'; tracker/systems/glintlock/RULINGS.md.
    """
    _require_track("Stress", stress)
    from_stress = -1 if stress >= STRESS_CONDITION_AT else 0
    return sum(tag.value for tag in tags) + from_stress


POSITIONS: tuple[str, ...] = ("desperate", "risky", "controlled")
"""Positions, worst to best."""

POSITION_BANDS: tuple[tuple[int, str], ...] = ((3, "controlled"), (1, "risky"))
"""(lowest net tags, position), best first; anything lower is desperate."""

DICE_FOR_POSITION: dict[str, int] = {"desperate": 2, "risky": 1, "controlled": 2}

_KEEP_FOR_POSITION: dict[str, Callable[[Sequence[int]], int]] = {
    "desperate": min,
    "risky": min,
    "controlled": max,
}


def _require_position(name: str) -> None:
    if name not in DICE_FOR_POSITION:
        raise BadInput(f"{name!r} is no position; choose desperate, risky or controlled.")


def position(net: int) -> str:
    """The position for a net tag count: 0 or less desperate, 1-2 risky, 3 or more controlled.

    Rulebook: Glintlock, 'Tag-Driven Position'.
    """
    for lowest, name in POSITION_BANDS:
        if net >= lowest:
            return name
    return "desperate"


def improve_position(current: str) -> str:
    """One step better position, as an Advantage Die buys; refused when already controlled.

    Rulebook: Glintlock, 'Mettle & Threat' (Advantage Die); tracker/systems/glintlock/RULINGS.md.
    """
    _require_position(current)
    index = POSITIONS.index(current)
    if index == len(POSITIONS) - 1:
        raise Refused(
            "The position is already controlled, so an advantage die cannot improve it; keep the "
            "die for a later roll."
        )
    return POSITIONS[index + 1]


def keep(dice: Sequence[int], position: str) -> int:
    """The kept die: desperate keeps the lower of two, controlled the higher, risky its one die.

    Rulebook: Glintlock, 'Tag-Driven Position'.
    """
    _require_position(position)
    needed = DICE_FOR_POSITION[position]
    if len(dice) != needed:
        raise BadInput(f"A {position} roll keeps from {needed} d20, not {len(dice)}.")
    for die in dice:
        _require_face(die)
    return _KEEP_FOR_POSITION[position](dice)


# --------------------------------------------------------------------------- the check


class Backlash(msgspec.Struct, frozen=True):
    """Spell backlash: 2d12 HP damage to the caster."""

    dice: tuple[int, ...]

    @property
    def total(self) -> int:
        """The HP damage."""
        return sum(self.dice)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"dice": list(self.dice), "total": self.total}


class GlintlockCheck(msgspec.Struct, frozen=True):
    """One decided Glintlock check: inputs, position, dice as rolled, kept die, outcome, effects."""

    stat: int
    trained: bool
    effective: int
    weak_dc: int
    strong_dc: int
    tags: tuple[Tag, ...]
    stress: int
    net_tags: int
    position_steps: int
    position: str
    dice: tuple[int, ...]
    kept: int
    bonus: int
    outcome: str
    spell: bool
    caster_class: str | None
    backlash: Backlash | None

    @property
    def tag_position(self) -> str:
        """The position the tags gave, before any Advantage Die."""
        return position(self.net_tags)

    @property
    def success(self) -> bool:
        """Whether the roll hit (weak or strong)."""
        return self.outcome in HIT_OUTCOMES

    @property
    def natural(self) -> int | None:
        """20 or 1 when the kept die shows it, else None."""
        return natural(self.kept)

    @property
    def mettle_delta(self) -> int:
        """Mettle the roll gives."""
        return deltas(self.outcome, self.kept)[0]

    @property
    def threat_delta(self) -> int:
        """Threat the roll gives the GM."""
        return deltas(self.outcome, self.kept)[1]

    @property
    def max_damage(self) -> bool:
        """A natural 20 deals maximum weapon damage."""
        return self.kept == D20

    @property
    def spent_tags(self) -> tuple[Tag, ...]:
        """Single-use tags (story tags) this roll used up."""
        return tuple(tag for tag in self.tags if tag.single_use)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "stat": self.stat,
            "trained": self.trained,
            "effective": self.effective,
            "weak_dc": self.weak_dc,
            "strong_dc": self.strong_dc,
            "tags": [tag.to_dict() for tag in self.tags],
            "stress": self.stress,
            "net_tags": self.net_tags,
            "tag_position": self.tag_position,
            "position_steps": self.position_steps,
            "position": self.position,
            "dice": list(self.dice),
            "kept": self.kept,
            "bonus": self.bonus,
            "outcome": self.outcome,
            "success": self.success,
            "natural": self.natural,
            "mettle_delta": self.mettle_delta,
            "threat_delta": self.threat_delta,
            "max_damage": self.max_damage,
            "spell": self.spell,
            "caster_class": self.caster_class,
            "backlash": None if self.backlash is None else self.backlash.to_dict(),
            "spent_tags": [tag.to_dict() for tag in self.spent_tags],
        }


def roll_position(net: int, position_steps: int = 0) -> str:
    """The position a roll is made at: from net tags, then ``position_steps`` steps better.

    Rulebook: Glintlock, 'Tag-Driven Position', 'Mettle & Threat' (Advantage Die).
    """
    if position_steps < 0:
        raise BadInput(
            f"Advantage dice improve the position by 0 or more steps, not {position_steps}."
        )
    current = position(net)
    for _ in range(position_steps):
        current = improve_position(current)
    return current


def backlash_due(kept: int, spell: bool, caster_class: str | None) -> bool:
    """Whether the roll triggers spell backlash: a natural 1 on a spell by an Invoker or Seer.

    Rulebook: Glintlock, 'Natural 20 / Natural 1'.
    """
    return (
        spell
        and kept == 1
        and caster_class is not None
        and caster_class.strip().lower() in BACKLASH_CLASSES
    )


def decide(
    stat: int,
    dice: Sequence[int],
    *,
    trained: bool = False,
    tags: Sequence[Tag] = (),
    stress: int = 0,
    bonus: int = 0,
    spell: bool = False,
    caster_class: str | None = None,
    backlash: Sequence[int] | None = None,
    position_steps: int = 0,
) -> GlintlockCheck:
    """Decide a check from dice already rolled (how a logged roll is re-checked).

    ``backlash`` holds the 2d12 when the roll triggered backlash, and must be None otherwise.

    Rulebook: Glintlock, 'Core Mechanic', 'Tag-Driven Position', 'Natural 20 / Natural 1';
    tracker/systems/glintlock/RULINGS.md.
    """
    effective = effective_stat(stat, trained)
    net = net_tags(tags, stress)
    at = roll_position(net, position_steps)
    rolled = tuple(dice)
    kept = keep(rolled, at)
    due = backlash_due(kept, spell, caster_class)
    if due and backlash is None:
        raise BadInput("A natural 1 on this spell rolls 2d12 backlash; give the backlash dice.")
    if not due and backlash is not None:
        raise BadInput("This roll triggers no backlash; leave out the backlash dice.")
    backlash_result = None
    if backlash is not None:
        count, faces = BACKLASH_DICE
        if len(backlash) != count or not all(1 <= die <= faces for die in backlash):
            raise BadInput(f"Backlash is {count} d{faces}, each 1 to {faces}.")
        backlash_result = Backlash(tuple(backlash))
    return GlintlockCheck(
        stat=stat,
        trained=trained,
        effective=effective,
        weak_dc=weak_dc(effective),
        strong_dc=strong_dc(effective),
        tags=tuple(tags),
        stress=stress,
        net_tags=net,
        position_steps=position_steps,
        position=at,
        dice=rolled,
        kept=kept,
        bonus=bonus,
        outcome=outcome(effective, kept, bonus),
        spell=spell,
        caster_class=caster_class,
        backlash=backlash_result,
    )


def check(
    stat: int,
    *,
    dice: DiceSource,
    trained: bool = False,
    tags: Sequence[Tag] = (),
    stress: int = 0,
    bonus: int = 0,
    spell: bool = False,
    caster_class: str | None = None,
    backlash_dice: DiceSource | None = None,
    position_steps: int = 0,
) -> GlintlockCheck:
    """Roll a Glintlock check at the position the tags (and any Advantage Dice) give.

    Rolls one d20 (risky) or two (desperate, controlled); a natural 1 on a spell by an Invoker
    or Seer also rolls 2d12 backlash from ``backlash_dice`` (default: ``dice``).

    Rulebook: Glintlock, 'Core Mechanic', 'Tag-Driven Position', 'Natural 20 / Natural 1';
    tracker/systems/glintlock/RULINGS.md.
    """
    effective_stat(stat, trained)
    net = net_tags(tags, stress)
    at = roll_position(net, position_steps)
    # Dice that do not fit the position say what set it, so the GM can see which tag to fix.
    why = [f"net tags {net:+d}" + ("" if tags else ": no --tag given")]
    conditions = sum(1 for t in tags if t.kind == "condition")
    if conditions:
        why.append(f"{conditions} condition tag{'s' if conditions != 1 else ''} at -1")
    if stress >= STRESS_CONDITION_AT:
        why.append(f"stress {stress} counts as a -1 condition")
    if position_steps:
        why.append(f"{position_steps} step{'s' if position_steps != 1 else ''} better from Mettle")
    rolled = dice.roll(DICE_FOR_POSITION[at], D20, f"a {at} roll ({'; '.join(why)})")
    backlash = None
    if backlash_due(keep(rolled, at), spell, caster_class):
        count, faces = BACKLASH_DICE
        if backlash_dice is None and dice.kind == "physical":
            raise BadInput(
                f"A natural 1 on a spell rolls {count}d{faces} backlash: give those dice with "
                "--backlash-dice N,N."
            )
        source = dice if backlash_dice is None else backlash_dice
        backlash = source.roll(count, faces, "the spell's backlash")
    return decide(
        stat,
        rolled,
        trained=trained,
        tags=tags,
        stress=stress,
        bonus=bonus,
        spell=spell,
        caster_class=caster_class,
        backlash=backlash,
        position_steps=position_steps,
    )


# --------------------------------------------------------------------------- tracks

METTLE_MAX = 6
THREAT_MAX = 6
STRESS_MAX = 6


def _require_track(name: str, value: int, hi: int = 6) -> None:
    if not 0 <= value <= hi:
        raise BadInput(f"{name} runs from 0 to {hi}, not {value}.")


class TrackChange(msgspec.Struct, frozen=True):
    """A track moved by ``delta``, clamped into its range.

    ``lost`` is the part of a gain that went past the maximum (shown to the GM); ``unused`` the
    part of a loss that went below the minimum.
    """

    before: int
    delta: int
    after: int
    lost: int
    unused: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "before": self.before,
            "delta": self.delta,
            "after": self.after,
            "lost": self.lost,
            "unused": self.unused,
        }


def apply_track(value: int, delta: int, lo: int = 0, hi: int = 6) -> TrackChange:
    """Move a track (Mettle, Threat, Stress) by ``delta``, clamped to ``lo``..``hi``.

    Rulebook: Glintlock, 'Mettle & Threat', 'Stress'; tracker/systems/glintlock/RULINGS.md (gains
    past 6 are lost, and shown).
    """
    if lo > hi:
        raise BadInput(f"A track's minimum ({lo}) cannot be above its maximum ({hi}).")
    if not lo <= value <= hi:
        raise BadInput(f"The track runs from {lo} to {hi}, not {value}.")
    raw = value + delta
    after = min(max(raw, lo), hi)
    return TrackChange(
        before=value,
        delta=delta,
        after=after,
        lost=max(raw - hi, 0),
        unused=max(lo - raw, 0),
    )


# --------------------------------------------------------------------------- Mettle

METTLE_GAINS: dict[str, int] = {
    "deep-cut": 1,
    "lean-into-condition": 1,
    "invoke-weakness": 1,
}
"""Mettle gained besides rolls. Rulebook: Glintlock, 'Mettle & Threat'."""

METTLE_COSTS: dict[str, tuple[int, ...]] = {
    "resist": (1,),
    "suppress-condition": (1,),
    "defy-death": (2,),
    "steel-yourself": (1,),
    "advantage-die": (1,),
    "press-advantage": (2,),
    "declare-detail": (1,),
    "invoke-bond": (1,),
    "call-contact": (1,),
    "flashback": (2,),
    "class-feature": (2, 3),
    "force-transition": (2,),
}
"""Base Mettle cost of each spend; an action with two costs needs its base cost named.

Rulebook: Glintlock, 'Mettle & Threat'.
"""

STEEL_YOURSELF_BONUS = 2
"""Steel Yourself adds +2 to the next roll's kept die (never changing a natural 1 or 20)."""

BOUGHT_FOR_THE_NEXT_ROLL: dict[str, str] = {
    "steel-yourself": "Steel Yourself",
    "advantage-die": "Advantage Die",
}
"""The proactive spends that buy a bonus for the next roll (Glintlock, 'Mettle & Threat')."""


def one_at_a_time(action: str, *, waiting: bool, name: str | None = None) -> None:
    """Refuse buying a bonus for the next roll while one of the same kind waits for it.

    Rulebook: Glintlock, 'Mettle & Threat' lists "Steel Yourself (1M, +2), Advantage Die
    (1M)" and is silent on buying either twice for one roll. Ruling: every bought bonus is one
    at a time, alike: a second Steel Yourself would make the listed +2 a +4, as a second
    Advantage Die would lift the position two steps; one of each may wait together, and each
    lapses unused at the next session start, when Mettle starts again at 0 ("starts 0 per
    session").
    """
    if action in BOUGHT_FOR_THE_NEXT_ROLL and waiting:
        spend = BOUGHT_FOR_THE_NEXT_ROLL[action]
        raise Refused(
            f"{name or 'The character'} has {'an' if spend[0] in 'AEIOU' else 'a'} {spend} "
            "waiting for the next roll already; one at a time, so roll before buying another."
        )


STRAINED_AT = 4
STRAINED_COST_FACTOR = 2
"""At Stress 4 or more (Strained), Mettle spending costs double."""


def _spoken(action: str) -> str:
    return action.replace("-", " ")


def gain_mettle(mettle: int, action: str) -> TrackChange:
    """Gain Mettle for a deep cut, leaning into a condition or invoking a weakness (+1 each).

    Rulebook: Glintlock, 'Mettle & Threat'; tracker/systems/glintlock/RULINGS.md.
    """
    if action not in METTLE_GAINS:
        raise BadInput(
            f"{action!r} is no way to gain Mettle; choose one of {', '.join(METTLE_GAINS)}."
        )
    _require_track("Mettle", mettle, METTLE_MAX)
    return apply_track(mettle, METTLE_GAINS[action], 0, METTLE_MAX)


def base_cost(action: str, base: int | None = None) -> int:
    """The base Mettle cost of ``action``; ``base`` names it where the rulebook gives a range.

    Rulebook: Glintlock, 'Mettle & Threat'.
    """
    if action not in METTLE_COSTS:
        raise BadInput(f"{action!r} is no Mettle spend; choose one of {', '.join(METTLE_COSTS)}.")
    costs = METTLE_COSTS[action]
    if base is None:
        if len(costs) > 1:
            choices = " or ".join(str(c) for c in costs)
            raise BadInput(
                f"A {_spoken(action)} costs {choices} Mettle; give its base cost with --cost."
            )
        return costs[0]
    if base not in costs:
        choices = " or ".join(str(c) for c in costs)
        flags = " or ".join(f"--cost {c}" for c in costs)
        raise BadInput(
            f"A {_spoken(action)} has a base cost of {choices}, not {base}; give {flags}."
        )
    return base


def mettle_cost(action: str, *, stress: int, base: int | None = None) -> int:
    """What ``action`` costs in Mettle now: its base cost, doubled at Stress 4 or more.

    Rulebook: Glintlock, 'Mettle & Threat', 'Stress' (Strained);
    tracker/systems/glintlock/RULINGS.md.
    """
    _require_track("Stress", stress, STRESS_MAX)
    cost = base_cost(action, base)
    return cost * STRAINED_COST_FACTOR if stress >= STRAINED_AT else cost


class MettleSpend(msgspec.Struct, frozen=True):
    """An allowed Mettle spend: the action, its base and actual cost, and the track's move."""

    action: str
    base: int
    cost: int
    doubled: bool
    before: int
    after: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "action": self.action,
            "base": self.base,
            "cost": self.cost,
            "doubled": self.doubled,
            "before": self.before,
            "after": self.after,
        }


def spend_mettle(
    mettle: int,
    action: str,
    *,
    stress: int,
    base: int | None = None,
    name: str | None = None,
    position: str | None = None,
) -> MettleSpend:
    """Spend Mettle on ``action``; refused when the character has less than it costs.

    ``position``, when given for an Advantage Die, refuses the spend at controlled (it could not
    improve the position). ``name`` is the character's name, for the refusal's sentence.

    Rulebook: Glintlock, 'Mettle & Threat', 'Stress'; tracker/systems/glintlock/RULINGS.md.
    """
    _require_track("Mettle", mettle, METTLE_MAX)
    base_value = base_cost(action, base)
    cost = mettle_cost(action, stress=stress, base=base_value)
    if action == "advantage-die" and position is not None:
        improve_position(position)
    if cost > mettle:
        who = name or "The character"
        why = f" at stress {stress}" if cost != base_value else ""
        raise Refused(
            f"{who} has {mettle} Mettle and {_spoken(action)} costs {cost}{why}; gain some first "
            "(`tracker gain`, or a hit on a roll), or choose a cheaper spend."
        )
    return MettleSpend(
        action=action,
        base=base_value,
        cost=cost,
        doubled=cost != base_value,
        before=mettle,
        after=mettle - cost,
    )


# --------------------------------------------------------------------------- Threat

THREAT_SPENDS: dict[str, int] = {"free": 0, "soft": 1, "hard": 2, "dire": 3}
"""GM spends and their cost in Threat. Rulebook: Glintlock, 'Mettle & Threat'."""

FLOOR_TIERS = frozenset({"hard", "dire"})
"""Spends that satisfy the spending floor ("Hard+")."""

SPENDING_FLOORS: tuple[tuple[int, str], ...] = ((6, "immediate"), (4, "owed"))
"""(lowest Threat, floor), highest first; below 4 there is no floor."""

THREAT_PER_DANGER_TURN = 1


def spending_floor(threat: int) -> str:
    """The spending floor at a Threat level: "none" below 4, "owed" at 4-5, "immediate" at 6.

    Rulebook: Glintlock, 'Mettle & Threat' (Spending Floor); tracker/systems/glintlock/RULINGS.md.

    Ruling, between sessions: the floor is owed in play, where Threat is spent. Ending a session
    with it owed is allowed, and the session's end closes it as lapsed (the session-end event
    records it as lapsed); undoing that end puts it back. The floor follows the Threat on
    hand, not the moment it was reached: where the campaign carries Threat over between
    sessions and the next session starts at 4 or more, the floor is owed again from its start
    (at 6, at once: player rolls wait for a hard or dire spend). Where Threat resets to 0 at a
    session's start, tracker's default, nothing is owed.
    """
    _require_track("Threat", threat, THREAT_MAX)
    for lowest, floor in SPENDING_FLOORS:
        if threat >= lowest:
            return floor
    return "none"


class ThreatSpend(msgspec.Struct, frozen=True):
    """An allowed GM spend of Threat, and whether it discharges the spending floor."""

    tier: str
    cost: int
    before: int
    after: int
    floor: str
    discharges_floor: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "tier": self.tier,
            "cost": self.cost,
            "before": self.before,
            "after": self.after,
            "floor": self.floor,
            "discharges_floor": self.discharges_floor,
        }


def spend_threat(threat: int, tier: str) -> ThreatSpend:
    """Spend Threat on a free, soft, hard or dire move.

    Refused when it costs more than the current Threat, and a soft spend is refused while Threat
    is 4 or more (the floor asks for hard or dire). Free moves are always allowed.

    Rulebook: Glintlock, 'Mettle & Threat'; tracker/systems/glintlock/RULINGS.md.
    """
    if tier not in THREAT_SPENDS:
        raise BadInput(f"{tier!r} is no Threat spend; choose free, soft, hard or dire.")
    floor = spending_floor(threat)
    cost = THREAT_SPENDS[tier]
    if cost > threat:
        raise Refused(
            f"Threat is {threat} and a {tier} spend costs {cost}; spend a smaller tier, or add "
            "Threat first with `tracker threat add N`."
        )
    if floor != "none" and cost and tier not in FLOOR_TIERS:
        raise Refused(
            f"Threat is {threat} and while it is 4 or more a spend must be hard or dire; use "
            "`tracker threat spend hard` (or dire)."
        )
    return ThreatSpend(
        tier=tier,
        cost=cost,
        before=threat,
        after=threat - cost,
        floor=floor,
        discharges_floor=floor != "none" and tier in FLOOR_TIERS,
    )


# --------------------------------------------------------------------------- Stress

STRESS_EFFECTS: tuple[tuple[int, str], ...] = (
    (2, "shaken"),
    (4, "strained"),
    (6, "breaking_point"),
)
"""(lowest Stress, effect); effects are cumulative. Rulebook: Glintlock, 'Stress'."""

BREAKING_POINT_CLEARS = 3
"""A breaking point clears 3 Stress (after the table roll; a lasting consequence is recorded)."""


_TABLE_DICE = re.compile(r"(\d{1,2})?d(\d{1,3})")


class BreakingTable(msgspec.Struct, frozen=True):
    """A campaign's breaking table: the dice it is rolled with and its rows, each covering
    totals ``first`` to ``last``."""

    count: int
    faces: int
    rows: tuple[dict[str, Any], ...]

    def lookup(self, total: int) -> dict[str, Any]:
        for row in self.rows:
            if row["first"] <= total <= row["last"]:
                return row
        raise BadInput(f"The breaking table has no row for {total}; give every total a row.")


def breaking_table(data: Any) -> BreakingTable:
    """A breaking table from its file's contents: ``dice = "1d6"`` and ``[[rows]]`` with
    ``first``, ``last`` (``first`` alone for one total) and ``text``; every total the dice can
    give needs exactly one row.

    Rulebook: Glintlock, 'Stress' ("Breaking point. Roll table, clear 3, lasting
    consequence."); the table itself is the campaign's.
    """
    if not isinstance(data, dict):
        raise BadInput('A breaking table file holds dice = "1d6" and its rows; fix it.')
    match = _TABLE_DICE.fullmatch(str(data.get("dice", "")).strip().lower())
    if match is None:
        raise BadInput('A breaking table names its dice like dice = "1d6" or "2d6"; fix it.')
    count, faces = int(match.group(1) or 1), int(match.group(2))
    if not (1 <= count <= 10 and 2 <= faces <= 100):
        raise BadInput(
            "A breaking table rolls 1 to 10 dice of 2 to 100 faces; fix its dice line, like "
            'dice = "2d6".'
        )
    rows = data.get("rows")
    if not isinstance(rows, list) or not rows:
        raise BadInput(
            "A breaking table file holds its rows as a list named rows; add [[rows]] entries."
        )
    out, covered = [], []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or not isinstance(row.get("text"), str):
            raise BadInput(
                f"Breaking table row {number} needs first, last and text; fix that row in the file."
            )
        first, last = row.get("first"), row.get("last", row.get("first"))
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (first, last)):
            raise BadInput(
                f"Breaking table row {number}: first and last are whole numbers; fix that row in "
                "the file."
            )
        if last < first:
            raise BadInput(
                f"Breaking table row {number}: last is below first; fix that row in the file."
            )
        out.append({"first": first, "last": last, "text": row["text"].strip()})
        covered += range(first, last + 1)
    possible = list(range(count, count * faces + 1))
    if sorted(covered) != possible:
        raise BadInput(
            f"The breaking table's rows must give each total of {count}d{faces} "
            f"({count} to {count * faces}) exactly one row; fix the rows that miss or overlap."
        )
    return BreakingTable(count, faces, tuple(out))


def stress_effects(stress: int) -> tuple[str, ...]:
    """The effects in force at a Stress level, cumulative (4-5 is shaken and strained).

    Rulebook: Glintlock, 'Stress'; tracker/systems/glintlock/RULINGS.md.
    """
    _require_track("Stress", stress, STRESS_MAX)
    return tuple(effect for lowest, effect in STRESS_EFFECTS if stress >= lowest)


def breaking_point(stress: int) -> bool:
    """Whether Stress has reached the breaking point (6).

    Rulebook: Glintlock, 'Stress'.
    """
    return "breaking_point" in stress_effects(stress)
