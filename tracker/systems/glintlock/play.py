"""Glintlock at the table: a check decided from the campaign as it stands, and a stored one read
back (tracker/systems/glintlock/RULINGS.md).

The state feeds the rules without the GM typing it: stress adds its condition tag, every
condition on the character counts as a -1 tag until suppressed, a held story tag is spent for
+1, and what Mettle bought for the next roll (steel yourself, advantage dice) applies to it.
While Threat 6 waits for a hard or dire spend, a player roll is refused unless overridden.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from tracker.errors import Refused, TrackerError
from tracker.events.catalog import EventPayload
from tracker.events.effects import Effect, TrackChange, effects_text
from tracker.events.play import RollMade
from tracker.systems.base import (
    CampaignView,
    CharacterView,
    RollDecision,
    Rolled,
    RollFacts,
    RollRequest,
    RuleSystem,
    effects_differ,
)
from tracker.systems.capabilities import trait_value
from tracker.systems.dice import DiceSource, source_for
from tracker.systems.glintlock import rules as glintlock
from tracker.systems.glintlock.events import (
    MettleGained,
    MettleSpent,
    StoryTagSpent,
    ThreatAdded,
    ThreatSpent,
)
from tracker.systems.glintlock.folding import floor

FACES = 20
# The net tags each position starts from: enough to look a position's odds up.
POSITION_NET = {"desperate": 0, "risky": 1, "controlled": 3}

SPEND_KINDS = tuple(glintlock.METTLE_COSTS)
"""What ``tracker spend NAME KIND`` takes (``Currencies.spend_kinds``): the Mettle spends."""
TRACK_MAX = {"mettle": glintlock.METTLE_MAX, "threat": glintlock.THREAT_MAX}
"""The top of each currency track (``Currencies.track_max``)."""


def conditions_ruled(system: Any, character: CharacterView, request: RollRequest) -> list[str]:
    """Every condition: each is a -1 tag on the roll, or suppressed for it by a Mettle spend,
    and the roll's notes say which.

    Glintlock, 'Tag-Driven Position': "Before each roll, count helpful tags minus hindering
    tags. Tag types: power (+1), gear (+1), scene (+/-1), story (+1 single-use), weakness (-1),
    condition (-1)."; 'Mettle & Threat': "Reactive: Resist (1M), Suppress Condition (1M)".
    """
    return list(character.conditions)


def decide_roll(
    system: Any, request: RollRequest, character: CharacterView, campaign: CampaignView
) -> RollDecision:
    """A check at the position the tags give, with Mettle's and Threat's moves as effects.

    Rulebook: Glintlock, 'Core Mechanic', 'Tag-Driven Position', 'Natural 20 / Natural 1',
    'Mettle & Threat', 'Stress'; tracker/systems/glintlock/RULINGS.md.
    """
    if floor(campaign) == "immediate" and not request.options.override:
        raise Refused(
            f"Threat is {campaign.own.threat}: the GM must spend hard or dire before any player "
            "roll; log it with `tracker threat spend hard`, or pass --override to roll anyway."
        )
    ch, skill = character, request.options.skill
    stat, trait_name = trait_value(system, ch, request.trait)
    trained = (
        request.options.trained
        or ch.is_trained(request.trait)
        or bool(skill and ch.is_trained(skill))
    )
    if skill and not request.options.trained and not ch.is_trained(skill):
        raise Refused(f"{ch.name} is not trained in {skill}; leave out --skill or add it.")
    tags = [glintlock.parse_tag(t) for t in request.options.tags]
    for name in ch.conditions:
        if name not in ch.own.pending_suppressed:
            tags.append(glintlock.Tag(-1, "condition"))
    effects: list[Effect] = []
    for wanted in request.options.story:
        held = next((t for t in ch.own.story_tags if t.casefold() == wanted.casefold()), None)
        if held is None:
            have = ", ".join(ch.own.story_tags) or "none"
            raise Refused(
                f'{ch.name} holds no story tag "{wanted}" (story tags: {have}); '
                f"give one with `tracker tag add {ch.name} NAME`."
            )
        tags.append(glintlock.Tag(1, "story"))
        effects.append(StoryTagSpent(held))
    source = request.new_dice()
    backlash: DiceSource | None
    if request.options.backlash_dice is not None:
        backlash = source_for(request.options.backlash_dice, None, "--backlash-dice")
    else:
        backlash = None if source.kind == "physical" else source
    # An advantage die bought earlier lifts the position one step, never past controlled.
    tag_position = glintlock.position(glintlock.net_tags(tags, ch.stress))
    room = len(glintlock.POSITIONS) - 1 - glintlock.POSITIONS.index(tag_position)
    steps = min(ch.own.pending_steps, room)
    result = glintlock.check(
        stat,
        dice=source,
        trained=trained,
        tags=tags,
        stress=ch.stress,
        bonus=ch.own.pending_bonus,
        spell=request.options.spell,
        caster_class=ch.character_class,
        backlash_dice=backlash,
        position_steps=steps,
    )
    effects.extend(_track_effects(result))
    inputs = {
        "stat": stat,
        "trained": trained,
        "tags": [t.to_dict() for t in tags],
        "stress": ch.stress,
        "bonus": ch.own.pending_bonus,
        "position_steps": steps,
        "spell": request.options.spell,
        "caster_class": ch.character_class,
        # As the GM asked: whether it was needed would tell the players where Threat stands,
        # which a secret roll may have moved.
        "override": request.options.override,
    }
    doc: dict[str, Any] = {
        "trait": trait_name,
        "stat": stat,
        "trained": trained,
        "effective": result.effective,
        "weak_dc": result.weak_dc,
        "strong_dc": result.strong_dc,
        "net_tags": result.net_tags,
        "position": result.position,
        "dice": list(result.dice),
        "kept": result.kept,
        "bonus": result.bonus,
        "outcome": result.outcome,
        "success": result.success,
        "natural": result.natural,
        "max_damage": result.max_damage,
        "backlash": None if result.backlash is None else result.backlash.to_dict(),
        "notes": [],
    }
    if ch.stress >= glintlock.STRESS_CONDITION_AT:
        doc["notes"].append(f"stress {ch.stress} counts as a -1 condition tag")
    for name in ch.conditions:
        if name in ch.own.pending_suppressed:
            doc["notes"].append(f"{name} suppressed for this roll (Mettle spent)")
        else:
            doc["notes"].append(f"{name} counts as a -1 condition tag")
    if steps:
        doc["notes"].append("advantage die: the position is one step better")
    consumed = list(ch.own.pending_ids)
    if ch.own.pending_steps and not steps:
        # The die cannot lift a controlled roll: it waits for the next roll it can improve.
        consumed = [i for i in consumed if i != ch.own.pending_die_id]
        doc["notes"].append(
            "the advantage die waits for the next roll it can improve: this one was controlled"
        )
    if ch.own.pending_bonus:
        doc["notes"].append(f"steel yourself: +{ch.own.pending_bonus} on the kept die")
    if request.options.override:
        doc["notes"].append(
            f"rolled with --override before the spend Threat {campaign.own.threat} owes"
            if floor(campaign) == "immediate"
            else "--override was not needed: no Threat spend holds up rolls"
        )
    return RollDecision(
        trait=trait_name,
        inputs=inputs,
        result=result.to_dict(),
        dice=result.dice,
        doc=doc,
        effects=tuple(effects),
        consumed=tuple(consumed),
    )


def _track_effects(result: Any) -> list[Effect]:
    """What a decided check moves: Mettle and Threat as its outcome gives them, and a spell's
    backlash in HP. The one source of a roll's track effects, for deciding and re-deciding."""
    effects: list[Effect] = []
    if result.mettle_delta:
        effects.append(TrackChange("mettle", result.mettle_delta))
    if result.threat_delta:
        effects.append(TrackChange("threat", result.threat_delta))
    if result.backlash is not None:
        effects.append(TrackChange("hp", -result.backlash.total, "backlash"))
    return effects


