"""What a name, or any text a person gives tracker, may hold, and which name a person means."""

from __future__ import annotations

import re
from collections.abc import Iterable

from tracker.errors import BadInput, Refused
from tracker.words import reads_as, something_to_read

# Control characters, and the ones that reorder or break a line where text is shown: an escape
# sequence in a name would clear or retitle the GM's terminal wherever the name is printed, and
# a newline would forge a line of the log.
UNFIT = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# Text longer than this is no name, note or number a person typed at the table.
ARGUMENT_MAX = 4000
# A number with this many digits is no count, modifier or event number at any table; it would
# not fit the database's integers either.
HUGE_DIGITS = 16
HUGE_NUMBER = re.compile(rf"(^|=)[+-]?\d{{{HUGE_DIGITS},}}(:|$)")
# Bytes a terminal gave that are not UTF-8 reach Python as lone surrogates, and a page's JSON
# can spell one ("\ud800"): no log, hash or output can store them.
NOT_UTF8 = re.compile("[\ud800-\udfff]")
# The marks that set which way text runs: in a name they reorder what is shown, so that two
# names that read differently show alike.
DIRECTION_MARKS = re.compile("[\u200e\u200f\u061c]")
# A name is said at the table and shown in every line about its owner.
NAME_MAX = 100


def check_name(name: str, what: str = "A name") -> str:
    """``name`` without surrounding spaces, or a sentence saying why it cannot be one."""
    name = name.strip()
    if not name:
        raise BadInput(f"{what} cannot be empty; give one.")
    if len(name) > NAME_MAX:
        raise BadInput(f"{what} has at most {NAME_MAX} characters; shorten it.")
    if UNFIT.search(name):
        raise BadInput(f"{what} cannot hold control characters; retype it as plain text.")
    if DIRECTION_MARKS.search(name):
        raise BadInput(f"{what} cannot hold a direction mark; retype it without one.")
    if not something_to_read(name):
        raise BadInput(
            f"{what} has no letter, digit or sign a reader can see; give one with a letter in it."
        )
    return name


def unfit_value(value: object) -> str | None:
    """Why a value a form or a page sent cannot be taken, as the end of a sentence that names
    it ("is a number past ..."); None when it can. The command line refuses the same words
    (``tracker.cli.options.unfit_argument``), so a page can log nothing it could not."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        value = str(value)
    if not isinstance(value, str):
        return None
    if len(value) > ARGUMENT_MAX:
        return f"is {len(value):,} characters long; keep it under {ARGUMENT_MAX:,}"
    if HUGE_NUMBER.search(value):
        return f"is a number past anything tracker counts (at most {HUGE_DIGITS - 1} digits)"
    if NOT_UTF8.search(value):
        return "holds a character that cannot be stored (a lone surrogate); retype it"
    if UNFIT.search(value):
        return "holds a control character (an escape, a newline); retype it on one line"
    return None


def one_named(wanted: str, names: Iterable[str], what: str) -> str | None:
    """The one of ``names`` that ``wanted`` gives, as ``names`` spells it: the name it is in
    any case (or that reads the same, ``reads_as``), else the only name it begins, in any
    case ("mi" for "Mira Kell"). None when it gives none. Several it begins are refused in one
    sentence naming them (``what``: "characters' names"), rather than one guessed at."""
    names = list(names)
    folded, shown = wanted.casefold(), reads_as(wanted)
    for name in names:
        if name.casefold() == folded:
            return name
    same = next((name for name in names if reads_as(name) == shown), None)
    if same is not None or not shown.strip():
        return same
    begun = list(dict.fromkeys(name for name in names if reads_as(name).startswith(shown)))
    if len(begun) > 1:
        listed = ", ".join(sorted(begun, key=str.casefold))
        raise Refused(f'"{wanted}" begins several {what} ({listed}); give more of it to pick one.')
    return begun[0] if begun else None
