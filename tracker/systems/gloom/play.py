"""Gloom at the table: a check, a panic check and a contested roll decided from the campaign as
it stands, and a stored one read back (tracker/systems/gloom/RULINGS.md).

The state feeds the rules without the GM typing it: a rank of 21 or more rolls with advantage,
and panic or stress at the campaign's limit with disadvantage. Every catastrophe owes a panic
check of its own; a failed panic check leaves the character panicked, which answers the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from tracker.errors import BadInput, TrackerError
from tracker.events.catalog import EventPayload
from tracker.events.effects import ConditionApplied, Effect, ObligationOpened, effects_text
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
    RuleSystem,
    Side,
    contest_roll_doc,
    contest_side,
    effects_differ,
    side_verdict,
)
from tracker.systems.capabilities import trait_value
from tracker.systems.gloom import rules as gloom
from tracker.systems.gloom.folding import ONE_EACH, PANIC_ANSWERS, PANICKED

FACES = 20

DIFFICULTIES = (*gloom.DIFFICULTY, gloom.IMPOSSIBLE)
"""The difficulties a roll's DL may be given by name (``RollKinds.difficulties``)."""


def _disadvantaged(character: CharacterView, campaign: CampaignView) -> list[str]:
    """Why the character rolls with disadvantage by itself: panic, stress at the limit."""
    reasons = []
    if PANICKED in {c.casefold() for c in character.conditions}:
        reasons.append(PANICKED)
    if character.stress >= campaign.stress_limit:
        reasons.append(f"stress at the limit ({character.stress})")
    return reasons


def conditions_ruled(system: Any, character: CharacterView, request: RollRequest) -> list[str]:
    """Panicked, which gives disadvantage (and says so in the roll's reasons).

    Gloom, 'Advantage and Disadvantage': "If you gain too much Stress and Panic, you gain
    Disadvantage. You can also gain Disadvantage by getting a serious wound or by using
    improvised tools." Panic is a condition tracker sets (a failed panic check) and applies;
    a wound or a tool is whatever the GM names it, so a condition by another name is not taken
    for one: the roll names it, and the GM gives --disadvantage when it is.
    """
    return [name for name in character.conditions if name.casefold() == PANICKED]


def _mode_reasons(rank: int, forced: list[str], advantage: bool, disadvantage: bool) -> list[str]:
    """What set a check's mode, for dice that do not fit it: what forced disadvantage (panic,
    stress), mastery's advantage, and the two cancelling."""
    reasons = list(forced)
    if rank >= gloom.MASTERY_RANK:
        reasons.append(f"rank {rank}: mastery gives advantage")
    if disadvantage and (advantage or rank >= gloom.MASTERY_RANK):
        reasons.append("advantage and disadvantage cancel")
    return reasons


def _panic_owed(name: str, suffix: str = "", character_id: str | None = None) -> Effect:
    return ObligationOpened(
        "panic-check",
        f"{name} rolled a catastrophe: call a panic check "
        f"(`tracker panic {name} TRAIT`) or dismiss it.",
        suffix=suffix,
        character_id=character_id,
    )


def decide_roll(
    system: Any, request: RollRequest, character: CharacterView, campaign: CampaignView
) -> RollDecision:
    """A check (or a panic check, ``request.kind == "panic"``: DL 0 on a trait the GM names).

    Rulebook: Gloom, 'The Skill Check', 'Advantage and Disadvantage', 'The Extreme
    Outcomes'; tracker/systems/gloom/RULINGS.md (perfect restores 1 stress by choice; a catastrophe
    opens a panic check unless ``no_panic``; a failed panic check gives ``panicked``).
    """
    rank, trait_name = trait_value(system, character, request.trait)
    dl, named = gloom.difficulty(request.options.dl, rank)
    forced = _disadvantaged(character, campaign)
    disadvantage = request.options.disadvantage or bool(forced)
    reasons = _mode_reasons(rank, forced, request.options.advantage, disadvantage)
    result = gloom.check(
        rank,
        dl,
        dice=request.new_dice(),
        advantage=request.options.advantage,
        disadvantage=disadvantage,
        why=reasons,
    )
    inputs: dict[str, Any] = {
        "rank": rank,
        "dl": dl,
        "advantage": request.options.advantage,
        "disadvantage": disadvantage,
        "mode": result.mode,
        "reasons": reasons,
    }
    doc: dict[str, Any] = {
        "trait": trait_name,
        "effective": rank,
        "dl": dl,
        "difficulty": named,
        "dice": list(result.dice),
        "kept": result.kept,
        "outcome": result.outcome,
        "success": result.success,
        "mode": result.mode,
        "window": result.window.to_dict(),
        "notes": list(result.notes),
        "reasons": reasons,
    }
    if named is not None:
        inputs["difficulty"] = named
    if PANICKED in forced and request.kind != "panic":
        # The panic answers the checks the character owes, this roll's own too
        # (tracker/systems/gloom/RULINGS.md, 'Perfect success and catastrophe'); a roll logged
        # without it left them owed, and still does.
        inputs[PANIC_ANSWERS] = True
    effects: list[Effect] = []
    if request.kind == "panic":
        # One check per catastrophe (tracker/systems/gloom/RULINGS.md, 'Perfect success and
        # catastrophe'); checks logged before that ruling answered every one owed.
        inputs["answering"] = ONE_EACH
        doc["notes"] = []
        if not result.success:
            effects.append(ConditionApplied(PANICKED, note="failed panic check"))
    else:
        if result.may_restore_stress and character.stress:
            doc["notes"].append(
                f"Perfect success: {character.name} may restore 1 stress "
                f"(`tracker stress {character.name} -1 --cause 'perfect success'`)."
            )
        if result.panic_check and not request.options.no_panic:
            effects.append(_panic_owed(character.name))
    return RollDecision(
        trait=trait_name,
        inputs=inputs,
        result=result.to_dict(),
        dice=result.dice,
        doc=doc,
        effects=tuple(effects),
    )