def _differs(what: str, stored: Any, now: Any) -> str | None:
    return None if stored == now else f"{what} is stored as {stored} but the rules give {now}"


def redecide(event: EventPayload) -> str | None:
    """The outcome and position the rules give a stored check, against those stored."""
    if not isinstance(event, RollMade):
        return None
    inputs, result = event.inputs, event.result
    backlash = result.get("backlash")
    decided = glintlock.decide(
        inputs["stat"],
        event.dice,
        trained=inputs["trained"],
        tags=[glintlock.Tag(t["value"], t["kind"]) for t in inputs["tags"]],
        stress=inputs["stress"],
        bonus=inputs["bonus"],
        spell=inputs["spell"],
        caster_class=inputs["caster_class"],
        backlash=None if backlash is None else backlash["dice"],
        position_steps=inputs["position_steps"],
    )
    expected = _track_effects(decided)
    # A story tag spent is named by the player; that one was, for each story tag rolled, is not.
    spent = [e for e in event.effects if isinstance(e, StoryTagSpent)]
    stories = sum(1 for t in inputs["tags"] if t["kind"] == "story")
    return (
        _differs("the outcome", result["outcome"], decided.outcome)
        or _differs("the position", result["position"], decided.position)
        or _differs("the story tags spent", len(spent), stories)
        or effects_differ([e for e in event.effects if e not in spent], expected)
    )


