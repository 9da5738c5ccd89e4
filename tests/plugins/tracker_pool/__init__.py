"""Pool: a d6 dice-pool system with a currency of its own, installed as an outside package
would be, for the tests. It touches nothing of tracker but its public pieces.

A character rolls as many d6 as the trait's score; each 5 or 6 is a success. No success is a
miss, one a hit, two or more a flourish. Each success beyond the first adds 1 Momentum to the
party's pool (at most 6; what goes past is lost). ``tracker momentum spend CHARACTER N --on
TEXT`` spends it (an event of the system's own, ``PoolMomentumSpent``), and ``--push`` on a
roll adds a die for 1 Momentum. While the pool is full, the GM owes a complication: the
obligation opens as the pool fills and is met when Momentum is spent, or when the GM calls
one (``tracker complication call TEXT``: two commands discharge the same kind). A push strains
the one who pushed: each adds 1 to that character's Strain, which stays for the campaign.
Each boon the scene grants (``--boon``, repeated, each once) adds a die. A resistance roll
(``tracker resist CHARACTER TRAIT --against N``) holds when its successes reach N: an option of
its own command, which ``tracker roll`` does not take.
A character's Edge is kept on the sheet and never rolled. Rulings of this system: the pool
carries over from session to session, and so does a complication owed. A table may keep a
smaller pool: its size is a setting of the system's own (``campaign set --pool-size N``, 3 to
6), logged by its name as tracker's own settings are.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from typing import Any, ClassVar

import msgspec

from tracker.errors import BadInput, Refused
from tracker.events.catalog import EventPayload, event_type
from tracker.events.effects import TrackChange, effects_text
from tracker.events.envelope import StoredEvent
from tracker.events.play import RollMade
from tracker.systems.acts import Acted, Entry, SystemCommand, Table
from tracker.systems.base import (
    ROLL_OPTIONS,
    CampaignFold,
    CampaignView,
    CharacterFold,
    CharacterView,
    DemoEvening,
    Folding,
    OddsCommand,
    OddsOption,
    OddsReport,
    Part,
    RollDecision,
    RollFacts,
    RollKind,
    RollLines,
    RollRequest,
    RuleSystem,
    Style,
    effects_differ,
)
from tracker.systems.capabilities import (
    Currencies,
    OddsTables,
    OwnCommands,
    OwnSettings,
    OwnWords,
    RollKinds,
    SheetRules,
    trait_value,
)
from tracker.systems.commands import Argument, Command, Option, Setting, option_values
from tracker.systems.odds import Odds

FACES = 6
SUCCESS_FACE = 5
POOL_MAX = 6
PUSH_COST = 1
COMPLICATION = "pool-complication"
OUTCOMES = ("miss", "hit", "flourish")
EDGE = "Edge"
BOONS = ("sure footing", "good light", "a friend's hand")
ROLL = (
    Option("--push", "add a die for 1 Momentum from the party's pool.", "bool"),
    Option(
        "--boon",
        "a boon the scene grants: a die each, each boon once.",
        "choice",
        dest="boons",
        multiple=True,
        choices=BOONS,
        example='--boon "good light"',
    ),
)
RESIST_KIND = "resist"
RESIST = (
    Option(
        "--against",
        "as many as the GM sets (1).",
        "int",
        default=1,
        limits=(1, 5),
        label="successes it must reach",
    ),
)
POOL_SIZE = Option("--pool-size", "the most Momentum the party's pool holds (6).", "int")
SETTINGS = (
    Setting(
        "pool_size",
        "pool size",
        POOL_SIZE,
        new=POOL_SIZE,
        limits=(3, POOL_MAX),
        unset=f"{POOL_MAX} (the rulebook's)",
    ),
)


@event_type
class MomentumSpent(EventPayload, frozen=True):
    """Pool: Momentum spent from the party's pool by a character, on what the table says."""

    TYPE: ClassVar[str] = "PoolMomentumSpent"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    amount: int
    on: str


@event_type
class ComplicationCalled(EventPayload, frozen=True):
    """Pool: the complication the full pool owed, as the GM calls it."""

    TYPE: ClassVar[str] = "PoolComplicationCalled"
    what: str


