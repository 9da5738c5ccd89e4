"""Which character and which trait a GM means: the sheet's spelling is logged whatever the case
typed, the start of one name stands for it, and a start several names share is refused naming
them all, in every command that names a character."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def table(run):
    run.ok("campaign new Iron --system gurps")
    run.ok(
        [
            "character", "add", "Mira Kell", "--stat", "DX=12", "--stat", "IQ=12",
            "--skill", "Lockpicking=13", "--skill", "Guns (Pistol)=12",
            "--skill", "Guns (Rifle)=11",
        ]
    )  # fmt: skip
    run.ok(["character", "add", "Miles Dorn", "--stat", "IQ=10", "--stat", "HP=10"])
    run.ok("session start")
    return run


@pytest.mark.parametrize(
    ("character", "trait", "logged"),
    [
        ("mira kell", "lockpicking", "Mira Kell rolls Lockpicking at 13"),
        ("MIRA KELL", "LOCKPICKING", "Mira Kell rolls Lockpicking at 13"),
        ("mir", "lock", "Mira Kell rolls Lockpicking at 13"),
        ("Mira", "guns (p", "Mira Kell rolls Guns (Pistol) at 12"),
        ("mil", "iq", "Miles Dorn rolls IQ at 10"),
        ("Mil", "I", "Miles Dorn rolls IQ at 10"),
    ],
)
def test_a_roll_is_logged_as_the_sheet_spells_it(table, character, trait, logged):
    doc = table.json(["roll", character, trait, "--dice", "3,3,3"])
    assert logged.startswith(f"{doc['character']} rolls {doc['trait']} at ")
    assert logged in table.ok("log").stdout.splitlines()[-1]


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (["roll", "Mi", "IQ"], '"Mi" begins several characters\' names (Miles Dorn, Mira Kell)'),
        (["hp", "m", "-1"], '"m" begins several characters\' names (Miles Dorn, Mira Kell)'),
        (["status", "MI"], '"MI" begins several characters\' names (Miles Dorn, Mira Kell)'),
        (
            ["roll", "Mira", "guns"],
            '"guns" begins several of Mira Kell\'s traits (Guns (Pistol), Guns (Rifle))',
        ),
        (["roll", "Mira", "Gun"], "(Guns (Pistol), Guns (Rifle)); give more of it to pick one."),
        (["roll", "Nobody", "IQ"], 'No character named "Nobody"'),
    ],
)
def test_a_start_several_names_share_is_refused_naming_them(table, command, words):
    before = table.event_count()
    result = table(command)
    assert result.exit_code == 1, result.output
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1, message
    assert words in message
    assert table.event_count() == before


def test_the_start_of_a_name_serves_every_command_that_names_a_character(table):
    table.ok("hp mil -3")
    assert table.json("status Miles")["hp"] == 7
    doc = table.json("contest mir lock Mil iq --dice-a 3,3,3 --dice-b 4,4,4")
    sides = [(doc[s]["character"], doc[s]["trait"]) for s in ("a", "b")]
    assert sides == [("Mira Kell", "Lockpicking"), ("Miles Dorn", "IQ")]


def test_a_whole_name_wins_over_a_longer_one_it_begins(run):
    run.ok("campaign new Drift --system glintlock")
    run.ok("character add Wren --stat Grit=3")
    run.ok("character add 'Wren the Younger' --stat Grit=2")
    run.ok("session start")
    assert run.json("roll wren grit --dice 15,16")["character"] == "Wren"
    assert run.json("roll 'wren the' grit --dice 15,16")["character"] == "Wren the Younger"


def test_an_export_and_tab_take_the_start_of_a_name_as_the_commands_do(table):
    table.ok("roll mira lock --dice 3,3,3")
    table.ok("roll miles iq --dice 3,3,3")
    rows = table.ok("export rolls --character mir --format jsonl").stdout.splitlines()[1:]
    assert [json.loads(r)["character"] for r in rows] == ["Mira Kell"]
    assert table("export rolls --character mi").exit_code == 1

    from tracker.app import Tracker
    from tracker.cli.shell import Completer

    tracker = Tracker(str(table.db))
    complete = Completer({"tracker": tracker, "db": str(table.db), "campaign": None})
    assert complete.lines("roll mir gu") == [
        'roll mir "Guns (Pistol)" ',
        'roll mir "Guns (Rifle)" ',
    ]
    assert complete.lines("roll mi gu") == []  # which of the two, Tab cannot tell
    tracker.close()
