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
    full-width "Ｗ" is a "W"), what shows nothing left out (a zero-width space, a word joiner, a
    soft hyphen, a variation selector, a Hangul filler), and each run of blank space one space.
    Two names that read alike at the table compare equal, so a second "Wren" with a hidden
    character cannot stand beside the first.

    A joiner is kept only where it shapes what is shown: after an emoji (a woman astronaut is
    not a woman and a rocket) or a letter of a script whose letters join (the non-joiner of
    Persian and Indic script), with something after it to join. Tag letters are kept only in
    the flag they spell (Scotland's is not Wales')."""
    kept: list[str] = []
    in_flag = False
    for ch in unicodedata.normalize("NFKC", name):
        if _TAGS[0] <= ch <= _TAGS[1]:
            if in_flag:
                kept.append(ch)
                in_flag = ch != _TAGS[1]
            continue
        in_flag = ch == _FLAG
        if ch in _JOINERS:
            if kept and _shapes(kept[-1]):
                kept.append(ch)
        elif ch.isspace() or ch == _BRAILLE_BLANK:
            if kept and kept[-1] != " ":
                kept.append(" ")
        elif not _shows_nothing(ch):
            kept.append(ch)
    # A joiner with nothing after it to join, before a space or at the end, shapes nothing.
    text = "".join(
        ch
        for i, ch in enumerate(kept)
        if ch not in _JOINERS or (i + 1 < len(kept) and kept[i + 1] not in _JOINERS | {" "})
    )
    return text.strip().casefold()


_JOINERS = frozenset({"\u200c", "\u200d"})
# The black flag and the tag letters that, after it, spell a subdivision's flag (the last one
# ends it).
_FLAG = "\U0001f3f4"
_TAGS = ("\U000e0020", "\U000e007f")
_BRAILLE_BLANK = "\u2800"
# Scripts whose letters a joiner or non-joiner shapes: the joining scripts and the Indic ones.
_JOINING_SCRIPTS = (
    "ARABIC",
    "SYRIAC",
    "NKO",
    "MANDAIC",
    "MONGOLIAN",
    "DEVANAGARI",
    "BENGALI",
    "GURMUKHI",
    "GUJARATI",
    "ORIYA",
    "TAMIL",
    "TELUGU",
    "KANNADA",
    "MALAYALAM",
    "SINHALA",
    "TIBETAN",
    "MYANMAR",
    "KHMER",
)
# Default-ignorable characters that are not format characters: the combining grapheme joiner,
# Hangul fillers, Khmer inherent vowels, Mongolian variation selectors, variation selectors.
_IGNORABLE_RANGES = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0xE0000, 0xE0FFF),
)


def _shows_nothing(ch: str) -> bool:
    if unicodedata.category(ch) == "Cf":
        return True
    point = ord(ch)
    return any(low <= point <= high for low, high in _IGNORABLE_RANGES)


def _shapes(before: str) -> bool:
    """Whether a joiner after ``before`` changes what is shown."""
    if unicodedata.category(before) in ("So", "Sk"):
        return True
    return unicodedata.name(before, "").startswith(_JOINING_SCRIPTS)
