"""A secret roll stays secret in everything the players may see.

The same evening is played twice, the two differing only in the dice of the GM's secret rolls
(of every kind: a plain roll, a contest, a fright check, a sense roll whose failure calls for a
Danger Sense roll in one evening and not in the other, extra effort; a fright result that leaves
a trait owed when the session ends). Every player-facing output
of both evenings, with ids, times and hashes numbered in order of appearance, must be the same
byte for byte: whatever differs would tell a player something about the secret dice. And the
hashes the players see must not open to any fall of the dice, even to a player who knows
everything else about the secret event.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Run

from tracker.events.envelope import canonical_json

WARY_MIRA = """
name = "Mira"
traits = ["Danger Sense"]
[stats]
ST = 10
DX = 13
IQ = 12
HT = 11
HP = 10
FP = 11
Will = 12
[skills]
Lockpicking = 12
"""

# Each evening's commands; {name} is a secret roll's dice, which differ between the evenings.
GURPS_EVENING = [
    "campaign new Hidden --system gurps",
    "character add --sheet {sheet}",
    "character add Vora --stat ST=12 --stat DX=12 --stat HT=12 --stat HP=12 --stat FP=12"
    " --stat Will=11 --skill Broadsword=16",
    "session start --title 'The locked archive'",
    "roll Mira Lockpicking --dice 3,4,1",
    "roll Mira Per --secret --dice {plain}",
    "roll Mira Vision --danger --dice {sense} --danger-dice 3,3,3",
    "contest Vora Broadsword Duellist 12 --secret --dice-a {contest_a} --dice-b {contest_b}",
    "fright Mira --secret --threat 'the ghoul' --dice {fright} --table-dice {table}"
    " --effect-dice 4",
    "effort Vora 20 --secret --dice {effort}",
    "roll Mira Lockpicking --task door --retry retry-at-penalty --secret --dice {door}",
    # A retry's penalty would say how the secret attempt went: the retry is secret as well.
    "roll Mira Lockpicking --task door --retry retry-at-penalty --dice 3,3,3",
    "hp Vora -2 --cause 'a falling shelf'",
    "roll Vora Broadsword --dice 2,2,2",
    "note 'The ledger is gone.'",
    "session end",
]
GURPS_DICE = [
    {
        "plain": "6,6,5",
        "sense": "6,6,5",
        "contest_a": "6,6,6",
        "contest_b": "1,1,1",
        "fright": "6,6,6",
        "table": "6,6,6",
        "effort": "6,6,6",
        "door": "6,6,6",
    },
    {
        "plain": "1,1,1",
        "sense": "1,2,1",
        "contest_a": "1,1,1",
        "contest_b": "6,6,6",
        "fright": "1,1,1",
        "table": "5,5,2",
        "effort": "1,1,2",
        "door": "3,3,3",
    },
]
GLINTLOCK_EVENING = [
    "campaign new Drowned --system glintlock",
    "character add Wren --stat Grit=3 --stat Wits=2 --stat HP=12 --class Seer",
    "session start",
    "roll Wren Grit --tag 1:gear --dice 12",
    "roll Wren Wits --tag 1:gear --secret --dice {plain}",
    "roll Wren Grit --tag 1:gear --dice 15",
    "stress Wren +1 --cause 'the water'",
    # Threat 6 or 3, as the secret roll left it: --override must not tell which.
    "roll Wren Grit --tag 1:gear --override --dice 10",
]
GLINTLOCK_DICE = [{"plain": "1"}, {"plain": "20"}]
# The Threat floor a public spend left owed: the secret roll's Threat keeps it open or lets it
# close, and its words give the Threat. The session's end records what lapsed, in public.
GLINTLOCK_LAPSE = [
    "campaign new Veyra --system glintlock",
    "character add Wren --stat Grit=3 --stat Wits=2",
    "character add Tomas --stat Grit=2 --stat Wits=4",
    "session start --title Archive",
    "roll Tomas Grit --tag 1:gear --dice 15",
    "threat add 2 --reason danger",
    "roll Wren Wits --tag 1:gear --secret --dice {plain}",
    "threat spend hard --note collapse",
    "threat add 1 --reason more",
    "session end",
    "session start",
]
GLINTLOCK_LAPSE_DICE = [{"plain": "19"}, {"plain": "5"}]
# A condition the players saw set, set again by a secret fright check, then cleared; and a quirk
# owed by a public fright check assigned while a secret one may owe one too.
GURPS_OWED = [
    "campaign new Hidden --system gurps",
    "character add --sheet {sheet}",
    "session start",
    "condition set Mira stunned",
    "fright Mira --mod -6 --secret --threat ghoul --dice {fright}",
    "condition clear Mira stunned",
    "fright Mira --mod -4 --secret --threat ghoul --dice {quirk}",
    "fright Mira --threat rats --dice 6,6,5 --table-dice 3,3,2",
    "trait assign Mira 'Quirk: hums'",
    "session end",
]
# A public regular contest after a secret one between the same sides: as the next round of one
# still running, or a new contest's first, it would tell how the secret one went.
GURPS_CONTEST = [
    "campaign new Hidden --system gurps",
    "character add Mira --stat DX=12 --skill Stealth=13",
    "session start",
    "contest Mira Stealth Guard 12 --mode regular --secret --dice-a {a} --dice-b 3,3,3",
    "contest Mira Stealth Guard 12 --mode regular --dice-a 3,3,4 --dice-b 4,4,4",
    "session end",
]
GURPS_CONTEST_DICE = [{"a": "3,3,3"}, {"a": "6,6,6"}]
# Whatever follows a secret round between the same sides (a quick contest while the regular one
# may be running, or the next regular contest after a public first round and a secret second)
# is sealed alike whether the secret round settled the contest or not.
GURPS_CONTEST_AFTER = [
    "campaign new Hidden --system gurps",
    "character add Mira --stat DX=12 --skill Stealth=13",
    "session start",
    "contest Mira Stealth Guard 12 --mode regular --secret --dice-a {a} --dice-b 6,6,6",
    "contest Mira Stealth Guard 12 --dice-a 3,3,4 --dice-b 6,6,6",
    "contest Mira Stealth Thug 12 --mode regular --dice-a 6,6,6 --dice-b 6,6,6",
    "contest Mira Stealth Thug 12 --mode regular --secret --dice-a {a} --dice-b 6,6,6",
    "contest Mira Stealth Thug 12 --mode regular --dice-a 3,3,4 --dice-b 6,6,6",
    "session end",
]
# A roll taking the margin of an influence that a secret influence roll may have replaced (a
# win) or left as it was (a loss): sealed either way.
GURPS_INFLUENCE = [
    "campaign new Hidden --system gurps",
    "character add --sheet {sheet}",
    "character add Vesna --npc --stat Will=11 --skill 'Sex Appeal=14'",
    "session start",
    "influence Vesna 'Sex Appeal' Mira --dice-a 3,3,4 --dice-b 3,4,4",
    "influence Vesna 'Sex Appeal' Mira --secret --dice-a {a} --dice-b 4,4,4",
    "roll Mira Lockpicking --mod influence:Vesna:bonus --dice 3,3,3",
    "session end",
]
GURPS_INFLUENCE_DICE = [{"a": "1,1,1"}, {"a": "6,6,6"}]
# A project's day and an influence roll whose influencer takes a secret influence's margin.
GURPS_MARGIN_TAKEN = [
    "campaign new Hidden --system gurps",
    "character add Vesna --npc --stat Will=11 --skill 'Sex Appeal=15'",
    "character add Mira --stat IQ=12 --stat Will=11 --stat HT=10 --stat DX=10"
    " --skill Engineer=12 --skill Diplomacy=14",
    "session start",
    "influence Vesna 'Sex Appeal' Mira --secret --dice-a {a} --dice-b 4,4,3",
    "project start Bridge --skill Engineer --hours 100",
    "project roll Bridge Mira --mod influence:Vesna --dice 3,3,3 --destroyed-dice 1,1",
    "influence Mira Diplomacy 'Harbour master' 10 --mod influence:Vesna --dice-a 3,3,3"
    " --dice-b 3,3,3 --reaction-dice 3,4,4",
    "session end",
]
GURPS_MARGIN_TAKEN_DICE = [{"a": "3,3,3"}, {"a": "4,4,4"}]
GURPS_OWED_DICE = [
    {"fright": "1,1,1", "quirk": "1,1,1"},
    {"fright": "6,6,6 --table-dice 1,1,1 --effect-dice 2,2", "quirk": "6,6,6 --table-dice 2,1,1"},
]


PLAYER_OUTPUTS = [
    "log --player-view",
    "log --player-view --json",
    "log --session 1 --player-view --json",
    "replay --player-view",
    "replay --player-view --json",
    "status --player-view",
    "status --player-view --json",
    "export rolls --player-view --format csv",
    "export rolls --player-view --format jsonl",
    "export rolls --player-view --format html",
    "recap --session 1",
    "recap --session 1 --json",
    "recap --session 1 --html",
]

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
HASH = re.compile(r"\b[0-9a-f]{64}\b")
# A hash as a person is shown it: its start and its end.
SHORT_HASH = re.compile(r"\b[0-9a-f]{12}…[0-9a-f]{2,4}\b")
TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?")
CLOCK = re.compile(r"\b\d{2}:\d{2}\b")


def normalised(text: str) -> str:
    """Ids and hashes replaced by placeholders numbered in order of appearance, and times by
    one placeholder (two evenings are not played to the same second)."""
    text = CLOCK.sub("<clock>", TIME.sub("<time>", text))
    for kind, pattern in (("id", UUID), ("hash", HASH), ("short", SHORT_HASH)):
        seen: dict[str, str] = {}
        text = pattern.sub(lambda m, s=seen, k=kind: s.setdefault(m[0], f"<{k}{len(s)}>"), text)
    return text


def play(folder: Path, evening: list[str], dice: dict[str, str]) -> Run:
    folder.mkdir()
    sheet = folder / "mira.toml"
    sheet.write_text(WARY_MIRA, encoding="utf-8")
    run = Run(folder / "campaign.db", CliRunner())
    for step in evening:
        run.ok(step.format(sheet=sheet, **dice))
    return run


def player_outputs(run: Run) -> dict[str, str]:
    return {command: run.ok(command).stdout for command in PLAYER_OUTPUTS}


@pytest.mark.parametrize(
    ("evening", "dice"),
    [
        (GURPS_EVENING, GURPS_DICE),
        (GLINTLOCK_EVENING, GLINTLOCK_DICE),
        (GLINTLOCK_LAPSE, GLINTLOCK_LAPSE_DICE),
        (GURPS_OWED, GURPS_OWED_DICE),
        (GURPS_CONTEST, GURPS_CONTEST_DICE),
        (GURPS_CONTEST_AFTER, GURPS_CONTEST_DICE),
        (GURPS_INFLUENCE, GURPS_INFLUENCE_DICE),
        (GURPS_MARGIN_TAKEN, GURPS_MARGIN_TAKEN_DICE),
    ],
    ids=[
        "gurps",
        "glintlock",
        "glintlock-lapsed",
        "gurps-owed",
        "gurps-contest",
        "gurps-contest-after",
        "gurps-influence",
        "gurps-margin-taken",
    ],
)
def test_two_evenings_differing_only_in_secret_dice_look_the_same_to_the_players(
    tmp_path, evening, dice
):
    first = play(tmp_path / "first", evening, dice[0])
    second = play(tmp_path / "second", evening, dice[1])
    # The GM's evenings differ (or the test proves nothing) ...
    assert normalised(first.ok("log").stdout) != normalised(second.ok("log").stdout)
    # ... and the players' do not, in any output.
    one, other = player_outputs(first), player_outputs(second)
    for command in PLAYER_OUTPUTS:
        assert normalised(one[command]) == normalised(other[command]), command


# Evenings whose secret event ({secret}) differs in what it was about, not in its dice: its
# task, opponent and score, threat, influencer and subject, modifiers, trait, and kind. What
# follows it (a retry, a round, a Fright Check, a roll taking an influence, a buy-up) must be
# sealed alike, or the players would learn what the sealed event was.
LABELLED = {
    "task": (
        [
            "campaign new L --system gurps",
            "character add --sheet {sheet}",
            "session start",
            "{secret}",
            "roll Mira Lockpicking --task door --retry retry-at-penalty --dice 3,3,4",
            "roll Mira Lockpicking --dice 3,3,4",
            "session end",
        ],
        [
            "roll Mira Lockpicking --task window --retry retry-at-penalty --secret --dice 6,6,6",
            "roll Mira Lockpicking --task door --retry retry-at-penalty --secret --dice 6,6,6",
            "roll Mira Lockpicking --task door --secret --dice 3,3,3",
            "roll Mira Lockpicking --secret --dice 6,6,6",
            "roll Mira Vision --dice 6,6,6",
            "fright Mira --secret --threat ghoul --dice 3,3,3",
        ],
    ),
    "opponent": (
        [
            "campaign new L --system gurps",
            "character add Mira --stat DX=12 --stat Per=12 --skill Stealth=13",
            "session start",
            "{secret}",
            "contest Mira Stealth Guard 12 --mode regular --dice-a 3,3,4 --dice-b 4,4,4",
            "contest Mira Stealth Guard 12 --dice-a 3,3,4 --dice-b 6,6,6",
            "session end",
        ],
        [
            "contest Mira Stealth Guard 12 --mode regular --secret --dice-a 6,6,6 --dice-b 6,6,6",
            "contest Mira Stealth Thug 12 --mode regular --secret --dice-a 6,6,6 --dice-b 6,6,6",
            "contest Mira Stealth Guard 14 --mode regular --secret --dice-a 3,3,3 --dice-b 6,6,6",
            "contest Mira Stealth Guard 12 --secret --dice-a 6,6,6 --dice-b 6,6,6",
            "contest Mira Vision Guard 12 --dice-a 6,6,6 --dice-b 6,6,6",
        ],
    ),
    "threat": (
        [
            "campaign new L --system gurps",
            "character add --sheet {sheet}",
            "session start",
            "{secret}",
            "fright Mira --threat ghoul --dice 4,4,4",
            "session end",
        ],
        [
            "fright Mira --secret --threat ghoul --dice 3,3,3",
            "fright Mira --secret --threat rats --dice 3,3,3",
            "fright Mira --secret --dice 3,3,3",
            "roll Mira Per --secret --dice 3,3,3",
        ],
    ),
    "influencer": (
        [
            "campaign new L --system gurps",
            "character add --sheet {sheet}",
            "character add Vesna --npc --stat Will=11 --skill 'Sex Appeal=14'",
            "character add Aldric --npc --stat Will=11 --skill Fast-Talk=14",
            "session start",
            "influence Vesna 'Sex Appeal' Mira --dice-a 3,3,4 --dice-b 4,4,4",
            "{secret}",
            "roll Mira Lockpicking --mod influence:Vesna:bonus --dice 3,3,3",
            "session end",
        ],
        [
            "influence Vesna 'Sex Appeal' Mira --secret --dice-a 3,3,3 --dice-b 4,4,4",
            "influence Aldric Fast-Talk Mira --secret --dice-a 3,3,3 --dice-b 4,4,4",
            "influence Vesna 'Sex Appeal' Guard 10 --secret --dice-a 3,3,3 --dice-b 4,4,4",
            "contest Aldric Fast-Talk Guard 12 --secret --dice-a 3,3,3 --dice-b 4,4,4",
        ],
    ),
    "modifiers": (
        [
            "campaign new L --system gurps",
            "character add --sheet {sheet}",
            "session start",
            "{secret}",
            "roll Mira Lockpicking --task door --dice 3,3,4",
            "roll Mira Lockpicking --dice 3,3,4",
            "fright Mira --threat ghoul --dice 4,4,4",
            "session end",
        ],
        [
            "roll Mira Lockpicking --secret --mod -2 --dice 5,5,5",
            "roll Mira Lockpicking --secret --mod +3:lighting --dice 5,5,5",
            "roll Mira Lockpicking --secret --mod equipment:good --task door --dice 5,5,5",
        ],
    ),
    "kind": (
        [
            "campaign new L --system gurps --cinematic",
            "character add --sheet {sheet}",
            "points award Mira 5",
            "session start",
            "roll Mira Lockpicking --dice 5,5,5",
            "{secret}",
            "spend Mira buy-up",
            "session end",
        ],
        [
            "roll Mira Per --secret --dice 5,5,5",
            "roll Mira Vision --dice 5,5,5",
            "fright Mira --secret --dice 3,3,3",
        ],
    ),
}


RECEIPT = re.compile(r"tracker:[0-9a-f]+:(\d+):[0-9a-f]+")


@pytest.mark.parametrize("about", list(LABELLED))
def test_what_a_secret_event_was_about_does_not_change_what_the_players_see(tmp_path, about):
    """The same evening with a secret event about other things (another task, opponent,
    threat, influencer, modifier, trait, or another kind of event): the players see the same
    bytes in every output."""
    evening, variants = LABELLED[about]
    runs = [play(tmp_path / str(i), evening, {"secret": v}) for i, v in enumerate(variants)]
    # A receipt names the campaign and a hash, which differ between any two campaigns, and the
    # event it stands on, which must not.
    seen = [
        {**player_outputs(run), "receipt": RECEIPT.sub(r"\1", run.ok("status --receipt").stdout)}
        for run in runs
    ]
    gm = [normalised(run.ok("log --json").stdout) for run in runs]
    for i in range(1, len(runs)):
        assert gm[i] != gm[0], variants[i]  # the GM's evenings differ, or this proves nothing
        for command, shown in seen[i].items():
            assert normalised(shown) == normalised(seen[0][command]), (variants[i], command)


def test_a_danger_sense_roll_does_not_show_whether_it_was_rolled(tmp_path):
    dice = GURPS_DICE[0]
    first = play(tmp_path / "first", GURPS_EVENING, dice)
    second = play(tmp_path / "second", GURPS_EVENING, {**dice, "sense": "1,2,1"})
    # For the GM, the first evening's sense roll failed and Danger Sense was rolled.
    assert "danger-sense" in first.ok("log --json").stdout
    assert "danger-sense" not in second.ok("log --json").stdout
    assert first.event_count() == second.event_count()
    one, other = player_outputs(first), player_outputs(second)
    for command in PLAYER_OUTPUTS:
        assert normalised(one[command]) == normalised(other[command]), command


def test_no_hash_the_players_see_opens_to_any_fall_of_the_secret_dice(tmp_path):
    run = play(tmp_path / "evening", GURPS_EVENING, GURPS_DICE[0])
    seen = set()
    for command in PLAYER_OUTPUTS:
        seen |= set(HASH.findall(run.ok(command).stdout))
    secret = [e for e in run.json("log")["events"] if e["visibility"] == "gm"]
    assert secret
    assert all(e["hash"] in seen for e in secret)
    tried = 0
    for event in secret:
        # A player who knows everything of the event but its salt and its dice.
        fields = {k: v for k, v in event.items() if k not in ("position", "hash")}
        payload = {k: v for k, v in event["payload"].items() if k != "salt"}
        text = canonical_json(payload)
        assert DICE.search(text), event["type"]
        for fall in itertools.product(range(1, 7), repeat=3):
            guess = json.loads(DICE.sub(json.dumps(list(fall)).replace(" ", ""), text, count=1))
            digest = hashlib.sha256(canonical_json({**fields, "payload": guess}).encode())
            assert digest.hexdigest() not in seen
            tried += 1
    assert tried == 216 * len(secret)


# The first three dice written in a payload: the ones a brute force would try.
DICE = re.compile(r"\[[1-6],[1-6],[1-6]\]")


def test_a_revealed_roll_opens_to_the_hash_the_players_kept(tmp_path):
    run = play(tmp_path / "evening", GURPS_EVENING, GURPS_DICE[0])
    kept = {
        e["version"]: e["hash"]
        for e in run.json("log --player-view")["events"]
        if e["payload"] == {"secret": True}
    }
    version = min(kept)
    assert "6,6,5" not in run.ok("log --player-view").stdout
    doc = run.json(f"reveal {version}")
    assert [r["version"] for r in doc["revealed"]] == [version]
    # The players' log now holds the event whole, and its fields hash to what they kept.
    shown = next(e for e in run.json("log --player-view")["events"] if e["version"] == version)
    assert shown["payload"]["dice"] == [6, 6, 5]
    fields = {k: v for k, v in shown.items() if k not in ("position", "hash")}
    assert hashlib.sha256(canonical_json(fields).encode()).hexdigest() == kept[version]
    assert "critical failure" in run.ok("log --player-view").stdout
    # Revealing is for good, and only for what was secret.
    before = run.event_count()
    undo = run(f"undo {before}")
    assert undo.exit_code == 1
    assert "cannot be undone" in undo.stderr
    again = run(f"reveal {version}")
    assert again.exit_code == 1
    assert "revealed already" in again.stderr
    public = run("reveal 5")
    assert public.exit_code == 1
    assert "not secret" in public.stderr
    assert run("reveal").exit_code == 2
    assert run.event_count() == before


def test_no_event_the_players_see_whole_names_a_secret_one(tmp_path):
    # A buy-up names the roll it buys and the outcome it had; a trait owed by a fright check
    # names the check's obligation. Either, public, would tell the players of a secret roll.
    run = play(
        tmp_path / "table",
        [
            "campaign new Hidden --system gurps --cinematic",
            "character add --sheet {sheet}",
            "session start",
            "points award Mira 3",
            "roll Mira Per --secret --dice 6,6,3",
            "spend Mira buy-up",
            "fright Mira --secret --mod alone --threat ghoul --dice 6,6,2 --table-dice 5,5,2",
            "trait assign Mira 'Quirk: hums when afraid'",
            "roll Mira Lockpicking --dice 3,3,3",
            "spend Mira buy-up",
        ],
        {},
    )
    events = run.json("log --player-view")["events"]
    sealed = {e["event_id"] for e in events if e["visibility"] == "gm"}
    assert len(sealed) == 4  # the roll, its buy-up, the fright check, the trait it owed
    for event in events:
        if event["event_id"] not in sealed:
            shown = json.dumps(event["payload"])
            assert not any(i in shown for i in sealed), event["type"]
            assert not any(i[:8] in shown for i in sealed), event["type"]
    # The public roll's buy-up stays public.
    assert events[-1]["type"] == "RollBoughtUp"
    assert events[-1]["event_id"] not in sealed
    assert "Mira buys up a roll: success → critical success" in run.ok("log --player-view").stdout


def test_a_revealed_roll_is_whole_in_the_players_roll_exports(tmp_path):
    run = play(
        tmp_path / "table",
        [
            "campaign new Hidden --system gurps",
            "character add --sheet {sheet}",
            "session start",
            "roll Mira Per --secret --dice 6,6,3",
            "roll Mira Lockpicking --dice 3,3,3",
        ],
        {},
    )

    def secret_row() -> dict:
        lines = run.ok("export rolls --player-view --format jsonl").stdout.splitlines()
        return next(r for r in map(json.loads, lines[1:]) if r["secret"])

    def csv_export() -> str:
        return run.ok("export rolls --player-view --format csv").stdout

    assert (secret_row()["dice"], secret_row()["outcome"]) == ([], None)
    assert "6 6 3" not in csv_export()
    run.ok("reveal --session 1")
    assert (secret_row()["dice"], secret_row()["outcome"]) == ([6, 6, 3], "failure")
    assert secret_row()["p_success"] is not None
    assert "6 6 3" in csv_export()
    report = run.ok("export rolls --player-view --format html").stdout
    assert "failure" in report


def players_fresh(run: Run, command: str = "status --player-view") -> dict:
    """A players' command (``--json``) folded from the first event: on a copy of the database
    without the players' stored states."""
    import sqlite3

    copy = run.db.with_name("fresh.db")
    copy.unlink(missing_ok=True)
    source, target = sqlite3.connect(run.db), sqlite3.connect(copy)
    with target:
        source.backup(target)
    target.execute("DELETE FROM snapshots WHERE projection LIKE 'players%'")
    target.commit()
    source.close()
    target.close()
    return Run(copy, run.runner).json(command)