def rolled_from(
    system: RuleSystem,
    event: EventPayload,
    characters: Mapping[str, CharacterView],
    campaign: CampaignView,
    *,
    tracks: bool = True,
) -> str | None:
    """What a stored check recorded of the sheet and the character's state against what they
    gave where it stands in the log: the stat, being trained in the trait, the class a spell
    is cast with, stress, what Mettle bought for the next roll (steel yourself's bonus, an
    Advantage Die's step) and a -1 condition tag for every condition not suppressed. Tags the
    GM gave are the GM's: a roll may carry more condition tags than the sheet gives. With
    ``tracks`` False, the stat, training and class alone."""
    if not isinstance(event, RollMade):
        return None
    ch, inputs = characters[event.character_id], event.inputs
    try:
        stat, _ = trait_value(system, ch, event.trait)
    except TrackerError:
        return f"it rolls {event.trait}, which {ch.name}'s sheet would not hold"
    if inputs["stat"] != stat:
        return f"it rolls {event.trait} at {inputs['stat']} where {ch.name}'s sheet gives {stat}"
    if ch.is_trained(event.trait) and not inputs["trained"]:
        return f"{ch.name} is trained in {event.trait}, which it does not record"
    if inputs["caster_class"] != ch.character_class:
        return (
            f"it records the class {inputs['caster_class']!r} where {ch.name}'s is "
            f"{ch.character_class!r}"
        )
    if not tracks:
        return None
    if inputs["stress"] != ch.stress:
        return f"it records stress {inputs['stress']} where {ch.name} has {ch.stress}"
    if inputs["bonus"] != ch.own.pending_bonus:
        return (
            f"it records {inputs['bonus']:+d} on the die where the Mettle {ch.name} spent gives "
            f"{ch.own.pending_bonus:+d}"
        )
    tags = [glintlock.Tag(t["value"], t["kind"]) for t in inputs["tags"]]
    position = glintlock.position(glintlock.net_tags(tags, ch.stress))
    room = len(glintlock.POSITIONS) - 1 - glintlock.POSITIONS.index(position)
    if inputs["position_steps"] != min(ch.own.pending_steps, room):
        return (
            f"it records {inputs['position_steps']} Advantage Die steps where the Mettle "
            f"{ch.name} spent gives {min(ch.own.pending_steps, room)}"
        )
    owed = sum(1 for name in ch.conditions if name not in ch.own.pending_suppressed)
    given = sum(1 for t in tags if (t.value, t.kind) == (-1, "condition"))
    if given < owed:
        return f"it counts {given} condition tags where the conditions on {ch.name} give {owed}"
    return None


