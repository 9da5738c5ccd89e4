"""GURPS at the table: a success roll and a contest decided from the character's sheet and the
campaign as it stands, and a stored one read back (tracker/systems/gurps/RULINGS.md).

The sheet feeds the rules without the GM typing it: the base is the best of the skill and its
defaults (the sheet's, else the rulebook's for Climbing and Swimming), sense rolls go against
Per with the sheet's Acute and Discriminatory senses and are secret by default, retries of a
named task are counted from the log, and a failed Swimming or running roll costs 1 FP.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import msgspec

from tracker.errors import BadInput, Refused, TrackerError
from tracker.events.catalog import EventPayload
from tracker.events.effects import (
    ConditionApplied,
    Effect,
    ObligationOpened,
    StatChanged,
    TrackChange,
    effects_text,
)
from tracker.events.play import ContestRolled, ContestSide, RollMade
from tracker.systems.base import (
    CampaignView,
    CharacterView,
    ContestDecision,
    ContestRequest,
    RollDecision,
    Rolled,
    RollFacts,
    RollRequest,
    Side,
    contest_roll_doc,
    contest_side,
    effects_differ,
    side_verdict,
)
from tracker.systems.dice import PhysicalDice, source_for
from tracker.systems.gurps import tables
from tracker.systems.gurps.events import FrightChecked, PointsAwarded, RollBoughtUp

# base_skill, decide_roll and fright_modifier are read here from the sheet and the campaign; the
# rules' own, which they call, are reached through their modules.
from tracker.systems.gurps.rules import defaults as default_rolls
from tracker.systems.gurps.rules import fright, success
from tracker.systems.gurps.rules.attempts import buy_up_cost, retry_modifier
from tracker.systems.gurps.rules.contests import (
    compare_rolls,
    normalise_regular,
    quick_contest,
    regular_round,
    resistance_roll,
)
from tracker.systems.gurps.rules.defaults import BaseSkill, rulebook_defaults
from tracker.systems.gurps.rules.feats import feat_notes, fp_on_failure
from tracker.systems.gurps.rules.fright_table import rulebook_table
from tracker.systems.gurps.rules.influence import InfluenceResult, influence_roll
from tracker.systems.gurps.rules.presets import difficulty_notes, preset
from tracker.systems.gurps.rules.senses import sees_in_dark, sense_modifiers, sense_of
from tracker.systems.gurps.rules.success import (
    OUTCOMES,
    Modifier,
    SuccessRoll,
    effective_skill,
    success_roll,
)
from tracker.words import by_margin, kept_secret, outcome_words, plural

FACES = 6
TOTAL_DARKNESS = "total-darkness"


def parse_modifier(text: str, tl: int | None = None) -> Modifier:
    """``-2``, ``+1:darkness``, or a preset name (``hard``, ``equipment:fine``, ``haste:30``);
    ``tl`` is the campaign's tech level, for best equipment."""
    number, sep, label = text.partition(":")
    try:
        value = int(number)
    except ValueError:
        return preset(text, tl=tl)
    return Modifier(value, label.strip() if sep and label.strip() else "modifier")


REACTION_MODIFIER = "reaction modifier"


def reaction_modifiers(texts: Sequence[str]) -> list[Modifier]:
    """An influencer's reaction modifiers (``+2:appearance``), labelled as such.

    Rulebook: GURPS, 'Influence Rolls': "Modifiers: Your reaction modifiers (appearance,
    social status, etc.) apply." They are modifiers to the influence roll, the Quick Contest's
    influence skill; Diplomacy's reaction roll takes them as well, being a reaction roll.
    """
    out = []
    for text in texts:
        given = parse_modifier(text)
        label = (
            REACTION_MODIFIER
            if given.label == "modifier"
            else f"{given.label} ({REACTION_MODIFIER})"
        )
        out.append(Modifier(given.value, label))
    return out


INFLUENCED_BY = "influenced by "


def influence_effect(
    influencer: str, result: InfluenceResult, character_id: str
) -> ConditionApplied:
    """What an influence won against a player's character leaves on that character: the
    margin of victory, as a condition its rolls take with ``--mod influence:NAME``.

    Rulebook: GURPS, 'Influencing PCs': "the GM should apply the NPC's margin of victory as
    a bonus or penalty to relevant die rolls"; tracker/systems/gurps/RULINGS.md.
    """
    margin = result.modifier
    return ConditionApplied(
        INFLUENCED_BY + influencer,
        None,
        None,
        f"{result.skill}, margin of victory {margin}: -{margin} (or +{margin}) on the rolls "
        f"it bears on, as the GM rules; --mod influence:{influencer}",
        character_id,
        margin,
    )


def at_stake(event: EventPayload) -> list[tuple[str, str]]:
    """An influence roll on a player's character replaces the margin its influencer left there
    when it wins, and leaves it as it was when it loses."""
    if isinstance(event, ContestRolled) and event.mode == "influence" and event.b.character_id:
        return [(event.b.character_id, INFLUENCED_BY + event.a.name)]
    return []


def influence_modifiers(character: CharacterView, mods: list[str]) -> list[str]:
    """``influence:NAME`` as the margin NAME's influence left on the character, as a penalty
    (``influence:NAME:bonus`` as a bonus); other modifiers as given."""
    out = []
    for text in mods:
        taken = _influence_taken(character, text)
        if taken is None:
            out.append(text)
            continue
        found, bonus = taken
        value = found.modifier if bonus else -found.modifier
        out.append(f"{value:+d}:{found.name}")
    return out