def test_the_players_stored_state_answers_as_their_fold_from_the_first_event(tmp_path, monkeypatch):
    """With the players' state stored after every look (a long campaign's every few hundred
    events), each look through secret rolls, an older Danger Sense answer, reveals, undos and
    redos says what folding their stream from the first event says; and verify finds every
    stored players' state true to the log."""
    from tracker.app import table

    monkeypatch.setattr(table, "SNAPSHOT_EVERY", 1)
    run = play(tmp_path / "evening", [], {})
    steps = [
        step.format(sheet=tmp_path / "evening" / "mira.toml", **GURPS_DICE[0])
        for step in GURPS_EVENING
    ]
    steps += [
        # Mira's secret rolls before her Fright Check first: it would show how they went.
        "reveal {secret}",
        "reveal {secret}",
        "reveal {fright_check}",
        "session start",
        "roll Mira Per --secret --dice 1,1,1",
        "roll Mira Vision --danger --dice 6,6,5 --danger-dice 3,3,3",
        "undo",
        "redo",
        "reveal {secret}",
        "roll Vora Broadsword --dice 2,2,2",
        "undo",
        "roll Mira Per --secret --dice 3,3,3",
    ]
    stored = 0
    for step in steps:
        if "{" in step:
            shown = run.json("log --player-view")["events"]
            sealed = [e["version"] for e in shown if e["payload"] == {"secret": True}]
            kinds = {e["version"]: e["type"] for e in run.json("log")["events"]}
            fright = [v for v in sealed if kinds[v] == "FrightChecked"]
            step = step.format(secret=sealed[0], fright_check=(fright or [None])[0])
        run.ok(step)
        if not step.startswith("campaign new"):
            assert run.json("status --player-view") == players_fresh(run), step
            stored += 1
        if "session" in run.json("status") and run.json("status")["session"] is not None:
            replay = "replay --player-view"
            assert run.json(replay) == players_fresh(run, replay), step
    assert run.json("verify")["ok"]
    assert stored == len(steps) - 1
    import sqlite3

    with sqlite3.connect(run.db) as conn:
        kept = {p for (p,) in conn.execute("SELECT projection FROM snapshots")}
    assert {"players", "players-session-start"} <= kept


