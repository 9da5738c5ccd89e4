"""Words every layer says to the GM the same way: a count with its noun, an outcome's name;
and a sentence of the command line's as the players read it (``table_words``)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence


def plural(count: int, word: str) -> str:
    """``1 event``, ``2 events``: the count and its noun in agreement."""
    return f"{count:,} {word}{'' if abs(count) == 1 else 's'}"


def outcome_words(name: str) -> str:
    """An outcome as the GM says it: ``critical failure``, not the stored ``critical_failure``."""
    return name.replace("_", " ")


def kept_secret(versions: Sequence[int], could_be: str) -> str:
    """Why the rules sealed an event the GM did not mark secret: the unshown secret events it
    could count, which the GM may reveal first."""
    events = plural(len(versions), "secret event").split(" ", 1)[1]
    listed = ", ".join(map(str, versions))
    them = "them" if len(versions) > 1 else "it"
    return (
        f"kept secret: {events} {listed}, not revealed, could be {could_be}; "
        f"reveal {them} first (`tracker reveal {versions[0]}`) and the next one stays public"
    )


def table_words(sentence: str, *, otherwise: str = "") -> str:
    """A sentence of the GM's command line as a player-facing page says it: without what tells
    the GM to type a command or pass a flag, in the table's words.

    The same sentence serves both: an obligation reads "Juno rolled a catastrophe: call a panic
    check (`tracker panic Juno TRAIT`) or dismiss it." in ``tracker status`` and "Juno rolled a
    catastrophe: call a panic check or dismiss it." on the TV; a refusal "the GM must spend hard
    or dire before any player roll; log it with `tracker threat spend hard`, or pass --override"
    reads "The GM must spend hard or dire before any player roll." on a phone. A command in
    parentheses goes with them, a clause holding a command goes whole, an alternative "or pass
    --flag" goes, and any other flag is named in words ("no tag given", not "no --tag given").
    ``otherwise``: what to say when nothing is left (every clause was a command)."""
    text = re.sub(r"\s*\(`[^`]*`\)", "", sentence.strip())
    ended = text.endswith(".")
    clauses = re.split(r";\s+", text.rstrip("."))
    kept = []
    for clause in clauses:
        if "`" in clause:  # a command to type: the GM's business
            continue
        parts = [p for p in re.split(r",\s+or\s+", clause) if not re.search(r"\bpass --", p)]
        if parts:
            kept.append(", or ".join(parts))
    if not kept:
        return otherwise
    said = "; ".join(kept)
    said = re.sub(r"like --dice ", "like ", said)
    said = re.sub(r"--([a-z][a-z-]*)", lambda m: m[1].replace("-", " "), said)
    if kept[0] != clauses[0]:  # the sentence starts at another clause now
        said = said[:1].upper() + said[1:]
    return said + ("." if ended else "")


def form_words(sentence: str, shown: Mapping[str, str]) -> str:
    """A sentence of the command line's as the console's forms say it: each ``--flag`` named as
    its box is ("the table's dice", by ``shown``: flag to label; else the flag's words), and
    "like --dice 9,14" as "like 9,14". A command in backquotes stays whole: it is one the GM
    may type."""
    parts = re.split(r"(`[^`]*`)", sentence)
    for at in range(0, len(parts), 2):  # the even parts lie outside backquotes
        text = re.sub(r"\blike --[a-z][a-z-]* ", "like ", parts[at])
        parts[at] = re.sub(
            r"--([a-z][a-z-]*)",
            lambda m: shown.get(m[0]) or m[1].replace("-", " "),
            text,
        )
    return "".join(parts)


def reads_as(name: str) -> str:
    """A name as a reader tells it from another: case folded, compatibility forms made plain (a
    full-width "Ｗ" is a "W", a ligature "ﬁ" an "fi"), what shows nothing left out (a
    zero-width space, a word joiner, a soft hyphen, a variation selector, a Hangul filler), and
    each run of blank space one space. Two names that read alike at the table compare equal,
    so a second "Wren" with a hidden character cannot stand beside the first.

    What shows differently stays: a circled, superscript or subscript letter or digit, a
    fraction ("Kade²" is not "Kade2"); a joiner between two emoji (a woman astronaut is not a
    woman and a rocket) or between two letters of a script whose letters join (the non-joiner
    of Persian and Indic script); the tag letters of a subdivision's flag (Scotland's is not
    Wales')."""
    # What shows nothing goes first, so that what it stood between composes: "Jose" and an
    # accent with a hidden mark between them is "José".
    shown = "".join(ch for ch in name if ch in _JOINERS or _is_tag(ch) or not _shows_nothing(ch))
    text = _plain_forms(shown)
    kept: list[str] = []
    at = 0
    while at < len(text):
        ch = text[at]
        flag = next((f for f in _SUBDIVISION_FLAGS if text.startswith(f, at)), None)
        if flag is not None:
            kept.append(flag)
            at += len(flag)
            continue
        at += 1
        if ch in _JOINERS:
            after = next((c for c in text[at:] if not _shows_nothing(c)), "")
            if kept and after and _joined(kept[-1], after):
                kept.append(ch)
        elif ch.isspace() or ch == _BRAILLE_BLANK:
            if kept and kept[-1] != " ":
                kept.append(" ")
        elif not _shows_nothing(ch):
            kept.append(ch)
    return "".join(kept).strip().casefold()


def _plain_forms(name: str) -> str:
    """``name`` in NFKC, but for the characters whose compatibility form shows differently."""
    parts, start = [], 0
    for at, ch in enumerate(name):
        if unicodedata.decomposition(ch).startswith(_SHOWN_APART):
            parts += [unicodedata.normalize("NFKC", name[start:at]), ch]
            start = at + 1
    parts.append(unicodedata.normalize("NFKC", name[start:]))
    return unicodedata.normalize("NFC", "".join(parts))


# Compatibility forms a reader tells from the plain one: ① from 1, ² from 2, ½ from 1/2, ㎏ from kg.
_SHOWN_APART = ("<circle>", "<super>", "<sub>", "<fraction>", "<square>")
_JOINERS = frozenset({"\u200c", "\u200d"})
_BRAILLE_BLANK = "\u2800"
# The subdivision flags emoji show: a black flag, tag letters, a cancel tag.
_SUBDIVISION_FLAGS = tuple(
    "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in code) + "\U000e007f"
    for code in ("gbeng", "gbsct", "gbwls")
)
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
# Default-ignorable characters beside the format characters (some unassigned as yet): the
# combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian variation
# selectors, the invisible operators' block, variation selectors, tags.
_IGNORABLE_RANGES = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0xE0000, 0xE0FFF),
)
# Format characters that print a mark: the number signs that span the digits after them.
_SHOWN_FORMATS = frozenset(
    chr(point)
    for point in (0x600, 0x601, 0x602, 0x603, 0x604, 0x605, 0x6DD, 0x70F, 0x890, 0x891, 0x8E2)
) | {"\U000110bd", "\U000110cd"}


