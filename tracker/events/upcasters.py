"""Upcasters lift a stored payload from the schema version it was written with to the current one.

Stored rows are never rewritten: old payloads are lifted on every read, before any projection sees
them. Each upcaster is a small named function registered for (event type, from version); they chain
until the payload reaches the version the catalog expects.

A field added to an event or an effect whose default is what a payload stored without it meant
needs no upcaster and no new version: the payload reads as before. That is how a ruling that
changes is marked in the log (the Gloom panic check's ``answering``, a GURPS lasting change's
``derived``): the events logged from then on say they follow it, and an old one keeps its
meaning (tracker/app/RULINGS.md, 'A ruling that changes').
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Payload = dict[str, Any]
UPCASTERS: dict[tuple[str, int], Callable[[Payload], Payload]] = {}


def upcaster(type_: str, from_version: int) -> Callable[[Callable[[Payload], Payload]], Callable]:
    """Register ``fn`` to lift ``type_`` payloads from ``from_version`` to ``from_version + 1``."""

    def register(fn: Callable[[Payload], Payload]) -> Callable[[Payload], Payload]:
        UPCASTERS[(type_, from_version)] = fn
        return fn

    return register


def upcast(type_: str, version: int, payload: Payload, target: int) -> Payload:
    """Lift ``payload`` from ``version`` to ``target`` through the registered chain."""
    if version > target:
        raise ValueError(
            f"{type_} payload version {version} is newer than this tracker knows ({target})"
        )
    while version < target:
        step = UPCASTERS.get((type_, version))
        if step is None:
            raise ValueError(f"no upcaster for {type_} from version {version}")
        payload = step(dict(payload))
        version += 1
    return payload