# -- the rules --------------------------------------------------------------------------------


def _verdict(outcome: str, count: int) -> str:
    """The outcome as a line of the log says it: with the successes that made it."""
    return f"{outcome}, {count} success" + ("" if count == 1 else "es")


def successes(dice: tuple[int, ...]) -> int:
    return sum(die >= SUCCESS_FACE for die in dice)


def outcome(dice: tuple[int, ...]) -> str:
    return OUTCOMES[min(successes(dice), len(OUTCOMES) - 1)]


def effects(dice: tuple[int, ...], push: bool) -> tuple[TrackChange, ...]:
    """What a roll does to the pool: a push costs 1; each success beyond the first adds 1."""
    paid = (TrackChange("momentum", -PUSH_COST, "a push"),) if push else ()
    beyond = successes(dice) - 1
    gained = (TrackChange("momentum", beyond, "successes beyond the first"),) if beyond > 0 else ()
    return paid + gained


def _odds(dice: int) -> OddsReport:
    """Exact, by the binomial count of successes (each die 2 in 6), so a big pool costs no
    walk over every fall."""
    count = dice
    if not 1 <= count <= 40:
        raise BadInput(f"A pool of {count} d6 is not rolled here; give 1 to 40 dice.")
    p = Fraction(FACES - SUCCESS_FACE + 1, FACES)
    by = [math.comb(count, k) * p**k * (1 - p) ** (count - k) for k in range(count + 1)]
    chances = {
        "miss": by[0],
        "hit": by[1] if count >= 1 else Fraction(0),
        "flourish": sum(by[2:], Fraction(0)),
    }
    odds = Odds("pool", "roll", chances, success=1 - chances["miss"])
    return OddsReport(odds, f"Pool · {count}d6", odds.to_dict())


# -- the state --------------------------------------------------------------------------------


@dataclass(slots=True)
class PoolCampaign(Part):
    momentum: int = 0


@dataclass(slots=True)
class PoolCharacter(Part):
    strain: int = 0


def _owed(state: CampaignFold) -> bool:
    return bool(state.open_obligations(COMPLICATION))


def _size(state: CampaignFold) -> int:
    return state.setting("pool_size") or POOL_MAX


def _set_pool(state: CampaignFold, value: int, raw: StoredEvent, how: str) -> None:
    """Move the pool, opening the complication as it fills and meeting it as it is spent."""
    before, size = state.own.momentum, _size(state)
    state.own.momentum = min(max(value, 0), size)
    if state.own.momentum == size and not _owed(state):
        state.open(
            raw,
            COMPLICATION,
            f"The party's pool is full ({size} Momentum): the GM owes a complication.",
        )
    elif state.own.momentum < before:
        for ob in state.open_obligations(COMPLICATION):
            state.discharge(ob, raw, how)


def _spent(state: CampaignFold, e: MomentumSpent, raw: StoredEvent) -> None:
    _set_pool(state, state.own.momentum - e.amount, raw, f"{e.amount} Momentum spent")


def _called(state: CampaignFold, e: ComplicationCalled, raw: StoredEvent) -> None:
    for ob in state.open_obligations(COMPLICATION):
        state.discharge(ob, raw, "the GM called it")


def _could_call(state: CampaignFold, e: ComplicationCalled) -> str | None:
    return None if _owed(state) else "no complication would be owed"


def _could_spend(state: CampaignFold, e: MomentumSpent) -> str | None:
    held = state.own.momentum
    return (
        f"the pool would hold {held} Momentum for a spend of {e.amount}"
        if held < e.amount
        else None
    )