def test_the_players_status_and_replay_of_a_long_campaign_read_the_session_not_the_log(
    tmp_path,
):
    """Asked once, the players' state is stored with their state as the session began: the
    next look, and the players' replay of the session, read the evening, and say what a fold
    from the first event says."""
    from synthetic import generate

    from tracker.app import Tracker

    path = tmp_path / "long.db"
    tracker = Tracker(str(path))
    row = generate(tracker, "Long", "gurps", events=3_000, seed=5)
    tracker.campaigns.campaign_use(row.name)
    # The evening read is one of its own, whatever length the generated log's last one came to.
    if tracker.state(row).current_session is not None:
        tracker.campaigns.session_end()
    tracker.campaigns.session_start("Late night")
    for i in range(20):
        tracker.tracks.note(f"note {i}")
    tracker.player_state()  # the first look folds their stream from the first event
    tracker.close()
    log = Run(path, CliRunner())
    assert log.event_count() > 3_000
    for command in ("status --player-view", "replay --player-view"):
        one_shot = Tracker(str(path))
        seen = {"events": 0}
        read = one_shot.store.read

        def counted(*args, _read=read, _seen=seen, **kwargs):
            for event in _read(*args, **kwargs):
                _seen["events"] += 1
                yield event

        one_shot.store.read = counted
        if command.startswith("status"):
            one_shot.player_state()
        else:
            list(one_shot.history.replay(player_view=True)[1])
        one_shot.close()
        assert seen["events"] < 300, f"{command} read {seen['events']} events"
        assert log.json(command) == players_fresh(log, command)


