"""A session's recap as one self-contained HTML page: it fetches nothing (no scripts, fonts,
images or links), so it opens anywhere and can be mailed to the players; every string from the
log is escaped before it reaches the page. It wears the roll report's styles."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from tracker.cli.recap_text import (
    LUCK_NOTE,
    SEALED_ROW,
    change_words,
    dice_text,
    kind_words,
    sealed_words,
    secret_mark,
    session_heading,
    session_when,
    view_words,
)
from tracker.cli.render import local_time
from tracker.cli.report_html import STYLE
from tracker.words import outcome_words

if TYPE_CHECKING:
    from tracker.app.recap import Recap

RECAP_STYLE = """
main { max-width: 1100px; }
ul.plain { list-style: none; padding: 0; margin: 0; }
ul.plain li { padding: 6px 0; border-bottom: 1px solid var(--line); }
ul.plain li:last-child { border-bottom: 0; }
.when { color: var(--soft); font-variant-numeric: tabular-nums; margin-right: 8px; }
.said { font-style: italic; }
.luck-figure { font-weight: 600; white-space: nowrap; }
.change { display: inline-block; margin: 2px 14px 2px 0; white-space: nowrap; }
.owed { color: var(--bad); } .empty { color: var(--soft); }
"""


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def render(recap: Recap) -> str:
    """One complete HTML document for a ``tracker.app.recap.Recap``."""
    head = recap.log_head
    title = f"{recap.campaign}: {session_heading(recap)}"
    parts = [
        f"<header><h1>{_e(title)}</h1><p>"
        f'<span class="pill">{_e(recap.system_title)}</span>{_e(session_when(recap))}</p>'
        f'<p class="note"><strong>{_e(view_words(recap))}</strong></p></header>',
        _notes(recap),
        _rolls(recap),
        _luck(recap),
        _changes(recap),
        _owed(recap),
        f"<footer>Made from the log at event {_e(recap.log_version)}, head "
        f"<code>{_e(head or 'withheld (a secret event’s)')}</code>. While the log still ends "
        "with this hash, nothing in it has changed since this recap was made.</footer>",
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        + (
            # What `tracker verify --against RECAP.html` reads the log head from.
            f'<meta name="tracker-log-head" content="{_e(head)}">\n' if head else ""
        )
        + f"<title>{_e(title)}</title>\n<style>{STYLE}{RECAP_STYLE}</style>\n"
        "</head>\n<body>\n<main>\n" + "\n".join(parts) + "\n</main>\n</body>\n</html>\n"
    )


def _section(ident: str, heading: str, body: str) -> str:
    return f'<section id="{ident}"><h2>{_e(heading)}</h2>{body}</section>'


def _notes(recap: Recap) -> str:
    if not recap.notes:
        return _section("notes", "Notes", '<p class="empty">No notes this session.</p>')
    items = "".join(
        f'<li><span class="when">{_e(local_time(n.time, "HH:mm"))}</span>'
        f'<span class="said">{_e(n.text)}</span></li>'
        for n in recap.notes
    )
    return _section("notes", "Notes", f'<ul class="plain">{items}</ul>')


def _rolls(recap: Recap) -> str:
    if not recap.rolls:
        return _section("rolls", "Rolls", '<p class="empty">No rolls this session.</p>')
    body = []
    for r in recap.rolls:
        frame = (
            f'<tr><td class="nowrap">{_e(local_time(r.time, "HH:mm"))}</td>'
            f'<td class="free"><strong>{_e(r.character or "the GM")}</strong></td>'
        )
        if r.sealed:
            body.append(
                f'{frame}<td class="hidden" colspan="7">{SEALED_ROW}'
                '<span class="badge secret">secret</span></td></tr>'
            )
            continue
        roll = _e(r.trait)
        if kind_words(r):
            roll += f' <span class="small">{_e(r.kind)}</span>'
        score = _e(r.effective)
        if r.modifiers:
            score += f'<div class="small">{_e(r.modifiers)}</div>'
        tone = {"good": "good", "mixed": "mixed"}.get(r.tone or "", "bad")
        outcome = f'<span class="outcome {tone}">{_e(outcome_words(r.outcome or ""))}</span>'
        mark = secret_mark(r, recap.player_view)
        if mark:
            outcome += f'<span class="badge secret">{_e(mark)}</span>'
        if r.bought_up_from:
            was = _e(outcome_words(r.bought_up_from))
            outcome += f'<span class="badge bought">bought up from {was}</span>'
        detail = r.detail
        chance = "" if r.chance is None else f"{r.chance:.0%}"
        body.append(
            f'{frame}<td class="free">{roll}</td><td class="free">{score}</td>'
            f'<td class="nowrap">{_e(dice_text(r.dice, r.kept))}</td><td>{outcome}</td>'
            f'<td class="nowrap">{_e(detail)}</td><td class="num">{chance}</td>'
            f'<td class="free">{_e(r.effects)}</td></tr>'
        )
    table = (
        '<div class="scroll"><table class="rolls"><thead><tr><th>Time</th>'
        '<th class="who">Character</th><th class="what">Roll</th><th class="score">Score</th>'
        '<th class="dice">Dice</th><th class="outcome-col">Outcome</th>'
        f'<th>{_e(recap.detail_column)}</th><th class="num">Chance</th>'
        f'<th class="effects">Effects</th></tr></thead><tbody>{"".join(body)}</tbody></table>'
        "</div>"
    )
    return _section("rolls", "Rolls", table)


def _luck(recap: Recap) -> str:
    if not recap.luck:
        return _section("luck", "Luck against the odds", '<p class="empty">No rolls to weigh.</p>')
    items = []
    for c in recap.luck:
        tone = "up" if c.luck >= 0.05 else "down" if c.luck <= -0.05 else ""
        figure = f"{c.luck:+.1f}".replace("-", "−") if tone else "±0"
        items.append(
            f"<li><strong>{_e(c.character)}</strong> "
            f'<span class="luck-figure {tone}">{figure}</span>: {_e(c.words)}.</li>'
        )
    body = f'<p class="note">{_e(LUCK_NOTE)}</p><ul class="plain">{"".join(items)}</ul>'
    return _section("luck", "Luck against the odds", body)


def _changes(recap: Recap) -> str:
    if not recap.changes:
        return _section(
            "changes", "What changed", '<p class="empty">Nothing changed on the tracks.</p>'
        )
    items = []
    for who in recap.changes:
        name = "The campaign" if who.character is None else who.character
        said = [change_words(c) for c in who.tracks] + [f"new: {s}" for s in who.lasting]
        said += sealed_words(recap, who.character)
        changes = "".join(f'<span class="change">{_e(s)}</span>' for s in said)
        items.append(f"<li><strong>{_e(name)}</strong>: {changes}</li>")
    return _section("changes", "What changed", f'<ul class="plain">{"".join(items)}</ul>')


def _owed(recap: Recap) -> str:
    ended = recap.session.ended_at is not None
    heading = "Still owed as the session ended" if ended else "Owed now"
    if recap.owed:
        body = '<ul class="plain">' + "".join(
            f'<li class="owed">{_e(o.what)}</li>' for o in recap.owed
        )
        body += "</ul>"
    else:
        body = '<p class="empty">Nothing.</p>'
    if recap.lapsed:
        body += '<h3>Lapsed as the session ended</h3><ul class="plain">'
        body += "".join(f"<li>{_e(o.what)}</li>" for o in recap.lapsed) + "</ul>"
    return _section("owed", heading, body)
