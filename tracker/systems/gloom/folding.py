"""What Gloom adds to the fold: each panic check answers one catastrophe, and panic answers the
rest.

tracker/systems/gloom/RULINGS.md, 'Perfect success and catastrophe': every catastrophe owes a
panic check of its own; one panic check (``tracker panic``) is one roll and answers the oldest
catastrophe its character owes (a public check the oldest public one, so it names no secret
catastrophe while a public one is owed); a failed check leaves the character panicked, and a
panicked character owes no further check: each owed, and each a catastrophe opens while the
panic lasts, is discharged by the panic, saying so. A panic check logged before this ruling
(its inputs do not say ``answering``) answered every catastrophe owed, and still does; a roll
or contest side logged before it (its inputs do not say ``panic_answers``) left a panicked
character owing the check its catastrophe opened, and still does, so a later check that
answered it answers it still.
"""

from __future__ import annotations

from tracker.events import StoredEvent
from tracker.events.play import ContestRolled, RollMade
from tracker.systems.base import (
    CampaignFold,
    CharacterFold,
    Folding,
    ObligationKind,
    ObligationView,
)

PANIC = "panic-check"
PANICKED = "panicked"
ONE_EACH = "oldest"
"""A panic check's ``answering`` input: it answers the oldest catastrophe owed, one check each."""
PANIC_ANSWERS = "panic_answers"
"""The input of a roll or contest side of a panicked character, logged under the ruling that
the panic answers every panic check the character owes (the one its own catastrophe opens too);
without it (a roll logged before that ruling) those checks stay owed until a check answers
them, as they did then."""


def answered_by(state: CampaignFold, character_id: str, hidden: bool) -> ObligationView | None:
    """The catastrophe's obligation a panic check answers: the oldest the character owes that
    the check may name (a public check names no secret one), else the oldest owed; None when
    nothing is owed (a panic check the GM calls anyway)."""
    owed = state.open_obligations(PANIC, character_id)
    nameable = [ob for ob in owed if hidden or not ob.secret]
    return next(iter(nameable or owed), None)


def _panicked(ch: CharacterFold) -> bool:
    return any(name.casefold() == PANICKED for name in ch.conditions)


def _discharged_by_panic(state: CampaignFold, ch: CharacterFold, raw: StoredEvent) -> None:
    """A panicked character owes no panic check: each still owed is answered by the panic."""
    for ob in state.open_obligations(PANIC, ch.character_id):
        state.discharge(ob, raw, f"answered by the panic: {ch.name} is panicked")


class GloomFolding(Folding):
    def rolled(self, state: CampaignFold, ch: CharacterFold, e: RollMade, raw: StoredEvent) -> None:
        if e.kind == "panic":
            if e.inputs.get("answering") != ONE_EACH:
                # Logged under the earlier ruling: one check answered every catastrophe owed.
                for ob in state.open_obligations(PANIC, ch.character_id):
                    state.discharge(ob, raw, f"panic check: {e.result.get('outcome')}")
                return
            named = e.inputs.get("answers") or ()
            owed = state.open_obligations(PANIC, ch.character_id)
            ob = (
                next((ob for ob in owed if ob.opened_by in named), None)
                if named
                else answered_by(state, ch.character_id, raw.visibility == "gm")
            )
            if ob is not None:
                state.discharge(ob, raw, f"panic check: {e.result.get('outcome')}")
        elif not e.inputs.get(PANIC_ANSWERS):
            return  # logged before the panic answered them: they stay owed
        if _panicked(ch):
            _discharged_by_panic(state, ch, raw)

    def contested(self, state: CampaignFold, e: ContestRolled, raw: StoredEvent) -> None:
        for side in (e.a, e.b):
            ch = state.characters.get(getattr(side, "character_id", None) or "")
            if ch is not None and side.inputs.get(PANIC_ANSWERS) and _panicked(ch):
                _discharged_by_panic(state, ch, raw)

    def roll_problem(self, state: CampaignFold, ch: CharacterFold, e: RollMade) -> str | None:
        answered = e.inputs.get("answers") if e.kind == "panic" else None
        if answered:
            owed = {ob.opened_by for ob in state.open_obligations(PANIC, ch.character_id)}
            if e.inputs.get("answering") == ONE_EACH:
                if not owed.issuperset(answered):
                    return "the catastrophe whose panic check it was would not be owed"
            elif owed.isdisjoint(answered) and not _panicked(ch):
                # An earlier check named every catastrophe owed; one the panic has since
                # answered is not a catastrophe that never happened.
                return "the catastrophe whose panic check it was would not have happened"
        return None


FOLDING = GloomFolding()

OBLIGATIONS = {
    PANIC: ObligationKind(
        "the panic check", waived=("a panic check the GM does not call", "no panic here")
    )
}
"""How tracker speaks of a panic check owed (``Obligations.obligations``)."""