class PoolFolding(Folding):
    campaign_part: ClassVar[type[Part]] = PoolCampaign
    character_part: ClassVar[type[Part]] = PoolCharacter
    handlers: ClassVar[dict[type, Any]] = {MomentumSpent: _spent, ComplicationCalled: _called}
    preconditions: ClassVar[dict[type, Any]] = {
        MomentumSpent: _could_spend,
        ComplicationCalled: _could_call,
    }

    def track_moved(
        self,
        state: CampaignFold,
        ch: CharacterFold | None,
        track: str,
        delta: int,
        raw: StoredEvent,
    ) -> None:
        if track == "momentum":
            _set_pool(state, state.own.momentum + delta, raw, "Momentum pushed")

    def rolled(
        self, state: CampaignFold, ch: CharacterFold, event: RollMade, raw: StoredEvent
    ) -> None:
        if event.inputs.get("push"):
            ch.own.strain += 1

    def roll_problem(self, state: CampaignFold, ch: CharacterFold, event: RollMade) -> str | None:
        if event.inputs.get("push") and state.own.momentum < PUSH_COST:
            return "it pushed with no Momentum in the pool"
        return None

    def campaign_doc(self, state: CampaignFold, doc: dict[str, Any]) -> dict[str, Any]:
        return {**doc, "momentum": state.own.momentum, "complication_owed": _owed(state)}

    def character_doc(self, ch: CharacterFold, doc: dict[str, Any]) -> dict[str, Any]:
        return {**doc, "strain": ch.own.strain}

    def readings(
        self, state: CampaignFold, ch: CharacterFold | None, doc: dict[str, Any]
    ) -> dict[str, Any]:
        if ch is None:
            return {"Momentum": state.own.momentum, **doc}
        return {**doc, "Strain": ch.own.strain}

    def chart(
        self, state: CampaignFold, ch: CharacterFold | None, point: dict[str, Any]
    ) -> dict[str, Any]:
        return {**point, "momentum": state.own.momentum} if ch is None else point

    def currencies(self, state: CampaignFold, ch: CharacterFold) -> dict[str, tuple[int, int]]:
        return {"momentum": (state.own.momentum, _size(state))}

    def headline(self, state: CampaignFold) -> str:
        return f" · Momentum {state.own.momentum}" + (
            " (complication owed)" if _owed(state) else ""
        )


# -- the command ------------------------------------------------------------------------------


class SpendMomentum(msgspec.Struct, frozen=True):
    character: str
    amount: int
    on: str


def spend(table: Table, state: Any, request: SpendMomentum) -> Acted:
    ch = table.character(request.character, state)
    if request.amount < 1:
        raise BadInput(
            f"Momentum is spent 1 or more at a time, not {request.amount}; "
            'give 1 or more, like `tracker momentum spend Ash 1 --on "a second wind"`.'
        )
    held = state.own.momentum
    if held < request.amount:
        raise Refused(
            f"The party's pool holds {held} Momentum and {ch.name} would spend "
            f"{request.amount}; spend {held} or less."
        )
    payload = MomentumSpent(character_id=ch.character_id, amount=request.amount, on=request.on)
    doc = {
        "character": ch.name,
        "amount": request.amount,
        "on": request.on,
        "before": held,
        "after": held - request.amount,
    }
    return Acted((Entry(payload),), doc)


def _render_spend(doc: Mapping[str, Any], style: Style) -> list[str]:
    return [
        f"{style.bold(doc['character'])} spends {doc['amount']} Momentum on {doc['on']}: "
        f"the pool {doc['before']} → {doc['after']}."
    ]


SPEND = Command(
    ("momentum", "spend"),
    """Spend Momentum from the party's pool on something a character does.

    \b
    Example:
      tracker momentum spend Ash 2 --on "a second wind"
    """,
    arguments=(
        Argument("character", complete="characters", example="Ash"),
        Argument("amount", kind="int", metavar="N", example="2", limits=(1, POOL_MAX)),
    ),
    options=(
        Option("--on", "What the Momentum buys.", required=True, example='--on "a second wind"'),
    ),
)


def _spend_words(e: MomentumSpent, who: str) -> str:
    return f"{who} spends {e.amount} Momentum on {e.on}"


class CallComplication(msgspec.Struct, frozen=True):
    what: str


def call(table: Table, state: Any, request: CallComplication) -> Acted:
    if not _owed(state):
        raise Refused(
            "No complication is owed (the pool is not full); call one when the pool fills."
        )
    return Acted((Entry(ComplicationCalled(what=request.what)),), {"what": request.what})