def test_verify_names_a_players_state_stored_as_if_a_secret_were_revealed(tmp_path, monkeypatch):
    """A players' state forged whole (folded as if an unrevealed secret roll had been revealed,
    and saying so) would show the players what the roll did: verify names it and drops it."""
    import sqlite3

    from tracker.app import Tracker, table
    from tracker.projections.campaign import fold, refold_state, to_snapshot
    from tracker.projections.player import player_stream

    monkeypatch.setattr(table, "SNAPSHOT_EVERY", 1)
    run = play(tmp_path / "evening", GURPS_EVENING, GURPS_DICE[0])
    run.ok("status --player-view")
    tracker = Tracker(str(run.db))
    row = tracker.campaign()
    events = list(tracker.store.read(row.campaign_id))
    secret = next(e.event_id for e in events if e.type == "FrightChecked")
    forged = fold(
        player_stream(iter(events), {secret}),
        row.campaign_id,
        refold_state(row.campaign_id, tracker.state(row).revoked),
    )
    tracker.close()
    doc = {**to_snapshot(forged), "revealed": [secret]}
    with sqlite3.connect(run.db) as conn:
        changed = conn.execute(
            "UPDATE snapshots SET state = ? WHERE projection = 'players'", (json.dumps(doc),)
        ).rowcount
    assert changed == 1
    result = run(["verify", "--json"])
    assert result.exit_code == 1
    assert "counts as revealed an event no reveal in the log names" in result.stdout
    with sqlite3.connect(run.db) as conn:
        assert conn.execute(
            "SELECT count(*) FROM snapshots WHERE projection = 'players'"
        ).fetchone() == (0,)


