"""Progress of long work (an import, an export, a verify, a fold of a whole log), told to whoever
asked for it: the command line draws a bar on a terminal, and nobody else hears anything.

A ``Meter`` is given a label and the number of events the work will go through, and returns a
context manager that yields the function to call with how many more are done. The work reports
once every ``STEP`` events, so a million-event export calls it a few hundred times, not a
million, and work shorter than ``FROM`` events reports nothing at all: a campaign played at a
table never flashes a bar.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from typing import TypeVar

Advance = Callable[[int], None]
Meter = Callable[[str, int], AbstractContextManager[Advance]]

T = TypeVar("T")

STEP = 2_048
FROM = 10_000


def metered(items: Iterable[T], meter: Meter | None, label: str, total: int) -> Iterator[T]:
    """``items`` as they are, told to ``meter`` as they go by (when there is one and the work is
    long enough to be worth a bar)."""
    if meter is None or total < FROM:
        yield from items
        return
    with meter(label, total) as advance:
        done = 0
        for done, item in enumerate(items, start=1):
            yield item
            if not done % STEP:
                advance(STEP)
        advance(done % STEP)