def decide_contest(
    system: Any, request: ContestRequest, a: Side, b: Side, campaign: CampaignView
) -> ContestDecision:
    """A contested roll (``quick``) or the dynamic floor (``dynamic``) of A against B.

    Rulebook: Gloom, 'Contested Rolls', 'Handling Ties', 'The Dynamic Floor';
    tracker/systems/gloom/RULINGS.md. Each character side rolls with the disadvantage its own
    state gives; an
    opponent rolls its bare score. A side's catastrophe owes that character a panic check.
    """
    mode = request.mode or "quick"
    if mode not in ("quick", "dynamic"):
        raise BadInput(
            "A Gloom contest is quick (contested roll) or dynamic (dynamic floor); use "
            "--mode quick or --mode dynamic."
        )

    def rank_of(
        side: Side, advantage: bool, disadvantage: bool
    ) -> tuple[Side, int, bool, list[str]]:
        if side.character is None:
            rank, forced = side.score or 0, []
        else:
            rank, name = trait_value(system, side.character, side.trait or "")
            side = Side(side.name, side.character, name, side.score)
            forced = _disadvantaged(side.character, campaign)
        disadvantage = disadvantage or bool(forced)
        return side, rank, disadvantage, _mode_reasons(rank, forced, advantage, disadvantage)

    a, a_rank, a_dis, a_why = rank_of(
        a, request.options.advantage_a, request.options.disadvantage_a
    )
    b, b_rank, b_dis, b_why = rank_of(
        b, request.options.advantage_b, request.options.disadvantage_b
    )
    dl_a, _ = gloom.difficulty(request.options.dl_a, a_rank)
    dl_b, _ = gloom.difficulty(request.options.dl_b, b_rank)
    src_a, src_b = request.sources()
    if mode == "quick":
        result = gloom.contest(
            a_rank,
            b_rank,
            dice_a=src_a,
            dice_b=src_b,
            a_dl=dl_a,
            b_dl=dl_b,
            tie_rule=campaign.setting("tie_rule"),
            a_advantage=request.options.advantage_a,
            b_advantage=request.options.advantage_b,
            a_disadvantage=a_dis,
            b_disadvantage=b_dis,
            a_why=a_why,
            b_why=b_why,
        )
    else:
        result = gloom.dynamic_contest(
            a_rank,
            b_rank,
            dice_a=src_a,
            dice_b=src_b,
            base_dl=dl_a,
            defender_dl=dl_b,
            a_advantage=request.options.advantage_a,
            b_advantage=request.options.advantage_b,
            a_disadvantage=a_dis,
            b_disadvantage=b_dis,
            a_why=a_why,
            b_why=b_why,
        )
    effects = [
        _panic_owed(side.name, suffix, side.character_id)
        for side, check, suffix in ((a, result.a, "a"), (b, result.b, "b"))
        if side.character is not None and check.panic_check
    ]
    doc = {
        "a": contest_roll_doc(a, result.a.to_dict(), a_rank),
        "b": contest_roll_doc(b, result.b.to_dict(), b_rank),
        "reason": result.reason,
        "tie_rule": campaign.setting("tie_rule"),
        "effects": [e.to_json() for e in effects],
    }
    return ContestDecision(
        mode=mode,
        a=contest_side(a, _side_inputs(a_rank, dl_a, request, "a", a_why), result.a.to_dict()),
        b=contest_side(b, _side_inputs(b_rank, dl_b, request, "b", b_why), result.b.to_dict()),
        winner=result.winner,
        result=result.to_dict(),
        doc=doc,
        effects=tuple(effects),
    )