def test_what_a_secret_roll_opened_is_dismissed_in_secret(tmp_path):
    """A dismissal of the panic check a secret catastrophe called for would tell the players
    what the secret roll gave: it is the GM's secret too."""
    run = Run(tmp_path / "campaign.db", CliRunner())
    for step in [
        "campaign new Dark --system gloom",
        "character add Juno --stat Mind=12 --skill Athletics=12",
        "session start",
        "roll Juno Athletics --dl 3 --secret --dice 1",
        "obligations dismiss 4 --reason 'no panic here'",
    ]:
        run.ok(step)
    shown = run.json("log --player-view --json")["events"]
    assert [e["type"] for e in shown[-2:]] == ["Secret", "Secret"]
    assert "panic" not in run.ok("log --player-view --json").stdout


def test_a_fright_check_counting_a_secret_one_is_secret_too(tmp_path):
    """Its modifier for previous exposure would tell the players that a secret event was a
    Fright Check against the same threat: the later check is kept secret, and the GM told.
    So is one against another threat, or the players would learn which threat the secret one
    was about; once the secret is revealed, a check is public again."""
    run = play(tmp_path / "evening", GURPS_EVENING[:4], {})
    run.ok("fright Mira --secret --threat ghoul --dice 3,3,3")
    checked = run.ok("fright Mira --threat ghoul --dice 4,4,4")
    assert (
        "kept secret: secret event 5, not revealed, could be a check against this threat"
        in checked.stdout
    )
    shown = run.ok("log --player-view --json").stdout
    assert "exposure" not in shown
    assert [e["type"] for e in json.loads(shown)["events"][-2:]] == ["Secret", "Secret"]
    run.ok("fright Mira --threat rats --dice 4,4,4")
    assert run.json("log --player-view")["events"][-1]["type"] == "Secret"
    # With every secret about Mira shown, a check against another threat is public.
    run.ok("reveal 5")
    run.ok("reveal 6")
    run.ok("reveal 7")
    run.ok("fright Mira --threat bats --dice 4,4,4")
    assert run.json("log --player-view")["events"][-1]["type"] == "FrightChecked"


