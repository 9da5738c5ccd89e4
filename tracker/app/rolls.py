"""Rolls and contests: what the GM typed goes to the campaign's rule system, and what it decided is
logged.

The handler never decides a rule itself. It finds the character (or the contest's sides), asks
the system to decide the roll against the campaign as it stands (``RuleSystem.decide_roll``,
``decide_contest``), and logs the result as one event, with any roll the rules call for at once
(Danger Sense's) after it. A roll the rules keep from the players, or the GM marks secret, is
logged for the GM's eyes.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import msgspec

from tracker.app.deciding import Decision, Logged, new_event
from tracker.app.names import check_name, one_named
from tracker.app.table import Table
from tracker.errors import BadInput, Refused, TrackerError
from tracker.events import NewEvent
from tracker.events.effects import Effect, TrackChange
from tracker.events.play import ContestRolled, RollMade
from tracker.projections.campaign import CampaignState, Character
from tracker.systems import registry
from tracker.systems.base import (
    ContestDecision,
    ContestRequest,
    RollDecision,
    RollRequest,
    RuleSystem,
    Side,
)
from tracker.systems.capabilities import Conditions, Contests, OwnWords, RollKinds, able
from tracker.systems.commands import option_values, options_struct
from tracker.systems.dice import DiceSource
from tracker.words import kept_secret


def dice_kind(source: DiceSource) -> tuple[str, str | None]:
    """Where a roll's dice come from ("system", "seeded", "physical"), and the seed if any."""
    return source.kind, str(getattr(source, "seed", None)) if source.kind == "seeded" else None


def describe_effects(
    state: CampaignState, character: Character, effects: Sequence[Effect]
) -> list[dict[str, Any]]:
    """Each effect as the GM sees it: a currency track (Mettle, Threat) with the value it moves
    from and to, and what went past its top."""
    out = []
    held = state.rules.folding.currencies(state, character)
    for effect in effects:
        doc = effect.to_json()
        if isinstance(effect, TrackChange) and effect.track in held:
            before, top = held[effect.track]
            after = min(max(before + effect.delta, 0), top)
            doc.update(before=before, after=after, lost=max(before + effect.delta - top, 0))
            held[effect.track] = (after, top)
        elif (
            isinstance(effect, TrackChange)
            and effect.track in ("hp", "fp")
            and getattr(character, effect.track) is None
        ):
            # Nothing is applied to a track the sheet lacks: say so, do not claim damage.
            doc["untracked"] = True
        out.append(doc)
    return out


def sheet_trait(character: Character, trait: str) -> str:
    """``trait`` as ``character``'s sheet spells it: the skill or stat it names in any case,
    or the only one it begins ("lock" for "Lockpicking"), so the log says what the sheet says;
    several it begins are refused in one sentence naming them. A trait the sheet does not hold
    is left as typed, for the rules to read (a GURPS default, a sense) or refuse."""
    # HP and FP are tracks, never rolled: "H" begins HT alone.
    stats = (s for s in character.stats if s.casefold() not in ("hp", "fp"))
    return one_named(trait, [*character.skills, *stats], f"of {character.name}'s traits") or trait


def side(table: Table, state: CampaignState, name: str, trait: str) -> Side:
    """A contest side: a character and its trait, or an opponent given as a name and a score
    (``contest Kade Hacking "Corp netrunner" 14``)."""
    ch = state.character(name)
    if ch is not None:
        table.character(name, state)  # refuses a character retired from play
        return Side(ch.name, ch, sheet_trait(ch, trait))
    try:
        score = int(trait)
    except ValueError:
        # The start of a character's name, or the unknown-character sentence.
        ch = table.character(name, state)
        return Side(ch.name, ch, sheet_trait(ch, trait))
    if not name.strip():
        raise BadInput("Name the opponent, like 'Corp netrunner'.")
    low, high = state.rules.score_range
    if not low <= score <= high:
        raise BadInput(
            f"{name}'s score is {score} but a {state.rules.title} score is {low} to {high}; give "
            f"a score from {low} to {high}."
        )
    return Side(check_name(name, "An opponent's name"), None, None, score)


def _contested(side: Side) -> tuple[str, str]:
    """What tells one running contest from another on this side: who, and over what (a trait,
    or an opponent's score), as a running contest's obligation records them."""
    what = side.trait if side.trait is not None else str(side.score)
    return side.name, what.casefold()


