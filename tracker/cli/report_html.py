"""The roll-history report as one self-contained HTML page: luck against the exact odds, the die
faces against fair dice, luck and the tracks over time as inline SVG charts, and every roll.

The page fetches nothing (no scripts, fonts, images or links), so it opens anywhere, offline, and
can be mailed to players. Every string from the log is escaped before it reaches the page.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape
from typing import Any

SYSTEMS = {"gloom": "Gloom", "gurps": "GURPS", "glintlock": "Glintlock"}
# Outcomes that succeed with a cost; the rest are success or failure by the row's `success`.
MIXED = frozenset({"weak_hit", "complication"})
PALETTE = ("#2563eb", "#d97706", "#059669", "#c026d3", "#dc2626", "#0891b2", "#65a30d", "#7c3aed")
THREAT_COLOUR = "#374151"
NARROW, WIDE, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 640, 1080, 270, 46, 14, 14, 38

STYLE = """
:root { color-scheme: light; --ink: #1f2937; --soft: #6b7280; --line: #e5e7eb; --bg: #f8fafc;
  --good: #15803d; --good-bg: #dcfce7; --bad: #b91c1c; --bad-bg: #fee2e2; --mixed: #a16207;
  --mixed-bg: #fef3c7; --accent: #2563eb; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); line-height: 1.45;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 24px 48px; }
h1 { font-size: 1.9rem; margin: 0 0 4px; }
h2 { font-size: 1.2rem; margin: 0 0 12px; }
header p, .note { color: var(--soft); margin: 4px 0; }
section { background: #fff; border: 1px solid var(--line); border-radius: 10px;
  padding: 18px 20px; margin-top: 20px; }
.pill { display: inline-block; padding: 1px 9px; border-radius: 999px; background: #e0e7ff;
  color: #3730a3; font-size: .85rem; margin-right: 6px; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .9em; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line);
  vertical-align: top; }
th { color: var(--soft); font-weight: 600; font-size: .8rem; text-transform: uppercase;
  letter-spacing: .03em; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.luck-up { color: var(--good); font-weight: 600; }
.luck-down { color: var(--bad); font-weight: 600; }
.meter { position: relative; height: 10px; background: var(--line); border-radius: 5px;
  min-width: 140px; margin-top: 6px; }
.meter .fill { position: absolute; inset: 0 auto 0 0; background: var(--accent);
  border-radius: 5px; }
.meter .mark { position: absolute; top: -4px; width: 3px; height: 18px; background: var(--ink); }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 20px; }
figure { margin: 0; }
figcaption { font-size: .9rem; color: var(--soft); margin-top: 4px; }
figcaption strong { color: var(--ink); }
svg.chart { width: 100%; height: auto; display: block; font-size: 12px; }
svg.chart text { fill: var(--soft); }
svg.chart .title { fill: var(--ink); font-weight: 600; font-size: 13px; }
.legend { list-style: none; padding: 0; margin: 6px 0 0; display: flex; flex-wrap: wrap;
  gap: 4px 16px; font-size: .88rem; }
.legend span { display: inline-block; width: 22px; margin-right: 6px; vertical-align: middle; }
.outcome { display: inline-block; padding: 0 8px; border-radius: 4px; font-weight: 600;
  white-space: nowrap; }
.good { background: var(--good-bg); color: var(--good); }
.bad { background: var(--bad-bg); color: var(--bad); }
.mixed { background: var(--mixed-bg); color: var(--mixed); }
.badge { display: inline-block; font-size: .72rem; padding: 0 6px; border-radius: 4px;
  margin-left: 4px; text-transform: uppercase; letter-spacing: .04em; }
.badge.secret { background: #ede9fe; color: #5b21b6; }
.badge.revoked { background: #e5e7eb; color: #374151; }
tr.revoked td { color: #9ca3af; text-decoration: line-through; }
tr.secret-hidden td.hidden { color: #5b21b6; font-style: italic; }
.small { font-size: .8rem; color: var(--soft); }
.scroll { overflow-x: auto; }
footer { margin-top: 24px; font-size: .8rem; color: var(--soft); word-break: break-all; }
@media print { body { background: #fff; } section { break-inside: avoid; } }
"""


def render(report: dict[str, Any]) -> str:
    """One complete HTML document for a roll report from ``Tracker.roll_report``.

    Shows each character's successes against what the exact odds predicted for those very rolls,
    the die faces against fair dice (chi-square), luck and the tracks over time, and every roll
    (revoked rolls struck through, secret rolls marked, and in the player view without details).
    Design: DESIGN.md "Scripting contract" (`tracker export rolls --format html`), "Secret rolls".
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
        parts.append('<section id="empty"><h2>No rolls</h2><p>No rolls match these filters.</p>')
        parts.append("</section>")
    head = report.get("log_head") or ""
    parts.append(
        f"<footer>Log head (SHA-256 of the last event, version {_e(report.get('log_version'))}): "
        f"<code>{_e(head)}</code>. While the log still ends with this hash, nothing in it has "
        "changed since this report was made.</footer>"
    )
    title = f"{report.get('campaign', '')} · roll history"
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(parts)
        + "\n</main>\n</body>\n</html>\n"
    )


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _colours(report: dict[str, Any]) -> dict[str, str]:
    """One colour per character, the same in every chart."""
    names = [c["character"] for c in report.get("luck", {}).get("characters", [])]
    names += [n for n in (*report.get("trails", {}), *report.get("tracks", {})) if n not in names]
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(dict.fromkeys(names))}


def _time(iso: str | None) -> str:
    return f"{iso[:10]} {iso[11:16]} UTC" if iso and len(iso) >= 16 else _e(iso)


def _signed(value: float, digits: int = 2) -> str:
    text = f"{value:+.{digits}f}"
    return text.replace("-", "−") if text.strip("+-0.") else f"{0:.{digits}f}"


def _header(report: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    flt = report.get("filters") or {}
    shown = []
    if flt.get("session") is not None:
        shown.append(f"session {_e(flt['session'])}")
    if flt.get("character"):
        shown.append(f"character {_e(flt['character'])}")
    if flt.get("since"):
        shown.append(f"since {_e(_time(flt['since']))}")
    if flt.get("until"):
        shown.append(f"until {_e(_time(flt['until']))}")
    view = (
        "Player view: secret rolls show only that they happened." if flt.get("player_view") else ""
    )
    revoked = sum(1 for r in rows if r.get("revoked"))
    secret = sum(1 for r in rows if r.get("secret"))
    counts = [f"{len(rows)} roll{'' if len(rows) == 1 else 's'}"]
    counts += [f"{revoked} revoked"] if revoked else []
    counts += [f"{secret} secret"] if secret else []
    head = report.get("log_head") or ""
    short = f"{head[:12]}…{head[-4:]}" if len(head) > 16 else head
    system = SYSTEMS.get(report.get("system", ""), report.get("system", ""))
    return (
        f"<header><h1>{_e(report.get('campaign'))}</h1>"
        f'<p><span class="pill">{_e(system)}</span>Roll history · {", ".join(counts)} · '
        f"{'; '.join(shown) if shown else 'all sessions, all characters'}</p>"
        + (f'<p class="note">{view}</p>' if view else "")
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
        luck = c["luck"]
        if abs(luck) < 0.005:
            words, cls = "right at the odds", ""
        else:
            side = "above" if luck > 0 else "below"
            words, cls = (
                f"{_signed(luck)} successes {side} the odds",
                ("luck-up" if luck > 0 else "luck-down"),
            )
        rate, expected_rate = c.get("rate") or 0.0, c.get("expected_rate") or 0.0
        sessions = c.get("by_session") or {}
        per_session = "; ".join(
            f"session {_e(s)}: {_signed(v['luck'])} in {v['rolls']}" for s, v in sessions.items()
        )
        swatch = f'<span style="color:{colours.get(c["character"], "#000")}">●</span> '
        body.append(
            f"<tr><td>{swatch}<strong>{_e(c['character'])}</strong></td>"
            f'<td class="num">{c["rolls"]}</td><td class="num">{c["successes"]}</td>'
            f'<td class="num">{c["expected"]:.2f}</td>'
            f'<td>{rate:.0%} <span class="small">vs {expected_rate:.0%} expected</span>'
            f'<div class="meter" title="rate {rate:.0%}, odds {expected_rate:.0%}">'
            f'<div class="fill" style="width:{rate:.1%}"></div>'
            f'<div class="mark" style="left:calc({expected_rate:.1%} - 1px)"></div></div></td>'
            f'<td><span class="{cls}">{_e(c["character"])} {words}</span>'
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
    tests = [t for t in report.get("luck", {}).get("faces", []) if t.get("dice")]
    figures = []
    for t in tests:
        p = t.get("p_value")
        verdict = "too few dice to test"
        if p is not None:
            looks = "unlikely from fair dice" if p < 0.05 else "consistent with fair dice"
            verdict = ("p < 0.001" if p < 0.001 else f"p = {p:.3f}") + f": {looks}"
        title = f"d{t['faces']} faces against fair dice"
        chart = _bar_chart(title, t["counts"], t["expected_each"], wide=len(tests) == 1)
        figures.append(
            f"<figure>{chart}<figcaption><strong>{t['dice']} d{t['faces']}</strong> rolled; fair "
            f"dice give {t['expected_each']:.2f} of each face. χ² = {t['chi_square']:.2f} with "
            f"{t['faces'] - 1} degrees of freedom; {verdict}.</figcaption></figure>"
        )
    inner = f'<div class="grid">{"".join(figures)}</div>' if figures else "<p>No dice to count.</p>"
    return (
        '<section id="faces"><h2>Die faces</h2><p class="note">How often each face came up; the '
        f"dashed line is what fair dice would give.</p>{inner}</section>"
    )


def _trails_section(report: dict[str, Any], colours: dict[str, str]) -> str:
    series = [(n, t, colours[n], False) for n, t in (report.get("trails") or {}).items() if t]
    if not series:
        return ""
    chart = _line_chart(
        "Luck over the rolls", series, wide=True, x_label="the character's roll", zero_line=True
    )
    return (
        '<section id="trails"><h2>Luck over time</h2><p class="note">Successes above (below) '
        "the odds after each of the character's rolls; 0 is exactly the odds.</p>"
        f"<figure>{chart}</figure></section>"
    )


def _tracks_section(report: dict[str, Any], colours: dict[str, str]) -> str:
    flt = (report.get("filters") or {}).get("character")
    tracks = {
        n: list({p["version"]: p for p in points}.values())  # a contest's sides share a version
        for n, points in (report.get("tracks") or {}).items()
        if points and not (flt and n.casefold() != flt.casefold())
    }
    threat = list({p["version"]: p for p in report.get("threat") or []}.values())
    points = [p for ps in tracks.values() for p in ps]
    specs: list[tuple[str, list[Any], tuple[float, float] | None]] = []
    if threat or any("mettle" in p for p in points):
        series = [
            (f"{n} Mettle", [p.get("mettle", 0) for p in ps], colours[n], False)
            for n, ps in tracks.items()
        ]
        if threat:
            series.append(("Threat", [p["threat"] for p in threat], THREAT_COLOUR, True))
        specs.append(("Mettle and Threat", series, (0, 6)))
    if any("hp" in p or "fp" in p for p in points):
        series = [
            (f"{n} {key.upper()}", [p.get(key, 0) for p in ps], colours[n], key == "fp")
            for n, ps in tracks.items()
            for key in ("hp", "fp")
            if any(key in p for p in ps)
        ]
        specs.append(("HP (solid) and FP (dashed)", series, None))
    stresses = [p.get("stress", 0) for p in points]
    if points and (report.get("system") != "gurps" or any(stresses)):
        series = [
            (n, [p.get("stress", 0) for p in ps], colours[n], False) for n, ps in tracks.items()
        ]
        specs.append(("Stress", series, (0, max(6, *stresses))))
    if not specs:
        return ""
    figures = "".join(
        f"<figure>{_line_chart(t, s, wide=len(specs) == 1, y_range=r)}</figure>"
        for t, s, r in specs
    )
    return (
        '<section id="tracks"><h2>Tracks over time</h2><p class="note">Each track after every '
        f'roll in this report, in order.</p><div class="grid">{figures}</div></section>'
    )


def _rows_section(report: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    body = []
    for r in rows:
        hidden = r.get("secret") and r.get("outcome") is None
        badges = '<span class="badge secret">secret</span>' if r.get("secret") else ""
        badges += '<span class="badge revoked">revoked</span>' if r.get("revoked") else ""
        roll = _e(r.get("trait")) + (
            f' <span class="small">{_e(r["kind"])}</span>' if r.get("kind") != "check" else ""
        )
        frame = (
            f'<td class="num">{_e(r.get("version"))}</td><td title="{_e(r.get("time"))}">'
            f'{_e(_time(r.get("time")))}</td><td class="num">{_e(r.get("session"))}</td>'
            f"<td>{_e(r.get('character'))}</td><td>{roll}</td>"
        )
        classes = "revoked" if r.get("revoked") else ""
        if hidden:
            body.append(
                f'<tr class="secret-hidden {classes}">{frame}<td class="hidden" colspan="7">'
                f"secret roll{badges}</td></tr>"
            )
            continue
        score = _e(r.get("base"))
        if r.get("modifiers"):
            score += f' <span class="small">{_e(r["modifiers"])}</span>'
        if r.get("effective") is not None and r.get("effective") != r.get("base"):
            score += f" → {_e(r['effective'])}"
        outcome = r.get("outcome") or ""
        tone = "mixed" if outcome in MIXED else ("good" if r.get("success") else "bad")
        detail = r.get("position") or ("" if r.get("margin") is None else f"{r['margin']:+d}")
        chance = "" if r.get("p_success") is None else f"{r['p_success']:.0%}"
        body.append(
            f'<tr class="{classes}">{frame}<td>{score}</td>'
            f"<td>{_e(', '.join(str(d) for d in r.get('dice') or []))}</td>"
            f'<td class="num">{_e(r.get("kept"))}</td>'
            f'<td><span class="outcome {tone}">{_e(outcome.replace("_", " "))}</span>{badges}</td>'
            f'<td>{_e(detail)}</td><td class="num">{chance}</td>'
            f"<td>{_e(r.get('effects'))}</td></tr>"
        )
    return (
        '<section id="rolls"><h2>Every roll</h2><div class="scroll"><table class="rolls"><thead>'
        '<tr><th class="num">#</th><th>Time</th><th class="num">Session</th><th>Character</th>'
        '<th>Roll</th><th>Score</th><th>Dice</th><th class="num">Kept</th><th>Outcome</th>'
        '<th>Margin / position</th><th class="num">Chance</th><th>Effects</th></tr></thead>'
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
    """The opening of an SVG chart: title, grid lines with the y labels, the x axis label."""
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
    series: list[tuple[str, list[float], str, bool]],
    *,
    wide: bool = False,
    x_label: str = "roll",
    zero_line: bool = False,
    y_range: tuple[float, float] | None = None,
) -> str:
    """An SVG line chart of (name, values, colour, dashed) series over 1..n, and its legend."""
    w, n = WIDE if wide else NARROW, max(len(values) for _, values, _, _ in series)
    every = [v for _, values, _, _ in series for v in values]
    integer = all(float(v).is_integer() for v in every)
    lo, hi = y_range or (min(0, *every) if zero_line or integer else min(every), max(every))
    yticks = _ticks(lo, max(hi, lo + 1, 0 if zero_line else hi), integer)
    fmt = (lambda v: _signed(v, 1)) if zero_line else (lambda v: f"{v:g}")
    parts, y = _frame(title, w, yticks, fmt, x_label)
    plot_w = w - LEFT - RIGHT - 24

    def x(i: int) -> float:
        return LEFT + 12 + (plot_w * (i - 1) / (n - 1) if n > 1 else plot_w / 2)

    if zero_line:
        parts.append(
            f'<line x1="{LEFT}" x2="{w - RIGHT}" y1="{y(0):.1f}" y2="{y(0):.1f}" '
            'stroke="#9ca3af" stroke-width="1.5"/>'
        )
    for i in _ticks(1, n, integer=True, count=min(n, 12)) if n > 1 else [1]:
        if 1 <= i <= n:
            parts.append(
                f'<text x="{x(int(i)):.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">'
                f"{i:g}</text>"
            )
    legend = []
    for name, values, colour, dashed in series:
        dash = ' stroke-dasharray="7 5"' if dashed else ""
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values, start=1))
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2.5"'
            f' stroke-linejoin="round"{dash}><title>{_e(name)}</title></polyline>'
        )
        if n <= 60:
            parts += [
                f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3.5" fill="{colour}"/>'
                for i, v in enumerate(values, start=1)
            ]
        style = "dashed" if dashed else "solid"
        legend.append(f'<li><span style="border-top:3px {style} {colour}"></span>{_e(name)}</li>')
    parts.append("</svg>")
    return "".join(parts) + f'<ul class="legend">{"".join(legend)}</ul>'


def _bar_chart(title: str, counts: list[int], expected: float, *, wide: bool = False) -> str:
    """An SVG bar chart of how often each face came up, with fair dice's count as a dashed line."""
    w = WIDE if wide else NARROW
    yticks = _ticks(0, max(*counts, expected, 1), integer=True)
    parts, y = _frame(title, w, yticks, lambda v: f"{v:g}", "face")
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
        f'<text x="{w - RIGHT}" y="{y(expected) - 6:.1f}" text-anchor="end" fill="#b45309">'
        f"fair: {expected:.2f} each</text></svg>"
    )
    return "".join(parts)
