"""What Gloom adds to the fold: a panic check answers the catastrophe that called for it."""

from __future__ import annotations

from typing import Any

from tracker.events import StoredEvent
from tracker.events.play import RollMade
from tracker.systems.base import Folding, ObligationKind

PANIC = "panic-check"


class GloomFolding(Folding):
    def rolled(self, state: Any, ch: Any, e: RollMade, raw: StoredEvent) -> None:
        if e.kind == "panic":
            for ob in state.open_obligations(PANIC, ch.character_id):
                state.discharge(ob, raw, f"panic check: {e.result.get('outcome')}")

    def roll_problem(self, state: Any, ch: Any, e: RollMade) -> str | None:
        answered = e.inputs.get("answers") if e.kind == "panic" else None
        if answered:
            owed = {ob.opened_by for ob in state.open_obligations(PANIC, ch.character_id)}
            if owed.isdisjoint(answered):
                return "the catastrophe whose panic check it was would not have happened"
        return None


FOLDING = GloomFolding()

OBLIGATIONS = {
    PANIC: ObligationKind(
        "the panic check", waived=("a panic check the GM does not call", "no panic here")
    )
}
"""How tracker speaks of a panic check owed (``RuleSystem.obligations``)."""