def secret_influence(
    campaign: CampaignView, character: CharacterView | None, mods: Sequence[str]
) -> Sequence[int]:
    """Whether a roll taking an influence's margin (``influence:NAME``) must be sealed: while
    any secret event that names no character is unshown, it could be an influence roll that
    replaced the margin (a win) or left it (a loss), so the roll that takes it would tell the
    players what the secret one did. Asked alike whoever the influencer is, since who made a
    sealed influence roll, and on whom, is what it keeps from the players. Gives the versions
    of those secret events (none: the roll may be public)."""
    if character is None or all(_influence_taken(character, text) is None for text in mods):
        return ()
    return campaign.unrevealed(None)


# Why a roll taking an influence's margin was sealed, in ``kept_secret``'s words.
COULD_BE_INFLUENCE = "an influence roll that changed the margin taken here"


def _influence_taken(character: CharacterView, text: str) -> tuple[Any, bool] | None:
    """The influence condition ``influence:NAME[:bonus]`` names and whether as a bonus; None
    for any other modifier. An influence the character is not under is one sentence."""
    head, _, rest = text.strip().partition(":")
    if head.lower() != "influence":
        return None
    bonus = rest.lower().endswith(":bonus")
    who = (rest.rpartition(":")[0] if bonus else rest).strip()
    for name, condition in character.conditions.items():
        if (
            name.casefold() == (INFLUENCED_BY + who).casefold()
            and getattr(condition, "modifier", None) is not None
        ):
            return condition, bonus
    held = [n[len(INFLUENCED_BY) :] for n in character.conditions if n.startswith(INFLUENCED_BY)]
    under = f" (only {', '.join(held)})" if held else ""
    raise BadInput(
        f"{character.name} is under no influence of {who or '?'}{under}, which only an "
        "influence roll won against them puts there; leave out --mod influence:NAME, or win a "
        "`tracker influence` roll first."
    )


def conditions_ruled(system: Any, character: CharacterView, request: RollRequest) -> list[str]:
    """The influences on the character: their margin goes on the rolls it bears on when the GM
    names it (``--mod influence:NAME``), as the rulebook leaves which rolls those are to him.

    GURPS, 'Influencing PCs': "the GM should apply the NPC's margin of victory as a bonus or
    penalty to relevant die rolls". No other condition is settled here. What the fright table
    leaves on a character gives a duration and a way back, not a modifier ('Fright Check
    Results': "Stunned for 1 second; roll vs. Will each second to recover.", "Faint for 1d
    minutes; roll vs. HT each minute to recover.", "Panic — useless for 1d minutes; roll vs.
    Will to snap out of it."): so a roll of a stunned or fainted character is not refused (the
    way back is itself a roll) and takes nothing for it; its line names the conditions, and
    the GM gives a --mod when he rules one applies.
    """
    return [name for name in character.conditions if name.startswith(INFLUENCED_BY)]


def defaults_for(character: CharacterView, skill: str) -> list[str]:
    """The defaults the character's sheet lists for ``skill`` (any case)."""
    wanted = skill.casefold()
    return [
        expr
        for name, exprs in character.defaults.items()
        if name.casefold() == wanted
        for expr in exprs
    ]


def base_skill(
    character: CharacterView, trait: str, defaults: list[str] | tuple[str, ...] = ()
) -> BaseSkill:
    """The character's base for ``trait``: the best of its level and ``defaults``."""
    return default_rolls.base_skill(
        trait,
        attributes=character.current_stats(),
        skills=character.skills,
        defaults=defaults,
        character=character.name,
    )