def test_a_receipt_never_names_an_older_secret_event_whose_hash_has_no_salt(tmp_path):
    """An older release's secret roll has no salt: the players' view withholds its hash, as
    its dice could be tried against it. A receipt taken while it is the head names the event
    before it instead, which verify then holds the log to."""
    from tracker.events.envelope import chain_fields, event_hash

    run = play(tmp_path / "evening", GURPS_EVENING[:4], {})
    run.ok("roll Mira Lockpicking --secret --dice 6,6,5")
    lines = run.ok("export events").stdout.splitlines()
    header, docs = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    prev = None
    for doc in docs:
        if doc["visibility"] == "gm":
            doc["payload"].pop("salt")
        doc["prev_hash"] = prev or doc["prev_hash"]
        fields = {k: doc[k] for k in doc if k not in ("position", "hash")}
        doc["hash"] = prev = event_hash(chain_fields(**fields))
    header["campaigns"] = {docs[0]["campaign_id"]: prev}
    older = tmp_path / "older.db"
    dump = "\n".join(json.dumps(d) for d in [header, *docs]) + "\n"
    assert run(["--db", str(older), "import", "-"], input=dump).exit_code == 0
    shown = run.json(f"--db {older} log --player-view --json")["events"]
    assert shown[-1]["hash"] is None
    receipt = run.ok(f"--db {older} status --receipt").stdout.strip()
    assert receipt.split(":")[2] == str(len(docs) - 1)
    assert prev[:16] not in receipt
    kept = tmp_path / "receipt.txt"
    kept.write_text(receipt + "\n")
    assert run(["--db", str(older), "verify", "--against", str(kept)]).exit_code == 0


