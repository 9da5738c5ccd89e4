"""Small text helpers shared by the commands: colour, times, one-line event summaries."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

import click

from tracker.app.lines import condition_ended as condition_ended
from tracker.app.lines import dice_words as dice_words
from tracker.app.lines import facts_words as facts_words
from tracker.app.lines import is_state, printable
from tracker.app.lines import update_words as update_words
from tracker.words import by_margin as by_margin
from tracker.words import outcome_words
from tracker.words import plural as plural

if TYPE_CHECKING:
    from tracker.systems.base import RuleSystem

GOOD = "green"
BAD = "red"
MIXED = "yellow"


class _TrackWords(dict[str, str]):
    """The names tracks go by at the table: tracker's words for those every system shares,
    and a system's own track by its name, capitalised ("mettle": "Mettle")."""

    def __missing__(self, track: str) -> str:
        return track.capitalize()


TRACK_WORDS = _TrackWords(stress="stress", hp="HP", fp="FP")


def track_word(track: str) -> str:
    """The name a track goes by at the table (``TRACK_WORDS``)."""
    return TRACK_WORDS[track]


def bold(text: str) -> str:
    return click.style(text, bold=True)


def dim(text: str) -> str:
    return click.style(text, dim=True)


def warn(text: str) -> str:
    return click.style(f"! {text}", fg=MIXED)


TONE_COLOURS = {"good": GOOD, "mixed": MIXED, "bad": BAD}


class TerminalStyle:
    """How the terminal marks a rule system's words: bold, dim, and each outcome in the colour
    of how it reads in that system (a weak hit is mixed, a miss bad)."""

    def __init__(self, rules: RuleSystem) -> None:
        self.rules = rules

    def bold(self, text: str) -> str:
        return bold(text)

    def dim(self, text: str) -> str:
        return dim(text)

    def outcome(self, name: str) -> str:
        colour = TONE_COLOURS[self.rules.tone(name)]
        return click.style(outcome_words(name).upper(), fg=colour, bold=True)

    def tone(self, text: str, tone: str, *, bold: bool = False) -> str:
        # Not bold is no mark at all: click would reset boldness for False.
        return click.style(text, fg=TONE_COLOURS[tone], bold=bold or None)


# pendulum's tokens as the commands ask for them, in the standard library's spelling: importing
# pendulum took longer than the rest of a `status --as-of` or a `replay`.
_FORMATS = {
    "YYYY-MM-DD HH:mm": "%Y-%m-%d %H:%M",
    "YYYY-MM-DD HH:mm:ss": "%Y-%m-%d %H:%M:%S",
    "HH:mm": "%H:%M",
}


def _moment(iso: str) -> datetime:
    """A stored time as an aware datetime: UTC when it names no zone, as tracker writes it."""
    moment = datetime.fromisoformat(iso)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def local_time(iso: str | None, fmt: str = "YYYY-MM-DD HH:mm") -> str:
    """A stored UTC time shown in the GM's local time zone."""
    if not iso:
        return ""
    try:
        return _moment(iso).astimezone().strftime(_FORMATS[fmt])
    except (ValueError, TypeError, OverflowError, OSError):
        # Edited in by hand (`tracker verify` names it): shown as stored, never a traceback.
        return printable(str(iso))[:19]


def duration(start: str, end: str) -> str:
    try:
        minutes = int((_moment(end) - _moment(start)).total_seconds() / 60)
    except (ValueError, TypeError, OverflowError):
        return "an unreadable time"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


def condition_began(name: str, duration: int | None = None, unit: str | None = None) -> str:
    """A condition a roll set, among its effects: "now stunned for 2 seconds", "catatonia for
    3 days"."""
    return ("now " if is_state(name) else "") + name + lasting(duration, unit)


def lasting(duration: int | None, unit: str | None) -> str:
    """ " for 2 seconds", " for 1 second", or nothing when the condition has no set length."""
    if not duration:
        return ""
    if not unit:
        return f" for {duration}"
    word = unit[:-1] if duration == 1 and unit.endswith("s") else unit
    return f" for {duration} {word}"
