"""Small text helpers shared by the commands: colour, times, one-line event summaries."""

from __future__ import annotations

import click

GOOD = "green"
BAD = "red"
MIXED = "yellow"
TRACK_WORDS = {"mettle": "Mettle", "threat": "Threat", "stress": "stress", "hp": "HP", "fp": "FP"}


def bold(text: str) -> str:
    return click.style(text, bold=True)


def dim(text: str) -> str:
    return click.style(text, dim=True)


def warn(text: str) -> str:
    return click.style(f"! {text}", fg=MIXED)


def local_time(iso: str | None, fmt: str = "YYYY-MM-DD HH:mm") -> str:
    """A stored UTC time shown in the GM's local time zone."""
    if not iso:
        return ""
    import pendulum

    return pendulum.parse(iso).in_timezone(pendulum.local_timezone()).format(fmt)


def duration(start: str, end: str) -> str:
    import pendulum

    minutes = int((pendulum.parse(end) - pendulum.parse(start)).total_minutes())
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"
