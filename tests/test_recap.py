"""``tracker recap``: a session's notes, rolls, luck, changes and what is left owed, in the
players' view unless ``--gm``; a secret roll the GM has not revealed shows in the players'
recap only as having happened."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Run
from test_secrets import normalised

ROOT = Path(__file__).resolve().parent.parent
SHEETS = ROOT / "fixtures" / "sheets"

# Each system's evening: public and secret rolls, a note, tracks moved, something left owed.
# {secret} is the GM's secret roll, which the differential tests vary.
EVENINGS = {
    "gloom": [
        "campaign new Drift --system gloom",
        f"character add --sheet {SHEETS / 'gloom-kade.toml'}",
        f"character add --sheet {SHEETS / 'gloom-juno.toml'}",
        "session start --title 'The relay'",
        "roll Kade Hacking --dl 5 --dice 12",
        "{secret}",
        "stress Kade +1 --cause 'the Gloom whispers'",
        # A catastrophe owes a panic check, left unmade.
        "roll Kade Athletics --dl 6 --dice 1",
        "note 'The relay goes dark; somewhere below, an alarm.'",
        "session end",
    ],
    "gurps": [
        "campaign new Salt --system gurps",
        f"character add --sheet {SHEETS / 'gurps-mira.toml'}",
        f"character add --sheet {SHEETS / 'gurps-vora.toml'}",
        "session start --title 'The salt mines'",
        "roll Mira Lockpicking --dice 3,4,1",
        "{secret}",
        "hp Mira -3 --cause arrow",
        # Stunned, and a quirk owed, left unassigned.
        "fright Mira --mod alone --threat ghoul --dice 6,6,2 --table-dice 5,5,2",
        "note 'The mine floods; the party flees upstairs.'",
        "session end",
    ],
    "glintlock": [
        "campaign new Veyra --system glintlock",
        "character add Wren --stat Grit=3 --stat Wits=2 --trained Climb --class Seer",
        "character add Tomas --stat Grit=2 --stat Wits=4",
        "session start --title 'The drowned archive'",
        "roll Wren Grit --tag 1:gear --tag 1:power --dice 15",
        "{secret}",
        # A breaking point owed, left unmade.
        "stress Wren +6 --cause 'the drowned scribe'",
        "note 'The water rises past the second shelf.'",
        "session end",
    ],
}
# Secret rolls that differ in their dice, and in what they rolled.
SECRETS = {
    "gloom": [
        "roll Juno Hacking --dl 5 --secret --dice 7",
        "roll Juno Hacking --dl 5 --secret --dice 1",
        "roll Juno Athletics --secret --dice 13",
    ],
    "gurps": [
        "roll Vora Per --secret --dice 6,6,5",
        "roll Vora Per --secret --dice 1,1,1",
        "roll Vora Broadsword --secret --mod -4:dark --dice 3,3,3",
    ],
    "glintlock": [
        "roll Tomas Wits --tag 1:gear --secret --dice 20",
        "roll Tomas Wits --tag 1:gear --secret --dice 1",
        "roll Tomas Grit --tag 1:gear --secret --dice 9",
    ],
}
# What the GM's recap shows of the first secret roll, and the players' never.
SECRET_TRAIT = {"gloom": "Hacking 14", "gurps": "Per 10", "glintlock": "Wits 4"}
NOTE = {"gloom": "The relay goes dark", "gurps": "The mine floods", "glintlock": "The water rises"}
PUBLIC_ROLL = {"gloom": "Hacking", "gurps": "Lockpicking", "glintlock": "Grit 3"}
CHANGED = {
    "gloom": "stress 0 → 1",
    "gurps": "HP 10 → 7",
    "glintlock": "stress 0 → 6",
}
OWED = {"gloom": "panic", "gurps": "trait", "glintlock": "breaking point"}

RECAPS = ["recap --session 1", "recap --session 1 --json", "recap --session 1 --html"]


def evening(folder: Path, system: str, secret: str) -> Run:
    folder.mkdir()
    run = Run(folder / "campaign.db", CliRunner())
    for step in EVENINGS[system]:
        run.ok(step.format(secret=secret))
    return run


@pytest.mark.parametrize("system", list(EVENINGS))
def test_the_players_recap_holds_the_evening_and_seals_the_secret_roll(tmp_path, system):
    run = evening(tmp_path / system, system, SECRETS[system][0])
    text = run.ok("recap").stdout  # the last session, ended
    assert text.startswith("# ")
    assert NOTE[system] in text
    assert PUBLIC_ROLL[system] in text
    assert "a secret event, sealed until the GM reveals it" in text
    assert SECRET_TRAIT[system] not in text
    assert CHANGED[system] in text
    assert "Still owed as the session ended" in text
    owed = text.split("## Still owed as the session ended")[1]
    assert OWED[system] in owed.casefold()
    assert "above the odds" in text or "below the odds" in text or "at the odds" in text
    gm = run.ok("recap --gm").stdout
    assert SECRET_TRAIT[system] in gm
    assert "*(secret)*" in gm
    assert "sealed" not in gm


@pytest.mark.parametrize("system", list(EVENINGS))
def test_the_players_recap_does_not_change_with_the_secret_roll(tmp_path, system):
    """The same evening with secret rolls of other dice and other traits: the GM's recaps
    differ, the players' are the same byte for byte (times and hashes aside)."""
    runs = [evening(tmp_path / str(i), system, secret) for i, secret in enumerate(SECRETS[system])]
    gm = [normalised(run.ok("recap --session 1 --gm").stdout) for run in runs]
    players = [{c: normalised(run.ok(c).stdout) for c in RECAPS} for run in runs]
    for i in range(1, len(runs)):
        assert gm[i] != gm[0], SECRETS[system][i]  # else this proves nothing
        for command in RECAPS:
            assert players[i][command] == players[0][command], (SECRETS[system][i], command)


