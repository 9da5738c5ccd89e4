"""Refusals at the table: each appends nothing and exits with one sentence saying what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

SHEETS = Path(__file__).parent.parent / "fixtures" / "sheets"


@pytest.fixture
def gurps(run):
    run.ok("campaign new Iron --system gurps")
    for name in ("mira", "aldric"):
        run.ok(["character", "add", "--sheet", str(SHEETS / f"gurps-{name}.toml")])
    run.ok("session start")
    return run


@pytest.fixture
def gloom(run):
    run.ok("campaign new Neon --system gloom")
    run.ok(["character", "add", "--sheet", str(SHEETS / "gloom-kade.toml")])
    run.ok("session start")
    return run


@pytest.fixture
def at_threat_six(glintlock):
    glintlock.ok("session start")
    glintlock.ok("threat add 6")
    return glintlock


REFUSALS = {
    "glintlock": [
        ("spend Wren flashback", 1, "Wren has 0 Mettle and flashback costs 2; gain some first"),
        ("spend Wren dance", 2, "dance"),
        ("spend Wren class-feature", 2, "class feature"),
        ("roll Nobody Grit", 1, 'No character named "Nobody"'),
        ("roll Wren Charm", 1, "Wren has no Charm"),
        ("roll Wren Grit --tag 1:gear --dice 21", 2, "not 21"),
        ("roll Wren Grit --tag 1:gear --dice 0", 2, "not 0"),
        ("roll Wren Grit --tag 1:gear --dice 5,5", 2, "needs one d20"),
        ("roll Wren Grit --dice x", 2, "whole numbers"),
        ("roll Wren Grit --tag 2:gear", 2, "gear"),
        ("roll Wren Grit --story map", 1, "no story tag"),
        ("threat spend dire", 1, "Threat is 0 and a dire spend costs 3; spend a smaller tier"),
        ("threat add 0", 2, "1 or more"),
        ("stress Wren 0", 2, "not 0"),
        ("stress Wren two", 2, "+N or -N"),
        ("hp Wren -2", 1, "no HP"),
        ("fright Wren", 1, "GURPS"),
        ("contest Wren Grit Tomas Wits", 1, "no contested rolls"),
        ("condition clear Wren stunned", 1, "no condition"),
        ("breaking-point Wren crack scar", 1, "not at the breaking point"),
        ("obligations dismiss 99", 1, "No open obligation 99"),
        ("note ''", 2, "needs some text"),
    ],
    "threat6": [
        ("roll Wren Grit --tag 1:gear --dice 12", 1, "must spend hard or dire"),
        ("threat spend soft", 1, "must be hard or dire"),
        ("obligations dismiss 5", 1, "discharged by a hard or dire spend"),
    ],
    "gurps": [
        ("roll Aldric Alchemy", 1, "cannot attempt Alchemy untrained"),
        ("roll Mira Lockpicking --mod -10:dark --dice 1,1,1", 1, "cannot be attempted"),
        ("roll Mira Lockpicking --dice 7,1,1", 2, "1 to 6"),
        ("roll Mira Lockpicking --dice 1,1", 2, "three d6"),
        ("roll Mira Lockpicking --mod sideways", 2, "sideways"),
        ("roll Mira Lockpicking --retry one-chance", 2, "--task"),
        ("spend Mira buy-up", 1, "cinematic"),
        ("points award Mira 0", 2, "1 or more"),
        ("trait assign Mira Quirk", 1, "No trait is owed"),
        ("stress Mira +1", 1, "Gloom and Glintlock rule"),
        ("project roll Bridge Mira", 1, 'No project named "Bridge"'),
        ("contest Mira Lockpicking Guard 12 --mode dynamic", 2, "quick, resistance or regular"),
        ("contest Mira Lockpicking Nobody Stealth", 1, 'No character named "Nobody"'),
    ],
    "gloom": [
        ("roll Kade Hacking --dl -1", 2, "Difficulty Level is 0 or more"),
        ("roll Kade Hacking --advantage --dice 4", 2, "two d20"),
        ("spend Kade steel-yourself", 1, "Glintlock rule"),
        ("contest Kade Hacking ICE 14 --mode resistance", 2, "quick (contested roll) or dynamic"),
    ],
}


def cases():
    for campaign, rows in REFUSALS.items():
        for command, code, words in rows:
            yield pytest.param(campaign, command, code, words, id=f"{campaign}: {command}")


@pytest.mark.parametrize(("campaign", "command", "code", "words"), list(cases()))
def test_refusals_append_nothing(request, campaign, command, code, words):
    fixture = {"threat6": "at_threat_six"}.get(campaign, campaign)
    run = request.getfixturevalue(fixture)
    before = run.event_count()
    result = run(command)
    assert result.exit_code == code, result.output
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1, message
    assert words in message
    assert "Traceback" not in result.output
    assert run.event_count() == before


@pytest.mark.parametrize("command", ["stress Tomas -1", "hp Mira -3", "fp Mira -1"])
def test_negative_changes_read_as_numbers(run, command):
    run.ok("campaign new Mixed --system gurps")
    run.ok("character add Mira --stat ST=10 --stat HT=11")
    if command.startswith("stress"):
        assert run(command).exit_code == 1  # GURPS has no stress track: refused, not misparsed
        return
    doc = run.json(command)
    assert doc["delta"] < 0
    assert doc["after"] == doc["before"] + doc["delta"]


# Where a negative number means nothing, the command says what to do instead; never "No such
# option '-5'", which sent the GM looking for an option.
NEGATIVE_VALUES = [
    ("gurps", "points award Mira -5", 2, "to take points away, undo the award"),
    ("glintlock", "threat add -1", 2, "it goes down only when the GM spends it"),
    ("gurps", "effort Mira -20", 2, "not -20; give a percentage of 1 or more"),
    ("gurps", "contest Mira Lockpicking Guard -3", 2, "give a score from 0 to 40"),
    ("gurps", "influence Aldric Diplomacy Guard -3", 2, "give a score from 0 to 40"),
    ("gurps", "character default Mira Stealth -5", 2, "for example IQ-5"),
    ("gurps", "replay -1", 1, "No session -1"),
    ("gurps", "undo -3", 1, "No event '-3'"),
    ("gurps", "reveal -3", 1, "No event '-3'"),
    ("gurps", "obligations dismiss -1", 1, "No open obligation -1"),
]


@pytest.mark.parametrize(
    ("campaign", "command", "code", "words"),
    [pytest.param(*case, id=case[1]) for case in NEGATIVE_VALUES],
)
def test_a_negative_number_given_where_none_fits_says_what_to_do(
    request, campaign, command, code, words
):
    run = request.getfixturevalue(campaign)
    before = run.event_count()
    result = run(command)
    assert result.exit_code == code, result.output
    [line] = result.stderr.strip().splitlines()
    assert words in line
    assert "No such option" not in line
    assert run.event_count() == before


@pytest.mark.parametrize("command", ["hp Mira -3 --caus x", "points award Mira -5 --reaso x"])
def test_a_mistyped_option_beside_a_negative_number_is_still_named(gurps, command):
    before = gurps.event_count()
    result = gurps(command)
    assert result.exit_code == 2, result.output
    [line] = result.stderr.strip().splitlines()
    assert "No such option '--" in line
    assert "Did you mean" in line
    assert gurps.event_count() == before


def test_override_logs_a_roll_at_threat_six(at_threat_six):
    doc = at_threat_six.json("roll Wren Grit --tag 1:gear --dice 12 --override")
    assert doc["outcome"] == "miss"
    assert at_threat_six.json("status")["spending_floor"] == "immediate"
