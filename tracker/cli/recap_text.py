"""A recap's words, for the Markdown ``tracker recap`` prints and the page it writes
(``tracker.cli.recap_html``): each roll, change and note as the players or the GM read it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tracker.cli.render import local_time, printable
from tracker.words import outcome_words, plural

if TYPE_CHECKING:
    from tracker.app.recap import Recap, RecapRoll, TrackChange


# -- Markdown -------------------------------------------------------------------------------------

# What Markdown (or the HTML it may hold) would read as markup in a line of text, and an
# entity (``&lt;``), which it would read as the character it names.
_MARKUP = re.compile(r"([\\`*_\[\]<>#|~])")
_ENTITY = re.compile(r"&(?=#?\w+;)")


def md(value: Any) -> str:
    """Text from the log as Markdown shows it literally: control characters spelled out, and
    every character Markdown or HTML would act on escaped (an entity a GM typed is written so
    that it reads as typed)."""
    text = _ENTITY.sub("&amp;", printable("" if value is None else str(value)))
    return _MARKUP.sub(r"\\\1", text)


# A sealed row of the players' recap: a secret roll, or what one led to (the trait a secret
# Fright Check cost reads the same), so it is called an event, and counted apart from the rolls.
SEALED_ROW = "a secret event, sealed until the GM reveals it"


def dice_text(dice: tuple[int, ...], kept: int | None) -> str:
    """The dice as rolled, and what was kept of them: their total or the one die."""
    shown = ", ".join(str(d) for d in dice)
    if kept is None or len(dice) < 2:
        return shown
    return f"{shown} = {kept}" if kept == sum(dice) else f"{shown} (kept {kept})"


def roll_words(roll: RecapRoll) -> str:
    """A roll as one line of words (without the character): the trait and its score, the
    dice, the outcome and what it did."""
    if roll.sealed:
        return SEALED_ROW
    parts = [f"{kind_words(roll)}{roll.trait or ''}"]
    if roll.effective is not None:
        parts[0] += f" {roll.effective}"
    if roll.modifiers:
        parts[0] += f" ({roll.modifiers})"
    if roll.lead:
        parts.append(roll.lead)
    outcome = roll.verdict or outcome_words(roll.outcome or "")
    if roll.bought_up_from:
        outcome += f", bought up from {outcome_words(roll.bought_up_from)}"
    parts.append(f"{dice_text(roll.dice, roll.kept)} → {outcome}")
    if roll.chance is not None:
        parts.append(f"{roll.chance:.0%} chance")
    if roll.effects:
        parts.append(roll.effects)
    return " · ".join(parts)


def kind_words(roll: RecapRoll) -> str:
    """What kind of roll it was, before its trait, where the trait does not say it already
    ("contest (quick): ", nothing for a plain check or a Fright Check)."""
    if roll.kind == "check" or roll.kind.casefold() in (roll.trait or "").casefold():
        return ""
    return f"{roll.kind}: "


def secret_mark(roll: RecapRoll, player_view: bool) -> str:
    """How a secret roll shown whole is marked: revealed (the players'), secret (the GM's)."""
    if roll.sealed or not roll.secret:
        return ""
    return "revealed" if player_view else "secret"


def change_words(change: TrackChange) -> str:
    before, after = ("—" if v is None else v for v in (change.before, change.after))
    return f"{change.track} {before} → {after}"


def session_heading(recap: Recap) -> str:
    s = recap.session
    return f"Session {s.number}" + (f" “{s.title}”" if s.title else "")


def session_when(recap: Recap) -> str:
    s = recap.session
    began = local_time(s.started_at)
    if s.ended_at is None:
        return f"{began}, still running"
    ended = local_time(s.ended_at)
    same_day = ended[:10] == began[:10]
    return f"{began} to {ended[11:] if same_day else ended}"


def view_words(recap: Recap) -> str:
    if not recap.player_view:
        return "The GM's recap: secret rolls in full, and what they changed."
    if not recap.sealed:
        return "The players' recap."
    return (
        f"The players' recap: {plural(recap.sealed, 'secret event')} sealed (secret rolls and "
        "what they led to), shown only as having happened until the GM reveals them."
    )


def sealed_words(recap: Recap, character: str | None) -> list[str]:
    """In the players' recap, what a listed change leaves out: a secret event not yet revealed
    may have moved the campaign's tracks (any one) or a character's (that character's), so the
    change reads "+ ? sealed" rather than a number a later public event would contradict."""
    if not recap.player_view:
        return []
    sealed = [r for r in recap.rolls if r.sealed]
    if character is not None:
        sealed = [r for r in sealed if r.character == character]
    return (
        [f"+ ? sealed ({plural(len(sealed), 'secret event')} not yet revealed)"] if sealed else []
    )


LUCK_NOTE = (
    "Successes against the number the exact odds predicted for these very rolls (each roll "
    "counts its own chance of success): above the odds, the dice were kinder than the odds."
)


def markdown(recap: Recap) -> str:
    """The recap as a Markdown document."""
    out = [
        f"# {md(recap.campaign)}: {md(session_heading(recap))}",
        "",
        f"{md(recap.system_title)} · {md(session_when(recap))}. {md(view_words(recap))}",
        "",
        "## Notes",
        "",
    ]
    out += [f"- {local_time(n.time, 'HH:mm')} {md(n.text)}" for n in recap.notes] or [
        "No notes this session."
    ]
    out += ["", "## Rolls", ""]
    for roll in recap.rolls:
        mark = secret_mark(roll, recap.player_view)
        who = md(roll.character or "the GM")
        line = f"- {local_time(roll.time, 'HH:mm')} **{who}** · {md(roll_words(roll))}"
        out.append(line + (f" *({mark})*" if mark else ""))
    if not recap.rolls:
        out.append("No rolls this session.")
    out += ["", "## Luck against the odds", ""]
    if recap.luck:
        out += [md(LUCK_NOTE), ""]
        out += [f"- **{md(c.character)}**: {md(c.words)}." for c in recap.luck]
    else:
        out.append("No rolls to weigh.")
    out += ["", "## What changed", ""]
    for who in recap.changes:
        said = [change_words(c) for c in who.tracks] + [f"new: {s}" for s in who.lasting]
        said += sealed_words(recap, who.character)
        name = "The campaign" if who.character is None else who.character
        out.append(f"- **{md(name)}**: {md('; '.join(said))}")
    if not recap.changes:
        out.append("Nothing changed on the tracks.")
    ended = recap.session.ended_at is not None
    out += ["", "## Still owed as the session ended" if ended else "## Owed now", ""]
    out += [f"- {md(o.what)}" for o in recap.owed] or ["Nothing."]
    if recap.lapsed:
        out += ["", "Lapsed as the session ended:", ""]
        out += [f"- {md(o.what)}" for o in recap.lapsed]
    head = recap.log_head
    shown = f"`{head[:12]}…{head[-4:]}`" if head else "withheld (a secret event's)"
    out += ["", "---", "", f"Made from the log at event {recap.log_version}, head {shown}."]
    return "\n".join(out) + "\n"