def roll_facts(event: EventPayload) -> list[RollFacts]:
    """A stored check as the roll history shows it: its tags, and what else moved the die."""
    if not isinstance(event, RollMade):
        return []
    inputs, result = event.inputs, event.result
    words = [f"{t['value']:+d} {t['kind'] or 'tag'}" for t in inputs["tags"]]
    if inputs["stress"] >= glintlock.STRESS_CONDITION_AT:
        words.append(f"-1 stress {inputs['stress']}")
    if inputs["position_steps"]:
        words.append(f"advantage die x{inputs['position_steps']}")
    if inputs["bonus"]:
        words.append(f"{inputs['bonus']:+d} on the die (steel yourself)")
    return [
        RollFacts(
            event.character_id,
            None,
            event.kind,
            event.trait,
            inputs["stat"],
            "; ".join(words),
            result["effective"],
            event.dice,
            FACES,
            result["kept"],
            result["outcome"],
            bool(result["success"]),
            effects_text(event.effects),
            (inputs["stat"], inputs["trained"], result["position"], inputs["bonus"]),
            columns={"position": result["position"]},
            detail=result["position"],
            lead=result["position"],
        )
    ]


def rolled(event: EventPayload) -> list[Rolled]:
    """A stored check in brief, for the luck against exact odds."""
    if not isinstance(event, RollMade):
        return []
    inputs, result = event.inputs, event.result
    key = (inputs["stat"], inputs["trained"], result["position"], inputs["bonus"])
    return [(event.character_id, None, FACES, event.dice, result["success"], key)]


@lru_cache(maxsize=4096)
def chance(key: tuple[int, bool, str, int]) -> Fraction:
    """The exact chance of a hit: (stat, trained, position, bonus on the kept die)."""
    from tracker.systems.glintlock import odds

    stat, trained, position, bonus = key
    return odds.check(stat, trained=trained, tags=POSITION_NET[position], bonus=bonus).success


def priced(event: EventPayload) -> str | None:
    """A stored Mettle spend or gain, or Threat spend or gain, at a price its command could
    have logged: a spend's base is its action's, and its cost that base or, strained, double
    it; a gain is its action's; a Threat spend costs its tier's; Threat is added 1 or more."""
    if isinstance(event, MettleSpent):
        bases = glintlock.METTLE_COSTS.get(event.action)
        if bases is None:
            return f"{event.action!r} is no Mettle spend"
        if event.base not in bases:
            return f"a {event.action} costs {' or '.join(map(str, bases))} Mettle, not {event.base}"
        doubled = event.base * glintlock.STRAINED_COST_FACTOR
        if (event.cost, event.doubled) not in ((event.base, False), (doubled, True)):
            return (
                f"a {event.action} of base {event.base} costs {event.base}, or {doubled} strained, "
                f"not {event.cost}"
            )
    elif isinstance(event, MettleGained):
        gain = glintlock.METTLE_GAINS.get(event.action)
        if gain is None:
            return f"{event.action!r} is no way to gain Mettle"
        if event.amount not in (0, gain):  # none at the top of the track
            return f"{event.action} gains {gain} Mettle, not {event.amount}"
    elif isinstance(event, ThreatSpent):
        cost = glintlock.THREAT_SPENDS.get(event.tier)
        if cost is None:
            return f"{event.tier!r} is no Threat spend"
        if event.cost != cost:
            return f"a {event.tier} spend costs {cost} Threat, not {event.cost}"
    elif isinstance(event, ThreatAdded) and not 1 <= event.amount < 10**15:
        return f"Threat is added in whole points of 1 or more, not {event.amount}"
    return None