@pytest.mark.parametrize("system", list(EVENINGS))
def test_a_revealed_roll_joins_the_players_recap(tmp_path, system):
    run = evening(tmp_path / system, system, SECRETS[system][0])
    before = run.json("recap --session 1")
    assert [r for r in before["rolls"] if r["sealed"]]
    run.ok("reveal --session 1")
    after = run.json("recap --session 1")
    assert not [r for r in after["rolls"] if r["sealed"]]
    shown = [r for r in after["rolls"] if r["secret"]]
    assert len(shown) == 1
    assert shown[0]["outcome"] is not None
    assert SECRET_TRAIT[system] in run.ok("recap --session 1").stdout
    assert "*(revealed)*" in run.ok("recap --session 1").stdout


def test_the_json_document_is_the_recap(tmp_path):
    run = evening(tmp_path / "gl", "glintlock", SECRETS["glintlock"][1])
    doc = run.json("recap")
    assert doc["view"] == "players"
    assert doc["session"]["number"] == 1
    assert doc["session"]["title"] == "The drowned archive"
    assert doc["session"]["ended_at"] is not None
    assert [n["text"] for n in doc["notes"]] == ["The water rises past the second shelf."]
    assert [(r["character"], r["sealed"]) for r in doc["rolls"]] == [
        ("Wren", False),
        ("Tomas", True),
    ]
    [wren] = doc["luck"]
    assert wren["character"] == "Wren"
    assert wren["rolls"] == 1
    assert wren["successes"] == 1
    assert wren["luck"] == pytest.approx(1 - wren["expected"])
    assert "above the odds" in wren["words"]
    changes = {c["character"]: c["tracks"] for c in doc["changes"]}
    assert {"track": "stress", "before": 0, "after": 6} in changes["Wren"]
    assert [o["character"] for o in doc["owed"]] == ["Wren"]
    # The GM's: the secret natural 1 gave Threat, and the spending floor it owed lapsed.
    gm = run.json("recap --gm")
    assert gm["view"] == "gm"
    [campaign] = [c["tracks"] for c in gm["changes"] if c["character"] is None]
    assert {"track": "Threat", "before": 0, "after": 4} in campaign
    assert [o["what"][:8] for o in gm["lapsed"]] == ["Threat 4"]
    assert doc["lapsed"] == []