CALL = Command(
    ("complication", "call"),
    """Call the complication the full pool owes.

    \b
    Example:
      tracker complication call "the bridge gives way"
    """,
    arguments=(Argument("what", example='"the bridge gives way"'),),
)


class Resist(msgspec.Struct, frozen=True):
    character: str
    trait: str
    against: int = 1
    dice: str | None = None
    seed: str | None = None
    secret: bool = False


def resist(table: Table, state: Any, request: Resist) -> Acted:
    asked = RollRequest(
        request.trait,
        RESIST_KIND,
        request.dice,
        request.seed,
        request.secret,
        options=option_values(RESIST, against=request.against),
    )
    return table.roll(state, request.character, asked)


RESIST_COMMAND = Command(
    ("resist",),
    """Roll to resist: it holds when its successes reach --against.

    \b
    Example:
      tracker resist Bram Brawn --against 2
    """,
    arguments=(
        Argument("character", complete="characters", example="Bram"),
        Argument("trait", complete="traits", example="Brawn"),
    ),
    options=(*RESIST, *ROLL_OPTIONS),
)


# -- the system -------------------------------------------------------------------------------


class Pool(
    RuleSystem, Currencies, RollKinds, SheetRules, OddsTables, OwnCommands, OwnSettings, OwnWords
):
    """A pool of d6, as many as the score; each 5 or 6 a success."""

    name: ClassVar[str] = "pool"
    title: ClassVar[str] = "Pool"
    outcome_tones: ClassVar[Mapping[str, str]] = {"miss": "bad", "hit": "good", "flourish": "good"}
    score_range: ClassVar[tuple[int, int]] = (1, 8)
    dice_name: ClassVar[str] = "d6"
    # Its own column of the roll history, and the recap's detail: nothing GURPS or Glintlock has.
    roll_columns: ClassVar[tuple[str, ...]] = ("successes",)
    detail_column: ClassVar[str] = "Successes"
    roll_options: ClassVar[tuple[Option, ...]] = ROLL
    settings: ClassVar[tuple[Setting, ...]] = SETTINGS
    folding: ClassVar[Folding] = PoolFolding()
    commands: ClassVar[tuple[SystemCommand, ...]] = (
        SystemCommand(
            ("momentum", "spend"),
            SpendMomentum,
            spend,
            "Momentum",
            at_table="spending Momentum",
            render=_render_spend,
            discharges=(COMPLICATION,),
            declared=SPEND,
        ),
        SystemCommand(
            ("complication", "call"),
            CallComplication,
            call,
            "A complication",
            at_table="calling a complication",
            render=lambda doc, style: [f"The GM calls a complication: {doc['what']}."],
            discharges=(COMPLICATION,),
            declared=CALL,
        ),
        SystemCommand(
            ("resist",),
            Resist,
            resist,
            "A resistance roll",
            at_table="rolling",
            render=lambda doc, style: style.roll_lines(doc),
            declared=RESIST_COMMAND,
        ),
    )
    roll_kinds: ClassVar[Mapping[str, RollKind]] = {
        RESIST_KIND: RollKind("The resistance roll", options=RESIST)
    }
    event_words: ClassVar[Mapping[type, Any]] = {
        MomentumSpent: _spend_words,
        ComplicationCalled: lambda e, who: f"the GM calls a complication: {e.what}",
    }

    def rollable(self, character: CharacterView) -> list[str]:
        return [k for k in super().rollable(character) if k.casefold() != EDGE.casefold()]

    def decide_roll(
        self, request: RollRequest, character: CharacterView, campaign: CampaignView
    ) -> RollDecision:
        if request.trait.casefold() == EDGE.casefold():
            raise BadInput(
                f"{EDGE} is kept on the sheet, never rolled; roll one of "
                f"{', '.join(self.rollable(character))}."
            )
        score, trait = trait_value(self, character, request.trait)
        # A resistance roll reads its own command's options; a check, the roll's.
        against = getattr(request.options, "against", None)
        push = bool(getattr(request.options, "push", False))
        if push and campaign.own.momentum < PUSH_COST:
            raise Refused("The party's pool holds no Momentum to push with; roll without --push.")
        boons = tuple(getattr(request.options, "boons", ()) or ())
        if len(set(boons)) < len(boons):
            raise BadInput("Each boon is granted once; give each --boon one time.")
        count = score + push + len(boons)
        if count < 1:
            raise BadInput(
                f"{character.name}'s {trait} is {score}: a pool of no dice is not rolled."
            )
        dice = request.new_dice().roll(count, FACES, f"a pool of {count}d6")
        got = outcome(dice)
        result = {
            "dice": list(dice),
            "kept": None,
            "successes": successes(dice),
            "outcome": got,
            "success": got != "miss" if against is None else successes(dice) >= against,
        }
        doc = {"trait": trait, "effective": count, **result, "notes": []}
        if against is not None:
            doc["against"] = against
        inputs = {
            "score": score,
            **({"push": True} if push else {}),
            **({"boons": list(boons)} if boons else {}),
            **({"against": against} if against is not None else {}),
        }
        return RollDecision(trait, inputs, result, dice, doc, effects(dice, push))

    def redecide(self, event: EventPayload) -> str | None:
        if not isinstance(event, RollMade):
            return None
        count = (
            event.inputs["score"]
            + bool(event.inputs.get("push"))
            + len(event.inputs.get("boons", ()))
        )
        if len(event.dice) != count:
            return f"{len(event.dice)} dice are stored for a pool of {count}"
        now, stored = outcome(event.dice), event.result["outcome"]
        if now != stored:
            return f"the outcome is stored as {stored} but is {now}"
        against = event.inputs.get("against")
        held = now != "miss" if against is None else successes(event.dice) >= against
        if held != event.result["success"]:
            return f"the roll is stored as {'' if event.result['success'] else 'not '}a success"
        return effects_differ(event.effects, effects(event.dice, bool(event.inputs.get("push"))))

    def priced(self, event: EventPayload) -> str | None:
        if isinstance(event, MomentumSpent) and not 1 <= event.amount <= POOL_MAX:
            return f"Momentum is spent 1 to {POOL_MAX} at a time, not {event.amount}"
        return None

    def roll_facts(self, event: EventPayload) -> list[RollFacts]:
        if not isinstance(event, RollMade):
            return []
        result = event.result
        count = len(event.dice)
        return [
            RollFacts(
                event.character_id,
                None,
                event.kind,
                event.trait,
                event.inputs["score"],
                "push +1 die" if event.inputs.get("push") else "",
                count,
                event.dice,
                FACES,
                None,
                result["outcome"],
                result["success"],
                effects_text(event.effects),
                count,
                columns={"successes": successes(event.dice)},
                verdict=_verdict(result["outcome"], successes(event.dice)),
                detail=str(successes(event.dice)),
            )
        ]

    def chance(self, key: int) -> Fraction:
        return _odds(dice=key).odds.success

    def render_roll(self, doc: Mapping[str, Any], style: Style) -> RollLines:
        head = f"{style.bold(doc['character'])} · {doc['trait']} ({doc['effective']}d6)"
        dice = ", ".join(map(str, doc["dice"]))
        worded = f"{doc['successes']} success" + ("" if doc["successes"] == 1 else "es")
        said = style.outcome(doc["outcome"])
        if "against" in doc:
            said += f" · {'held' if doc['success'] else 'broke'} against {doc['against']}"
        return RollLines(head, f"  {dice}: {worded}  →  {said}")

    def odds_command(self) -> OddsCommand:
        return OddsCommand(
            help="Pool: the chance of each outcome.\n\n\b\nExample:\n  tracker odds pool --dice 3",
            options=(OddsOption("--dice", "How many d6 are rolled.", required=True),),
            compute=_odds,
        )

    def demo(self) -> DemoEvening:
        here = resources.files(__name__)
        return DemoEvening(
            "The Long Road",
            "The pool fills",
            (here / "ash.toml", here / "bram.toml"),
            here / "evening.txt",
            examples=(RollRequest("Nerve", options=option_values(ROLL)),),
        )