def roll_inputs(
    base: BaseSkill,
    modifiers: list[Modifier] | tuple[Modifier, ...],
    *,
    defense: bool = False,
    retry_mode: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """What a success roll records of its inputs: the base (and where it came from), each
    labelled modifier, and what else the roll's kind needs to be re-decided or shown."""
    return {
        "base": base.value,
        "base_source": base.source,
        "modifiers": [m.to_dict() for m in modifiers],
        "defense": defense,
        "retry_mode": retry_mode,
        **extra,
    }


def rolls_beyond_sheet(character: CharacterView) -> list[tuple[str, list[tuple[str, int]]]]:
    """What the character may roll that her sheet does not list as a skill, each at the level
    ``decide_roll`` rolls it at before the roll's own modifiers: "Senses" (Vision, Hearing,
    Taste, Smell: Per and the bonus her Acute or Discriminatory sense gives), "Defaults" (each
    skill her sheet lists a default for, and the rulebook's Lockpicking, Climbing and Swimming,
    at the best default, where she lacks the skill). A roll she cannot make (no Per to roll
    against) is left out."""
    traits = _traits(character)
    try:
        per: int | None = base_skill(character, "Per").value
    except TrackerError:
        per = None
    senses = [
        (sense, per + sum(m.value for m in sense_modifiers(sense, traits)))
        for sense in tables.SENSES.values()
        if per is not None
    ]
    held = {name.casefold() for name in character.skills}
    named = [*character.defaults, *(s.capitalize() for s in tables.RULEBOOK_DEFAULTS)]
    defaults = []
    for skill in dict.fromkeys(named):
        if skill.casefold() in held or skill.casefold() in {d.casefold() for d, _ in defaults}:
            continue
        try:
            base = base_skill(
                character, skill, defaults_for(character, skill) or rulebook_defaults(skill)
            )
        except TrackerError:
            continue
        defaults.append((skill, base.value))
    groups = [("Senses", senses), ("Defaults", sorted(defaults, key=lambda d: d[0].casefold()))]
    return [(group, rolls) for group, rolls in groups if rolls]


def _traits(character: CharacterView) -> list[str]:
    return [*character.traits, *(g["name"] for g in character.traits_gained)]


def decide_roll(
    system: Any, request: RollRequest, character: CharacterView, campaign: CampaignView
) -> RollDecision:
    """A success roll against a skill, an attribute or a sense.

    Rulebook: GURPS, 'The Success Roll', 'Default Rolls', 'Repeated Attempts', 'Sense
    Rolls', 'Swimming', 'Running & Sprinting'; tracker/systems/gurps/RULINGS.md.
    """
    trait, feat, mods = request.trait, request.options.feat, list(request.options.mods)
    if feat not in (None, "running"):
        raise BadInput(
            f"--feat is running (an HT or Running roll to sprint), not {feat!r}; give --feat "
            "running, or leave it out."
        )
    if feat and trait.strip().lower() not in ("ht", "running"):
        raise BadInput(
            "--feat running is for an HT or Running roll; roll HT or Running, or leave --feat out."
        )
    mods = influence_modifiers(character, mods)
    sense = sense_of(trait)
    base = base_skill(
        character,
        # A sense roll is a roll against Per itself (GURPS, 'Sense Rolls').
        "Per" if sense else trait,
        () if sense else defaults_for(character, trait) or rulebook_defaults(trait),
    )
    traits = _traits(character)
    if any(m.strip().lower() == TOTAL_DARKNESS for m in mods):
        if sense != "Vision":
            raise BadInput(
                "total-darkness is a modifier for a Vision roll; roll Vision, or use darkness:N "
                "for other rolls."
            )
        if not sees_in_dark(traits):
            raise Refused(
                f"{character.name} cannot see in total darkness (Vision is impossible without "
                "Dark Vision or Infravision); roll another sense, or give light."
            )
        mods = [m for m in mods if m.strip().lower() != TOTAL_DARKNESS]
    feat_skill = trait.strip().lower() in ("climbing", "swimming")
    carried = character.stat("Encumbrance")
    if (
        feat_skill
        and carried
        and not any(m.strip().lower().startswith("encumbrance") for m in mods)
    ):
        # "Subtract your current encumbrance level": the sheet's, unless the roll gives one.
        mods.append(f"encumbrance:{carried}")
    modifiers = [parse_modifier(m, campaign.setting("tech_level")) for m in mods]
    if sense:
        modifiers.extend(sense_modifiers(sense, traits))
    retry_mode = None
    if request.options.task:
        record = character.own.tasks.get(
            request.options.task, {"attempts": 0, "failures": 0, "mode": None}
        )
        retry_mode = request.options.retry or record.get("mode") or "retry-freely"
        if retry_mode not in tables.RETRY_MODES:
            raise BadInput(f"--retry is one of {', '.join(tables.RETRY_MODES)}; give one of those.")
        penalty = retry_modifier(retry_mode, record["attempts"], record["failures"])
        if penalty is not None and penalty.value:
            modifiers.append(penalty)
    elif request.options.retry:
        raise BadInput("--retry needs --task NAME, so earlier attempts can be counted.")
    result = success_roll(
        base.value, modifiers, dice=request.new_dice(), defense=request.options.defense
    )
    inputs = roll_inputs(base, modifiers, defense=request.options.defense, retry_mode=retry_mode)
    doc: dict[str, Any] = {
        "trait": base.skill if base.source == "skill" else trait,
        "base": base.value,
        "base_source": base.source,
        "modifiers": [m.to_dict() for m in modifiers],
        "effective": result.effective,
        "dice": list(result.dice),
        "kept": result.total,
        "total": result.total,
        "outcome": result.outcome,
        "success": result.success,
        "margin": result.margin,
        "notes": [],
    }
    if campaign.setting("cinematic") and character.own.points and result.outcome != OUTCOMES[-1]:
        # Only when the next step up is affordable: a hint for a buy-up that would be refused
        # sends the GM to a refusal.
        up = OUTCOMES[OUTCOMES.index(result.outcome) + 1]
        cost = buy_up_cost(result.outcome, up)
        if cost <= character.own.points:
            doc["notes"].append(
                f"Cinematic: {character.name} has "
                f"{plural(character.own.points, 'character point')}; a buy-up to "
                f"{up.replace('_', ' ')} costs {cost}."
            )
    effects: list[Effect] = []
    fp = fp_on_failure(trait, feat)
    if fp and not result.success:
        effects.append(TrackChange("fp", -fp, "inhaled water" if feat is None else "winded"))
    if feat:
        inputs["feat"] = feat
    surface = next(
        (m.split(":", 1)[1] for m in mods if m.strip().lower().startswith("climbing:")), None
    )
    doc["notes"].extend(feat_notes(trait, feat, surface, result.outcome))
    doc["notes"].extend(difficulty_notes(modifiers))
    influenced = secret_influence(campaign, character, request.options.mods)
    attempted = _after_a_secret(campaign, character, request)
    if influenced:
        doc["notes"].append(kept_secret(influenced, COULD_BE_INFLUENCE))
    if attempted:
        doc["notes"].append(kept_secret(attempted, "an earlier attempt at this task"))
    followups: tuple[RollDecision, ...] = ()
    if request.options.danger and sense is None:
        raise BadInput(
            "--danger is for a sense roll (Vision, Hearing, Taste or Smell); roll a sense, or "
            "leave --danger out."
        )
    if request.options.danger and not result.success and character.has_trait("Danger Sense"):
        danger = _danger_sense(character, request)
        followups = (danger,)
    return RollDecision(
        trait=doc["trait"],
        inputs=inputs,
        result=result.to_dict(),
        dice=result.dice,
        doc=doc,
        effects=tuple(effects),
        secret=(sense is not None and not request.options.public) or bool(influenced or attempted),
        followups=followups,
        task=request.options.task,
    )


def _after_a_secret(
    campaign: CampaignView, character: CharacterView, request: RollRequest
) -> Sequence[int]:
    """Whether an attempt at a named task must be sealed: while a secret event about the
    character is unshown, it could be an earlier attempt at this task, whose failure (or its
    absence) the retry's penalty and mode would tell. Asked alike whatever task the secret one
    was about, and whatever it was: that is what it keeps from the players."""
    return campaign.unrevealed(character.character_id) if request.options.task else ()


def _danger_sense(character: CharacterView, request: RollRequest) -> RollDecision:
    """Danger Sense: the GM rolls the character's Per again, in secret (GURPS, 'Sense
    Rolls'). It follows the failed roll it was rolled for; the GM's own roll, no buy-up takes
    it for the player's."""
    if request.dice and not request.options.danger_dice:
        raise BadInput(
            f"{character.name}'s Danger Sense rolls Per again; give those dice too with "
            "--danger-dice N,N,N."
        )
    dice = source_for(
        request.options.danger_dice, f"{request.seed}:danger" if request.seed else None
    )
    per = base_skill(character, "Per")
    result = success_roll(per.value, [], dice=dice)
    return RollDecision(
        trait="Per",
        inputs=roll_inputs(per, []),
        result=result.to_dict(),
        dice=result.dice,
        doc={},
        kind="danger-sense",
        secret=True,
        dice_source=dice.kind,
    )


def effective(
    side: Side, mods: tuple[str, ...] | list[str], tl: int | None = None
) -> tuple[int, list[Any], int]:
    """A contest side's base (skill, attribute or an opponent's score), its modifiers and its
    effective skill; ``tl`` is the campaign's tech level, for best equipment."""
    if side.character is not None:
        mods = influence_modifiers(side.character, list(mods))
    modifiers = [parse_modifier(m, tl) for m in mods]
    if side.character is None:
        base = side.score or 0
    else:
        trait = side.trait or ""
        sense = sense_of(trait)
        if sense:
            # A sense is rolled against Per with the sense's Acute bonus (GURPS, 'Sense
            # Rolls'), in a contest as in a roll.
            base = base_skill(side.character, "Per").value
            modifiers.extend(sense_modifiers(sense, _traits(side.character)))
        else:
            defaults = defaults_for(side.character, trait) or rulebook_defaults(trait)
            base = base_skill(side.character, trait, defaults).value
    return base, modifiers, effective_skill(base, modifiers)


def side_inputs(base: int, modifiers: list[Any], effective_skill: int) -> dict[str, Any]:
    """What a contest side records of its inputs."""
    return {
        "base": base,
        "modifiers": [m.to_dict() for m in modifiers],
        "effective": effective_skill,
    }


def decide_contest(
    system: Any, request: ContestRequest, a: Side, b: Side, campaign: CampaignView
) -> ContestDecision:
    """A Quick Contest, a Resistance Roll, or one round of a Regular Contest (``running`` is
    the contest already under way between these sides over these traits; ``--new`` begins
    another all the same, which sets the running one aside).

    Rulebook: GURPS, 'Quick Contests', 'Resistance Rolls', 'Regular Contests', 'The Rule of
    16'; tracker/systems/gurps/RULINGS.md.
    """
    mode = request.mode or "quick"
    if mode not in ("quick", "resistance", "regular"):
        raise BadInput(
            "A GURPS contest is quick, resistance or regular; use --mode quick, resistance or "
            "regular."
        )
    if request.options.supernatural and mode != "resistance":
        raise BadInput(
            "--supernatural (the Rule of 16) is for a resistance roll; add --mode resistance."
        )
    if request.options.new and mode != "regular":
        raise BadInput("--new begins a regular contest afresh; add --mode regular.")
    a_base, a_mods, a_eff = effective(a, request.options.mods_a, campaign.setting("tech_level"))
    b_base, b_mods, b_eff = effective(b, request.options.mods_b, campaign.setting("tech_level"))
    src_a, src_b = request.sources()
    extra: dict[str, Any] = {}
    contest_id = round_number = None
    decided = True
    if mode == "quick":
        result: Any = quick_contest(a_eff, b_eff, dice_a=src_a, dice_b=src_b)
        extra["margin_of_victory"] = result.margin_of_victory
    elif mode == "resistance":
        result = resistance_roll(
            a_eff, b_eff, dice_a=src_a, dice_b=src_b, supernatural=request.options.supernatural
        )
        extra["margin_of_victory"] = result.margin_of_victory
        extra["rule_of_16"] = result.rule_of_16
    else:
        running = None if request.options.new else request.running
        contest_id, round_number = running or (str(uuid.uuid4()), 1)
        result = regular_round(a_eff, b_eff, dice_a=src_a, dice_b=src_b, round_number=round_number)
        decided = result.decided
        extra.update(contest_id=contest_id, round=round_number, decided=decided)
    a_roll, b_roll = result.a, result.b
    doc = {
        "a": contest_roll_doc(a, a_roll.to_dict(), a_eff),
        "b": None if b_roll is None else contest_roll_doc(b, b_roll.to_dict(), b_eff),
        **extra,
        "effects": [],
    }
    # A sense rolled in a contest is secret, as a sense roll is (GURPS, 'Sense Rolls').
    senses = any(side.character is not None and sense_of(side.trait or "") for side in (a, b))
    return ContestDecision(
        secret=(senses and not request.options.public)
        or bool(secret_influence(campaign, a.character, request.options.mods_a))
        or bool(secret_influence(campaign, b.character, request.options.mods_b)),
        mode=mode,
        a=contest_side(a, side_inputs(a_base, a_mods, a_eff), a_roll.to_dict()),
        b=None
        if b_roll is None
        else contest_side(b, side_inputs(b_base, b_mods, b_eff), b_roll.to_dict()),
        winner=result.winner,
        result=result.to_dict(),
        doc=doc,
        contest_id=contest_id,
        round=round_number,
        decided=decided,
    )


# -- fright checks ---------------------------------------------------------------------------


def fright_modifier(text: str) -> Modifier:
    """``-2:alone`` or a name from the rulebook's table (``in-combat``, ``alone``, ``dark``)."""
    number, sep, label = text.partition(":")
    try:
        value = int(number)
    except ValueError:
        name, _, count = text.partition("*")
        return fright.fright_modifier(
            name, int(count) if count.isascii() and count.isdigit() else 1
        )
    return Modifier(value, label.strip() if sep and label.strip() else "modifier")


def fright_traits(character: CharacterView) -> list[Modifier]:
    """Fright modifiers the sheet's traits give (Combat Reflexes, Fearlessness 2, ...)."""
    out = []
    for trait in character.traits:
        words = trait.strip().rsplit(" ", 1)
        name, level = (
            (words[0], int(words[1]))
            if len(words) == 2 and words[1].isascii() and words[1].isdigit()
            else (trait.strip(), 1)
        )
        key = name.casefold().replace(" ", "-")
        if key in ("fearlessness", "fearfulness", "combat-reflexes", "combat-paralysis"):
            out.append(fright.fright_modifier(key, level))
    return out


def recovery_interval(every: str | None, unit: str | None) -> str:
    """How often a recovery roll is made, in words: "each second", or for a table's
    "30 minutes (light coma) or hour (full coma)", "every 30 minutes (light coma) or every hour
    (full coma)"."""
    if not every:
        return "each " + (unit.removesuffix("s") if unit else "turn")
    # A table (the GM's own too) names the interval bare; "each" reads before a lone unit,
    # "every" before a count and before alternatives, so each alternative gets its own.
    parts = every.split(" or ")
    worded = []
    for part in parts:
        if part.startswith(("each ", "every ")):
            worded.append(part)
        elif len(parts) == 1 and not part[:1].isdigit():
            worded.append(f"each {part}")
        else:
            worded.append(f"every {part}")
    return " or ".join(worded)


def fright_effects(
    character: CharacterView, result: fright.FrightCheck
) -> tuple[list[Effect], list[str]]:
    """The fright table's structured effects as track changes, conditions and obligations,
    and the notes the GM reads beside them (a recovery roll, a lasting IQ loss's reach)."""
    effects: list[Effect] = []
    notes: list[str] = []
    if result.table is None:
        return effects, notes
    for i, e in enumerate(result.table.effects):
        if e.kind == "condition":
            effects.append(ConditionApplied(e.name, e.duration, e.unit, e.note))
            if e.recovery:
                notes.append(
                    f"{e.name}: roll vs {e.recovery} ({e.recovery_target}) "
                    f"{recovery_interval(e.recovery_every, e.unit)} to recover"
                )
        elif e.kind in ("fp_loss", "hp_loss"):
            track = e.kind[:2]
            if e.only_if_failed:
                notes.append(
                    f"roll vs {e.only_if_failed}: on a failure {character.name} loses "
                    f"{e.amount} {track.upper()} (`tracker {track} {character.name} -{e.amount}`)"
                )
            elif e.amount is None:
                notes.append(f"{track.upper()} loss: {e.note or 'the GM decides'}")
            else:
                effects.append(TrackChange(track, -e.amount, "fright"))
        elif e.kind == "trait":
            points = f" ({plural(e.points, 'point')})" if e.points else ""
            effects.append(
                ObligationOpened(
                    "assign-trait",
                    f"Assign {character.name} a new {e.trait}{points} related to the event "
                    f"(`tracker trait assign {character.name} NAME`).",
                    suffix=f"-{i}",
                    data={"trait": e.trait, "points": e.points},
                )
            )
        elif e.kind == "iq_loss":
            # tracker/systems/gurps/RULINGS.md, 'A lasting loss of IQ': Will and Per move with
            # IQ (the fold moves them, as the effect says); a skill keeps the level the sheet
            # gives it.
            effects.append(StatChanged("IQ", -(e.amount or 1), derived=True))
            notes.append(
                "Will and Per drop with IQ; skills keep their sheet levels (an IQ default "
                "follows IQ): lower an IQ-based skill with "
                f'`tracker character update {character.name} --skill "SKILL=N"`'
            )
        if e.note and e.kind == "condition" and e.duration is None:
            notes.append(e.note)
    return effects, notes


def priced(event: EventPayload) -> str | None:
    """A stored buy-up at the price its command logs: one step up or more, at the rulebook's
    character points for the steps (whether the roll stood there is ``problem_with``'s); an
    award of points, of a number `points award` takes."""
    if isinstance(event, PointsAwarded):
        if not 1 <= event.points < 10**15:
            return f"an award of {event.points} character points is none `points award` logs"
        return None
    if not isinstance(event, RollBoughtUp):
        return None
    try:
        cost = buy_up_cost(event.from_outcome, event.to_outcome)
    except TrackerError:
        return f"{event.from_outcome} is not bought up to {event.to_outcome}"
    if event.cost != cost:
        return (
            f"a buy-up from {event.from_outcome} to {event.to_outcome} costs "
            f"{plural(cost, 'character point')}, not {event.cost}"
        )
    return None


# -- holding a stored roll to the sheet it was rolled from ------------------------------------


def rolled_from(
    event: EventPayload,
    characters: Mapping[str, CharacterView],
    campaign: CampaignView,
    *,
    tracks: bool = True,
) -> str | None:
    """What a stored roll, Fright Check or contest recorded of the sheet against what the sheet
    gave where it stands in the log: the base (the skill or its best default, Rule of 20 and
    all, or the attribute; Per for a sense, Will for a Fright Check or extra effort), a sense's
    Acute and Discriminatory bonuses, a retry's penalty, the Fright Check modifiers of the
    sheet's traits, and what the sheet forbids (a Fright Check for the Unfazeable, extra effort
    for a Machine, intimidating the Unfazeable). Modifiers the GM typed are the GM's, and so
    are presets whose labels a GM could type as well (equipment, an influence's margin). The
    retry's penalty counts earlier attempts, which ``tracks`` False leaves unknown."""
    if isinstance(event, RollMade):
        return _roll_from(event, characters[event.character_id], tracks)
    if isinstance(event, FrightChecked):
        return _fright_from(event, characters[event.character_id])
    if isinstance(event, ContestRolled):
        for side in (event.a, event.b):
            if side is not None and side.character_id is not None:
                problem = _side_from(event, side, characters[side.character_id])
                if problem:
                    return problem
    return None


def _sheet_base(character: CharacterView, trait: str, defaults: Sequence[str]) -> int | None:
    """The base the sheet gives ``trait``, as a roll decides it; None when it gives none."""
    try:
        return base_skill(character, trait, list(defaults)).value
    except TrackerError:
        return None


def _base_for(character: CharacterView, trait: str, kind: str = "check") -> int | None:
    """The base a roll of ``kind`` against ``trait`` takes from the sheet (``decide_roll``,
    extra effort and Danger Sense decide it so)."""
    if kind == "danger-sense" or sense_of(trait):
        return _sheet_base(character, "Per", ())
    if kind == "extra-effort":
        return _sheet_base(character, trait, defaults_for(character, trait))
    defaults = defaults_for(character, trait) or rulebook_defaults(trait)
    return _sheet_base(character, trait, defaults)


def _base_differs(character: CharacterView, trait: str, stored: Any, sheet: int | None) -> str:
    if sheet is None:
        return f"it rolls {trait}, which {character.name}'s sheet would give nothing to roll"
    return f"it rolls {trait} from a base of {stored} where {character.name}'s sheet gives {sheet}"


def _left_out(stored: Sequence[dict[str, Any]], owed: Sequence[Modifier]) -> str | None:
    """The first of ``owed`` (modifiers the rules add by themselves) that ``stored`` lacks."""
    held = Counter((m["value"], m["label"]) for m in stored)
    for modifier in owed:
        key = (modifier.value, modifier.label)
        if held[key] <= 0:
            return f"{modifier.label} ({modifier.value:+d})"
        held[key] -= 1
    return None


def _roll_from(event: RollMade, character: CharacterView, tracks: bool) -> str | None:
    inputs, trait = event.inputs, event.trait
    if event.kind == "extra-effort" and character.has_trait("Machine"):
        return f"{character.name} has the Machine meta-trait, which rules out extra effort"
    sheet = _base_for(character, trait, event.kind)
    if inputs["base"] != sheet:
        return _base_differs(character, trait, inputs["base"], sheet)
    sense = sense_of(trait) if event.kind != "danger-sense" else None
    owed = list(sense_modifiers(sense, _traits(character))) if sense else []
    if event.task and tracks:
        record = character.own.tasks.get(event.task, {"attempts": 0, "failures": 0})
        mode = inputs.get("retry_mode") or "retry-freely"
        try:
            penalty = retry_modifier(mode, record["attempts"], record["failures"])
        except TrackerError:
            return f"it attempts {event.task!r} again, which allows one chance only"
        if penalty is not None and penalty.value:
            owed.append(penalty)
    missing = _left_out(inputs["modifiers"], owed)
    if missing:
        return f"it leaves out the {missing} that {character.name}'s sheet and earlier rolls give"
    return None


def _fright_from(event: FrightChecked, character: CharacterView) -> str | None:
    if character.has_trait("Unfazeable"):
        return f"{character.name} is Unfazeable and makes no Fright Check"
    will = character.stat("Will")
    if will is None:
        will = character.stat("IQ")
    roll = event.result["roll"]
    if will is None or event.inputs.get("will") != will or roll["base"] != will:
        return _base_differs(character, "Will", roll["base"], will)
    missing = _left_out(roll["modifiers"], fright_traits(character))
    if missing:
        return f"it leaves out the {missing} that {character.name}'s traits give a Fright Check"
    return None


def _side_from(event: ContestRolled, side: ContestSide, character: CharacterView) -> str | None:
    # The side's inputs are its sheet's; what it rolled against follows from them (redecide).
    trait, inputs = side.trait or "", side.inputs
    sheet = _base_for(character, trait)
    if inputs["base"] != sheet:
        return _base_differs(character, trait, inputs["base"], sheet)
    sense = sense_of(trait)
    if sense:
        missing = _left_out(inputs["modifiers"], sense_modifiers(sense, _traits(character)))
        if missing:
            return f"it leaves out the {missing} that {character.name}'s sheet gives"
    intimidated = event.mode == "influence" and event.result.get("skill") == "Intimidation"
    if intimidated and side is event.b and character.has_trait("Unfazeable"):
        return f"{character.name} is Unfazeable and cannot be intimidated"
    return None


# -- reading stored rolls back ---------------------------------------------------------------


def _differs(what: str, stored: Any, now: Any) -> str | None:
    return None if stored == now else f"{what} is stored as {stored} but the rules give {now}"


def _roll_again(
    result: dict[str, Any], base: int, modifiers: list[dict[str, Any]], dice: Any
) -> str | None:
    decided = success.decide_roll(
        base, [Modifier(m["value"], m["label"]) for m in modifiers], tuple(dice)
    )
    # The effective skill is what the luck against exact odds reads its chance by.
    return _differs("the outcome", result["outcome"], decided.outcome) or _differs(
        "the effective skill", result["effective"], decided.effective
    )


def redecide(event: EventPayload) -> str | None:
    """What the rules give a stored roll, fright check, contest or influence roll, against
    what is stored."""
    if isinstance(event, RollMade):
        return _roll_again(
            event.result, event.inputs["base"], event.inputs["modifiers"], event.dice
        ) or effects_differ(event.effects, _roll_effects(event))
    if isinstance(event, FrightChecked):
        return _fright_again(event)
    if isinstance(event, ContestRolled):
        for side in (event.a, event.b):
            if side is None:
                continue
            r = side.result
            problem = _roll_again(r, r["base"], r["modifiers"], r["dice"])
            if problem:
                return problem
        problem = _scores_again(event)
        if problem:
            return problem
        if event.mode == "influence":
            return _influence_again(event)
        # A GURPS contest requests no effects: its result is the GM's to act on.
        return effects_differ(event.effects, []) or _winner_again(event)
    return None


def _roll_effects(event: RollMade) -> list[Effect]:
    """The effects a stored roll's (re-decided) result requests: extra effort's FP (and HP on a
    critical failure), the FP a failed Swimming or running roll costs; none for a project day
    or Danger Sense."""
    result = event.result
    if event.kind == "extra-effort":
        effects: list[Effect] = [TrackChange("fp", -result["fp_cost"], "extra effort")]
        if result["hp_loss"]:
            effects.append(TrackChange("hp", -result["hp_loss"], "extra effort, critical failure"))
        return effects
    if event.kind in ("project", "danger-sense"):
        return []
    feat = event.inputs.get("feat")
    fp = fp_on_failure(event.trait, feat)
    if fp and not result["success"]:
        return [TrackChange("fp", -fp, "inhaled water" if feat is None else "winded")]
    return []


def _scores_again(event: ContestRolled) -> str | None:
    """Each side of a contest rolls against the score its inputs give: its base and modifiers
    make its effective skill, which a regular contest normalises and the Rule of 16 caps."""
    effective: dict[str, int] = {}
    for key, side in (("a", event.a), ("b", event.b)):
        if side is None:
            continue
        inputs = side.inputs
        modifiers = [Modifier(m["value"], m["label"]) for m in inputs["modifiers"]]
        effective[key] = effective_skill(inputs["base"], modifiers)
        stored = inputs.get("effective", effective[key])
        problem = _differs(f"{side.name}'s effective skill", stored, effective[key])
        if problem:
            return problem
    wanted: dict[str, int | None] = {"a": effective["a"], "b": effective.get("b")}
    b = effective.get("b")
    if event.mode == "regular" and b is not None:
        wanted["a"], wanted["b"] = normalise_regular(effective["a"], b)
    elif event.mode == "resistance" and event.result.get("rule_of_16"):
        # The cap is max(16, the defender's resistance), which goes unrecorded when the
        # attacker failed and the defender did not roll.
        wanted["a"] = None if b is None else min(effective["a"], max(tables.RULE_OF_16, b))
    for key, side in (("a", event.a), ("b", event.b)):
        score = wanted.get(key)
        if side is not None and score is not None:
            rolled = _side_again(side).effective
            if rolled != score:
                return f"{side.name} rolls against {rolled} where its inputs give {score}"
    return None


def _side_again(side: ContestSide) -> SuccessRoll:
    r = side.result
    modifiers = [Modifier(m["value"], m["label"]) for m in r["modifiers"]]
    return success.decide_roll(r["base"], modifiers, tuple(r["dice"]))


def _winner_again(event: ContestRolled) -> str | None:
    """Who the rules say won a Quick Contest, a Resistance Roll or a Regular Contest's round.

    Rulebook: GURPS, 'Quick Contests', 'Regular Contests'; tracker/systems/gurps/RULINGS.md (the
    attacker of a resistance roll must succeed, and ties go to the defender)."""
    a = _side_again(event.a)
    if event.b is None:
        # Only a resistance roll's defender stays put, and only when the attacker failed.
        if event.mode != "resistance" or a.success:
            return "the contest records no roll for its defender"
        return _differs("the winner", event.winner, "b")
    b = _side_again(event.b)
    if event.mode == "regular":
        decided = a.success != b.success
        winner = ("a" if a.success else "b") if decided else None
        return _differs("the round", (event.winner, event.decided), (winner, decided))
    winner, _ = compare_rolls(a, b)
    if event.mode == "resistance" and winner is None:
        winner = "b"
    return _differs("the winner", event.winner, winner)


def _fright_again(event: FrightChecked) -> str | None:
    roll = event.result["roll"]
    problem = _roll_again(roll, roll["base"], roll["modifiers"], roll["dice"])
    if problem is None and roll["effective"] > tables.RULE_OF_14_CAP:
        # The Rule of 14 caps every check at 13, as a modifier the check records.
        return f"it checks against {roll['effective']}, past the Rule of 14's 13"
    table = event.result.get("table")
    if problem or table is None:
        return problem
    total = sum(table["dice"]) + table["margin_of_failure"]
    if event.inputs.get("table") == "campaign":
        # The campaign's own table is a setting of its log, not of the event: the row it gave
        # is held to its total and its effects, not looked up again here.
        return _differs("the fright table total", table["total"], total) or (
            _fright_effects_again(event, table)
        )
    row = rulebook_table().lookup(total)
    return (
        _differs("the fright table total", table["total"], total)
        or _differs("the fright table row", table["row"], row.first)
        or _differs(
            "the row's effects",
            [_spec_key(e) for e in table["effects"]],
            [_spec_key(e.to_dict()) for e in row.effects],
        )
        or _fright_effects_again(event, table)
    )


def _spec_key(effect: dict[str, Any]) -> tuple[Any, ...]:
    """What a fright table effect is, apart from the dice that set its amount or duration."""
    return (effect["kind"], effect.get("name"), effect.get("trait"), effect.get("points"))


def _fright_effects_again(event: FrightChecked, table: dict[str, Any]) -> str | None:
    """The effects a Fright Check requests, from its table row's effects as they were rolled;
    an obligation's words (which name the character) are left out of the comparison."""
    from types import SimpleNamespace

    specs = tuple(SimpleNamespace(**{**e, "kind": e["kind"]}) for e in table["effects"])
    rolled = SimpleNamespace(table=SimpleNamespace(effects=specs))
    expected, _ = fright_effects(SimpleNamespace(name=""), rolled)  # type: ignore[arg-type]

    def unworded(effects: Any) -> list[Effect]:
        return [
            msgspec.structs.replace(e, what="") if isinstance(e, ObligationOpened) else e
            for e in effects
        ]

    if not any(isinstance(e, StatChanged) and e.derived for e in event.effects):
        # Logged before a lasting change moved the stats based on it: the rules wrote the
        # change without ``derived`` then (tracker/app/RULINGS.md, 'Sheets that change').
        expected = [
            msgspec.structs.replace(e, derived=False) if isinstance(e, StatChanged) else e
            for e in expected
        ]
    return effects_differ(unworded(event.effects), unworded(expected))


def _influence_again(event: ContestRolled) -> str | None:
    """An influence roll decided again from both sides' dice (and Diplomacy's reaction dice):
    who won, the level the contest gave, the reaction, and the reading that stands."""
    if event.b is None:
        return "an influence roll records no roll for its subject"
    result, a, b = event.result, event.a.result, event.b.result
    reaction = result.get("reaction")
    on_pc = bool(result.get("on_pc"))
    decided = influence_roll(
        result["skill"],
        a["effective"],
        b["effective"],
        dice_a=PhysicalDice(a["dice"]),
        dice_b=PhysicalDice(b["dice"]),
        reaction_dice=None if reaction is None else PhysicalDice(reaction["dice"]),
        reaction_modifiers=[]
        if reaction is None
        else [Modifier(m["value"], m["label"]) for m in reaction["modifiers"]],
        on_pc=on_pc,
    )
    winner = decided.contest.winner if decided.contest else None
    expected: list[Effect] = []
    if on_pc and decided.won and event.b.character_id:
        expected.append(influence_effect(event.a.name, decided, event.b.character_id))
    return (
        effects_differ(event.effects, expected)
        or _differs("the winner", event.winner, winner)
        or _differs("the margin it leaves", result.get("modifier", 0), decided.modifier)
        or _differs("the contest's reading", result["contest_level"], decided.contest_level)
        or _differs(
            "the reaction roll",
            None if reaction is None else reaction["level"],
            None if decided.reaction is None else decided.reaction.level,
        )
        or _differs("the reading that stands", result["level"], decided.level)
    )


def _margin(outcome: str, success: bool, margin: int | None) -> dict[str, Any]:
    """What the roll history reads of a roll's margin: its column, the outcome with it
    ("success by 3") and the recap's detail ("+3")."""
    return {
        "columns": {"margin": margin},
        "verdict": by_margin(outcome_words(outcome), success, margin),
        "detail": "" if margin is None else f"{margin:+d}",
    }


def _mods_text(mods: list[dict[str, Any]]) -> str:
    return "; ".join(f"{m['value']:+d} {m['label']}" for m in mods)


def roll_facts(event: EventPayload) -> list[RollFacts]:
    """A stored roll, fright check or both sides of a contest, as the roll history shows them."""
    if isinstance(event, RollMade):
        inputs, result = event.inputs, event.result
        return [
            RollFacts(
                event.character_id,
                None,
                event.kind,
                event.trait,
                inputs["base"],
                _mods_text(inputs["modifiers"]),
                result["effective"],
                event.dice,
                FACES,
                result["total"],
                result["outcome"],
                bool(result["success"]),
                effects_text(event.effects),
                result["effective"],
                **_margin(result["outcome"], result["success"], result["margin"]),
            )
        ]
    if isinstance(event, FrightChecked):
        roll = event.result["roll"]
        table = event.result.get("table")
        effects = effects_text(event.effects)
        if table:
            effects = f"fright table {table['total']} (row {table['row']})" + (
                f"; {effects}" if effects else ""
            )
        return [
            RollFacts(
                event.character_id,
                None,
                "fright",
                "Fright Check",
                roll["base"],
                _mods_text(roll["modifiers"]),
                roll["effective"],
                tuple(roll["dice"]),
                FACES,
                roll["total"],
                roll["outcome"],
                bool(roll["success"]),
                effects,
                roll["effective"],
                **_margin(roll["outcome"], roll["success"], roll["margin"]),
            )
        ]
    if isinstance(event, ContestRolled):
        return [_side_facts(event, side) for side in (event.a, event.b) if side is not None]
    return []


def _side_facts(event: ContestRolled, side: ContestSide) -> RollFacts:
    result = side.result
    return RollFacts(
        side.character_id,
        side.name,
        f"contest ({event.mode})",
        side.trait or "score",
        side.inputs.get("base"),
        _mods_text(result["modifiers"]),
        result["effective"],
        tuple(result["dice"]),
        FACES,
        result["total"],
        result["outcome"],
        bool(result["success"]),
        side_verdict(event, side),
        result["effective"],
        **_margin(result["outcome"], result["success"], result["margin"]),
    )


def rolled(event: EventPayload) -> list[Rolled]:
    """A stored roll, fright check or both sides of a contest, in brief, for the luck against
    exact odds."""
    if isinstance(event, RollMade):
        result = event.result
        return [
            (event.character_id, None, FACES, event.dice, result["success"], result["effective"])
        ]
    if isinstance(event, FrightChecked):
        roll = event.result["roll"]
        return [
            (
                event.character_id,
                None,
                FACES,
                tuple(roll["dice"]),
                roll["success"],
                roll["effective"],
            )
        ]
    if isinstance(event, ContestRolled):
        return [
            (
                side.character_id,
                side.name,
                FACES,
                tuple(side.result["dice"]),
                side.result["success"],
                side.result["effective"],
            )
            for side in (event.a, event.b)
            if side is not None
        ]
    return []


@lru_cache(maxsize=4096)
def chance(effective_skill: int) -> Fraction:
    """The exact chance of success of a 3d6 roll against ``effective_skill``."""
    from tracker.systems.gurps import odds

    return odds.success_roll(effective_skill).success
