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
    full-width "Ｗ" is a "W") and invisible format characters (a zero-width space, a word
    joiner, a soft hyphen) left out. Two names that read alike at the table compare equal, so a
    second "Wren" with a hidden character cannot stand beside the first. The joiners that shape
    what is shown (an emoji's zero-width joiner, the non-joiner of Persian and Indic script, a
    flag's tag letters) are kept: they make names that read differently."""
    shown = "".join(ch for ch in name if ch in _SHAPING or unicodedata.category(ch) != "Cf")
    return unicodedata.normalize("NFKC", shown).casefold()


# Format characters that change what a reader sees: the zero-width non-joiner and joiner, and
# the tag characters of a subdivision flag (England's, Scotland's, Wales').
_SHAPING = frozenset({"\u200c", "\u200d", *map(chr, range(0xE0001, 0xE0080))})
