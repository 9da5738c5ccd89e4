"""GURPS's commands of character points awarded and spent on buy-ups, and of the trait a
fright result owes assigned; each with the words the terminal shows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracker.errors import BadInput, Refused
from tracker.systems.acts import Acted, Entry, Table
from tracker.systems.base import Style
from tracker.systems.gurps.declared import AssignTrait, AwardPoints, BuyUp
from tracker.systems.gurps.events import PointsAwarded, RollBoughtUp, TraitAssigned
from tracker.systems.gurps.rules.attempts import buy_up_cost
from tracker.systems.gurps.rules.success import OUTCOMES
from tracker.words import kept_secret, outcome_words, plural

# -- character points -----------------------------------------------------------------------------


def points_award(table: Table, state: Any, request: AwardPoints) -> Acted:
    """Award character points.

    GURPS, 'Repeated Attempts': "the GM may allow players to spend bonus character points
    to alter recent outcomes"; spending is how points leave a character (`tracker spend
    NAME buy-up`). An award of 0 or less is refused with that, and with undoing an award
    given by mistake.
    """
    points = request.amount
    if points < 1:
        raise BadInput(
            f"Award 1 or more character points, not {points}; to take points away, "
            "undo the award (`tracker undo EVENT`, see `tracker log`), or spend them "
            "with `tracker spend NAME buy-up`."
        )
    ch = table.character(request.character, state)
    payload = PointsAwarded(character_id=ch.character_id, points=points, reason=request.reason)
    doc = {"character": ch.name, "points": points, "total": ch.own.points + points}
    return Acted((Entry(payload),), doc)


def awarded_words(doc: Mapping[str, Any], style: Style) -> list[str]:
    return [f"{doc['character']} has {plural(doc['total'], 'character point')}."]


def buy_up(table: Table, state: Any, request: BuyUp) -> Acted:
    """Spend character points to buy a character's last roll up to a better outcome."""
    if not state.setting("cinematic"):
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
    payload = RollBoughtUp(
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

    if target is None:
        if outcome is None or outcome == OUTCOMES[-1]:
            raise Refused(
                "That roll is already a critical success, so there is nothing to buy; buy up "
                "another roll instead."
            )
        target = OUTCOMES[OUTCOMES.index(outcome) + 1]
    return target, buy_up_cost(outcome or "", target)


def bought_words(doc: Mapping[str, Any], style: Style) -> list[str]:
    line = (
        f"{doc['character']} spends {plural(doc['cost'], 'character point')}: "
        f"{outcome_words(doc['from'])} → {style.outcome(doc['to'])} "
        f"({plural(doc['points_left'], 'point')} left)."
    ) + (style.dim(" (secret, as the roll was)") if doc.get("roll_secret") else "")
    if doc.get("secret") and not doc.get("roll_secret"):
        line += style.dim(" (secret)")
    return ["\n".join([line, *(style.dim(f"  {n}") for n in doc.get("notes", []))])]


# -- traits a fright result owes ------------------------------------------------------------------


def trait_assign(table: Table, state: Any, request: AssignTrait) -> Acted:
    kind, obligation = request.kind, request.obligation
    ch = table.character(request.character, state)
    owed = [
        o
        for o in state.open_obligations("assign-trait", ch.character_id)
        if (obligation is None or o.id == obligation)
        and (kind is None or o.data.get("trait") == kind)
    ]
    if not owed:
        raise Refused(f"No trait is owed to {ch.name}; `tracker obligations` lists what is owed.")
    # Unless named, a public trait assignment settles what the players know is owed first:
    # settling a secret one would tell them a secret check was made and failed.
    ob = next((o for o in owed if not o.secret), owed[0])
    if not request.name.strip():
        raise BadInput("Name the trait, like 'Quirk: flinches at water'.")
    payload = TraitAssigned(
        character_id=ch.character_id,
        kind=ob.data.get("trait", kind or "quirk"),
        name=request.name.strip(),
        points=ob.data.get("points"),
        obligation=ob.id,
    )
    # A trait owed by a secret fright check is the GM's secret too: in the players' view it
    # would tell them the check was made and failed.
    doc = {
        "character": ch.name,
        "kind": payload.kind,
        "trait": payload.name,
        "secret": ob.secret,
    }
    return Acted((Entry(payload, "gm" if ob.secret else "public"),), doc)


def assigned_words(doc: Mapping[str, Any], style: Style) -> list[str]:
    return [f'{doc["character"]} gains the {doc["kind"]} "{doc["trait"]}".']
