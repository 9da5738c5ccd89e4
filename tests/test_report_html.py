"""The HTML roll report: built from logs made through the CLI, checked as text and in a browser.

Expected luck numbers are worked out by hand from the rulebooks' windows (Gloom: the faces DL..rank
of a d20; Glintlock: d20 at or above the Weak DC 20 - 2s), never taken from the code under test.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
from html import unescape
from pathlib import Path

import pytest

from tracker.app import Tracker
from tracker.app.export import RollFilter
from tracker.cli.report_html import render

SVG_NAMESPACE = "http://www.w3.org/2000/svg"
CHROMIUM = "/usr/bin/chromium"
NASTY_CAMPAIGN = "<script>alert(1)</script> & \"Co\" 'op'"
NASTY_NAME = 'Zoë "Nightjar" O\'Brien'
NASTY_TAG = "<em>the map</em> & more"


def report(run, *, player_view: bool = False, **filters) -> dict:
    return Tracker(str(run.db)).exports.roll_report(RollFilter(**filters), player_view=player_view)


def html_of(run, **kwargs) -> str:
    return render(report(run, **kwargs))


def charts(html: str) -> list[str]:
    return re.findall(r'<svg class="chart"[^>]*><title>([^<]+)</title>', html)


def section(html: str, name: str) -> str:
    found = re.search(rf'<section id="{name}">(.*?)</section>', html, re.S)
    return found.group(1) if found else ""


def table_rows(html: str) -> list[str]:
    return re.findall(r"<tr[^>]*>.*?</tr>", section(html, "rolls"), re.S)[1:]  # past the header


def last_hash(run) -> str:
    with sqlite3.connect(run.db) as conn:
        return conn.execute("SELECT hash FROM events ORDER BY position DESC LIMIT 1").fetchone()[0]


@pytest.fixture
def gloom(run):
    """Kade rolls twice at rank 14 DL 5 (a success and a failure), Juno succeeds once at rank 14
    DL 5, Mira fails once at rank 10 DL 0."""
    run.ok("campaign new Neon --system gloom")
    run.ok("character add Kade --skill Hacking=14")
    run.ok("character add Juno --skill Hacking=14")
    run.ok("character add Mira --skill Hacking=10")
    run.ok("session start")
    run.ok("roll Kade Hacking --dl 5 --dice 9")  # inside 5..14: success
    run.ok("roll Kade Hacking --dl 5 --dice 17")  # above the rank: overshoot
    run.ok("roll Juno Hacking --dl 5 --dice 12")
    run.ok("roll Mira Hacking --dice 15")
    return run


@pytest.fixture
def glintlock_played(glintlock):
    """Wren (Grit 3) and Tomas (Wits 4) each make one risky roll; then a secret desperate roll
    and a roll that is undone."""
    run = glintlock
    run.ok("session start")
    run.ok("roll Wren Grit --tag 1:gear --dice 15")  # Weak DC 14: weak hit
    run.ok("roll Tomas Wits --tag 1:gear --dice 5")  # Weak DC 12: miss
    run.ok("roll Wren Grit --tag -1:weakness --secret --dice 13,7")  # desperate, keeps 7: miss
    run.ok("roll Tomas Wits --tag 1:gear --dice 20")
    run.ok("undo")
    return run


# -- what the report says ------------------------------------------------------------------------


def test_gloom_luck_is_successes_against_the_windows_odds(gloom):
    html = html_of(gloom)
    luck = section(html, "luck")
    # Rank 14, DL 5: faces 5..14 succeed, 10 of 20, so each roll expects 0.5 successes.
    assert "Kade right at the odds" in luck  # 1 success against 0.5 + 0.5 = 1.0
    assert re.search(r"Kade</strong></td><td[^>]*>2</td><td[^>]*>1</td><td[^>]*>1\.00<", luck)
    assert "Juno +0.50 successes above the odds" in luck  # 1 against 0.5
    # Rank 10, DL 0: faces 2..10 succeed, 9 of 20.
    assert "Mira −0.45 successes below the odds" in luck
    assert "50% <span" in luck
    assert "0% <span" in luck
    assert "45% expected" in luck


def figures(html: str) -> dict[str, str]:
    """Each chart of the die faces by its title, with its caption."""
    found = re.findall(r"<figure>(.*?)</figure>", section(html, "faces"), re.S)
    return {re.search(r"<title>([^<]+)</title>", f).group(1): f for f in found}


def test_gloom_faces_carry_chi_square_and_say_when_too_few(gloom):
    faces = figures(html_of(gloom))
    table = faces["d20 faces at the table"]
    # Four d20s (9, 17, 12, 15): 0.2 expected per face; four faces at 1, sixteen at 0.
    chi = 4 * (1 - 0.2) ** 2 / 0.2 + 16 * 0.2**2 / 0.2
    assert f"χ² = {chi:.2f} with 19 degrees of freedom" in table
    assert "too few dice to test" in table
    assert "<strong>4 d20</strong>" in table
    assert re.findall(r"<rect [^>]*><title>(\d+): 1 ", table) == ["9", "12", "15", "17"]
    # Per person, in the order they first rolled: Kade's two dice, Juno's and Mira's one.
    assert list(faces)[1:] == ["d20 faces: Kade", "d20 faces: Juno", "d20 faces: Mira"]
    assert re.findall(r"<rect [^>]*><title>(\d+): 1 ", faces["d20 faces: Kade"]) == ["9", "17"]
    assert "Every die of these rolls was rolled at the table." in section(html_of(gloom), "faces")


@pytest.fixture
def mixed_dice(run):
    """GURPS rolls with dice from the table (--dice) and from tracker (--seed): Mira's table dice
    show only 6s, Bram's each face equally often; then a contest where the GM's opponent rolls
    at the table too."""
    run.ok("campaign new Iron --system gurps")
    run.ok("character add Mira --skill Lockpicking=12")
    run.ok("character add Bram --skill Climbing=11")
    run.ok("session start")
    for i in range(10):
        run.ok("roll Mira Lockpicking --dice 6,6,6")
        run.ok(f"roll Bram Climbing --dice {'1,2,3' if i % 2 else '4,5,6'}")
        run.ok(f"roll Mira Lockpicking --seed {i}")
    run.ok("contest Mira Lockpicking Guard 12 --dice-a 1,2,3 --dice-b 4,5,6")
    return run


def test_the_tables_dice_are_tested_apart_from_tracker_s(mixed_dice):
    doc = report(mixed_dice)["luck"]
    # At the table: Mira's 30 sixes and 1, 2, 3; Bram's 30 dice, 5 of each face; the Guard's
    # 4, 5, 6. Tracker: three seeded dice in each of ten rolls.
    assert [(t["origin"], t["dice"]) for t in doc["faces"]] == [("physical", 66), ("software", 30)]
    assert doc["faces"][0]["counts"] == [6, 6, 6, 6, 6, 36]
    people = {p["person"]: p for p in doc["faces_by_person"]}
    assert list(people) == ["Mira", "Bram", None]
    assert people["Mira"]["counts"] == [1, 1, 1, 0, 0, 30]
    assert people["Bram"]["counts"] == [5] * 6
    assert people[None]["counts"] == [0, 0, 0, 1, 1, 1]

    html = html_of(mixed_dice)
    faces = figures(html)
    assert list(faces) == [
        "d6 faces at the table",
        "d6 faces: Mira",
        "d6 faces: Bram",
        "d6 faces: the GM, for opponents",
        "d6 faces tracker rolled",
    ]
    assert "<strong>66 d6</strong>" in faces["d6 faces at the table"]
    assert "p < 0.001: unlikely from fair dice" in faces["d6 faces at the table"]
    assert "p < 0.001: unlikely from fair dice" in faces["d6 faces: Mira"]
    assert "χ² = 0.00" in faces["d6 faces: Bram"]
    assert "p = 1.000: consistent with fair dice" in faces["d6 faces: Bram"]
    assert "too few dice to test" in faces["d6 faces: the GM, for opponents"]
    software = faces["d6 faces tracker rolled"]
    assert "<strong>30 d6</strong>" in software
    assert "fair generator" in software
    assert "fair dice." not in software
    assert "96 d6" not in html  # the two kinds of dice are never added up


def test_the_one_pass_rebuild_counts_the_faces_as_the_report_does(mixed_dice):
    from tracker.projections.rolls import luck, roll_rows, row_sources

    tracker = Tracker(str(mixed_dice.db))
    state, tallied = tracker.rebuild_all()
    rows = roll_rows(tracker.store.read(state.campaign_id, types=row_sources()), state.rules)
    assert tallied.to_dict() == luck(rows, state.rules).to_dict()
    assert tallied.to_dict()["faces_by_person"][0]["person"] == "Mira"
    tracker.close()


def test_player_view_counts_no_die_of_a_secret_roll(glintlock_played):
    def people(doc: dict) -> list[tuple[str | None, int]]:
        return [(p["person"], p["dice"]) for p in doc["luck"]["faces_by_person"]]

    # Wren's secret desperate roll (13, 7) is two of her three dice; Tomas's last roll is undone.
    assert people(report(glintlock_played)) == [("Wren", 3), ("Tomas", 1)]
    assert people(report(glintlock_played, player_view=True)) == [("Wren", 1), ("Tomas", 1)]


def test_gloom_draws_faces_luck_and_stress(gloom):
    assert charts(html_of(gloom)) == [
        "d20 faces at the table",
        "d20 faces: Kade",
        "d20 faces: Juno",
        "d20 faces: Mira",
        "Luck over the rolls",
        "Stress",
    ]


def test_glintlock_draws_mettle_and_threat(glintlock_played):
    assert charts(html_of(glintlock_played)) == [
        "d20 faces at the table",
        "d20 faces: Wren",
        "d20 faces: Tomas",
        "Luck over the rolls",
        "Mettle and Threat",
        "Stress",
    ]


def test_gurps_report_shows_hp_fp_margins_and_labelled_modifiers(run):
    run.ok("campaign new Iron --system gurps")
    run.ok("character add Mira --stat HT=11 --stat HP=10 --stat FP=11 --skill Lockpicking=12")
    run.ok("session start")
    run.ok("roll Mira Lockpicking --mod '-2:<dark> & cold' --dice 3,4,1")  # 8 against 10
    html = html_of(run)
    assert charts(html) == [
        "d6 faces at the table",
        "Luck over the rolls",
        "HP (solid) and FP (dashed)",
    ]
    (row,) = table_rows(html)
    assert "-2 &lt;dark&gt; &amp; cold" in row
    assert "12 → 10" in row
    assert "+2" in row  # margin: 10 - 8
    # 3d6 at or under 10: 108 of 216 ways.
    assert "Mira +0.50 successes above the odds" in section(html, "luck")


def test_glintlock_luck_uses_the_weak_dc_odds(glintlock_played):
    html = html_of(glintlock_played)
    luck = section(html, "luck")
    # Wren: Grit 3, risky; Weak DC 14 and the secret desperate roll (two d20 keep lower, 7 of 20
    # faces reach 14 on each): successes 1, expected 0.35 + 0.1225.
    assert f"Wren {1 - 0.35 - 0.35**2:+.2f} successes above the odds" in luck
    # Tomas: Wits 4, risky; Weak DC 12, 9 of 20 faces. The undone roll does not count.
    assert "Tomas −0.45 successes below the odds" in luck


def test_the_head_hash_names_the_log(glintlock_played):
    html = html_of(glintlock_played)
    head = last_hash(glintlock_played)
    assert f'<code title="{head}">{head[:12]}…{head[-4:]}</code>' in html
    assert f"<code>{head}</code>" in html


def test_revoked_rolls_are_struck_through_and_marked(glintlock_played):
    rows = table_rows(html_of(glintlock_played))
    assert len(rows) == 4
    revoked = [r for r in rows if r.startswith('<tr class="revoked">')]
    assert len(revoked) == 1
    assert '<span class="badge revoked">revoked</span>' in revoked[0]
    assert "<td>20</td>" in revoked[0]


def test_secret_rolls_show_to_the_gm_with_a_marker(glintlock_played):
    html = html_of(glintlock_played)
    (secret,) = [r for r in table_rows(html) if "badge secret" in r]
    assert "13, 7" in secret
    assert ">miss<" in secret


def test_player_view_shows_that_a_secret_roll_happened_and_nothing_else(glintlock_played):
    html = html_of(glintlock_played, player_view=True)
    (secret,) = [r for r in table_rows(html) if "badge secret" in r]
    assert "secret event" in secret
    assert "Wren" in secret
    assert "13, 7" not in html
    assert ">miss<" not in secret
    assert "12%" not in html  # its chance, (7/20)**2
    assert "Player view" in html.split("<section")[0]
    # Without the secret roll Wren has one roll: 1 success against 0.35.
    assert "Wren +0.65 successes above the odds" in section(html, "luck")


def test_filters_show_in_the_header_and_narrow_the_tracks(glintlock_played):
    html = html_of(glintlock_played, session=1, character="Wren")
    header = html.split("<section")[0]
    assert "session 1; character Wren" in header
    assert "Wren Mettle" in html
    assert "Tomas Mettle" not in html


def test_user_strings_are_escaped(run):
    run.ok(["campaign", "new", NASTY_CAMPAIGN, "--system", "glintlock"])
    run.ok(["character", "add", NASTY_NAME, "--stat", "Grit=3"])
    run.ok(["character", "add", "<b>龍 & Åsa</b>", "--stat", "Grit=2"])
    run.ok("session start")
    run.ok(["tag", "add", NASTY_NAME, NASTY_TAG])
    run.ok(["roll", NASTY_NAME, "Grit", "--story", NASTY_TAG, "--dice", "16"])
    run.ok(["roll", "<b>龍 & Åsa</b>", "Grit", "--tag", "1:gear", "--dice", "4"])
    html = html_of(run)
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot; &#x27;op&#x27;" in html
    assert "Zoë &quot;Nightjar&quot; O&#x27;Brien" in html
    assert "&lt;b&gt;龍 &amp; Åsa&lt;/b&gt;" in html
    assert "&lt;em&gt;the map&lt;/em&gt; &amp; more" in html
    for raw in ("<b>", "<em>", 'Nightjar"', "O'Brien"):
        assert raw not in html, raw


def test_the_page_fetches_nothing(glintlock_played):
    html = html_of(glintlock_played)
    assert "http://" not in html.replace(SVG_NAMESPACE, "")
    assert "https://" not in html
    for needle in ("<script", "<link", "<img", "<iframe", " src=", " href=", "url(", "@import"):
        assert needle not in html.lower(), needle
    assert html.startswith("<!DOCTYPE html>")
    assert html.rstrip().endswith("</html>")


def test_export_rolls_writes_the_report(glintlock_played, tmp_path):
    out = tmp_path / "rolls.html"
    glintlock_played.ok(["export", "rolls", "--format", "html", "--player-view", "-o", str(out)])
    html = out.read_text(encoding="utf-8")
    assert len(charts(html)) == 6
    assert "secret roll" in html
    assert last_hash(glintlock_played) in html


def test_no_rolls_says_so_without_charts(run):
    run.ok("campaign new Quiet --system gloom")
    run.ok("character add Kade --skill Hacking=14")
    html = html_of(run)
    assert "No rolls match these filters." in html
    assert "<svg" not in html
    assert "0 rolls" in html


def test_player_view_of_only_secret_rolls_draws_no_charts(run):
    run.ok("campaign new Hush --system gloom")
    run.ok("character add Kade --skill Hacking=14")
    run.ok("session start")
    run.ok("roll Kade Hacking --secret --dice 9")
    html = html_of(run, player_view=True)
    assert "No rolls to weigh." in html
    assert "No dice to count." in html
    assert charts(html) == []
    assert ">9<" not in html


# -- in a real browser -----------------------------------------------------------------------------


def chromium_or_skip() -> str:
    if Path(CHROMIUM).exists():
        return CHROMIUM
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing; the CI image must install Debian's chromium.")
    pytest.skip(
        f"{CHROMIUM} is not installed (apt-get install chromium); the browser check is off."
    )


def chromium(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            # Every host name fails to resolve: a page that needed the network would break.
            "--host-resolver-rules=MAP * ~NOTFOUND",
            f"--user-data-dir={profile}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.slow
def test_a_browser_renders_the_report_offline(glintlock_played, tmp_path):
    browser = chromium_or_skip()
    page = tmp_path / "report.html"
    page.write_text(html_of(glintlock_played), encoding="utf-8")
    dumped = chromium(browser, tmp_path / "profile", "--dump-dom", page.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    dom = dumped.stdout
    assert len(re.findall(r'<svg class="chart"', dom)) == 6
    assert '<table class="rolls">' in dom
    assert f"Wren {1 - 0.35 - 0.35**2:+.2f} successes above the odds" in dom
    assert "Tomas −0.45 successes below the odds" in dom
    shot = tmp_path / "shot.png"
    taken = chromium(
        browser,
        tmp_path / "profile2",
        f"--screenshot={shot}",
        "--window-size=1200,2000",
        page.as_uri(),
    )
    assert taken.returncode == 0, taken.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 30_000  # a blank 1200x2000 page compresses to a few KB


# Written into a copy of the page under test only (the report itself runs no script): once the
# page is laid out, it notes how far the table of every roll reaches, for --dump-dom to carry.
FIT_PROBE = """<script>
addEventListener("load", () => {
  const table = document.querySelector("table.rolls");
  const box = table.parentElement;
  const last = table.querySelector("thead th:last-child");
  document.body.dataset.fit = JSON.stringify({
    viewport: document.documentElement.clientWidth,
    page: document.scrollingElement.scrollWidth,
    table: Math.ceil(table.getBoundingClientRect().right),
    effects: Math.ceil(last.getBoundingClientRect().right),
    box: box.getBoundingClientRect().right,
    overflow: box.scrollWidth - box.clientWidth,
  });
});
</script>"""


@pytest.fixture
def long_modifiers(run):
    """GURPS rolls whose Score cells carry long modifier lists, one of them a single long word."""
    run.ok("campaign new Iron --system gurps")
    run.ok("character add Mira --stat HT=11 --stat HP=10 --stat FP=11 --skill Lockpicking=12")
    run.ok("character add Bram --stat HT=12 --skill Climbing=11")
    run.ok("session start")
    for _ in range(3):
        run.ok(
            [
                *("roll", "Mira", "Lockpicking", "--mod", "-2:darkness", "--mod", "hard"),
                *("--mod", "-1:rusted lock and a shaking hand", "--mod", "+1:good guild tools"),
                *("--dice", "3,4,1"),
            ]
        )
        run.ok(
            [
                *("roll", "Bram", "Climbing", "--mod", "-3:slick wet stone after the storm"),
                *("--mod", "-1:" + "carrying-Mira's-pack-and-the-lantern" * 2),
            ]
        )
    return run


def fit_of(browser: str, page: Path, profile: Path, width: int) -> dict:
    dumped = chromium(browser, profile, f"--window-size={width},900", "--dump-dom", page.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    found = re.search(r'data-fit="([^"]*)"', dumped.stdout)
    assert found, dumped.stdout[-2000:]
    return json.loads(unescape(found.group(1)))


@pytest.mark.slow
@pytest.mark.parametrize("width", [1200, 2200])
def test_every_column_of_every_roll_is_in_sight_without_scrolling(long_modifiers, tmp_path, width):
    browser = chromium_or_skip()
    page = tmp_path / "report.html"
    page.write_text(html_of(long_modifiers).replace("</body>", FIT_PROBE + "</body>"), "utf-8")
    fit = fit_of(browser, page, tmp_path / "profile", width)
    assert fit["overflow"] <= 0, fit  # nothing to scroll sideways inside the table's box
    assert fit["table"] <= fit["box"] + 1, fit
    assert fit["effects"] <= fit["viewport"], fit
    assert fit["page"] <= fit["viewport"], fit


@pytest.mark.slow
def test_printed_every_column_fits_the_width_of_a_page(long_modifiers, tmp_path):
    """The print rules in force on screen, in a window as wide as what an A4 page leaves
    between its margins (186 mm, about 700 CSS pixels; a Letter page leaves more)."""
    browser = chromium_or_skip()
    html = html_of(long_modifiers)
    assert "@media print" in html
    printed = html.replace("@media print", "@media all").replace("</body>", FIT_PROBE + "</body>")
    page = tmp_path / "printed.html"
    page.write_text(printed, "utf-8")
    fit = fit_of(browser, page, tmp_path / "profile", 700)
    assert fit["overflow"] <= 0, fit
    assert fit["effects"] <= fit["viewport"], fit
