"""GURPS's own commands: character points spent on buy-ups, with the words the terminal
shows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from tracker.errors import Refused
from tracker.events import play as ev
from tracker.systems.acts import Acted, Entry, SystemCommand, Table
from tracker.systems.base import Style
from tracker.words import kept_secret, outcome_words, plural

# -- buy-ups --------------------------------------------------------------------------------------


class BuyUp(msgspec.Struct, frozen=True):
    character: str
    to: str | None = None
    """The outcome to buy; None: one step up."""
    roll: str | None = None
    """The roll to buy up, by the start of its event id: the character's last roll, checked."""


def buy_up(table: Table, state: Any, request: BuyUp) -> Acted:
    """Spend character points to buy a character's last roll up to a better outcome."""
    if not state.cinematic:
        raise Refused(
            "Buy-ups are for cinematic campaigns and this one is not; turn them on with "
            "`tracker campaign set --cinematic`."
        )
    ch = table.character(request.character, state)
    own = ch.own
    if own.last_roll_id is None or (request.roll and not own.last_roll_id.startswith(request.roll)):
        raise Refused(f"{ch.name} has no recent roll to buy up; roll first.")
    target, cost = _bought(own.last_roll_outcome, request.to)
    if cost > own.points:
        raise Refused(
            f"{ch.name} has {plural(own.points, 'character point')} and that buy-up "
            f"costs {cost}; award points with `tracker points award` or buy a smaller step "
            "with --to."
        )
    payload = ev.RollBoughtUp(
        character_id=ch.character_id,
        roll_event_id=own.last_roll_id,
        from_outcome=own.last_roll_outcome,
        to_outcome=target,
        cost=cost,
    )
    # Buying up a secret roll is as secret as the roll: the buy-up names the roll and the
    # outcome it had. So is buying up a public roll with an unshown secret event about the
    # character after it: that the buy-up passes over it would say the secret was no roll to
    # buy up (a Danger Sense roll, a Fright Check).
    since = state.unrevealed(ch.character_id, after=table.version_of(own.last_roll_id))
    hidden = own.last_roll_secret or bool(since)
    doc = {
        "character": ch.name,
        "roll_event_id": own.last_roll_id,
        "from": own.last_roll_outcome,
        "to": target,
        "cost": cost,
        "points_left": own.points - cost,
        "secret": hidden,
        "roll_secret": own.last_roll_secret,
        "notes": []
        if own.last_roll_secret or not since
        else [kept_secret(since, "a roll this buy-up would pass over")],
    }
    return Acted((Entry(payload, "gm" if hidden else "public"),), doc)


def _bought(outcome: str | None, target: str | None) -> tuple[str, int]:
    """The outcome a roll's ``outcome`` is bought up to and its price in character points:
    step by step (GURPS, 'Repeated Attempts'), one step up unless ``target`` names another."""
    from tracker.systems.gurps import rules as gurps

    if target is None:
        if outcome is None or outcome == gurps.OUTCOMES[-1]:
            raise Refused(
                "That roll is already a critical success, so there is nothing to buy; buy up "
                "another roll instead."
            )
        target = gurps.OUTCOMES[gurps.OUTCOMES.index(outcome) + 1]
    return target, gurps.buy_up_cost(outcome or "", target)


def bought_words(doc: Mapping[str, Any], style: Style) -> list[str]:
    line = (
        f"{doc['character']} spends {plural(doc['cost'], 'character point')}: "
        f"{outcome_words(doc['from'])} → {style.outcome(doc['to'])} "
        f"({plural(doc['points_left'], 'point')} left)."
    ) + (style.dim(" (secret, as the roll was)") if doc.get("roll_secret") else "")
    if doc.get("secret") and not doc.get("roll_secret"):
        line += style.dim(" (secret)")
    return ["\n".join([line, *(style.dim(f"  {n}") for n in doc.get("notes", []))])]


COMMANDS = (
    SystemCommand(
        ("spend",),
        BuyUp,
        buy_up,
        "Buying up a roll",
        at_table="buying up a roll",
        render=bought_words,
        chosen_by=("action", ("buy-up",)),
    ),
)
