"""Glintlock's own commands: the GM's Threat gained and spent outside a roll; each with the
words the terminal shows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from tracker.errors import BadInput
from tracker.events import play as ev
from tracker.systems.acts import Acted, Entry, SystemCommand, Table
from tracker.systems.base import Style
from tracker.systems.glintlock import rules as glintlock


class ThreatAdd(msgspec.Struct, frozen=True):
    amount: int
    reason: str | None = None


class ThreatSpend(msgspec.Struct, frozen=True):
    tier: str
    note: str | None = None


def threat_add(table: Table, state: Any, request: ThreatAdd) -> Acted:
    """Add Threat outside a roll.

    Glintlock, 'Mettle & Threat': Threat is "Gained on Weak Hits (+1), Misses (+2), Nat 1s
    (+3), and per exploration turn in danger", and the GM's spends are what lower it ("Free
    (0) ... Soft (1) ... Hard (2) ... Dire (3)"). So a negative addition is refused with the
    sentence that names those: a spend, or undoing the addition.
    """
    amount = request.amount
    if amount < 0:
        raise BadInput(
            f"Threat is not added as {amount}: it goes down only when the GM spends it "
            "(`tracker threat spend soft`, hard or dire), or undo an addition with "
            "`tracker undo EVENT`."
        )
    if amount < 1:
        raise BadInput(
            f"Threat is added in whole points of 1 or more, not {amount}; give 1 or more, "
            "like `tracker threat add 1`."
        )
    change = glintlock.apply_track(state.own.threat, amount)
    payload = ev.ThreatAdded(amount=amount, reason=request.reason)
    return Acted((Entry(payload),), {"reason": request.reason, **change.to_dict()})


def threat_added_words(doc: Mapping[str, Any], style: Style) -> list[str]:
    lost = f" ({doc['lost']} lost past 6)" if doc["lost"] else ""
    return [f"Threat {doc['before']} → {doc['after']}{lost}."]


def threat_spend(table: Table, state: Any, request: ThreatSpend) -> Acted:
    spent = glintlock.spend_threat(state.own.threat, request.tier)
    payload = ev.ThreatSpent(tier=request.tier, cost=spent.cost, note=request.note)
    return Acted((Entry(payload),), {"note": request.note, **spent.to_dict()})


def threat_spent_words(doc: Mapping[str, Any], style: Style) -> list[str]:
    # In play Threat at 4 or more always has its floor open, so the spend the rules say meets
    # it is the spend that discharges it.
    met = " Spending floor met." if doc["discharges_floor"] else ""
    return [f"Threat {doc['before']} → {doc['after']}.{met}"]


COMMANDS = (
    SystemCommand(
        ("threat", "add"),
        ThreatAdd,
        threat_add,
        "Threat",
        at_table="adding Threat",
        render=threat_added_words,
    ),
    SystemCommand(
        ("threat", "spend"),
        ThreatSpend,
        threat_spend,
        "Threat",
        at_table="spending Threat",
        render=threat_spent_words,
    ),
)
