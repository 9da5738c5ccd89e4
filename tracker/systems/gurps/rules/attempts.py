"""Repeated attempts: the retry modes, and the character points a cinematic game lets a player
spend to buy up an outcome.

Rulebook: GURPS, 'Repeated Attempts'.
"""

from __future__ import annotations

from tracker.errors import BadInput, Refused
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.shared import slug
from tracker.systems.gurps.rules.success import OUTCOMES, Modifier


def retry_modifier(mode: str, earlier_attempts: int, earlier_failures: int) -> Modifier | None:
    """The modifier a repeated attempt takes under the task's retry mode, or None.

    Rulebook: GURPS, 'Repeated Attempts'; tracker/systems/gurps/RULINGS.md: one-chance refuses a
    second attempt, retry-at-penalty is -1 per earlier failure, the others take no modifier
    (retry-with-damage leaves the damage to the GM).
    """
    key = slug(mode)
    if key not in tables.RETRY_MODES:
        raise BadInput(f"Unknown retry mode {mode!r}; use one of {', '.join(tables.RETRY_MODES)}.")
    if earlier_attempts < 0 or earlier_failures < 0:
        raise BadInput("Earlier attempts and failures are counts of 0 or more.")
    if earlier_failures > earlier_attempts:
        raise BadInput(
            f"{earlier_failures} earlier failures cannot come from {earlier_attempts} attempts."
        )
    if key == "one-chance" and earlier_attempts > 0:
        raise Refused(
            "This task allows one chance only and was already attempted; the GM may change "
            "its retry mode if the situation changed."
        )
    if key == "retry-at-penalty" and earlier_failures > 0:
        return Modifier(-earlier_failures, f"retry at penalty ({earlier_failures} earlier)")
    return None


def buy_up_cost(current: str, target: str) -> int:
    """Character points to turn an outcome into a better one; steps chain.

    Rulebook: GURPS, 'Repeated Attempts' (heroic or cinematic games): critical failure to
    failure 2, failure to success 1, success to critical success 2.
    """
    for name in (current, target):
        if name not in OUTCOMES:
            raise BadInput(f"Unknown outcome {name!r}; use one of {', '.join(OUTCOMES)}.")
    start, end = OUTCOMES.index(current), OUTCOMES.index(target)
    if end <= start:
        raise Refused(
            f"A buy-up must improve the outcome and {target} is not better than {current}; give a "
            "better --to, or leave it out for one step up."
        )
    return sum(tables.BUY_UP_STEP_COSTS[start:end])