def _running(state: CampaignState, a: Side, b: Side) -> tuple[str, int] | None:
    """The contest still under way between these sides over these traits (its id) and the
    round it is at: the newest, should a GM have begun another alike on purpose.

    Ruling (tracker/systems/gurps/RULINGS.md, Regular contests): a contest is told apart by both
    sides and what each contests, so the same sides over other traits begin a contest of their
    own rather than a round of the one running.
    """
    wanted = (_contested(a), _contested(b))
    for ob in reversed(state.open_obligations("regular-contest")):
        sides = [ob.data.get("a") or {}, ob.data.get("b") or {}]
        found = tuple((s.get("name"), str(s.get("trait", "")).casefold()) for s in sides)
        if found == wanted:
            return ob.data["contest_id"], ob.data.get("rounds", 1) + 1
    return None


def _after_a_secret(state: CampaignState, decided: ContestDecision) -> list[int]:
    """Whether a contest fought over rounds must be sealed: any secret event the players have
    not been shown that names no character could be a round of it (a secret contest names
    none), and this line's round, or its being a new contest's first, would say how that one
    went. Asked of every round alike, whoever the sides are: which sides a sealed contest was
    between is what it keeps from the players. Gives the versions of those secret events."""
    return state.unrevealed(None) if decided.round is not None else []


def _roll_made(
    state: CampaignState,
    character: Character,
    decided: RollDecision,
    kind: str,
    dice_source: str,
    *,
    task: str | None = None,
    seed: str | None = None,
    after: str | None = None,
) -> RollMade:
    """The event a decided roll is logged as; a roll that follows another names it (``after``)."""
    inputs = decided.inputs if after is None else {**decided.inputs, "after": after}
    return RollMade(
        character_id=character.character_id,
        system=state.system,
        trait=decided.trait,
        kind=kind,
        inputs=inputs,
        dice_source=dice_source,
        dice=decided.dice,
        result=decided.result,
        effects=decided.effects,
        consumed=decided.consumed,
        task=task,
        seed=seed,
    )


def _answering(
    state: CampaignState, ch: Character, roll: RollMade, hidden: bool, owes: str, one: bool
) -> RollMade:
    """A roll that answers an obligation (Gloom's panic check answers the ``owes`` a catastrophe
    opened) names the events that opened those it discharges, so that undoing one of them
    takes the answer with it (or is refused): every one owed, or with ``one`` the oldest only
    (``RollKind.one``). A public roll does not name a secret event: the link would tell the
    players what that sealed roll was."""
    owed = [
        ob.opened_by
        for ob in state.open_obligations(owes, ch.character_id)
        if hidden or not ob.secret
    ]
    if one:
        owed = owed[:1]
    if not owed:
        return roll
    return msgspec.structs.replace(roll, inputs={**roll.inputs, "answers": owed})


def _roll_doc(
    state: CampaignState,
    ch: Character,
    decided: RollDecision,
    asked: RollRequest,
    kind: str,
    event: NewEvent,
    hidden: bool,
    dice_source: str,
) -> dict[str, Any]:
    """A logged roll's document: what its system decided, where it was logged and how, the
    effects as the GM sees them, and each roll the rules called for at once under its kind."""
    doc = {
        **decided.doc,
        "event_id": event.event_id,
        "system": state.system,
        "character": ch.name,
        "kind": kind,
        "secret": hidden,
        "dice_source": dice_source,
        "effects": describe_effects(state, ch, decided.effects),
    }
    unruled = conditions_unruled(ch, able(state.rules, Conditions).conditions_ruled(ch, asked))
    if unruled:
        doc["notes"] = [*doc.get("notes", []), unruled]
    # In the document, under its kind ("danger_sense"), after the roll's own fields.
    for then in decided.followups:
        doc[(then.kind or kind).replace("-", "_")] = dict(then.result)
    return doc


def _contest_rolled(
    state: CampaignState, decided: ContestDecision, dice_source: str, b_side: Side
) -> ContestRolled:
    """The event a decided contest is logged as; side B is named even when it did not roll."""
    return ContestRolled(
        system=state.system,
        mode=decided.mode,
        a=decided.a,
        b=decided.b,
        winner=decided.winner,
        result=decided.result,
        dice_source=dice_source,
        contest_id=decided.contest_id,
        round=decided.round,
        decided=decided.decided,
        effects=decided.effects,
        b_name=b_side.name if decided.b is None else msgspec.UNSET,
    )


