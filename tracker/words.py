"""Words every layer says to the GM the same way: a count with its noun, an outcome's name."""

from __future__ import annotations


def plural(count: int, word: str) -> str:
    """``1 event``, ``2 events``: the count and its noun in agreement."""
    return f"{count:,} {word}{'' if abs(count) == 1 else 's'}"


def outcome_words(name: str) -> str:
    """An outcome as the GM says it: ``critical failure``, not the stored ``critical_failure``."""
    return name.replace("_", " ")
