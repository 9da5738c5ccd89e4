"""Words every layer says to the GM the same way: a count with its noun, an outcome's name."""

from __future__ import annotations

import unicodedata


def plural(count: int, word: str) -> str:
    """``1 event``, ``2 events``: the count and its noun in agreement."""
    return f"{count:,} {word}{'' if abs(count) == 1 else 's'}"


def outcome_words(name: str) -> str:
    """An outcome as the GM says it: ``critical failure``, not the stored ``critical_failure``."""
    return name.replace("_", " ")


def reads_as(name: str) -> str:
    """A name as a reader tells it from another: case folded, compatibility forms made plain (a
    full-width "Ｗ" is a "W") and invisible format characters (a zero-width space) left out. Two
    names that read alike at the table compare equal, so a second "Wren" with a hidden
    character cannot stand beside the first."""
    shown = "".join(ch for ch in name if unicodedata.category(ch) != "Cf")
    return unicodedata.normalize("NFKC", shown).casefold()