def _side_inputs(
    rank: int, dl: int, request: ContestRequest, side: str, reasons: list[str]
) -> dict[str, Any]:
    """A contest side's inputs: its rank and DL, and the advantage or disadvantage the GM gave
    it (gear, a wound, improvised tools), recorded only when given; for a panicked character,
    that the panic answers the panic checks it owes (``PANIC_ANSWERS``)."""
    inputs: dict[str, Any] = {"rank": rank, "dl": dl}
    for asked in ("advantage", "disadvantage"):
        if getattr(request.options, f"{asked}_{side}"):
            inputs[asked] = True
    if PANICKED in reasons:
        inputs[PANIC_ANSWERS] = True
    return inputs


# -- holding a stored roll to the sheet it was rolled from ------------------------------------


def rolled_from(
    system: RuleSystem,
    event: EventPayload,
    characters: Mapping[str, CharacterView],
    campaign: CampaignView,
    *,
    tracks: bool = True,
) -> str | None:
    """What a stored check or contest recorded of the sheet and the state against what they
    gave where it stands in the log: each character's rank, the disadvantage panic or stress at
    the campaign's limit forces on it, the mode that rank and those give, and a contested
    roll's tie rule (the campaign's). An opponent's score, a DL and the advantage or
    disadvantage the GM gave are the GM's. With ``tracks`` False, the ranks alone."""
    if isinstance(event, RollMade):
        ch, inputs = characters[event.character_id], event.inputs
        return _rank_from(system, ch, event.trait, inputs["rank"]) or (
            _forced_from(ch, campaign, inputs["disadvantage"]) if tracks else None
        )
    if isinstance(event, ContestRolled):
        tie_rule, campaigns = event.result.get("tie_rule"), campaign.setting("tie_rule")
        if tracks and event.mode == "quick" and tie_rule != campaigns:
            return f"it breaks ties by {tie_rule!r} where the campaign's tie rule is {campaigns!r}"
        for side in (event.a, event.b):
            if side is None:
                continue
            rank, inputs = side.result["rank"], side.inputs
            ch = None if side.character_id is None else characters[side.character_id]
            if ch is not None:
                problem = _rank_from(system, ch, side.trait or "", rank)
                if problem or inputs.get("rank", rank) != rank:
                    return problem or f"{side.name}'s rank is stored as two ranks"
            if not tracks:
                continue
            # An opponent's mode is the GM's advantage and disadvantage alone.
            forced = [] if ch is None else _disadvantaged(ch, campaign)
            disadvantage = bool(inputs.get("disadvantage")) or bool(forced)
            mode = gloom.mode_for(rank, bool(inputs.get("advantage")), disadvantage)
            if side.result["mode"] != mode:
                why = f" ({'; '.join(forced)})" if forced else ""
                stored = side.result["mode"]
                return f"{side.name} rolls with {stored} where the rules give {mode}{why}"
    return None


def _rank_from(system: Any, character: CharacterView, trait: str, stored: Any) -> str | None:
    try:
        rank, _ = trait_value(system, character, trait)
    except TrackerError:
        return f"it rolls {trait}, which {character.name}'s sheet would not hold"
    if stored != rank:
        return f"it rolls {trait} at rank {stored} where {character.name}'s sheet gives {rank}"
    return None


def _forced_from(character: CharacterView, campaign: CampaignView, disadvantage: Any) -> str | None:
    forced = _disadvantaged(character, campaign)
    if forced and not disadvantage:
        return (
            f"{character.name} would roll with disadvantage ({'; '.join(forced)}), which it "
            "does not record"
        )
    return None


# -- reading stored rolls back ---------------------------------------------------------------


def _check_again(result: dict[str, Any], dice: tuple[int, ...]) -> gloom.GloomCheck:
    return gloom.decide(
        result["rank"], result["dl"], dice, mode=result["mode"], above=result.get("above", 0)
    )


