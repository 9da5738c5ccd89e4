"""Events of play every rule system shares: rolls, contests, stress, HP and FP, conditions,
notes, obligations dismissed, and undo, redo and reveal. A system's own events (Glintlock's
Mettle and Threat, GURPS's Fright Checks and points) are defined in its package
(``tracker/systems/NAME/events.py``), registered in the same catalog under the type names
tracker has always stored.

Events record facts, not recomputations: a roll keeps its inputs (trait, base value, every labelled
modifier, tags), the dice as rolled and their source, the decided result, and the effects it
requested on each track. Projections apply the recorded effects; ``tracker verify`` re-decides the
result from the recorded inputs and dice, and holds those inputs to the sheet and the state the
log gives where the roll stands (``Provenance.rolled_from``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from tracker.events.catalog import EventPayload, event_type
from tracker.events.effects import Effect


@event_type
class RollMade(EventPayload, frozen=True):
    """One roll of a character: a check, a defense, a panic check, a project day, extra effort.

    ``inputs`` and ``result`` are the roll's document in the words of the ``system`` that decided
    it (that system reads them back: ``tracker.systems``). ``effects`` are the changes the roll
    requests (``tracker.events.effects``): Mettle +1, Threat +2, 7 HP of backlash, panicked, a
    panic check owed. ``consumed`` names the earlier events whose one-shot effect this roll used
    (a steel-yourself spend, a story tag). ``then`` holds the rolls the rules called for at
    once in answer to a secret one (Danger Sense after a failed secret sense roll): kept inside
    it, so that whether they were rolled is as secret as the roll itself.
    """

    TYPE: ClassVar[str] = "RollMade"
    character_field: ClassVar[str | None] = "character_id"
    rolls: ClassVar[bool] = True
    character_id: str
    """The character who rolled."""
    system: str
    """The name of the rule system that decided it."""
    trait: str
    """The trait rolled, as the sheet spells it (``RollDecision.trait``)."""
    kind: str
    """The kind of roll ("check", or one of the system's ``roll_kinds``)."""
    inputs: dict[str, Any]
    """What it was decided from (``RollDecision.inputs``)."""
    dice_source: str
    """Where its dice came from: "system", "seeded" or "physical"."""
    dice: tuple[int, ...]
    """The dice as they fell."""
    result: dict[str, Any]
    """What the dice decided (``RollDecision.result``)."""
    effects: tuple[Effect, ...] = ()
    """What it did to the campaign (``RollDecision.effects``)."""
    consumed: tuple[str, ...] = ()
    """The ids of the events whose one-shot effect it used (``RollDecision.consumed``)."""
    task: str | None = None
    """The named task whose attempts it counts (``RollDecision.task``), or None."""
    seed: str | None = None
    """The seed its dice were rolled from, for seeded dice."""
    then: tuple[RollMade, ...] | msgspec.UnsetType = msgspec.UNSET
    """The rolls the rules called for at once after it (``RollDecision.followups``), kept
    inside it; unset for none."""

    def with_followups(self) -> tuple[RollMade, ...]:
        """This roll and the rolls it holds, in the order they were rolled."""
        return (self, *self.then) if self.then else (self,)


class ContestSide(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """One side of a contest: a character (``character_id``) or a named opponent (None), the
    trait it rolled (None for an opponent's bare score), its inputs and its decided roll. Like
    every event, it holds no key it has no field for."""

    name: str
    """The side's name: a character's, or an opponent's as the GM gave it."""
    character_id: str | None
    """The character's id; None for an opponent."""
    trait: str | None
    """The trait rolled; None for an opponent's bare score."""
    inputs: dict[str, Any]
    """What the side's roll was decided from."""
    result: dict[str, Any]
    """What the side's dice decided."""


@event_type
class ContestRolled(EventPayload, frozen=True):
    """A contest between two sides; each side is a character or a named opponent with a score.

    ``a`` and ``b`` hold each side's name, character id (None for an opponent), trait, inputs
    and result; ``b`` is None when the defender did not roll, and ``b_name`` then names it
    (unset in contests logged before it was kept). A GURPS regular contest logs one event per
    round, sharing ``contest_id``.
    """

    TYPE: ClassVar[str] = "ContestRolled"
    character_field: ClassVar[str | None] = None
    rolls: ClassVar[bool] = True
    system: str
    """The name of the rule system that decided it."""
    mode: str
    """The kind of contest (``ContestDecision.mode``)."""
    a: ContestSide
    """Side A, who acts."""
    b: ContestSide | None
    """Side B, or None when the defender did not roll."""
    winner: str | None
    """The side that won, "a" or "b"; None for a stalemate."""
    result: dict[str, Any]
    """What the contest came to (``ContestDecision.result``)."""
    dice_source: str
    """Where its dice came from: "system", "seeded" or "physical"."""
    contest_id: str | None = None
    """The id every round of one contest shares, or None."""
    round: int | None = None
    """The round this is, of a contest over rounds."""
    decided: bool = True
    """False: the round settled nothing and the contest goes on."""
    effects: tuple[Effect, ...] = ()
    """What it did to the campaign."""
    b_name: str | msgspec.UnsetType = msgspec.UNSET
    """Who side B was when it did not roll (``b_named`` reads it)."""

    @property
    def b_named(self) -> str:
        """Who side B was, whether or not it rolled."""
        if self.b is not None:
            return self.b.name
        return self.b_name if isinstance(self.b_name, str) else "the defender"


@event_type
class StressChanged(EventPayload, frozen=True):
    """Stress gained or cleared, with its cause."""

    TYPE: ClassVar[str] = "StressChanged"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    delta: int
    cause: str | None = None


@event_type
class TrackChanged(EventPayload, frozen=True):
    """HP or FP lost or regained (GURPS; HP in Glintlock), with its cause."""

    TYPE: ClassVar[str] = "TrackChanged"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    track: str
    delta: int
    cause: str | None = None


@event_type
class ConditionSet(EventPayload, frozen=True):
    """A condition on a character, with how long it lasts when the rules say."""

    TYPE: ClassVar[str] = "ConditionSet"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    name: str
    duration: int | None = None
    unit: str | None = None
    note: str | None = None


@event_type
class ConditionCleared(EventPayload, frozen=True):
    """A condition ends."""

    TYPE: ClassVar[str] = "ConditionCleared"
    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    name: str
    note: str | None = None


class RollAmended(EventPayload, frozen=True):
    """What every event that changes the outcome a roll stands at after the fact (a GURPS
    buy-up) holds: the roll is never changed; its history, the log and the live view say the
    outcome it ended with (``tracker.projections.rolls.amended``). A rule system's event type
    derives from this to be read so; no event is of this type itself."""

    character_field: ClassVar[str | None] = "character_id"
    character_id: str
    roll_event_id: str
    from_outcome: str
    to_outcome: str


@event_type
class ObligationDismissed(EventPayload, frozen=True):
    """The GM waives an obligation (a panic check not called for, say), with the reason."""

    TYPE: ClassVar[str] = "ObligationDismissed"
    obligation: str
    reason: str | None = None


@event_type
class NoteAdded(EventPayload, frozen=True):
    """A GM's line of narrative, shown in place in replays."""

    TYPE: ClassVar[str] = "NoteAdded"
    text: str
    tags: tuple[str, ...] = ()


@event_type
class EventsRevoked(EventPayload, frozen=True):
    """Undo: the named events no longer count. Nothing is deleted; projections skip them."""

    TYPE: ClassVar[str] = "EventsRevoked"
    event_ids: tuple[str, ...]
    reason: str | None = None
    cascade: bool = False


@event_type
class EventsRestored(EventPayload, frozen=True):
    """Redo: events an earlier undo revoked count again."""

    TYPE: ClassVar[str] = "EventsRestored"
    event_ids: tuple[str, ...]
    revocation: str | None = None
    reason: str | None = None


@event_type
class EventsRevealed(EventPayload, frozen=True):
    """The GM showed the players secret events: from now on the players' view holds them
    whole, and anyone holding their hashes can check that they were what the GM says."""

    TYPE: ClassVar[str] = "EventsRevealed"
    event_ids: tuple[str, ...]
    session: int | None = None