@pytest.mark.parametrize(
    "steps",
    [
        [
            "roll Mira Lockpicking --task door --secret --dice 6,6,6",
            "roll Mira Lockpicking --task door --retry retry-at-penalty --secret --dice 3,3,3",
        ],
        [
            "influence Vesna 'Sex Appeal' Mira --secret --dice-a 3,3,4 --dice-b 4,4,4",
            "roll Mira Lockpicking --mod influence:Vesna --secret --dice 3,3,3",
        ],
        [
            "fright Mira --threat ghoul --secret --dice 3,3,3",
            "fright Mira --threat ghoul --secret --dice 3,3,4",
        ],
        [
            "contest Mira Lockpicking Guard 12 --mode regular --secret --dice-a 6,6,6 "
            "--dice-b 6,6,6",
            "contest Mira Lockpicking Guard 12 --mode regular --secret --dice-a 3,3,3 "
            "--dice-b 6,6,6",
        ],
    ],
    ids=["retry", "influence", "fright", "contest"],
)
def test_an_event_is_revealed_only_after_the_secrets_its_decision_counted(tmp_path, steps):
    """Its retry penalty, influence margin, exposure count or round number would show how the
    earlier secret went: the reveal is refused, logs nothing, and goes through once that one is
    revealed; a secret about another character holds nothing back."""
    run = play(tmp_path / "evening", GURPS_EVENING[:4], {})
    run.ok("character add Vesna --npc --stat Will=11 --skill 'Sex Appeal=14'")
    run.ok("roll Vora Broadsword --secret --dice 6,6,6")  # about another character
    first = run.json(steps[0] + " --json")["event_id"]
    second = run.json(steps[1] + " --json")["event_id"]
    count = run.event_count()
    refused = run(["reveal", second])
    assert refused.exit_code == 1, refused.output
    [line] = refused.stderr.strip().splitlines()
    assert "which would show through it; reveal it first (`tracker reveal" in line
    assert run.event_count() == count
    run.ok(f"reveal {first}")
    run.ok(f"reveal {second}")
    shown = {e["event_id"]: e["type"] for e in run.json("log --player-view --json")["events"]}
    assert "Secret" not in (shown[first], shown[second])


def _last_id(run: Run) -> str:
    return run.json("log --json")["events"][-1]["event_id"]