def _is_tag(ch: str) -> bool:
    return "\U000e0020" <= ch <= "\U000e007f"


def _shows_nothing(ch: str) -> bool:
    if unicodedata.category(ch) == "Cf":
        return ch not in _SHOWN_FORMATS
    point = ord(ch)
    return any(low <= point <= high for low, high in _IGNORABLE_RANGES)


def _joined(before: str, after: str) -> bool:
    """Whether a joiner between ``before`` and ``after`` changes what is shown."""
    if _emoji(before) and _emoji(after):
        return True
    return _joining_script(before) and _joining_script(after)


def _emoji(ch: str) -> bool:
    # Pictographs, and the skin tones and gender signs a sequence joins them with.
    return unicodedata.category(ch) in ("So", "Sk") and ord(ch) >= 0x2000


def _joining_script(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith(_JOINING_SCRIPTS)


def something_to_read(name: str) -> bool:
    """Whether ``name`` holds a letter, digit, sign or mark of punctuation a reader can see."""
    return any(unicodedata.category(ch)[0] in "LNPS" for ch in reads_as(name))


def by_margin(words: str, success: bool, margin: int | None) -> str:
    """An outcome with its margin in the sense the outcome has ("failure by 2"): a 3 that
    succeeds or an 18 that fails by its number alone, against the margin, gets none."""
    if margin and (margin > 0) == bool(success):
        return f"{words} by {abs(margin)}"
    return words