def test_a_running_session_is_recapped_as_it_stands(glintlock):
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --dice 15")
    text = glintlock.ok("recap").stdout
    assert "still running" in text
    assert "## Owed now" in text
    assert "Wren" in text


def test_an_undone_roll_is_not_in_the_recap(glintlock):
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --dice 15")
    glintlock.ok("roll Tomas Wits --tag 1:gear --dice 3")
    glintlock.ok("undo")
    doc = glintlock.json("recap")
    assert [r["character"] for r in doc["rolls"]] == ["Wren"]


@pytest.mark.parametrize(
    ("setup", "command", "code", "words"),
    [
        ([], "recap", 1, "No campaign is selected"),
        (["campaign new Quiet --system gloom"], "recap", 1, "No session has been played yet"),
        (
            ["campaign new Quiet --system gloom", "session start"],
            "recap --session 4",
            1,
            "No session 4",
        ),
        (
            ["campaign new Quiet --system gloom", "session start"],
            "recap --session 0",
            2,
            "numbered from 1",
        ),
        (
            ["campaign new Quiet --system gloom", "session start"],
            "recap --session -3",
            2,
            "numbered from 1",
        ),
        (["campaign new Quiet --system gloom", "session start"], "recap --session x", 2, "x"),
        (
            ["campaign new Quiet --system gloom", "session start"],
            "recap --json --html",
            2,
            "-o FILE",
        ),
    ],
)
def test_a_recap_of_no_session_is_refused_with_one_sentence(run, setup, command, code, words):
    for step in setup:
        run.ok(step)
    result = run(command)
    assert result.exit_code == code, result.output
    assert result.stdout == ""
    assert words in result.stderr
    if code == 1:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


HOSTILE = "<script>alert('x')</script>"


def test_names_and_notes_cannot_become_markup(run):
    run.ok("campaign new '<b>Bold</b> & co' --system glintlock")
    run.ok(["character", "add", HOSTILE, "--stat", "Grit=3"])
    run.ok("session start --title '<img src=x onerror=alert(1)>'")
    run.ok(["roll", HOSTILE, "Grit", "--tag", "1:gear", "--dice", "15"])
    run.ok(["note", "**bold** [a link](http://x) <iframe src=x> &lt; `code` # not a heading"])
    page = run.ok("recap --html").stdout
    for raw in ("<script", "<img", "<iframe", "<b>"):
        assert raw not in page
    assert "&lt;script&gt;" in page
    markdown = run.ok("recap").stdout
    # Every < is escaped, and so is all else Markdown would read as markup.
    assert not re.search(r"(?<!\\)<", markdown)
    for raw in ("[a link]", "**bold**", "`code`"):
        assert raw not in markdown
    assert r"\<script\>" in markdown
    assert "&amp;lt;" in markdown


def test_the_page_fetches_nothing(glintlock):
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --dice 15")
    page = glintlock.ok("recap --format html").stdout
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"(src|href)\s*=|@import|url\(|<script|<link", page, re.I)


def test_a_recap_written_to_a_file(glintlock, tmp_path):
    glintlock.ok("session start --title Archive")
    glintlock.ok("roll Wren Grit --tag 1:gear --secret --dice 15")
    players, gm = tmp_path / "players.html", tmp_path / "gm-recap.txt"
    said = glintlock.ok(f"recap --html -o {players}").stdout
    assert said.startswith(
        f"Wrote {players}: session 1, 0 rolls and 1 secret event sealed, the players'"
    )
    assert "sealed until the GM reveals it" in players.read_text(encoding="utf-8")
    doc = glintlock.json(f"recap --gm -o {gm}")
    assert doc["output"] == str(gm)
    assert doc["format"] == "md"
    assert doc["view"] == "gm"
    assert "Grit 3" in gm.read_text(encoding="utf-8")
    # The GM's recap holds the secrets: its owner's alone, as the GM's exports are.
    assert os.stat(gm).st_mode & 0o077 == 0