@pytest.mark.parametrize(
    ("setup", "cause", "settles"),
    [
        (
            ["campaign new S --system gurps --cinematic", "character add --sheet {sheet}"],
            "roll Mira Lockpicking --secret --dice 6,6,5",
            ["points award Mira 10", "spend Mira buy-up"],
        ),
        (
            ["campaign new S --system gurps", "character add --sheet {sheet}"],
            "fright Mira --threat ghoul --secret --dice 6,6,2 --table-dice 5,5,1",
            ["trait assign Mira 'Quirk: hums'"],
        ),
        (
            ["campaign new S --system gurps", "character add --sheet {sheet}"],
            "fright Mira --secret --dice 6,6,2 --table-dice 5,5,2",
            ["condition clear Mira stunned"],
        ),
        (
            ["campaign new S --system gloom", "character add Kade --skill Athletics=12"],
            "roll Kade Athletics --dl 6 --dice 1 --secret",
            ["obligations dismiss 4 --reason 'not here'"],
        ),
    ],
    ids=["buy-up", "quirk", "clear", "dismissal"],
)
def test_what_settles_a_sealed_roll_is_revealed_only_after_it(tmp_path, setup, cause, settles):
    """A buy-up, an assignment, a clear or a dismissal names what the sealed roll did: shown
    whole on its own, it would tell the players how that roll went."""
    run = play(tmp_path / "evening", [*setup, "session start"], {})
    run.ok(cause)
    sealed = _last_id(run)
    for step in settles:
        run.ok(step)
    settling = _last_id(run)
    assert run.json("log --json")["events"][-1]["visibility"] == "gm"
    refused = run(["reveal", settling])
    assert refused.exit_code == 1, refused.output
    assert "which would show through it" in refused.stderr
    run.ok(f"reveal {sealed}")
    run.ok(f"reveal {settling}")


def test_a_secret_undone_before_a_roll_was_decided_holds_back_no_reveal(tmp_path):
    """The retry after an undone secret attempt counted no earlier attempt: it is revealed on
    its own, and the attempt taken back stays sealed."""
    run = play(tmp_path / "evening", GURPS_EVENING[:4], {})
    run.ok("roll Mira Lockpicking --task vault --retry retry-at-penalty --secret --dice 6,6,6")
    run.ok("undo")
    run.ok("roll Mira Lockpicking --task vault --secret --dice 3,3,3")
    run.ok(f"reveal {_last_id(run)}")


@pytest.mark.parametrize(
    ("steps", "sealed_at", "later_at"),
    [
        (
            [
                "campaign new N --system gloom",
                "character add Juno --stat Mind=8 --skill Athletics=10",
                "session start",
                "roll Juno Athletics --dl 6 --dice 1",
                "panic Juno Mind --secret --dice 10",
                "roll Juno Athletics --dl 2 --secret --dice 5,5",
            ],
            5,
            6,
        ),
        (
            [
                "campaign new A --system glintlock",
                "character add Sela --stat Grace=3 --stat Wits=2",
                "session start",
                "gain Sela deep-cut",
                "spend Sela advantage-die",
                "roll Sela Grace --tag 1:gear --tag 1:power --tag 1:scene --secret --seed 1",
                "roll Sela Wits --tag 1:gear --secret --seed 2",
            ],
            6,
            7,
        ),
        (
            [
                "campaign new G --system gurps",
                "character add Vesna --npc --stat Will=11 --skill 'Sex Appeal=15'",
                "character add Mira --stat IQ=12 --stat Will=11",
                "session start",
                "influence Vesna 'Sex Appeal' Mira --secret --dice-a 3,3,3 --dice-b 4,4,3",
                "contest Mira IQ Guard 10 --mod-a influence:Vesna --dice-a 3,3,3 --dice-b 3,3,3",
            ],
            5,
            6,
        ),
    ],
    ids=["gloom-panic", "glintlock-advantage-die", "gurps-contest-taking-a-margin"],
)
def test_a_later_roll_of_a_character_a_sealed_event_was_about_waits_for_it(
    tmp_path, steps, sealed_at, later_at
):
    """What the sealed event left on the character (panic, a die it did not use, a margin) is
    in the later roll's inputs, and so is its absence: the later roll is revealed after it."""
    run = play(tmp_path / "evening", steps, {})
    refused = run(["reveal", str(later_at)])
    assert refused.exit_code == 1, refused.output
    assert f"counts secret event {sealed_at}," in refused.stderr
    run.ok(f"reveal {sealed_at}")
    run.ok(f"reveal {later_at}")


def test_the_gm_is_told_which_secret_kept_a_roll_secret_and_revealing_it_lets_the_next_show(
    tmp_path,
):
    run = play(tmp_path / "evening", GURPS_EVENING[:4], {})
    run.ok("roll Mira Lockpicking --task window --retry retry-at-penalty --secret --dice 6,6,6")
    retried = run.ok("roll Mira Lockpicking --task door --dice 3,3,4")
    assert "kept secret: secret event 5, not revealed, could be an earlier attempt" in (
        retried.stdout
    )
    assert run.json("log --player-view")["events"][-1]["type"] == "Secret"
    run.ok("reveal 5")
    run.ok("reveal 6")
    again = run.ok("roll Mira Lockpicking --task door --dice 3,3,4")
    assert "kept secret" not in again.stdout
    assert run.json("log --player-view")["events"][-1]["type"] == "RollMade"
