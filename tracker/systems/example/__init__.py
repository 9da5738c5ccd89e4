"""Embers: a complete small rule system, written as an outside package would write it.

``tracker/systems/REFERENCE.md`` walks through it. It imports nothing of tracker but
``tracker.systems.api`` and is registered nowhere: tracker does not offer it. A package of
your own that copies it declares it in its ``pyproject.toml``::

    [project.entry-points."tracker.systems"]
    embers = "tracker_embers:Embers"

The rules: a character rolls 2d6 and adds a stat; 10 or more is a strong hit, 7 to 9 a weak
hit, 6 or less a miss. A miss gives the character 1 Grit (at most 3), a track of the system's
own that every screen shows beside the character. ``--grit`` on a roll spends 1 Grit for +1;
``tracker grit spend CHARACTER --on TEXT`` spends 1 on what the table says, an event of the
system's own (``EmbersGritSpent``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from typing import Any, ClassVar

import msgspec

from tracker.systems.api import (
    Acted,
    Argument,
    CampaignFold,
    CampaignView,
    CharacterFold,
    CharacterView,
    Command,
    DemoEvening,
    Entry,
    EventPayload,
    Folding,
    Odds,
    OddsCommand,
    OddsOption,
    OddsReport,
    OddsTables,
    Option,
    OwnCommands,
    OwnWords,
    Part,
    Provenance,
    Refused,
    RollDecision,
    RollFacts,
    RollLines,
    RollMade,
    RollRequest,
    RuleSystem,
    StoredEvent,
    Style,
    SystemCommand,
    Table,
    Terminal,
    TrackChange,
    distribution,
    effects_differ,
    effects_text,
    event_type,
    faces,
    option_values,
    placed,
    trait_value,
)

FACES = 6
STRONG = 10
WEAK = 7
GRIT_MAX = 3
OUTCOMES = ("strong", "weak", "miss")
ROLL = (Option("--grit", "spend 1 Grit for +1 on this roll.", "bool", label="spend a Grit"),)


# -- the rules: pure functions of numbers ---------------------------------------------------


def outcome(total: int) -> str:
    """10 or more a strong hit, 7 to 9 a weak one, 6 or less a miss."""
    return "strong" if total >= STRONG else "weak" if total >= WEAK else "miss"


def roll_effects(got: str, grit: bool) -> tuple[TrackChange, ...]:
    """What a roll does to the roller's Grit: a Grit spent on it, and one gained on a miss."""
    spent = (TrackChange("grit", -1, "spent on the roll"),) if grit else ()
    gained = (TrackChange("grit", 1, "a miss"),) if got == "miss" else ()
    return spent + gained


def odds(bonus: int) -> OddsReport:
    """The exact chance of each outcome with ``bonus`` added to 2d6, every fall counted."""
    falls = faces(2, range(1, FACES + 1))
    chances = distribution(((outcome(sum(fall) + bonus), 1) for fall in falls), OUTCOMES)
    found = Odds("embers", "roll", chances, success=1 - chances["miss"], details={"bonus": bonus})
    return OddsReport(found, f"Embers · 2d6{bonus:+d}", found.to_dict())


# -- the state: what the system keeps of each character --------------------------------------


@event_type
class GritSpent(EventPayload, frozen=True):
    """Embers: a Grit spent by a character on what the table says."""

    TYPE: ClassVar[str] = "EmbersGritSpent"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    on: str


@dataclass(slots=True)
class EmbersCharacter(Part):
    """What Embers keeps of a character: its Grit."""

    grit: int = 0


def _spent(state: CampaignFold, event: GritSpent, raw: StoredEvent) -> None:
    state.characters[event.character_id].own.grit -= 1


def _could_spend(state: CampaignFold, event: GritSpent) -> str | None:
    ch = state.characters.get(event.character_id)
    return None if ch is not None and ch.own.grit >= 1 else "it spends a Grit the character has not"


class EmbersFolding(Folding):
    """How Embers folds the log: each character's Grit."""

    character_part: ClassVar[type[Part] | None] = EmbersCharacter
    handlers: ClassVar[Mapping[type, Any]] = {GritSpent: _spent}
    preconditions: ClassVar[Mapping[type, Any]] = {GritSpent: _could_spend}

    def track_moved(
        self,
        state: CampaignFold,
        ch: CharacterFold | None,
        track: str,
        delta: int,
        raw: StoredEvent,
    ) -> None:
        if track == "grit" and ch is not None:
            ch.own.grit = min(max(ch.own.grit + delta, 0), GRIT_MAX)

    def roll_problem(self, state: CampaignFold, ch: CharacterFold, event: RollMade) -> str | None:
        if event.inputs.get("grit") and ch.own.grit < 1:
            return "it spends a Grit the character has not"
        return None

    def currencies(self, state: CampaignFold, ch: CharacterFold) -> dict[str, tuple[int, int]]:
        return {} if ch is None else {"grit": (ch.own.grit, GRIT_MAX)}

    def character_doc(self, ch: CharacterFold, doc: dict[str, Any]) -> dict[str, Any]:
        return {**doc, "grit": ch.own.grit}

    def readings(
        self, state: CampaignFold, ch: CharacterFold | None, doc: dict[str, Any]
    ) -> dict[str, Any]:
        return doc if ch is None else {**doc, "Grit": ch.own.grit}

    def status_parts(
        self, doc: Mapping[str, Any], parts: dict[str, str | None], style: Style
    ) -> dict[str, str | None]:
        return placed(parts, "conditions", {"grit": f"Grit {doc['grit']}"})


# -- a command of the system's own -----------------------------------------------------------


class SpendGrit(msgspec.Struct, frozen=True):
    """``tracker grit spend``'s request: its argument and option by name."""

    character: str
    on: str