class Foreseen(msgspec.Struct, frozen=True):
    """A roll before its dice are read (``Rolls.foresee``): the trait as the sheet names it, the
    score it is rolled at, its modifiers as its system words them ("-2 rude; +1 gear"), its
    lead where its system has one (``RollFacts.lead``: Glintlock's position, "desperate"), and
    its exact chance of success."""

    trait: str
    effective: int | None
    modifiers: str
    lead: str
    chance: Fraction


class Rolls:
    """Rolls, panic checks and contests at one table."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def roll(self, name: str, request: RollRequest) -> Logged:
        """Roll a character's trait under the campaign's rules and log it; the system reads the
        options it declares (``RollRequest.options``) and refuses any other given."""
        recorded = dice_kind(request.new_dice())
        return self.table.play(
            lambda state: self.decided(state, name, request, recorded), at_table="rolling"
        )

    def decided(
        self,
        state: CampaignState,
        name: str,
        request: RollRequest,
        recorded: tuple[str, str | None] | None = None,
    ) -> Decision:
        """What a roll of the character ``name`` logs in ``state``, and its document;
        ``recorded`` is where its dice come from as the event records them (``dice_kind``),
        when the command has read that already."""
        kind, secret = request.kind, request.secret
        dice_source, seed_text = recorded or dice_kind(request.new_dice())
        rules = state.rules
        if kind != "check":
            named = registry.roll_kind(rules, kind)
        asked = _own(rules, request, "roll")
        ch = self.table.character(name, state)
        asked = msgspec.structs.replace(asked, trait=sheet_trait(ch, asked.trait))
        decided = rules.decide_roll(asked, ch, state)
        hidden = secret or decided.secret
        roll = _roll_made(state, ch, decided, kind, dice_source, task=decided.task, seed=seed_text)
        if kind != "check" and named.answers:
            roll = _answering(state, ch, roll, hidden, named.answers, named.one)
        # What the rules call for at once (Danger Sense) follows the roll it answers. After a
        # secret roll it is stored inside that roll's event, so that nobody sees whether it was
        # rolled; after a public one (whose failure everyone saw) it is a secret event of its
        # own that names the roll it answers.
        answers = decided.followups
        if hidden and answers:
            inside = tuple(
                _roll_made(state, ch, t, t.kind or kind, t.dice_source or dice_source)
                for t in answers
            )
            roll = msgspec.structs.replace(roll, then=inside)
            answers = ()
        event = new_event(roll, state=state, visibility="gm" if hidden else "public")
        doc = _roll_doc(state, ch, decided, asked, kind, event, hidden, dice_source)
        followups = [
            new_event(
                _roll_made(
                    state,
                    ch,
                    then,
                    then.kind or kind,
                    then.dice_source or dice_source,
                    after=event.event_id,
                ),
                state=state,
                visibility="gm" if then.secret else "public",
            )
            for then in answers
        ]
        return Decision([event, *followups], doc)

    def foresee(self, name: str, request: RollRequest) -> Foreseen | None:
        """What a roll of the character ``name`` comes to before its dice are read, decided on
        the campaign as the players know it, so that it tells them nothing a secret event holds:
        what a roll the GM asks of a phone implies. None where the rules refuse it as asked
        (the roll itself will say why) or its system states no facts of it."""
        state = self.table.player_state()
        # Seeded dice: the decision reads dice, but nothing here depends on which.
        trial = msgspec.structs.replace(request, dice=None, seed="0", source=None, secret=False)
        try:
            decision = self.decided(state, name, trial)
            facts = state.rules.roll_facts(decision.events[0].data)
            if len(facts) != 1:
                return None
            chance = state.rules.chance(facts[0].chance_key)
        except (TrackerError, NotImplementedError, LookupError):
            return None
        one = facts[0]
        return Foreseen(one.trait, one.effective, one.modifiers, one.lead, chance)

    def roll_of_kind(
        self,
        kind: str,
        name: str,
        trait: str,
        *,
        dice: str | None = None,
        seed: str | None = None,
        secret: bool = False,
    ) -> Logged:
        """A roll of a kind the campaign's system names (``RollKinds.roll_kinds``: Gloom's
        panic check) on a trait the GM names; refused, naming the systems that have it, in a
        campaign whose system has no such roll."""
        return self.roll(name, RollRequest(trait, kind, dice, seed, secret))

    def contest(
        self,
        a_name: str,
        a_trait: str,
        b_name: str,
        b_trait: str,
        request: ContestRequest,
    ) -> Logged:
        """A contest of A (the active side) against B (the defender).

        Either side may be a character or an unnamed opponent given as a name and a score
        (``contest Kade Hacking "Corp netrunner" 14``).
        """
        secret = request.secret

        def decide(state: CampaignState) -> Decision:
            own = _own(state.rules, request, "contest")
            a_side = side(self.table, state, a_name, a_trait)
            b_side = side(self.table, state, b_name, b_trait)
            if a_side.character is not None and a_side.character is b_side.character:
                raise BadInput(
                    f"{a_side.name} cannot contest {a_side.name}; name another character or an "
                    "opponent and a score."
                )
            asked = msgspec.structs.replace(own, running=_running(state, a_side, b_side))
            decided = _contests(state.rules).decide_contest(asked, a_side, b_side, state)
            kind = "physical" if request.dice_a or request.dice_b else asked.sources()[0].kind
            payload = _contest_rolled(state, decided, kind, b_side)
            rounds = [] if secret or decided.secret else _after_a_secret(state, decided)
            hidden = secret or decided.secret or bool(rounds)
            event = new_event(payload, state=state, visibility="gm" if hidden else "public")
            winner = payload.winner
            doc = {
                **decided.doc,
                "event_id": event.event_id,
                "system": state.system,
                "mode": decided.mode,
                "winner": None
                if winner is None
                else (a_side.name if winner == "a" else b_side.name),
                "secret": hidden,
            }
            if rounds:
                could_be = "a round of a contest still running, or the end of one"
                doc["notes"] = [*doc.get("notes", []), kept_secret(rounds, could_be)]
            return Decision([event], doc)

        return self.table.play(decide, at_table="rolling a contest")


def _contests(rules: RuleSystem) -> Contests:
    """``rules`` as a system with contests; refused in the system's words when it has none."""
    if not isinstance(rules, Contests):
        said = able(rules, OwnWords).contest_refusal
        raise Refused(said or f"{rules.title} has no contested rolls; roll each side alone.")
    return rules


