"""The roll-history report as one self-contained HTML page: luck against the exact odds, the die
faces against fair dice (the table's own dice apart from tracker's, and per person), luck and the
tracks over time as inline SVG charts, and every roll.

The page fetches nothing (no scripts, fonts, images or links), so it opens anywhere, offline, and
can be mailed to players. Every string from the log is escaped before it reaches the page.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from html import escape
from typing import Any

from tracker.cli.render import track_word
from tracker.systems.dice import PHYSICAL
from tracker.words import plural

PALETTE = ("#2563eb", "#d97706", "#059669", "#c026d3", "#dc2626", "#0891b2", "#65a30d", "#7c3aed")
SHARED_COLOUR = "#374151"
NARROW, WIDE, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 640, 1080, 270, 46, 14, 14, 38
Series = tuple[str, list[float | None], str, bool]  # name, values over x = 1..n, colour, dashed

STYLE = """
:root { color-scheme: light; --ink: #1f2937; --soft: #6b7280; --line: #e5e7eb; --good: #15803d;
  --good-bg: #dcfce7; --bad: #b91c1c; --bad-bg: #fee2e2; --mixed: #a16207; --mixed-bg: #fef3c7; }
* { box-sizing: border-box; }
body { margin: 0; background: #f8fafc; color: var(--ink);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif; }
main { max-width: 1440px; margin: 0 auto; padding: 28px 24px 48px; }
h1 { font-size: 1.9rem; margin: 0 0 4px; } h2 { font-size: 1.2rem; margin: 0 0 12px; }
h3 { font-size: 1rem; margin: 18px 0 4px; }
header p, .note { color: var(--soft); margin: 4px 0; }
section { background: #fff; border: 1px solid var(--line); border-radius: 10px;
  padding: 18px 20px; margin-top: 20px; }
.pill { display: inline-block; padding: 1px 9px; border-radius: 999px; background: #e0e7ff;
  color: #3730a3; font-size: .85rem; margin-right: 6px; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .9em; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); }
td { vertical-align: top; }
th { color: var(--soft); font-weight: 600; font-size: .78rem; text-transform: uppercase; }
.num { text-align: right; font-variant-numeric: tabular-nums; } .nowrap { white-space: nowrap; }
.up { color: var(--good); font-weight: 600; } .down { color: var(--bad); font-weight: 600; }
.meter { position: relative; height: 10px; background: var(--line); border-radius: 5px;
  min-width: 140px; margin-top: 6px; }
.meter .fill { position: absolute; inset: 0 auto 0 0; background: #2563eb; border-radius: 5px; }
.meter .mark { position: absolute; top: -4px; width: 3px; height: 18px; background: var(--ink); }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 20px; }
.grid + .note { margin-top: 14px; }
figure { margin: 0; } figcaption { font-size: .9rem; color: var(--soft); margin-top: 4px; }
svg.chart { width: 100%; height: auto; display: block; font-size: 13px; }
svg.chart text { fill: var(--soft); } svg.chart .title { fill: var(--ink); font-weight: 600; }
svg.chart .fair { fill: #b45309; } figcaption strong { color: var(--ink); }
.legend { list-style: none; padding: 0; margin: 6px 0 0; display: flex; flex-wrap: wrap;
  gap: 4px 16px; font-size: .88rem; }
.legend span { display: inline-block; width: 22px; margin-right: 6px; vertical-align: middle; }
.outcome { display: inline-block; padding: 0 8px; border-radius: 4px; font-weight: 600;
  white-space: nowrap; }
.good { background: var(--good-bg); color: var(--good); } .mixed { color: var(--mixed);
  background: var(--mixed-bg); } .bad { background: var(--bad-bg); color: var(--bad); }
.badge { display: inline-block; font-size: .72rem; padding: 0 6px; border-radius: 4px;
  margin-left: 4px; text-transform: uppercase; letter-spacing: .04em; }
.badge.secret { background: #ede9fe; color: #5b21b6; }
.badge.revoked { background: #e5e7eb; color: #374151; }
.badge.bought { background: #fef3c7; color: #92400e; }
tr.revoked td { color: #9ca3af; text-decoration: line-through; }
td.hidden { color: #5b21b6; font-style: italic; }
.small { font-size: .8rem; color: var(--soft); } .scroll { overflow-x: auto; }
table.rolls { font-size: .85rem; }
table.rolls th, table.rolls td { padding: 6px 6px; }
/* What a GM typed (names, modifier labels, effects) wraps anywhere, even inside one long word, so
   that no cell can push Outcome and the columns after it out of sight; the least widths keep a
   column from being squeezed to a letter a line while another has room to spare. */
table.rolls .free { overflow-wrap: anywhere; }
table.rolls .small { font-size: .92em; } table.rolls .badge { font-size: .8em; }
table.rolls .who { min-width: 7em; } table.rolls .what { min-width: 8.5em; }
table.rolls .score { min-width: 9em; } table.rolls .dice { min-width: 5.5em; }
table.rolls .outcome-col { min-width: 7em; } table.rolls .effects { min-width: 7em; }
footer { margin-top: 24px; font-size: .8rem; color: var(--soft); overflow-wrap: anywhere; }
@media print {
  @page { margin: 12mm; }
  body { background: #fff; font-size: 10pt; }
  main { max-width: none; padding: 0; }
  section { border: 0; border-radius: 0; padding: 0; margin-top: 14pt; }
  h2, h3, .note { break-after: avoid; }
  figure, tr { break-inside: avoid; }
  .grid { gap: 10pt; }
  /* Paper cannot scroll: every column fits the page's width, the text smaller to make room. */
  .scroll { overflow: visible; }
  table.rolls { font-size: 7.5pt; }
  table.rolls th { font-size: 6.5pt; }
  table.rolls th, table.rolls td { padding: 2pt 3pt; }
  /* The screen's column minimums add up to about a page's width: on paper only the roll's
     name and its outcome keep theirs (so "Lockpicking" stays one word), the rest share. */
  table.rolls .who, table.rolls .score, table.rolls .dice, table.rolls .effects { min-width: 0; }
  thead { display: table-header-group; }
  .outcome, .badge, .meter, .meter .fill { print-color-adjust: exact;
    -webkit-print-color-adjust: exact; }
}
"""


def render(report: dict[str, Any]) -> str:
    """One complete HTML document for a roll report from ``Tracker.roll_report``.

    Shows each character's successes against what the exact odds predicted for those very rolls,
    the die faces against fair dice (chi-square; dice typed in at the table apart from dice
    tracker rolled, and the table's per person), luck and the tracks over time, and every roll
    (revoked rolls struck through, secret rolls marked, and in the player view without details).
    See tracker/cli/README.md (`tracker export rolls --format html`) and tracker/store/README.md
    (secret rolls; exports name the head hash of their log).
    """
    rows = report.get("rows") or []
    colours = _colours(report)
    parts = [_header(report, rows)]
    if rows:
        parts += [
            _luck_section(report, colours),
            _faces_section(report),
            _trails_section(report, colours),
            _tracks_section(report, colours),
            _rows_section(report, rows),
        ]
    else:
        parts.append(
            '<section id="empty"><h2>No rolls</h2><p>No rolls match these filters.</p></section>'
        )
    parts.append(
        f"<footer>Log head (SHA-256 of the last event, version {_e(report.get('log_version'))}): "
        f"<code>{_e(report.get('log_head'))}</code>. While the log still ends with this hash, "
        "nothing in it has changed since this report was made.</footer>"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        + (
            # What `tracker verify --against REPORT.html` reads the report's log head from.
            f'<meta name="tracker-log-head" content="{_e(report["log_head"])}">\n'
            if report.get("log_head")
            else ""
        )
        + f"<title>{_e(report.get('campaign'))} · roll history</title>\n<style>{STYLE}</style>\n"
        "</head>\n<body>\n<main>\n" + "\n".join(parts) + "\n</main>\n</body>\n</html>\n"
    )


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _colours(report: dict[str, Any]) -> dict[str, str]:
    """One colour per character, the same in every chart."""
    names = [c["character"] for c in report.get("luck", {}).get("characters", [])]
    names += [*report.get("trails", {}), *report.get("tracks", {})]
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(dict.fromkeys(names))}


def _time(iso: str | None) -> str:
    return f"{iso[:10]} {iso[11:16]} UTC" if iso and len(iso) >= 16 else iso or ""


def _stamp(iso: str | None) -> str:
    """A roll's time for the table: the date and the hour may go on two lines, neither split."""
    date, _, hour = _time(iso).partition(" ")
    return f'<span class="nowrap">{_e(date)}</span> <span class="nowrap">{_e(hour)}</span>'


def _signed(value: float, digits: int = 2) -> str:
    text = f"{value:+.{digits}f}"
    return text.replace("-", "−") if text.strip("+-0.") else f"{0:.{digits}f}"


def _sealed(row: dict[str, Any]) -> bool:
    """A row the players' view holds sealed: that a secret event happened, no more."""
    return bool(row.get("secret")) and row.get("outcome") is None


def _header(report: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    flt = report.get("filters") or {}
    shown = [f"session {flt['session']}"] if flt.get("session") is not None else []
    shown += [f"character {flt['character']}"] if flt.get("character") else []
    shown += [f"{k} {_time(flt[k])}" for k in ("since", "until") if flt.get(k)]
    # A sealed row (the players' view) is a secret event of any kind, counted apart from the
    # rolls: the quirk a secret Fright Check cost reads as a secret roll does.
    sealed = sum(_sealed(r) for r in rows)
    counts = [plural(len(rows) - sealed, "roll")]
    counts += [
        f"{n} {k}"
        for k in ("revoked", "secret")
        if (n := sum(bool(r.get(k)) and not _sealed(r) for r in rows))
    ]
    counts += [f"{plural(sealed, 'secret event')} sealed"] if sealed else []
    head = report.get("log_head") or ""
    short = f"{head[:12]}…{head[-4:]}" if len(head) > 16 else head
    system = report.get("system_title") or report.get("system", "")
    view = (
        "Player view: a secret event (a secret roll, or what one led to) shows only that it "
        "happened."
        if flt.get("player_view")
        else ""
    )
    return (
        f"<header><h1>{_e(report.get('campaign'))}</h1>"
        f'<p><span class="pill">{_e(system)}</span>Roll history · {", ".join(counts)} · '
        f"{_e('; '.join(shown) or 'all sessions, all characters')}</p>"
        + (f'<p class="note"><strong>{view}</strong></p>' if view else "")
        + f'<p class="note">Made from the log at version {_e(report.get("log_version"))}, head '
        f'<code title="{_e(head)}">{_e(short)}</code>.</p></header>'
    )


def _luck_section(report: dict[str, Any], colours: dict[str, str]) -> str:
    people = report.get("luck", {}).get("characters", [])
    if not people:
        return (
            '<section id="luck"><h2>Luck against the odds</h2><p>No rolls to weigh.</p></section>'
        )
    body = []
    for c in people:
        luck, name = c["luck"], _e(c["character"])
        words, tone = f"{name} right at the odds", ""
        if abs(luck) >= 0.005:
            side, tone = ("above", "up") if luck > 0 else ("below", "down")
            words = f"{name} {_signed(luck)} successes {side} the odds"
        rate, odds = c.get("rate") or 0.0, c.get("expected_rate") or 0.0
        sessions = c.get("by_session") or {}
        per_session = "; ".join(
            f"{'no session' if s == 'None' else f'session {_e(s)}'}: {_signed(v['luck'])} in "
            f"{v['rolls']}"
            for s, v in sessions.items()
        )
        body.append(
            f'<tr><td><span style="color:{colours[c["character"]]}">●</span> '
            f'<strong>{name}</strong></td><td class="num">{c["rolls"]}</td>'
            f'<td class="num">{c["successes"]}</td><td class="num">{c["expected"]:.2f}</td>'
            f'<td>{rate:.0%} <span class="small">vs {odds:.0%} expected</span>'
            f'<div class="meter" title="rate {rate:.0%}, odds {odds:.0%}"><div class="fill" '
            f'style="width:{rate:.1%}"></div><div class="mark" style="left:calc({odds:.1%} - 1px)">'
            f'</div></div></td><td><span class="{tone}">{words}</span>'
            + (f'<div class="small">{per_session}</div>' if len(sessions) > 1 else "")
            + "</td></tr>"
        )
    return (
        '<section id="luck"><h2>Luck against the odds</h2><p class="note">Successes against the '
        "number the exact odds predicted for these very rolls (each roll counts its own chance). "
        "The bar is the success rate; the black mark is the rate the odds predicted.</p>"
        '<div class="scroll"><table><thead><tr><th>Character</th><th class="num">Rolls</th>'
        '<th class="num">Successes</th><th class="num">Expected</th><th>Rate</th><th>Luck</th>'
        f"</tr></thead><tbody>{''.join(body)}</tbody></table></div></section>"
    )


def _faces_section(report: dict[str, Any]) -> str:
    luck = report.get("luck", {})
    tests = [t for t in luck.get("faces", []) if t.get("dice")]
    table = [t for t in tests if t.get("origin") == PHYSICAL]
    software = [t for t in tests if t.get("origin") != PHYSICAL]
    if not tests:
        inner = "<p>No dice to count.</p>"
    else:
        inner = (
            '<h3>Dice rolled at the table</h3><p class="note">Dice typed in with <code>--dice'
            "</code>: whether the table's dice look fair.</p>"
            + (
                _figures(table, "at the table", FAIR_DICE) + _people_figures(luck)
                if table
                else "<p>No dice were typed in for these rolls.</p>"
            )
            + '<h3>Dice tracker rolled</h3><p class="note">A check of its generator, which says '
            "nothing of the table's dice.</p>"
            + (
                _figures(software, "tracker rolled", FAIR_GENERATOR)
                if software
                else "<p>Every die of these rolls was rolled at the table.</p>"
            )
        )
    return (
        '<section id="faces"><h2>Die faces</h2><p class="note">How often each face came up; the '
        "dashed line is what fair dice would give. Dice rolled at the table and dice tracker "
        f"rolled are counted apart.</p>{inner}</section>"
    )


# What a test's p-value says (below 0.05, at or above it) of the table's dice and of tracker's.
FAIR_DICE = ("unlikely from fair dice", "consistent with fair dice")
FAIR_GENERATOR = ("unlikely from a fair generator", "consistent with a fair generator")


def _people_figures(luck: dict[str, Any]) -> str:
    """The table's dice per person, for each die size that more than one person rolled."""
    people = [p for p in luck.get("faces_by_person", []) if p.get("dice")]
    sizes = Counter(p["faces"] for p in people)
    people = [p for p in people if sizes[p["faces"]] > 1]
    if not people:
        return ""
    return (
        '<p class="note">Per person: the character whose roll it was stands for the player who '
        "rolled; the GM rolls for opponents. Each chart is a test of its own, and among several "
        "one below p = 0.05 now and then is what fair dice do.</p>"
        + _figures(people, "", FAIR_DICE, wide=False)
    )


def _figures(
    tests: list[dict[str, Any]], rolled: str, words: tuple[str, str], wide: bool | None = None
) -> str:
    """A bar chart of the faces for each test, with its chi-square and what that says;
    a test of one person's dice is titled with the person."""
    figures = []
    for t in tests:
        p, verdict = t.get("p_value"), "too few dice to test"
        if p is not None:
            looks = words[0] if p < 0.05 else words[1]
            verdict = ("p < 0.001" if p < 0.001 else f"p = {p:.3f}") + f": {looks}"
        if "person" in t:
            title = f"d{t['faces']} faces: {t['person'] or 'the GM, for opponents'}"
        else:
            title = f"d{t['faces']} faces {rolled}"
        chart = _bar_chart(
            title, t["counts"], t["expected_each"], wide=len(tests) == 1 if wide is None else wide
        )
        figures.append(
            f"<figure>{chart}<figcaption><strong>{t['dice']} d{t['faces']}</strong> rolled; fair "
            f"dice give {t['expected_each']:.2f} of each face. χ² = {t['chi_square']:.2f} with "
            f"{t['faces'] - 1} degrees of freedom; {verdict}.</figcaption></figure>"
        )
    return f'<div class="grid">{"".join(figures)}</div>'


def _trails_section(report: dict[str, Any], colours: dict[str, str]) -> str:
    series = [(n, list(t), colours[n], False) for n, t in (report.get("trails") or {}).items() if t]
    if not series:
        return ""
    chart = _line_chart("Luck over the rolls", series, wide=True, x_label="the character's roll")
    return (
        '<section id="trails"><h2>Luck over time</h2><p class="note">Successes above (below) '
        "the odds after each of the character's rolls; 0 is exactly the odds.</p>"
        f"<figure>{chart}</figure></section>"
    )


def _session_marks(report: dict[str, Any], versions: list[int]) -> list[tuple[int, str]]:
    """Where a new session begins along the charts' versions, and its name."""
    sessions = {r["version"]: r.get("session") for r in report.get("rows") or []}
    return [
        (i + 1, f"session {sessions.get(v)}")
        for i, v in enumerate(versions)
        if i and sessions.get(v) != sessions.get(versions[i - 1])
    ]


def _tracks_section(report: dict[str, Any], colours: dict[str, str]) -> str:
    only = (report.get("filters") or {}).get("character")
    # Keyed by version: a contest's two sides are one event and give the same point twice.
    tracks = {
        name: {p["version"]: p for p in points}
        for name, points in (report.get("tracks") or {}).items()
        if not (only and name.casefold() != only.casefold())
    }
    # The campaign's own tracks, where its system keeps any: on the chart its system draws
    # them on (``Folding.charts``), else each on a chart of its own.
    from tracker.systems import registry

    charts = registry.get(report["system"]).folding.charts
    kept = report.get("shared") or []
    drawn = {chart.shared for chart in charts}
    own = sorted({key for p in kept for key in p} - {"version", "time"} - drawn)
    versions = sorted(
        {v for points in tracks.values() for v in points} | {p["version"] for p in kept}
    )
    points = [p for by_version in tracks.values() for p in by_version.values()]
    marks = _session_marks(report, versions)

    def line(name: str, key: str) -> list[float | None]:
        return [tracks[name][v].get(key) if v in tracks[name] else None for v in versions]

    specs: list[tuple[str, list[Series], tuple[float, float] | None]] = []
    for chart in charts:
        shared = {p["version"]: p[chart.shared] for p in kept if chart.shared in p}
        if shared or any(chart.each in p for p in points):
            each = track_word(chart.each)
            series = [(f"{n} {each}", line(n, chart.each), colours[n], False) for n in tracks]
            if shared and chart.shared is not None:
                values = [shared.get(v) for v in versions]
                series.append((track_word(chart.shared), values, SHARED_COLOUR, True))
            specs.append((chart.title, series, None if chart.top is None else (0, chart.top)))
    for key in own:
        values = {p["version"]: p.get(key) for p in kept}
        name = track_word(key)
        series = [(name, [values.get(v) for v in versions], SHARED_COLOUR, False)]
        specs.append((name, series, None))
    if any("hp" in p or "fp" in p for p in points):
        hp_fp = [
            (f"{n} {key.upper()}", line(n, key), colours[n], key == "fp")
            for n in tracks
            for key in ("hp", "fp")
            if any(key in p for p in tracks[n].values())
        ]
        specs.append(("HP (solid) and FP (dashed)", hp_fp, None))
    stresses = [p.get("stress", 0) for p in points]
    if points and (report.get("has_stress") or any(stresses)):
        series = [(n, line(n, "stress"), colours[n], False) for n in tracks]
        specs.append(("Stress", series, (0, max(6, *stresses))))
    return _charts(specs, marks)


def _charts(specs: list[tuple[str, list[Series], tuple[float, float] | None]], marks: Any) -> str:
    """The tracks' section: one figure for each chart (none at all without a chart)."""
    if not specs:
        return ""
    figures = "".join(
        f"<figure>{_line_chart(title, series, wide=len(specs) == 1, y_range=y, marks=marks)}"
        "</figure>"
        for title, series, y in specs
    )
    return (
        '<section id="tracks"><h2>Tracks over time</h2><p class="note">Each track after every '
        f'roll in this report, in order.</p><div class="grid">{figures}</div></section>'
    )


def _rows_section(report: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    column = report.get("detail_column", "")
    # Outcomes the system reads as a success at a cost; the rest read by the row's `success`.
    tones = report.get("tones") or {}
    body = []
    for r in rows:
        badges = '<span class="badge secret">secret</span>' if r.get("secret") else ""
        badges += '<span class="badge revoked">revoked</span>' if r.get("revoked") else ""
        kind, roll = r.get("kind") or "check", _e(r.get("trait"))
        if kind != "check" and kind not in roll.casefold():
            roll += f' <span class="small">{_e(kind)}</span>'
        row = (
            f'<tr class="{"revoked" if r.get("revoked") else ""}"><td class="num">'
            f'{_e(r.get("version"))}</td><td title="{_e(r.get("time"))}">'
            f'{_stamp(r.get("time"))}</td><td class="num">{_e(r.get("session"))}</td>'
            f'<td class="free">{_e(r.get("character"))}</td><td class="free">{roll}</td>'
        )
        if _sealed(r):  # the player view keeps only the frame
            body.append(f'{row}<td class="hidden" colspan="7">secret event{badges}</td></tr>')
            continue
        score = _e(r.get("base"))
        if r.get("effective") is not None and r.get("effective") != r.get("base"):
            score += f" → {_e(r['effective'])}"
        if r.get("modifiers"):
            score += f'<div class="small">{_e(r["modifiers"])}</div>'
        outcome = r.get("outcome") or ""
        tone = "mixed" if tones.get(outcome) == "mixed" else ("good" if r.get("success") else "bad")
        if r.get("bought_up_from"):
            # The outcome it ended with, and what its dice gave before points bought it up.
            was = _e(r["bought_up_from"].replace("_", " "))
            badges = f'<span class="badge bought">bought up from {was}</span>' + badges
        detail = r.get("position") or ("" if r.get("margin") is None else _signed(r["margin"], 0))
        chance = "" if r.get("p_success") is None else f"{r['p_success']:.0%}"
        body.append(
            f'{row}<td class="free">{score}</td>'
            f"<td>{_e(', '.join(str(d) for d in r.get('dice') or []))}</td>"
            f'<td class="num">{_e(r.get("kept"))}</td><td><span class="outcome {tone}">'
            f"{_e(outcome.replace('_', ' '))}</span>{badges}</td>"
            f'<td class="nowrap">{_e(detail)}</td><td class="num">{chance}</td>'
            f'<td class="free">{_e(r.get("effects"))}</td></tr>'
        )
    return (
        '<section id="rolls"><h2>Every roll</h2><div class="scroll"><table class="rolls"><thead>'
        '<tr><th class="num">#</th><th>Time</th><th class="num">Session</th>'
        '<th class="who">Character</th><th class="what">Roll</th><th class="score">Score</th>'
        '<th class="dice">Dice</th><th class="num">Kept</th><th class="outcome-col">Outcome</th>'
        f'<th>{column}</th><th class="num">Chance</th><th class="effects">Effects</th></tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div></section>"
    )


# -- charts ------------------------------------------------------------------------------------


def _ticks(lo: float, hi: float, integer: bool = False, count: int = 5) -> list[float]:
    """Round tick values covering lo..hi, so the axes read 0, 2, 4 rather than 0, 1.7, 3.4."""
    raw = (hi - lo) / count if hi > lo else 1.0
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    step = max(step, 1) if integer else step
    first = math.floor(lo / step) * step
    return [first + i * step for i in range(math.ceil((hi - first) / step - 1e-9) + 1)]


def _frame(
    title: str, w: int, yticks: list[float], fmt: Callable[[float], str], x_label: str
) -> tuple[list[str], Callable[[float], float]]:
    """The opening of an SVG chart: its title, grid lines with the y labels, the x axis label."""
    lo, hi, top, bottom = yticks[0], yticks[-1], TOP + 14, HEIGHT - BOTTOM

    def y(v: float) -> float:
        return bottom - (bottom - top) * (v - lo) / (hi - lo)

    parts = [
        f'<svg class="chart" viewBox="0 0 {w} {HEIGHT}" role="img"><title>{_e(title)}</title>'
        f'<text class="title" x="{LEFT}" y="{TOP}">{_e(title)}</text>'
        f'<text x="{LEFT + (w - LEFT - RIGHT) / 2:.0f}" y="{HEIGHT - 4}" text-anchor="middle">'
        f"{_e(x_label)}</text>"
    ]
    for v in yticks:
        parts.append(
            f'<line x1="{LEFT}" x2="{w - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eceef1"'
            f'/><text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{fmt(v)}</text>'
        )
    return parts, y


def _line_chart(
    title: str,
    series: list[Series],
    *,
    wide: bool = False,
    x_label: str = "roll in this report",
    y_range: tuple[float, float] | None = None,
    marks: list[tuple[int, str]] | None = None,
) -> str:
    """An SVG line chart over x = 1..n (None leaves a point out), with labelled vertical marks
    before the given x (a new session) and a legend. Without a fixed range, 0 is always shown."""
    w, n = WIDE if wide else NARROW, max(len(values) for _, values, _, _ in series)
    every = [v for _, values, _, _ in series for v in values if v is not None] or [0]
    integer = all(float(v).is_integer() for v in every)
    lo, hi = y_range or (min(0, *every), max(0, *every))
    yticks = _ticks(lo, max(hi, lo + 1), integer)
    signed = y_range is None and not integer
    parts, y = _frame(
        title, w, yticks, (lambda v: _signed(v, 1)) if signed else "{:g}".format, x_label
    )
    plot_w = w - LEFT - RIGHT - 24

    def x(i: float) -> float:
        return LEFT + 12 + (plot_w * (i - 1) / (n - 1) if n > 1 else plot_w / 2)

    if yticks[0] < 0:
        parts.append(
            f'<line x1="{LEFT}" x2="{w - RIGHT}" y1="{y(0):.1f}" y2="{y(0):.1f}" '
            'stroke="#9ca3af" stroke-width="1.5"/>'
        )
    for i, label in marks or []:
        parts.append(
            f'<line x1="{x(i - 0.5):.1f}" x2="{x(i - 0.5):.1f}" y1="{TOP + 14}" '
            f'y2="{HEIGHT - BOTTOM}" stroke="#9ca3af" stroke-dasharray="3 3"/>'
            f'<text x="{x(i - 0.5) + 4:.1f}" y="{TOP + 26}" font-size="11">{_e(label)}</text>'
        )
    for i in _ticks(1, n, integer=True, count=min(n, 12)) if n > 1 else [1]:
        if 1 <= i <= n:
            parts.append(
                f'<text x="{x(i):.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{i:g}</text>'
            )
    legend = []
    for name, values, colour, dashed in series:
        dots = [(x(i), y(v)) for i, v in enumerate(values, start=1) if v is not None]
        dash = ' stroke-dasharray="7 5"' if dashed else ""
        parts.append(
            f'<polyline points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in dots)}" fill="none" '
            f'stroke="{colour}" stroke-width="2.5" stroke-linejoin="round"{dash}>'
            f"<title>{_e(name)}</title></polyline>"
        )
        if n <= 60:  # dots help read a short evening; on a long campaign they only clutter
            parts += [
                f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3.5" fill="{colour}"/>' for a, b in dots
            ]
        style = "dashed" if dashed else "solid"
        legend.append(f'<li><span style="border-top:3px {style} {colour}"></span>{_e(name)}</li>')
    parts.append("</svg>")
    return "".join(parts) + f'<ul class="legend">{"".join(legend)}</ul>'


def _bar_chart(title: str, counts: list[int], expected: float, *, wide: bool = False) -> str:
    """An SVG bar chart of how often each face came up, with fair dice's count as a dashed line."""
    w = WIDE if wide else NARROW
    yticks = _ticks(0, max(*counts, expected, 1), integer=True)
    parts, y = _frame(title, w, yticks, "{:g}".format, "face")
    slot = (w - LEFT - RIGHT) / len(counts)
    for face, count in enumerate(counts, start=1):
        left = LEFT + slot * (face - 1)
        parts.append(
            f'<rect x="{left + slot * 0.15:.1f}" y="{y(count):.1f}" width="{slot * 0.7:.1f}" '
            f'height="{y(0) - y(count):.1f}" fill="#93c5fd" stroke="#3b82f6" rx="2">'
            f"<title>{face}: {count} (fair dice: {expected:.2f})</title></rect>"
            f'<text x="{left + slot / 2:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">'
            f"{face}</text>"
        )
    parts.append(
        f'<line x1="{LEFT}" x2="{w - RIGHT}" y1="{y(expected):.1f}" y2="{y(expected):.1f}" '
        f'stroke="#d97706" stroke-width="2" stroke-dasharray="7 5"/>'
        f'<text x="{w - RIGHT}" y="{y(expected) - 6:.1f}" text-anchor="end" class="fair">'
        f"fair: {expected:.2f} each</text></svg>"
    )
    return "".join(parts)