def redecide(event: EventPayload) -> str | None:
    """The outcome the rules give a stored check or contest side, against the one stored."""
    if isinstance(event, RollMade):
        inputs, result = event.inputs, event.result
        mode = gloom.mode_for(inputs["rank"], inputs["advantage"], inputs["disadvantage"])
        problem = _differs("the mode", inputs["mode"], mode) or next(
            (
                f"its {name} is stored as {inputs[name]} and as {result[name]}"
                for name in ("rank", "dl", "mode")
                if inputs[name] != result[name]
            ),
            None,
        )
        if problem:
            return problem
        decided = gloom.decide(inputs["rank"], inputs["dl"], event.dice, mode=inputs["mode"])
        expected: list[Effect] = []
        optional: list[Effect] = []
        if event.kind == "panic":
            if not decided.success:
                expected.append(ConditionApplied(PANICKED, note="failed panic check"))
        elif decided.panic_check:
            # Owed unless the GM waived it as the roll was made (--no-panic), which it does
            # not record.
            optional.append(_panic_owed(_owed_name(event.effects)))
        return _differs("the outcome", event.result["outcome"], decided.outcome) or (
            effects_differ(event.effects, expected, optional=optional)
        )
    if isinstance(event, ContestRolled):
        if event.b is None:
            return "a Gloom contest records both sides' rolls"
        checks = []
        for side in (event.a, event.b):
            decided = _check_again(side.result, tuple(side.result["dice"]))
            problem = _differs(f"{side.name}'s outcome", side.result["outcome"], decided.outcome)
            if problem:
                return problem
            checks.append(decided)
        a, b = checks
        owed = [
            _panic_owed(side.name, suffix, side.character_id)
            for side, check, suffix in ((event.a, a, "a"), (event.b, b, "b"))
            if side.character_id is not None and check.panic_check
        ]
        problem = effects_differ(event.effects, owed)
        if problem:
            return problem
        if event.mode == "dynamic":
            contest = gloom.decide_dynamic(a, b)
        else:
            contest = gloom.decide_contest(a, b, tie_rule=event.result.get("tie_rule") or "stat")
        return _differs("the winner", event.winner, contest.winner)
    return None


def _owed_name(effects: tuple[Effect, ...]) -> str:
    """The name a stored panic obligation gives its character (its text is in the effect)."""
    for e in effects:
        if isinstance(e, ObligationOpened) and e.obligation == "panic-check":
            return e.what.split(" rolled a catastrophe", 1)[0]
    return ""


def _differs(what: str, stored: Any, now: Any) -> str | None:
    return None if stored == now else f"{what} is stored as {stored} but the rules give {now}"


def _mode_words(mode: str, inputs: dict[str, Any]) -> list[str]:
    if mode == "normal":
        return []
    reasons = inputs.get("reasons") or []
    return [mode + (f" ({'; '.join(reasons)})" if reasons else "")]


def roll_facts(event: EventPayload) -> list[RollFacts]:
    """A stored check, or both sides of a stored contest, as the roll history shows them."""
    if isinstance(event, RollMade):
        inputs, result = event.inputs, event.result
        mods = "; ".join([f"DL {inputs['dl']}", *_mode_words(result["mode"], inputs)])
        key = (inputs["rank"], inputs["dl"], result["mode"], result.get("above", 0))
        return [
            RollFacts(
                event.character_id,
                None,
                event.kind,
                event.trait,
                inputs["rank"],
                mods,
                inputs["rank"],
                event.dice,
                FACES,
                result["kept"],
                result["outcome"],
                bool(result["success"]),
                effects_text(event.effects),
                key,
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
        side.inputs.get("rank"),
        "",
        result["rank"],
        tuple(result["dice"]),
        FACES,
        result["kept"],
        result["outcome"],
        bool(result["success"]),
        side_verdict(event, side),
        (result["rank"], result["dl"], result["mode"], result["above"]),
    )


def rolled(event: EventPayload) -> list[Rolled]:
    """A stored check, or both sides of a contest, in brief, for the luck against exact odds."""
    if isinstance(event, RollMade):
        inputs, result = event.inputs, event.result
        key = (inputs["rank"], inputs["dl"], result["mode"], result.get("above", 0))
        return [(event.character_id, None, FACES, event.dice, result["success"], key)]
    if isinstance(event, ContestRolled):
        return [
            (
                side.character_id,
                side.name,
                FACES,
                tuple(r["dice"]),
                r["success"],
                (r["rank"], r["dl"], r["mode"], r["above"]),
            )
            for side in (event.a, event.b)
            if side is not None
            for r in (side.result,)
        ]
    return []


@lru_cache(maxsize=4096)
def chance(key: tuple[int, int, str, int]) -> Fraction:
    """The exact chance of success of a check: (rank, DL, mode, the dynamic floor's die)."""
    from tracker.systems.gloom import odds

    rank, dl, mode, above = key
    # The recorded mode already folds in mastery, panic and the stress limit; these flags give
    # it back through the same rule (at rank 21+ a plain roll is mastery cancelled).
    advantage = mode == "advantage"
    disadvantage = mode == "disadvantage" or (mode == "normal" and rank >= gloom.MASTERY_RANK)
    return odds.check(rank, dl, advantage=advantage, disadvantage=disadvantage, above=above).success
