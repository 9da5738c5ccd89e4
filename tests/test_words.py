"""What the GM is told reads as words: counts agree with their nouns, outcomes and conditions
are said as a person would say them, and no help text is cut off mid-thought."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SHEETS = Path(__file__).resolve().parent.parent / "fixtures" / "sheets"


def gurps_table(run, *flags: str):
    run.ok(["campaign", "new", "Table", "--system", "gurps", *flags])
    for sheet in SHEETS.glob("gurps-*.toml"):
        run.ok(["character", "add", "--sheet", str(sheet)])
    run.ok("session start")
    return run


def test_one_character_point_is_singular_wherever_it_is_said(run):
    gurps_table(run, "--cinematic")
    assert "Mira has 1 character point." in run.ok("points award Mira 1").stdout
    # A critical failure costs 2 to buy up: with 1 point, no buy-up is offered.
    assert "buy-up" not in run.ok("roll Mira Lockpicking --dice 6,6,6").stdout
    roll = run.ok("roll Mira Lockpicking --dice 6,6,4").stdout
    assert "Mira has 1 character point; a buy-up to success costs 1." in roll
    run.ok("roll Mira Lockpicking --dice 6,6,6")
    refused = run("spend Mira buy-up --to success")
    assert "Mira has 1 character point and that buy-up costs" in refused.stderr
    assert "Mira is awarded 1 character point\n" in run.ok("log").stdout


def test_a_project_one_day_in_says_one_day(run):
    gurps_table(run)
    run.ok("project start Treaty --skill Diplomacy --hours 40")
    run.ok("project roll Treaty Aldric --dice 3,3,3")
    assert "1 day," in run.ok("project status").stdout


def test_undo_and_redo_count_their_events(glintlock):
    glintlock.ok("session start")
    glintlock.ok("note one")
    glintlock.ok("undo")
    glintlock.ok("redo")
    log = glintlock.ok("log").stdout
    assert "undo: 1 event taken back" in log
    assert "redo: 1 event put back" in log
    assert "(s)" not in log
    assert "undo: 1 event taken back" in glintlock.ok("replay").stdout


def test_a_bought_up_roll_reads_its_outcomes_as_words(run):
    gurps_table(run, "--cinematic")
    run.ok("points award Mira 2")
    run.ok("roll Mira Lockpicking --dice 6,6,6")
    run.ok("spend Mira buy-up --to failure")
    for command in ("log", "replay"):
        shown = run.ok(command).stdout
        assert "Mira buys up a roll: critical failure → failure" in shown
        assert "critical_failure" not in shown


def test_a_state_that_ends_reads_as_no_longer_and_a_thing_as_ended(run):
    gurps_table(run)
    run.ok("condition set Mira stunned --duration 1 --unit seconds")
    run.ok("condition set Vora 'broken arm'")
    assert run.ok("condition clear Mira stunned").stdout.startswith("Mira is no longer stunned.")
    assert run.ok("condition clear Vora 'broken arm'").stdout.startswith(
        "Vora: broken arm has ended."
    )
    log = run.ok("log").stdout
    assert "Mira is no longer stunned" in log
    assert "Vora: broken arm has ended" in log
    assert "Vora is no longer" not in log
    assert "stunned has ended" not in log


def test_a_fright_result_says_a_state_as_now_and_a_thing_by_its_name_and_a_lost_point(run):
    gurps_table(run)
    # Will 12 -20 = -8: an 18 fails by 26; 18 + 26 = 44 is row 40: catatonia and IQ -1.
    worst = run.ok("fright Mira --mod -20:horror --dice 6,6,6 --table-dice 6,6,6 --effect-dice 3")
    assert "catatonia for 3 days  IQ -1 for good" in worst.stdout
    assert "now catatonia" not in worst.stdout
    # Will 11 -8 = 3: a 17 fails by 14; 4 + 14 = 18 is row 18: fainted.
    faint = run.ok("fright Vora --mod -8:horror --dice 6,6,5 --table-dice 1,1,2")
    assert "now fainted" in faint.stdout


def test_a_stalemate_is_said_once(run):
    run.ok("campaign new Neon --system gloom")
    run.ok(["character", "add", "--sheet", str(SHEETS / "gloom-kade.toml")])
    run.ok("session start")
    shown = run.ok("contest Kade Hacking ICE 14 --dice-a 20 --dice-b 20").stdout
    assert "stalemate (both failed)" in shown
    assert shown.count("stalemate") == 1


@pytest.mark.parametrize(
    ("every", "unit", "said"),
    [
        ("second", "seconds", "each second"),
        ("minute", None, "each minute"),
        (
            "30 minutes (light coma) or hour (full coma)",
            None,
            "every 30 minutes (light coma) or every hour (full coma)",
        ),
        ("every 2 hours", None, "every 2 hours"),
        (None, "minutes", "each minute"),
        (None, None, "each turn"),
    ],
)
def test_how_often_a_recovery_roll_is_made_reads_as_words(every, unit, said):
    from tracker.systems.gurps.play import recovery_interval

    assert recovery_interval(every, unit) == said


def test_a_fright_result_says_how_often_to_roll_to_recover(run):
    gurps_table(run)
    # Mira's Will 12 at -1 is 11; 12 fails by 1, and 11 on the table makes row 12.
    retching = run.ok("fright Mira --mod -1:gloom --dice 6,3,3 --table-dice 4,4,3").stdout
    assert re.search(r"roll vs HT \(\d+\) each second to recover", retching)
    # Vora's Will 11 at -10 is 1; 18 fails by 17, and 12 on the table makes 29: a coma.
    coma = run.ok("fright Vora --mod -10:horror --dice 6,6,6 --table-dice 4,4,4").stdout
    assert re.search(
        r"roll vs HT \(\d+\) every 30 minutes \(light coma\) or every hour \(full coma\) "
        "to recover",
        coma,
    ), coma


@pytest.mark.parametrize(
    "command",
    [
        "odds gloom --rank 14 --dl 5",
        "odds gurps --skill 12",
        "odds glintlock --stat 3 --trained --tags 2",
        "odds gloom --rank 16 --vs 14 --advantage",
        "odds gurps --skill 14 --vs 12",
    ],
)
def test_odds_give_every_chance_over_one_denominator(run, command):
    shown = run.ok(command).stdout
    fractions = re.findall(r"(\d+)/(\d+)", shown)
    assert len({d for _, d in fractions}) == 1, shown
    percentages = [float(p) / 100 for p in re.findall(r"(\d+\.\d+)%", shown)]
    for (n, d), p in zip(fractions, percentages, strict=False):
        assert abs(int(n) / int(d) - p) < 0.00005


def test_odds_json_keeps_its_exact_reduced_fractions(run):
    doc = run.json("odds gurps --skill 12")
    assert doc["exact"]["success"] == "13/18"


def _listed(group, ctx, path=()):
    """Every command with the short help its parent lists it by at the usual 80 columns."""
    import click

    names = group.list_commands(ctx)
    # click lists a group's commands in what is left of the line after the longest name.
    limit = ctx.make_formatter().width - 6 - max(map(len, names))
    for name in names:
        command = group.get_command(ctx, name)
        yield (*path, name), command.get_short_help_str(limit=limit), limit
        if isinstance(command, click.Group):
            yield from _listed(
                command, click.Context(command, parent=ctx, info_name=name), (*path, name)
            )


def test_no_command_is_listed_by_a_help_cut_off_mid_thought():
    import click

    from tracker.cli import cli

    cut = []
    for path, short, limit in _listed(cli, click.Context(cli, info_name="tracker")):
        if short.count("(") != short.count(")") or short.endswith(("e.g.", "i.e.")):
            cut.append((" ".join(path), short))
        assert len(short) <= limit, (path, short)  # a short help given whole must still fit
    assert not cut


# Names a reader cannot tell apart at the table, each pair.
READ_ALIKE = [
    ("Wren", "wren"),
    ("Wren", "\uff37\uff52\uff45\uff4e"),  # full-width letters
    ("Wren", "Wr\u200ben"),  # a zero-width space
    ("Wren", "Wr\u00aden"),  # a soft hyphen
    ("Wren", "Wr\u200den"),  # a joiner between Latin letters joins nothing
    ("Wren", "Wr\u200cen"),  # nor does a non-joiner
    ("Wren", "Wren\U000e0041"),  # a tag letter outside a flag
    ("Wren", "Wr\u034fen"),  # the combining grapheme joiner
    ("Wren", "Wren\ufe0f"),  # a variation selector
    ("Wren", "Wren\u3164"),  # a Hangul filler
    ("Wren", "Wren\u2800"),  # the Braille blank
    ("Old Tom", "Old  Tom"),  # two spaces show as one in a page
    ("Old Tom", "Old\u2003Tom"),  # an em space
    ("Ash \U0001f469", "Ash \U0001f469\u200d"),  # a joiner with nothing after it
    ("Wren", "Wren\u2065"),  # default-ignorable, though not assigned yet
    ("Ka^de", "Ka^\u200dde"),  # a joiner after a sign that is no emoji
    ("\U0001f680x", "\U0001f680\u200dx"),  # a joiner from an emoji to a letter
    ("\u0915A", "\u0915\u200dA"),  # a joiner from Devanagari to a Latin letter
    ("\U0001f3f4 Wren", "\U0001f3f4\U000e0067 Wren"),  # tag letters that spell no flag
    ("fi", "\ufb01"),  # a ligature
    ("Jos\u00e9", "Jose\u034f\u0301"),  # a hidden mark between a letter and its accent
    ("Zo\u00eb", "Zoe\u2060\u0308"),
]
# Names that read differently, each pair.
READ_APART = [
    ("Ash \U0001f469\u200d\U0001f680", "Ash \U0001f469\U0001f680"),  # an astronaut, not two
    (
        "Team \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
        "Team \U0001f3f4\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f",
    ),  # Scotland's flag, Wales'
    (
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
        "\u0645\u06cc\u062e\u0648\u0627\u0647\u0645",
    ),
    ("\u0915\u094d\u200d\u0937", "\u0915\u094d\u0937"),  # a half form in Devanagari
    ("Wren", "Wrenn"),
    # Compatibility forms that show differently from the plain ones.
    ("Kade\u00b2", "Kade2"),
    ("Kade\u2460", "Kade1"),
    ("\u24b6da", "Ada"),
    ("Acme\u2122", "AcmeTM"),
    ("Wren\u0600", "Wren"),  # a format character that prints a mark
]


@pytest.mark.parametrize(("one", "other"), READ_ALIKE)
def test_names_a_reader_cannot_tell_apart_read_as_one(one, other):
    from tracker.words import reads_as

    assert reads_as(one) == reads_as(other)


@pytest.mark.parametrize(("one", "other"), READ_APART)
def test_names_that_show_differently_read_apart(one, other):
    from tracker.words import reads_as

    assert reads_as(one) != reads_as(other)


def test_a_refusal_beside_a_console_form_names_its_boxes_and_keeps_a_command_whole():
    from tracker.words import form_words

    shown = {"--dice": "the table's dice", "--tag": "tag"}
    said = form_words(
        "A desperate roll (net tags +0: no --tag given) needs two d20 but --dice gave 1 value; "
        "give two, like --dice 9,14, or roll with `tracker roll Wren Grit --dice 9,14`.",
        shown,
    )
    assert said == (
        "A desperate roll (net tags +0: no tag given) needs two d20 but the table's dice gave "
        "1 value; give two, like 9,14, or roll with `tracker roll Wren Grit --dice 9,14`."
    )
    assert form_words("pass --no-panic to skip it", {}) == "pass no panic to skip it"