def conditions_unruled(character: Character, ruled: Sequence[str]) -> str | None:
    """A note naming the conditions ``character`` rolls under that its system's rules do not
    settle (``Conditions.conditions_ruled``), or None: the rulebooks give a stunned, fainted or
    wounded character no modifier of their own, so nothing is applied for them, but the roll
    does not pass as if the character had none. The GM gives the modifier or flag he rules."""
    names = [name for name in character.conditions if name not in ruled]
    if not names:
        return None
    listed = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    them = "them" if len(names) > 1 else "it"
    return (
        f"Also on {character.name}: {listed}; this roll applied nothing for {them} (if the GM "
        "rules otherwise, undo the roll and roll again with the modifier or flag he gives)."
    )


def _own(system: RuleSystem, request: Any, what: str) -> Any:
    """``request`` (a roll's or a contest's, ``what``) with the options ``system`` declares, as
    its own struct. An option the GM gave that it does not declare is refused: a roll logged
    with it would look as if it applied."""
    declared = getattr(system, f"{what}_options", ())
    given = request.options
    kind = able(system, RollKinds).roll_kinds.get(request.kind) if what == "roll" else None
    if kind is not None and kind.options is not None:
        # A kind whose command declares its own options reads those alone.
        if type(given) is options_struct("Options", kind.options):
            return request
        values = {o.name: getattr(given, o.name) for o in kind.options if hasattr(given, o.name)}
        return msgspec.structs.replace(request, options=option_values(kind.options, **values))
    if given is not None and type(given) is options_struct("Options", declared):
        return request
    own = {o.name for o in declared}
    for option in registry.declared(f"{what}_options"):
        if option.name not in own and getattr(given, option.name, None) not in (
            None,
            option.empty(),
        ):
            readers = registry.readers(f"{what}_options", option.name)
            raise registry.not_theirs(option.flag, readers, system, (what,))
    values = {name: getattr(given, name) for name in own if hasattr(given, name)}
    return msgspec.structs.replace(request, options=option_values(declared, **values))
