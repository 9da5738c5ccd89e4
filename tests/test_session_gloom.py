"""A Gloom evening at the table, driven through the CLI with physical dice.

Each step is checked the way a GM reads the table: what the command answered, then the
characters' tracks (stress, conditions) and the open obligations. Expected outcomes come from the
rulebook (Gloom) and tracker/systems/gloom/RULINGS.md, worked by hand. The crew, from the fixture
sheets: Kade (Hacking 16, Interface 18, Piloting 15, Athletics 15, Mind 15) and Juno (Hacking 14,
Piloting 21, Mind 12).
"""

from __future__ import annotations

from pathlib import Path

import pytest

SHEETS = Path(__file__).resolve().parent.parent / "fixtures" / "sheets"
CALM = {"stress": 0, "conditions": []}


@pytest.fixture
def neon(run):
    run.ok("campaign new Neon --system gloom")
    for name in ("kade", "juno"):
        run.ok(["character", "add", "--sheet", str(SHEETS / f"gloom-{name}.toml")])
    run.ok("session start")
    return run


def state(run, *, owed=(), **tracks) -> list[dict]:
    """Check each named character's tracks and the open obligations; return the obligations.

    ``tracks`` maps a character to the fields of ``status NAME --json`` it must show (conditions
    by name); ``owed`` lists the open obligations as (kind, character name).
    """
    ids = {}
    for name, expected in tracks.items():
        shown = run.json(["status", name])
        shown["conditions"] = [c["name"] for c in shown["conditions"]]
        assert {key: shown[key] for key in expected} == expected, name
    for character in run.json("status")["characters"]:
        ids[character["character_id"]] = character["name"]
    obligations = run.json("obligations")["obligations"]
    assert [(o["kind"], ids.get(o["character_id"])) for o in obligations] == list(owed)
    return obligations


