"""Small text helpers shared by the commands: colour, times, one-line event summaries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from tracker.words import by_margin as by_margin
from tracker.words import outcome_words
from tracker.words import plural as plural

if TYPE_CHECKING:
    from tracker.systems.base import RollFacts, RuleSystem

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


def printable(text: str) -> str:
    """``text`` from the log as a terminal may show it: a control character (an escape
    sequence in an imported name, a line break) spelled as its escape instead of acted on."""
    from tracker.app.names import UNFIT

    return UNFIT.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), text)


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


def dice_words(dice: Sequence[int], kept: int | None, rules: RuleSystem) -> str:
    """Dice as the table reads them: ``3+4+5 = 12`` when they are added, ``15, 3 (kept 3)`` when one
    is kept, ``20`` alone."""
    shown = rules.dice_join.join(map(str, dice))
    if len(dice) > 1 and kept is not None:
        shown += f" = {kept}" if rules.dice_join == "+" else f" (kept {kept})"
    return shown


def facts_words(facts: RollFacts, rules: RuleSystem) -> str:
    """One rolled set of dice in a line of the log: ``at 16: 3+4+5 = 12 → success by 4``."""
    score = f" at {facts.effective}" if facts.effective is not None else ""
    verdict = by_margin(outcome_words(facts.outcome), facts.success, facts.margin)
    return f"{score}: {dice_words(facts.dice, facts.kept, rules)} → {verdict}"


def local_time(iso: str | None, fmt: str = "YYYY-MM-DD HH:mm") -> str:
    """A stored UTC time shown in the GM's local time zone."""
    if not iso:
        return ""
    import pendulum

    try:
        return pendulum.parse(iso).in_timezone(pendulum.local_timezone()).format(fmt)
    except (ValueError, TypeError, pendulum.parsing.exceptions.ParserError):
        # Edited in by hand (`tracker verify` names it): shown as stored, never a traceback.
        return printable(str(iso))[:19]


def duration(start: str, end: str) -> str:
    import pendulum

    try:
        minutes = int((pendulum.parse(end) - pendulum.parse(start)).total_minutes())
    except (ValueError, TypeError, pendulum.parsing.exceptions.ParserError):
        return "an unreadable time"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


def _is_state(name: str) -> bool:
    # A condition may be a state (stunned, shaken) or a thing (broken arm, catatonia); only a
    # state reads after "is", and a one-word participle is the shape a state's name takes.
    return " " not in name and name.endswith(("ed", "en"))


def condition_ended(who: str, name: str) -> str:
    """A condition's end said of the character: "Mira is no longer stunned", "Vora: broken arm
    has ended"."""
    if _is_state(name):
        return f"{who} is no longer {name}"
    return f"{who}: {name} has ended"


def condition_began(name: str, duration: int | None = None, unit: str | None = None) -> str:
    """A condition a roll set, among its effects: "now stunned for 2 seconds", "catatonia for
    3 days"."""
    return ("now " if _is_state(name) else "") + name + lasting(duration, unit)


def lasting(duration: int | None, unit: str | None) -> str:
    """ " for 2 seconds", " for 1 second", or nothing when the condition has no set length."""
    if not duration:
        return ""
    if not unit:
        return f" for {duration}"
    word = unit[:-1] if duration == 1 and unit.endswith("s") else unit
    return f" for {duration} {word}"


def update_words(d: dict[str, Any], after: Any = None) -> str:
    """What a sheet update changed: old beside new when the sheet before and after are known
    (a stat that moved with another shows too), else what the event records."""
    before = d.get("before")
    words = []
    if before is not None and after is not None:
        for was, now in ((before["stats"], after.stats), (before["skills"], after.skills)):
            for key, value in now.items():
                if key not in was:
                    words.append(f"{key} {value} (new)")
                elif was[key] != value:
                    words.append(f"{key} {was[key]} → {value}")
        words += [f"{k} dropped" for k in before["skills"] if k not in after.skills]
    else:
        words += [f"{k} {v}" for k, v in {**d["stats"], **d["skills"]}.items()]
        words += [f"{k} dropped" for k in d["dropped_skills"]]
    words += [f"trained in {t}" for t in d["trained"]]
    words += [f"+ {t}" for t in d["traits"]]
    words += [f"- {t}" for t in d["dropped_traits"]]
    if d.get("character_class"):
        words.append(f"class {d['character_class']}")
    if d.get("npc") is not None:
        words.append("played by the GM" if d["npc"] else "played by a player")
    if after is not None:
        # HP and FP in play where the update moved their maximum or reset them.
        for track, top in (("hp", after.hp_max), ("fp", after.fp_max)):
            now = getattr(after, track)
            moved = before is not None and before["stats"].get(track.upper()) != top
            if now is not None and (d["reset_tracks"] or moved):
                words.append(f"{track.upper()} in play {now}/{top}")
    elif d.get("reset_tracks"):
        words.append("HP and FP reset to their maximum")
    text = ", ".join(words)
    if d.get("sheet"):
        text += f" (from {d['sheet']})"
    if d.get("note"):
        text += f": {d['note']}"
    return text
