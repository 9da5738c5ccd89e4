"""What the players may know: the one stream of events every player-facing output is made from.

``tracker log``, ``replay`` and ``status`` with ``--player-view``, and the roll exports and the
report in the player view, read the log through ``player_stream`` and nothing else, so no output
can show what the stream never carried. A secret event the GM has not revealed (``tracker
reveal``) reaches it sealed: its place in the log, its time, its session, whom it was about and
its hash, never its payload; folding the stream therefore leaves out everything it changed.

A secret event logged by this release is salted (``EventPayload.salt``): its hash commits to what
it holds without letting anyone try every fall of the dice against it, so the stream shows it.
An older secret event has no salt, and its hash (and the next event's ``prev_hash``) is blanked.
An older Danger Sense roll logged as an event of its own after a secret roll is left out
altogether, as a Danger Sense roll is kept inside the roll it answers today.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import msgspec

from tracker.events import StoredEvent

# What a sealed event's payload reads as: that it was secret, no more.
SEALED_PAYLOAD = '{"secret":true}'
# And its type: one for every secret event, so that a players' view cannot tell a secret Fright
# Check (and the quirk it cost) from a secret roll.
SEALED_TYPE = "Secret"


class Sealed(msgspec.Struct, frozen=True):
    """The typed event of a secret event in the players' stream: that the GM rolled, no more."""

    type: str


def player_stream(
    events: Iterable[StoredEvent],
    revealed: frozenset[str] | set[str],
    secret_before: Callable[[str], bool] | None = None,
) -> Iterator[StoredEvent]:
    """``events`` as the players may see them: each secret one sealed unless ``revealed``.

    A stream that starts after the first event is given ``secret_before``: whether an event
    before it (by id) is a secret the players were not shown, as the stream from the first
    event would know."""
    secret: set[str] = set()
    # The hash of the event before, when it must not be shown (an unsalted secret's).
    hidden_hash: str | None = None
    for event in events:
        if hidden_hash is not None and event.prev_hash == hidden_hash:
            event = event._replace(prev_hash=None)
        hidden_hash = None
        if event.visibility != "gm" or event.event_id in revealed:
            yield event
            continue
        salted = hash_shown(event, revealed)
        if not salted:
            hidden_hash = event.hash
        secret.add(event.event_id)
        answered = _answers(event.data)
        if answered is not None and (
            answered in secret or (secret_before is not None and secret_before(answered))
        ):
            continue
        yield event._replace(
            type=SEALED_TYPE,
            data=Sealed(SEALED_TYPE),
            raw=SEALED_PAYLOAD,
            parsed=None,
            hash=event.hash if salted else None,
        )


def hash_shown(event: StoredEvent, revealed: frozenset[str] | set[str]) -> bool:
    """Whether the players may be shown ``event``'s hash: not an older secret event's that has
    no salt and is not revealed, as they could try every fall of its dice against it."""
    return (
        event.visibility != "gm"
        or event.event_id in revealed
        or getattr(event.data, "salt", msgspec.UNSET) is not msgspec.UNSET
    )


def _answers(data: Any) -> str | None:
    """The roll an older follow-up roll (Danger Sense) answered, when it names one."""
    inputs = getattr(data, "inputs", None)
    return inputs.get("after") if isinstance(inputs, dict) else None