def refused(run, command: str, words: str, code: int = 1) -> None:
    """The command is refused with one sentence on stderr, and nothing is appended."""
    before = run.event_count()
    result = run(command)
    assert result.exit_code == code, (command, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert words in lines[0]
    assert run.event_count() == before


def kinds(obligations: list[dict]) -> list[str]:
    return [o["kind"] for o in obligations]


# -- Hacking 14 against DL 5 ---------------------------------------------------------------------

# The rulebook's door: window 6-14, and the DL itself (5) succeeds with a complication.
HACKING_14_DL_5 = [
    (12, "success", True),
    (15, "overshoot", False),
    (5, "complication", True),
    (4, "undershoot", False),
    (14, "perfect", True),
    (13, "special", True),
    (6, "success", True),
    (2, "undershoot", False),
]


def test_hacking_14_against_dl_5_then_a_catastrophe_and_panic(neon):
    run = neon
    for die, outcome, success in HACKING_14_DL_5:
        doc = run.json(f"roll Juno Hacking --dl 5 --dice {die}")
        assert (doc["effective"], doc["dl"], doc["mode"]) == (14, 5, "normal")
        assert (doc["dice"], doc["kept"]) == ([die], die)
        assert (doc["outcome"], doc["success"]) == (outcome, success), die
        assert doc["window"]["faces"] == list(range(5, 15))
        assert doc["obligations_opened"] == []
        state(run, Juno=CALM)

    # A natural 1 is a catastrophe, and a catastrophe calls a panic check.
    disaster = run.json("roll Juno Hacking --dl 5 --dice 1")
    assert (disaster["outcome"], disaster["success"]) == ("catastrophe", False)
    assert kinds(disaster["obligations_opened"]) == ["panic-check"]
    owed = state(run, owed=[("panic-check", "Juno")], Juno=CALM)
    assert owed[0]["opened_by"] == disaster["event_id"]

    # The panic check: Mind 12 at DL 0; 15 overshoots, so Juno panics.
    panic = run.json("panic Juno Mind --dice 15")
    assert (panic["kind"], panic["effective"], panic["dl"]) == ("panic", 12, 0)
    assert (panic["outcome"], panic["success"]) == ("overshoot", False)
    assert kinds(panic["obligations_discharged"]) == ["panic-check"]
    state(run, Juno={"stress": 0, "conditions": ["panicked"]})

    # Panicked: disadvantage, two dice, the worst kept.
    refused(run, "roll Juno Hacking --dl 5 --dice 12", "needs two d20", code=2)
    worst = run.json("roll Juno Hacking --dl 5 --dice 12,3")
    assert (worst["mode"], worst["kept"], worst["outcome"]) == ("disadvantage", 3, "undershoot")
    assert "panicked" in worst["reasons"]
    state(run, Juno={"conditions": ["panicked"]})

    # Two successes of the same rank: disadvantage keeps the lower die.
    lower = run.json("roll Juno Hacking --dl 5 --dice 8,11")
    assert (lower["kept"], lower["outcome"]) == (8, "success")
    state(run, Juno={"conditions": ["panicked"]})

    # Piloting 21 gives advantage by itself; with the panic's disadvantage it is one die.
    even = run.json("roll Juno Piloting --dl 5 --dice 12")
    assert (even["mode"], even["kept"], even["outcome"]) == ("normal", 12, "success")
    state(run, Juno={"conditions": ["panicked"]})

    cleared = run.json("condition clear Juno panicked")
    assert cleared["condition"] == "panicked"
    state(run, Juno=CALM)

    # Calm again, rank 21 rolls with advantage: two dice, the best kept; the ceiling is 20.
    refused(run, "roll Juno Piloting --dl 5 --dice 12", "needs two d20", code=2)
    best = run.json("roll Juno Piloting --dl 5 --dice 3,20")
    assert (best["mode"], best["kept"], best["outcome"]) == ("advantage", 20, "perfect")
    assert any("21" in reason for reason in best["reasons"])
    state(run, Juno=CALM)

    # The kept die decides: an undershoot beats a catastrophe, so no panic check is called.
    spared = run.json("roll Juno Piloting --dl 5 --dice 1,3")
    assert (spared["kept"], spared["outcome"]) == (3, "undershoot")
    assert spared["obligations_opened"] == []
    state(run, Juno=CALM)
    assert run.json("verify")["ok"] is True


# -- Panic checks: called off, dismissed, passed ------------------------------------------------


def test_a_panic_check_can_be_called_off_dismissed_or_passed(neon):
    run = neon

    quiet = run.json("roll Kade Hacking --dl 5 --dice 1 --no-panic")
    assert quiet["outcome"] == "catastrophe"
    assert quiet["obligations_opened"] == []
    state(run, Kade=CALM)

    loud = run.json("roll Kade Hacking --dl 5 --dice 1")
    owed = state(run, owed=[("panic-check", "Kade")], Kade=CALM)
    assert owed[0]["opened_by"] == loud["event_id"]
    ident = owed[0]["id"]

    dismissed = run.json(["obligations", "dismiss", ident, "--reason", "the GM waves it"])
    assert [o["id"] for o in dismissed["obligations_discharged"]] == [ident]
    state(run, Kade=CALM)
    refused(run, f"obligations dismiss {ident}", f"No open obligation {ident}")
    state(run, Kade=CALM)

    # In plain text the GM reads what is owed right under the roll.
    shown = run.ok("roll Kade Hacking --dl 5 --dice 1").stdout
    owed = state(run, owed=[("panic-check", "Kade")], Kade=CALM)
    assert owed[0]["what"] in shown

    # Mind 15 at DL 0: 9 succeeds, so no panic.
    steady = run.json("panic Kade Mind --dice 9")
    assert (steady["outcome"], steady["success"]) == ("success", True)
    assert kinds(steady["obligations_discharged"]) == ["panic-check"]
    state(run, Kade=CALM)


# -- Stress at the campaign's limit ---------------------------------------------------------------


def test_a_panic_check_owed_at_a_sessions_end_is_still_owed_not_lapsed(neon):
    """Only what lapses is said to lapse, and it is closed; a panic check does not lapse: the
    session's end says it is still owed, every view keeps it owed, and it is checked when play
    resumes (or dismissed between sessions)."""
    run = neon
    run.ok("roll Juno Hacking --dl 5 --dice 1")
    run.ok("roll Kade Hacking --dl 5 --dice 1")
    ended = run.json("session end")
    assert (ended["lapsed"], ended["obligations_discharged"]) == ([], [])
    assert kinds(ended["obligations"]) == ["panic-check", "panic-check"]
    assert run.json("status --player-view")["obligations"] == 2
    kade = state(run, owed=[("panic-check", "Juno"), ("panic-check", "Kade")])[1]
    run.ok(f"obligations dismiss {kade['id']} --reason 'the scene is over'")
    run.ok("session start")
    checked = run.json("panic Juno Mind --dice 9")
    assert kinds(checked["obligations_discharged"]) == ["panic-check"]
    state(run, owed=[])
    assert run.json("verify")["ok"] is True


def test_session_end_says_what_is_still_owed(neon):
    neon.ok("roll Juno Hacking --dl 5 --dice 1")
    out = neon.ok("session end").stdout
    assert "Lapsed" not in out
    assert "Open obligations: none." not in out
    assert "Still owed: Juno rolled a catastrophe: call a panic check" in out


def test_stress_at_the_limit_gives_disadvantage(neon):
    run = neon

    run.ok('stress Kade +5 --cause "ICE burn"')
    near = run.json("roll Kade Hacking --dl 5 --dice 12")
    assert (near["mode"], near["outcome"]) == ("normal", "success")
    state(run, Kade={"stress": 5})

    limit = run.json("stress Kade +1")
    assert (limit["after"], limit["limit"]) == (6, 6)
    state(run, Kade={"stress": 6})

    refused(run, "roll Kade Hacking --dl 5 --dice 12", "needs two d20", code=2)
    # 12 is a success and 16 a perfect success: disadvantage keeps the 12.
    strained = run.json("roll Kade Hacking --dl 5 --dice 12,16")
    assert (strained["mode"], strained["kept"]) == ("disadvantage", 12)
    assert strained["outcome"] == "success"
    assert any("stress" in reason for reason in strained["reasons"])
    state(run, Kade={"stress": 6})

    over = run.json("stress Kade +1")
    assert over["after"] == 6
    state(run, Kade={"stress": 6})

    eased = run.json("stress Kade -1")
    assert (eased["before"], eased["after"]) == (6, 5)
    state(run, Kade={"stress": 5})

    # One die again; a perfect success lets the player restore 1 stress.
    perfect = run.json("roll Kade Hacking --dl 5 --dice 16")
    assert (perfect["mode"], perfect["outcome"]) == ("normal", "perfect")
    assert any("restore 1 stress" in note for note in perfect["notes"])
    state(run, Kade={"stress": 5})
    restored = run.json('stress Kade -1 --cause "perfect success"')
    assert restored["after"] == 4
    state(run, Kade={"stress": 4})


# -- Contested rolls from the rulebook -----------------------------------------------------------


def test_the_rulebooks_contested_rolls(neon):
    run = neon

    # Scenario A, the hacker duel: Hacking 16 rolls 14, the Corp netrunner (14) rolls 5.
    duel = run.json('contest Kade Hacking "Corp netrunner" 14 --dice-a 14 --dice-b 5')
    assert duel["winner"] == "Kade"
    assert (duel["a"]["effective"], duel["a"]["kept"], duel["a"]["success"]) == (16, 14, True)
    assert duel["b"]["character"] == "Corp netrunner"
    assert (duel["b"]["kept"], duel["b"]["success"]) == (5, True)
    state(run, Kade=CALM)

    # Scenario B, the dogfight: Piloting 15 rolls 18 (over), the Enemy Ace (13) rolls 4.
    dogfight = run.json('contest Kade Piloting "Enemy Ace" 13 --dice-a 18 --dice-b 4')
    assert dogfight["winner"] == "Enemy Ace"
    assert (dogfight["a"]["outcome"], dogfight["b"]["success"]) == ("overshoot", True)
    state(run, Kade=CALM)

    # Scenario C, the messy brawl: both roll over their stat: a stalemate.
    brawl = run.json('contest Kade Athletics "Drunk marine" 12 --dice-a 17 --dice-b 16')
    assert brawl["winner"] is None
    assert (brawl["a"]["outcome"], brawl["b"]["outcome"]) == ("overshoot", "overshoot")
    state(run, Kade=CALM)

    # Both succeed: the higher die wins, whoever acts.
    held = run.json('contest Kade Hacking "Corp netrunner" 14 --dice-a 6 --dice-b 13')
    assert held["winner"] == "Corp netrunner"
    state(run, Kade=CALM)

    # A catastrophe in a contest calls a panic check too.
    fumble = run.json("contest Kade Athletics Guard 12 --dice-a 1 --dice-b 8")
    assert fumble["winner"] == "Guard"
    assert kinds(fumble["obligations_opened"]) == ["panic-check"]
    state(run, owed=[("panic-check", "Kade")], Kade=CALM)
    run.ok("panic Kade Mind --dice 9")
    state(run, Kade=CALM)

    # Juno's Piloting 21 keeps its advantage in a contest.
    refused(run, 'contest Juno Piloting "Enemy Ace" 13 --dice-a 12 --dice-b 4', "two d20", code=2)
    ace = run.json('contest Juno Piloting "Enemy Ace" 13 --dice-a 3,18 --dice-b 4')
    assert (ace["winner"], ace["a"]["dice"], ace["a"]["kept"]) == ("Juno", [3, 18], 18)
    state(run, Juno=CALM)
    assert run.json("verify")["ok"] is True


# -- The dynamic floor: the sniper duel ----------------------------------------------------------

# The target (Interface 14) rolls 11; the sniper (Interface 18) must roll 12-18.
SNIPER_SHOTS = [
    (5, "Target", "undershoot"),
    (15, "Kade", "success"),
    (11, "Target", "undershoot"),
    (12, "Kade", "success"),
    (18, "Kade", "perfect"),
    (19, "Target", "overshoot"),
]


def test_the_dynamic_floor_sniper_duel(neon):
    run = neon
    for shot, winner, outcome in SNIPER_SHOTS:
        doc = run.json(
            f"contest Kade Interface Target 14 --mode dynamic --dice-a {shot} --dice-b 11"
        )
        assert doc["mode"] == "dynamic"
        assert (doc["b"]["kept"], doc["b"]["success"]) == (11, True)
        assert (doc["a"]["effective"], doc["a"]["kept"], doc["a"]["outcome"]) == (18, shot, outcome)
        assert doc["winner"] == winner, shot
        state(run, Kade=CALM)

    # The target fails to dodge (16 is over 14): the sniper rolls against the base DL alone.
    open_shot = run.json("contest Kade Interface Target 14 --mode dynamic --dice-a 3 --dice-b 16")
    assert (open_shot["b"]["success"], open_shot["a"]["outcome"]) == (False, "success")
    assert open_shot["winner"] == "Kade"
    state(run, Kade=CALM)


# -- Ties ---------------------------------------------------------------------------------------


def test_ties_follow_the_campaigns_tie_rule(neon):
    run = neon

    # Default (stat): the higher rank wins; equal ranks, the defender.
    talent = run.json("contest Kade Hacking Enemy 14 --dice-a 12 --dice-b 12")
    assert talent["winner"] == "Kade"
    state(run, Kade=CALM)
    level = run.json("contest Kade Hacking Rival 16 --dice-a 12 --dice-b 12")
    assert level["winner"] == "Rival"
    state(run, Kade=CALM)

    run.ok("campaign new Strict --system gloom --tie-rule defender")
    run.ok(["character", "add", "--sheet", str(SHEETS / "gloom-kade.toml")])
    run.ok("session start")
    status_quo = run.json("contest Kade Hacking Enemy 14 --dice-a 12 --dice-b 12")
    assert (status_quo["winner"], status_quo["tie_rule"]) == ("Enemy", "defender")
    state(run, Kade=CALM)

    # Dice that differ are not a tie: the higher die still wins.
    clear = run.json("contest Kade Hacking Enemy 14 --dice-a 13 --dice-b 12")
    assert clear["winner"] == "Kade"
    state(run, Kade=CALM)


# Gloom, 'Example Modifiers (Difficulty)': Routine 0, Standard 5, Hard 10, Extreme 15, and
# Impossible: "If DL is higher than your Attribute, you have No Window".
@pytest.mark.parametrize(
    ("name", "dl"), [("routine", 0), ("standard", 5), ("hard", 10), ("extreme", 15), ("Hard", 10)]
)
def test_a_difficulty_by_name_is_the_rulebooks_dl(neon, name, dl):
    named = neon.json(f"roll Kade Hacking --dl {name} --dice 12")
    numbered = neon.json(f"roll Kade Hacking --dl {dl} --dice 12")
    assert named["dl"] == dl
    assert (named["outcome"], named["window"]) == (numbered["outcome"], numbered["window"])
    assert f"DL {dl} ({name.lower()})" in neon.ok("log").stdout


def test_an_impossible_task_has_no_window_and_an_unknown_name_is_refused(neon):
    impossible = neon.json("roll Kade Hacking --dl impossible --dice 12")
    assert impossible["dl"] == 17  # Hacking 16: a DL above it
    assert impossible["window"]["has_window"] is False
    assert not impossible["success"]
    refused(neon, "roll Kade Hacking --dl nightmare --dice 12", "'nightmare' is no DL", code=2)
    refused(neon, "contest Kade Hacking ICE 14 --dl-a brutal", "'brutal' is no DL", code=2)


def test_a_roll_given_no_dl_says_in_its_line_that_it_was_taken_as_routine(neon):
    # Gloom, 'Example Modifiers (Difficulty)': "Routine | 0 | ... (Usually no need for a
    # roll)."; a roll without --dl is at DL 0.
    shown = neon.ok("roll Kade Hacking --dice 12").stdout.splitlines()
    assert "· DL 0 (routine) ·" in shown[0]
    assert neon.ok("log").stdout.splitlines()[-1].endswith("→ success · DL 0 (routine)")
    # A panic check is at DL 0 by the rules, not because the task is routine.
    neon.ok("roll Kade Hacking --dice 1")
    panic = neon.ok("panic Kade Mind --dice 9").stdout.splitlines()
    assert "· DL 0 ·" in panic[0]
    assert neon.ok("log").stdout.splitlines()[-1].endswith("→ success · DL 0")


def test_a_dl_past_the_d20s_faces_is_refused_and_impossible_still_logs(neon):
    # Gloom, 'The Skill Check': the DL is the floor, "You must roll ABOVE this number"; a
    # d20 has no face above 20.
    for command in ("roll Kade Hacking --dl 25 --dice 12", "contest Kade Hacking ICE 14 --dl-a 21"):
        refused(neon, command, "give a DL from 0 to 20, or `impossible`", code=2)
    at_20 = neon.json("roll Juno Piloting --dl 20 --dice 20,3")
    assert (at_20["dl"], at_20["outcome"]) == (20, "complication")
    master = neon.json("roll Juno Piloting --dl impossible --dice 20,3")
    assert (master["dl"], master["window"]["has_window"]) == (22, False)


def test_a_contest_side_rolls_with_the_advantage_or_disadvantage_the_gm_gives(neon):
    # Gloom, 'Advantage and Disadvantage': "Roll 2d20 and take the best result" / "worst".
    helped = neon.json("contest Kade Hacking ICE 14 --advantage-a --dice-a 3,12 --dice-b 9")
    assert (helped["a"]["dice"], helped["a"]["kept"], helped["winner"]) == ([3, 12], 12, "Kade")
    hurt = neon.json("contest Kade Hacking ICE 14 --disadvantage-b --dice-a 8 --dice-b 9,13")
    assert (hurt["b"]["kept"], hurt["winner"]) == (9, "ICE")
    # Juno's Piloting 21 gives mastery's advantage; a wound's disadvantage cancels it.
    even = neon.json("contest Juno Piloting Ace 13 --disadvantage-a --dice-a 7 --dice-b 5")
    assert even["a"]["dice"] == [7]
    refused(neon, "contest Kade Hacking ICE 14 --advantage-a --dice-a 3 --dice-b 9", "two d20", 2)
    shown = neon.ok(
        "contest Kade Hacking ICE 14 --dl-a hard --advantage-a --dice-a 3,12 --dice-b 9"
    )
    assert "Kade's DL 10; Kade rolls with advantage" in shown.stdout
    assert "Kade rolls with advantage" in neon.ok("log").stdout


def test_the_odds_take_a_difficulty_by_name(run):
    assert run.json("odds gloom --rank 14 --dl hard") == run.json("odds gloom --rank 14 --dl 10")


def test_a_condition_the_rules_do_not_apply_is_named_on_the_roll(neon):
    # Gloom, 'Advantage and Disadvantage': panic gives disadvantage, said as the reason; a
    # condition the GM named otherwise is applied by nobody, so the line names it.
    neon.ok("condition set Kade panicked")
    neon.ok("condition set Kade 'cracked ribs'")
    shown = neon.ok("roll Kade Hacking --dl 5 --dice 9,10").stdout
    assert "disadvantage: panicked" in shown
    assert "Also on Kade: cracked ribs; this roll applied nothing for it" in shown
    assert "panicked;" not in shown