def spend_grit(table: Table, state: Any, request: SpendGrit) -> Acted:
    """Spend 1 of a character's Grit, or refuse in one sentence when there is none."""
    ch = table.character(request.character, state)
    if ch.own.grit < 1:
        raise Refused(f"{ch.name} has no Grit to spend; a miss gives 1.")
    payload = GritSpent(character_id=ch.character_id, on=request.on)
    doc = {"character": ch.name, "on": request.on, "grit": ch.own.grit - 1}
    return Acted((Entry(payload),), doc)


def _said_spent(doc: Mapping[str, Any], style: Terminal) -> list[str]:
    return [f"{style.bold(doc['character'])} spends a Grit on {doc['on']}: {doc['grit']} left."]


SPEND = Command(
    ("grit", "spend"),
    """Spend a character's Grit on what the table says.

    \b
    Example:
      tracker grit spend Tam --on "holding the door shut"
    """,
    arguments=(Argument("character", complete="characters", example="Tam"),),
    options=(Option("--on", "What the Grit buys.", required=True, example='--on "a second wind"'),),
)


# -- the system ------------------------------------------------------------------------------


class Embers(RuleSystem, Provenance, OddsTables, OwnCommands, OwnWords):
    """2d6 plus a stat: 10+ strong, 7-9 weak, 6- a miss, which gives Grit."""

    name: ClassVar[str] = "embers"
    title: ClassVar[str] = "Embers"
    outcome_tones: ClassVar[Mapping[str, str]] = {"strong": "good", "weak": "mixed", "miss": "bad"}
    score_range: ClassVar[tuple[int, int]] = (-1, 3)
    dice_name: ClassVar[str] = "2d6"
    dice_join: ClassVar[str] = "+"
    roll_options: ClassVar[tuple[Option, ...]] = ROLL
    folding: ClassVar[Folding] = EmbersFolding()
    commands: ClassVar[tuple[SystemCommand, ...]] = (
        SystemCommand(
            ("grit", "spend"),
            SpendGrit,
            spend_grit,
            "Grit",
            at_table="spending Grit",
            render=_said_spent,
            declared=SPEND,
        ),
    )
    event_words: ClassVar[Mapping[type, Any]] = {
        GritSpent: lambda e, who: f"{who} spends a Grit on {e.on}"
    }

    def decide_roll(
        self, request: RollRequest, character: CharacterView, campaign: CampaignView
    ) -> RollDecision:
        score, trait = trait_value(self, character, request.trait)
        grit = bool(request.options.grit)
        if grit and character.own.grit < 1:
            raise Refused(f"{character.name} has no Grit to spend; roll without --grit.")
        bonus = score + grit
        dice = request.new_dice().roll(2, FACES, "an Embers roll")
        got = outcome(sum(dice) + bonus)
        result = {"dice": list(dice), "kept": sum(dice), "outcome": got, "success": got != "miss"}
        doc = {"trait": trait, "effective": bonus, **result, "notes": []}
        inputs = {"score": score, **({"grit": True} if grit else {})}
        return RollDecision(trait, inputs, result, dice, doc, roll_effects(got, grit))

    def redecide(self, event: EventPayload) -> str | None:
        if not isinstance(event, RollMade):
            return None
        grit = bool(event.inputs.get("grit"))
        now = outcome(sum(event.dice) + event.inputs["score"] + grit)
        if now != event.result["outcome"]:
            return f"the outcome is stored as {event.result['outcome']} but is {now}"
        return effects_differ(event.effects, roll_effects(now, grit))

    def rolled_from(
        self,
        event: EventPayload,
        characters: Mapping[str, CharacterView],
        campaign: CampaignView,
        *,
        tracks: bool = True,
    ) -> str | None:
        if not isinstance(event, RollMade):
            return None
        score, _ = trait_value(self, characters[event.character_id], event.trait)
        stored = event.inputs["score"]
        return None if score == stored else f"it rolled {event.trait} {stored}, the sheet's {score}"

    def roll_facts(self, event: EventPayload) -> list[RollFacts]:
        if not isinstance(event, RollMade):
            return []
        bonus = event.inputs["score"] + bool(event.inputs.get("grit"))
        return [
            RollFacts(
                character_id=event.character_id,
                name=None,
                kind=event.kind,
                trait=event.trait,
                base=event.inputs["score"],
                modifiers="Grit +1" if event.inputs.get("grit") else "",
                effective=bonus,
                dice=event.dice,
                faces=FACES,
                kept=sum(event.dice),
                outcome=event.result["outcome"],
                success=event.result["success"],
                effects=effects_text(event.effects),
                chance_key=bonus,
            )
        ]

    def chance(self, key: int) -> Fraction:
        return odds(key).odds.success or Fraction(0)

    def render_roll(self, doc: Mapping[str, Any], style: Style) -> RollLines:
        head = f"{style.bold(doc['character'])} · {doc['trait']} (2d6{doc['effective']:+d})"
        dice = "+".join(map(str, doc["dice"]))
        return RollLines(head, f"  {dice} = {doc['kept']}  →  {style.outcome(doc['outcome'])}")

    def odds_command(self) -> OddsCommand:
        return OddsCommand(
            help="Embers: the chance of each outcome.\n\n\b\nExample:\n"
            "  tracker odds embers --bonus 1\n",
            options=(OddsOption("--bonus", "The stat added to 2d6.", required=True),),
            compute=odds,
        )

    def demo(self) -> DemoEvening:
        here = resources.files(__name__)
        return DemoEvening(
            "The Lantern Road",
            "The lantern gutters",
            (here / "tam.toml", here / "ines.toml"),
            here / "evening.txt",
            examples=(RollRequest("Edge", options=option_values(ROLL)),),
        )