def test_the_recap_in_json_is_one_document(glintlock):
    glintlock.ok("session start")
    result = glintlock.ok("recap --json")
    assert isinstance(json.loads(result.stdout), dict)


def test_a_change_a_secret_roll_may_have_added_to_reads_sealed_to_the_players(tmp_path):
    """Threat 0 → 1 in the open, and a secret miss after it: the players' recap says the
    change is sealed past what they saw, never a Threat the next public spend contradicts."""
    run = Run(tmp_path / "veyra.db", CliRunner())
    for step in (
        "campaign new Veyra --system glintlock",
        "character add Wren --stat Grit=3",
        "session start",
        "roll Wren Grit --dice 15,16",
        "roll Wren Grit --secret --dice 2,3",
    ):
        run.ok(step)
    players = run.ok("recap").stdout
    sealed = "+ ? sealed (1 secret event not yet revealed)"
    assert f"- **The campaign**: Threat 0 → 1; {sealed}" in players
    assert "Mettle 0 → 1; + ? sealed" in players
    gm = run.ok("recap --gm").stdout
    assert "Threat 0 → 3" in gm
    assert "sealed" not in gm


def test_a_trait_a_secret_fright_check_cost_is_no_roll_in_either_recap(tmp_path):
    """Two public rolls, a secret roll, and a secret Fright Check whose quirk the GM assigns:
    the GM's recap counts four rolls; the players' counts the two they saw and three secret
    events sealed (the quirk's assignment reads as a secret roll does, and is not a roll)."""
    run = Run(tmp_path / "salt.db", CliRunner())
    for step in (
        "campaign new Salt --system gurps",
        f"character add --sheet {SHEETS / 'gurps-mira.toml'}",
        "session start",
        "roll Mira Lockpicking --dice 3,4,1",
        "roll Mira Per --secret --dice 3,3,3",
        # Will 12 fails on 14 by 2, and the table's 11 + 2 = 13 owes a quirk.
        "fright Mira --secret --dice 5,5,4 --table-dice 4,4,3",
        "trait assign Mira 'hums when nervous'",
        "roll Mira Lockpicking --dice 3,3,3",
    ):
        run.ok(step)
    gm = run.json("recap --gm")
    assert [r["trait"] for r in gm["rolls"]] == [
        "Lockpicking",
        "Per",
        "Fright Check",
        "Lockpicking",
    ]
    players = run.json("recap")
    assert [r["sealed"] for r in players["rolls"]] == [False, True, True, True, False]
    text = run.ok("recap").stdout
    assert "The players' recap: 3 secret events sealed (secret rolls and what they led to)" in text
    assert text.count("a secret event, sealed until the GM reveals it") == 3
    assert "secret roll, sealed" not in text
    said = run.ok(f"recap --html -o {tmp_path / 'players.html'}").stdout
    assert ": session 1, 2 rolls and 3 secret events sealed, the players' view." in said
    said = run.ok(f"recap --gm -o {tmp_path / 'gm.txt'}").stdout
    assert ": session 1, 4 rolls, the GM's view." in said
    doc = run.json(f"recap -o {tmp_path / 'players.txt'}")
    assert (doc["rolls"], doc["sealed"]) == (2, 3)
    log = run.ok("log --player-view").stdout
    assert log.count("a secret event for Mira") == 3
    assert "secret roll" not in log
    # The roll exports and the report count alike.
    for fmt in ("jsonl", "csv", "html"):
        out = tmp_path / f"players.{fmt}"
        said = run.ok(f"export rolls --player-view --format {fmt} -o {out}").stdout
        assert said.startswith(f"Wrote {out}: 2 rolls and 3 secret events sealed, log head")
        said = run.ok(f"export rolls --format {fmt} -o {tmp_path / ('gm.' + fmt)}").stdout
        assert ": 4 rolls, log head" in said
    report = (tmp_path / "players.html").read_text(encoding="utf-8")
    assert "Roll history · 2 rolls, 3 secret events sealed · " in report
