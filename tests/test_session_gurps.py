"""A GURPS evening at the table, driven through the CLI with physical dice.

Each step is checked the way a GM reads the table: what the command answered, then the
characters' tracks (HP, FP, points, conditions, traits) and the open obligations. Expected numbers
come from the GURPS rules and tracker/systems/gurps/RULINGS.md, worked by hand. From the
fixture sheets: Mira (Lockpicking 12, Will 12, HT 11, FP 11), Aldric (IQ 14, Will 14, Combat
Reflexes, Lockpicking defaulting to IQ-5) and Vora (Broadsword 16, ST 12, Will 11, HP 12).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rulebooks import rulebook

SHEETS = Path(__file__).resolve().parent.parent / "fixtures" / "sheets"
MIRA = {"hp": 10, "fp": 11, "conditions": [], "traits_gained": []}


@pytest.fixture
def iron(run):
    run.ok("campaign new Iron --system gurps")
    for name in ("mira", "aldric", "vora"):
        run.ok(["character", "add", "--sheet", str(SHEETS / f"gurps-{name}.toml")])
    run.ok("session start")
    return run


def state(run, *, owed=(), **tracks) -> list[dict]:
    """Check each named character's tracks and the open obligations; return the obligations.

    ``tracks`` maps a character to the fields of ``status NAME --json`` it must show (conditions
    by name); ``owed`` lists the open obligations as (kind, character name or None).
    """
    for name, expected in tracks.items():
        shown = run.json(["status", name])
        shown["conditions"] = [c["name"] for c in shown["conditions"]]
        assert {key: shown[key] for key in expected} == expected, name
    ids = {c["character_id"]: c["name"] for c in run.json("status")["characters"]}
    obligations = run.json("obligations")["obligations"]
    assert [(o["kind"], ids.get(o["character_id"])) for o in obligations] == list(owed)
    return obligations


def refused(run, command: str | list[str], words: str, code: int = 1) -> None:
    """The command is refused with one sentence on stderr, and nothing is appended."""
    before = run.event_count()
    result = run(command)
    assert result.exit_code == code, (command, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert words in lines[0]
    assert run.event_count() == before


def _last_event(run):
    """The campaign's newest stored event, as verify reads it."""
    from tracker.app.tracker import Tracker

    tracker = Tracker(str(run.db))
    try:
        return list(tracker.store.read(tracker.campaign().campaign_id))[-1]
    finally:
        tracker.close()


def rolled(doc: dict) -> tuple:
    """(effective, total, outcome, margin) of a success roll."""
    return doc["effective"], doc["total"], doc["outcome"], doc["margin"]


def mods(doc: dict) -> list[tuple[int, str]]:
    return [(m["value"], m["label"]) for m in doc["modifiers"]]


def kinds(obligations: list[dict]) -> list[str]:
    return [o["kind"] for o in obligations]


# -- Success rolls, modifiers, the floor of 3 ---------------------------------------------------


def test_miras_lock_with_modifiers_and_the_floor_of_three(iron):
    run = iron

    # "Her Lockpicking skill is 12. She rolls 3d6 and gets an 8 ... she succeeds."
    lock = run.json("roll Mira Lockpicking --dice 2,3,3")
    assert (lock["base"], lock["base_source"], lock["modifiers"]) == (12, "skill", [])
    assert rolled(lock) == (12, 8, "success", 4)
    assert (lock["dice"], lock["success"]) == ([2, 3, 3], True)
    state(run, Mira=MIRA)

    # "If she had rolled a 15, she would fail."
    fail = run.json("roll Mira Lockpicking --dice 6,5,4")
    assert rolled(fail) == (12, 15, "failure", -3)
    state(run, Mira=MIRA)

    assert rolled(run.json("roll Mira Lockpicking --dice 1,1,2")) == (12, 4, "critical_success", 8)
    fumble = run.json("roll Mira Lockpicking --dice 6,6,5")
    assert rolled(fumble) == (12, 17, "critical_failure", -5)
    state(run, Mira=MIRA)

    # Labelled modifiers and a preset: -2 darkness, hard task (-4): effective 6.
    dark = run.json("roll Mira Lockpicking --mod -2:darkness --mod hard --dice 1,2,3")
    assert [value for value, _ in mods(dark)] == [-2, -4]
    assert mods(dark)[0] == (-2, "darkness")
    assert "hard" in mods(dark)[1][1]
    assert rolled(dark) == (6, 6, "success", 0)
    state(run, Mira=MIRA)

    # "rolling 16 on a skill of 6": 10 or more above effective skill is a critical failure.
    worse = run.json("roll Mira Lockpicking --mod -2:darkness --mod hard --dice 6,6,4")
    assert rolled(worse) == (6, 16, "critical_failure", -10)
    state(run, Mira=MIRA)

    # Fine tools (+2) and four times the time (+2): effective 16, where a 6 is critical.
    careful = run.json("roll Mira Lockpicking --mod equipment:fine --mod time:4x --dice 2,2,2")
    assert [value for value, _ in mods(careful)] == [2, 2]
    assert rolled(careful) == (16, 6, "critical_success", 10)
    state(run, Mira=MIRA)

    # Below effective skill 3 a character cannot attempt the task...
    refused(
        run,
        ["roll", "Mira", "DX", "--mod", "-11:blind and prone", "--dice", "3,3,3"],
        "cannot be attempted",
    )
    state(run, Mira=MIRA)

    # ... but an active defense is still rolled: only a 3 or 4 saves her.
    saved = run.json(
        ["roll", "Mira", "DX", "--mod", "-11:blind and prone", "--defense", "--dice", "1,1,1"]
    )
    assert (saved["effective"], saved["total"], saved["outcome"]) == (2, 3, "critical_success")
    missed = run.json(
        ["roll", "Mira", "DX", "--mod", "-11:blind and prone", "--defense", "--dice", "2,2,2"]
    )
    assert (missed["effective"], missed["total"], missed["outcome"]) == (2, 6, "failure")
    state(run, Mira=MIRA)
    assert run.json("verify")["ok"] is True


def test_aldrics_default_and_a_skill_without_one(iron):
    run = iron

    # "Lockpicking defaults to IQ-5. If Aldric has IQ 14, he ... roll[s] against 14-5 = 9."
    lock = run.json("roll Aldric Lockpicking --dice 3,3,3")
    assert (lock["base"], lock["base_source"]) == (9, "IQ-5")
    assert rolled(lock) == (9, 9, "success", 0)
    state(run, Aldric={"conditions": []})

    short = run.json("roll Aldric Lockpicking --dice 4,3,3")
    assert rolled(short) == (9, 10, "failure", -1)
    state(run, Aldric={"conditions": []})

    # Climbing defaults to DX-5 on his sheet: 11 - 5 = 6.
    climb = run.json("roll Aldric Climbing --dice 1,2,3")
    assert (climb["base"], climb["base_source"]) == (6, "DX-5")
    assert rolled(climb) == (6, 6, "success", 0)

    # "Alchemy ... no default. You cannot attempt them without training."
    refused(run, "roll Aldric Alchemy --dice 3,3,3", "cannot attempt Alchemy untrained")
    state(run, Aldric={"conditions": []})


def test_a_skill_the_rulebook_gives_no_default_is_never_attempted_untrained(iron):
    """GURPS, 'Default Rolls': "Some skills — like Alchemy, Karate, and all spells — have no
    default. You cannot attempt them without training." A roll or contest of one without the
    skill is refused, and so is a default for one; trained, it rolls as any skill."""
    refused(iron, "roll Vora Karate --dice 3,3,3", "cannot attempt Karate untrained")
    refused(iron, "contest Vora Karate Bandit 10", "cannot attempt Karate untrained")
    refused(iron, "character default Vora Karate DX-5", "Karate has no default")
    refused(iron, 'character default Mira "Alchemy/TL3" IQ-6', "You cannot attempt them")
    iron.ok("character update Vora --skill Karate=12")
    assert rolled(iron.json("roll Vora Karate --dice 3,3,3")) == (12, 9, "success", 3)


def test_repeated_attempts_are_counted_from_the_log(iron):
    run = iron

    first = run.json("roll Mira Lockpicking --task vault --retry retry-at-penalty --dice 6,5,4")
    assert (mods(first), rolled(first)) == ([], (12, 15, "failure", -3))
    state(run, Mira=MIRA)

    # The second attempt after a failure is at -1; the task's mode is remembered.
    second = run.json("roll Mira Lockpicking --task vault --dice 5,4,4")
    assert [value for value, _ in mods(second)] == [-1]
    assert rolled(second) == (11, 13, "failure", -2)
    state(run, Mira=MIRA)

    third = run.json("roll Mira Lockpicking --task vault --dice 4,4,2")
    assert [value for value, _ in mods(third)] == [-2]
    assert rolled(third) == (10, 10, "success", 0)
    state(run, Mira=MIRA)

    # Another task keeps its own count.
    chest = run.json("roll Mira Lockpicking --task chest --retry retry-at-penalty --dice 6,5,4")
    assert mods(chest) == []
    state(run, Mira=MIRA)

    # One chance only: the second attempt is refused.
    bomb = run.json("roll Mira Lockpicking --task bomb --retry one-chance --dice 3,3,3")
    assert bomb["outcome"] == "success"
    refused(run, "roll Mira Lockpicking --task bomb --retry one-chance --dice 3,3,3", "one chance")
    refused(run, "roll Mira Lockpicking --task bomb --dice 3,3,3", "one chance")
    state(run, Mira=MIRA)


# -- Cinematic buy-ups --------------------------------------------------------------------------


def test_a_cinematic_campaign_buys_up_the_last_roll_with_points(run):
    run.ok("campaign new Heroes --system gurps --cinematic")
    run.ok(["character", "add", "--sheet", str(SHEETS / "gurps-mira.toml")])
    run.ok("session start")

    miss = run.json("roll Mira Lockpicking --dice 6,5,4")
    assert rolled(miss) == (12, 15, "failure", -3)
    state(run, Mira={"points": 0})
    refused(run, "spend Mira buy-up", "Mira has 0 character points and that buy-up costs 1; award")
    state(run, Mira={"points": 0})

    awarded = run.json('points award Mira 3 --reason "a bold plan"')
    assert awarded["total"] == 3
    state(run, Mira={"points": 3})

    again = run.json("roll Mira Lockpicking --dice 6,5,4")
    assert again["outcome"] == "failure"
    bought = run.json("spend Mira buy-up")
    assert bought["roll_event_id"] == again["event_id"]
    assert (bought["from"], bought["to"]) == ("failure", "success")
    assert (bought["cost"], bought["points_left"]) == (1, 2)
    state(run, Mira={"points": 2})

    # The roll itself never changes: the buy-up is an amendment that references it.
    events = {e["event_id"]: e for e in run.json("log")["events"]}
    assert events[again["event_id"]]["payload"]["result"]["outcome"] == "failure"
    assert events[bought["event_id"]]["type"] == "RollBoughtUp"

    # Steps chain: success to critical success costs 2 more.
    crit = run.json("spend Mira buy-up")
    assert (crit["from"], crit["to"]) == ("success", "critical_success")
    assert (crit["cost"], crit["points_left"]) == (2, 0)
    state(run, Mira={"points": 0})

    # A critical failure to a success is 2 + 1 = 3 points.
    fumble = run.json("roll Mira Lockpicking --dice 6,6,6")
    assert fumble["outcome"] == "critical_failure"
    refused(run, "spend Mira buy-up --to success", "that buy-up costs 3;")
    state(run, Mira={"points": 0})


def test_a_buy_up_is_refused_outside_a_cinematic_campaign(iron):
    run = iron
    run.ok("points award Mira 2")
    run.ok("roll Mira Lockpicking --dice 6,5,4")
    refused(run, "spend Mira buy-up", "cinematic")
    state(run, Mira={"points": 2})


# -- Contests -----------------------------------------------------------------------------------

# Vora (Broadsword 16) against a duellist (12): (Vora's dice, theirs, winner, margin of victory).
DISARMS = [
    # Both succeed: 9 - 2.
    ("2,2,3", "3,3,4", "Vora", 7),
    # One fails: 6 + 2.
    ("3,3,4", "6,6,2", "Vora", 8),
    # Both fail (a 17 at skill 16 is an ordinary failure, by 1): 3 - 1.
    ("6,6,5", "5,5,5", "Vora", 2),
    # Equal margins of success: stalemate.
    ("3,3,4", "1,1,4", None, None),
    # The duellist does better: 7 - 1.
    ("5,5,5", "1,2,2", "Duellist", 6),
]


def test_vora_disarms_a_duellist_in_quick_contests(iron):
    run = iron
    for dice_a, dice_b, winner, margin in DISARMS:
        doc = run.json(f"contest Vora Broadsword Duellist 12 --dice-a {dice_a} --dice-b {dice_b}")
        assert doc["mode"] == "quick"
        assert (doc["a"]["effective"], doc["b"]["effective"]) == (16, 12)
        assert (doc["winner"], doc["margin_of_victory"]) == (winner, margin), dice_a
        state(run, Vora={"hp": 12, "conditions": []})

    # The resisting side rolls at any skill; only a 3 or 4 can succeed then.
    novice = run.json("contest Vora Broadsword Novice 2 --dice-a 2,2,3 --dice-b 1,1,1")
    assert (novice["b"]["outcome"], novice["winner"]) == ("critical_success", "Vora")
    # The active side below 3 cannot attempt.
    refused(run, "contest Novice 2 Vora Broadsword --dice-a 1,1,1 --dice-b 3,3,3", "cannot be")
    state(run, Vora={"hp": 12, "conditions": []})


def test_resistance_rolls_and_the_rule_of_16(iron):
    run = iron

    # The attacker fails: the defender does not roll, and wins.
    fizzle = run.json("contest Wizard 12 Aldric Will --mode resistance --dice-a 5,5,4")
    assert (fizzle["a"]["outcome"], fizzle["b"]) == ("failure", None)
    assert (fizzle["winner"], fizzle["margin_of_victory"]) == ("Aldric", None)
    state(run, Aldric={"conditions": []})

    # Rule of 16: an 18 against Will 14 rolls against 16; 10 succeeds by 6, Aldric's 7 by 7.
    capped = run.json(
        "contest Wizard 18 Aldric Will --mode resistance --supernatural "
        "--dice-a 3,3,4 --dice-b 2,2,3"
    )
    assert (capped["a"]["effective"], capped["b"]["effective"]) == (16, 14)
    assert capped["rule_of_16"] is True
    assert (capped["winner"], capped["margin_of_victory"]) == ("Aldric", 1)
    state(run, Aldric={"conditions": []})

    # Not supernatural: the full 18 succeeds by 8 and wins by 1.
    full = run.json("contest Wizard 18 Aldric Will --mode resistance --dice-a 3,3,4 --dice-b 2,2,3")
    assert full["a"]["effective"] == 18
    assert (full["winner"], full["margin_of_victory"]) == ("Wizard", 1)
    state(run, Aldric={"conditions": []})

    # Ties go to the defender.
    tie = run.json("contest Wizard 14 Aldric Will --mode resistance --dice-a 3,3,4 --dice-b 4,3,3")
    assert tie["winner"] == "Aldric"
    state(run, Aldric={"conditions": []})


def test_a_regular_contest_runs_over_rounds_until_decided(iron):
    run = iron

    # Arm wrestling, Vora ST 12 against a brute (13); both succeed: no change, roll again.
    first = run.json("contest Vora ST Brute 13 --mode regular --dice-a 3,3,3 --dice-b 3,3,3")
    assert (first["round"], first["decided"], first["winner"]) == (1, False, None)
    assert kinds(first["obligations_opened"]) == ["regular-contest"]
    owed = state(run, owed=[("regular-contest", None)], Vora={"conditions": []})
    assert owed[0]["opened_by"] == first["event_id"]

    # Both fail: still running, the same obligation.
    second = run.json("contest Vora ST Brute 13 --mode regular --dice-a 6,6,5 --dice-b 6,6,5")
    assert (second["round"], second["decided"], second["winner"]) == (2, False, None)
    assert second["obligations_opened"] == []
    still = state(run, owed=[("regular-contest", None)])
    assert still[0]["id"] == owed[0]["id"]

    # Vora succeeds (9) and the brute fails (14): decided.
    third = run.json("contest Vora ST Brute 13 --mode regular --dice-a 3,3,3 --dice-b 6,6,2")
    assert (third["round"], third["decided"], third["winner"]) == (3, True, "Vora")
    assert [o["id"] for o in third["obligations_discharged"]] == [owed[0]["id"]]
    state(run, Vora={"conditions": []})

    # Both 14 or more: lowered so the lower is 10 (16 vs 15 is 11 vs 10).
    high = run.json(
        "contest Vora Broadsword Duellist 15 --mode regular --dice-a 4,4,3 --dice-b 4,4,3"
    )
    assert (high["a"]["effective"], high["b"]["effective"]) == (11, 10)
    assert (high["round"], high["decided"], high["winner"]) == (1, True, "Vora")
    state(run)

    # Both 6 or less: raised so the lower is 10 (4 vs 5 is 10 vs 11).
    low = run.json("contest Toddler 4 Kitten 5 --mode regular --dice-a 4,4,2 --dice-b 4,4,4")
    assert (low["a"]["effective"], low["b"]["effective"]) == (10, 11)
    assert (low["decided"], low["winner"]) == (True, "Toddler")
    state(run)


def test_a_regular_contest_is_told_apart_by_what_is_contested_not_only_who(iron):
    """GURPS, 'Regular Contests': "Both succeed or both fail: No change — roll again. This
    continues until one succeeds while the other fails." Rolling again is the same contest: the
    same sides over the same traits. The same two over other traits is a contest of its own,
    and `--new` begins a fresh one between the same sides on purpose."""
    run = iron
    run.ok("character add Foe --stat ST=12 --stat DX=11 --stat IQ=9 --stat HT=11")
    tie = "--mode regular --dice-a 3,3,3 --dice-b 3,3,3"
    strength = run.json(f"contest Vora ST Foe ST {tie}")
    assert (strength["round"], strength["decided"]) == (1, False)
    agility = run.json(f"contest Vora DX Foe DX {tie}")
    assert (agility["round"], agility["decided"]) == (1, False)
    assert agility["contest_id"] != strength["contest_id"]
    owed = run.json("obligations")["obligations"]
    assert [o["what"] for o in owed] == [
        "Regular contest Vora (ST) vs Foe (ST) is still running: roll the next round.",
        "Regular contest Vora (DX) vs Foe (DX) is still running: roll the next round.",
    ]
    # Each goes on as itself, whichever was rolled last.
    again = run.json(f"contest Vora st Foe st {tie}")
    assert (again["contest_id"], again["round"]) == (strength["contest_id"], 2)
    assert "round 2" in run.ok(f"contest Vora DX Foe DX {tie}").stdout
    # --new: a fresh contest over ST, which sets the running one aside.
    fresh = run.json(f"contest Vora ST Foe ST --new {tie}")
    assert (fresh["round"], fresh["contest_id"] != strength["contest_id"]) == (1, True)
    assert [o["id"] for o in fresh["obligations_discharged"]] == [owed[0]["id"]]
    assert run.json(f"contest Vora ST Foe ST {tie}")["contest_id"] == fresh["contest_id"]
    assert len(run.json("obligations")["obligations"]) == 2
    # Against an opponent given by score, the score is what is contested.
    run.json(f"contest Vora ST Brute 13 {tie}")
    assert run.json(f"contest Vora ST Brute 14 {tie}")["round"] == 1
    assert run.json(f"contest Vora ST Brute 13 {tie}")["round"] == 2
    refused(run, "contest Vora ST Foe ST --new", "add --mode regular", code=2)
    assert run.json("verify")["ok"] is True


# -- Fright checks ------------------------------------------------------------------------------


def test_fright_checks_rule_of_14_and_the_fright_table(iron):
    run = iron

    # Aldric: Will 14 + Combat Reflexes 2 = 16, checked against 13 (Rule of 14).
    brave = run.json("fright Aldric --dice 3,3,3")
    assert (brave["will"], brave["modified_will"], brave["effective"]) == (14, 16, 13)
    assert brave["rule_of_14"] is True
    assert (2, "Combat Reflexes") in mods(brave)
    assert (brave["outcome"], brave["table"]) == ("success", None)
    state(run, Aldric={"conditions": [], "fp": 10})

    # "A roll of 14 or higher automatically fails": by 1; table 9 + 1 = 10, stunned 1d seconds.
    shaken = run.json("fright Aldric --dice 4,5,5 --table-dice 3,3,3 --effect-dice 2")
    assert rolled(shaken) == (13, 14, "failure", -1)
    table = shaken["table"]
    assert (table["dice"], table["total"], table["row"]) == ([3, 3, 3], 10, 10)
    assert {"condition": "stunned", "duration": 2, "unit": "seconds", "note": None} in shaken[
        "effects"
    ]
    state(run, Aldric={"conditions": ["stunned"], "fp": 10})
    stunned = run.json("status Aldric")["conditions"][0]
    assert (stunned["duration"], stunned["unit"]) == (2, "seconds")
    run.ok("condition clear Aldric stunned")
    state(run, Aldric={"conditions": []})

    # Mira (Will 12) rolls 15, failing by 3; table 11 + 3 = 14: lose 1d FP, stunned 1d seconds.
    fp_loss = run.json("fright Mira --dice 5,5,5 --table-dice 4,4,3 --effect-dice 4,2")
    assert (fp_loss["effective"], fp_loss["rule_of_14"], fp_loss["margin"]) == (12, False, -3)
    assert (fp_loss["table"]["total"], fp_loss["table"]["row"]) == (14, 14)
    assert {"track": "fp", "delta": -4, "cause": "fright"} in fp_loss["effects"]
    state(run, Mira={"fp": 7, "hp": 10, "conditions": ["stunned"]})

    # Table 8 + 4 = 12: retching for 25 - HT 11 = 14 seconds.
    retching = run.json("fright Mira --dice 6,6,4 --table-dice 3,3,2")
    assert (retching["table"]["total"], retching["table"]["row"]) == (12, 12)
    assert {"condition": "retching", "duration": 14, "unit": "seconds", "note": None} in retching[
        "effects"
    ]
    state(run, Mira={"fp": 7, "conditions": ["stunned", "retching"]})


def test_fright_results_that_give_traits_are_owed_until_assigned(iron):
    run = iron

    # Fails by 4 (16), table 9 + 4 = 13: a new mental quirk, assigned by the GM.
    quirk = run.json("fright Mira --dice 6,6,4 --table-dice 3,3,3")
    assert (quirk["table"]["total"], quirk["table"]["row"]) == (13, 13)
    assert kinds(quirk["obligations_opened"]) == ["assign-trait"]
    owed = state(run, owed=[("assign-trait", "Mira")], Mira=MIRA)
    assert owed[0]["opened_by"] == quirk["event_id"]
    assert owed[0]["data"]["trait"] == "quirk"

    assigned = run.json('trait assign Mira "Quirk: hums when afraid"')
    assert (assigned["kind"], assigned["trait"]) == ("quirk", "Quirk: hums when afraid")
    assert [o["id"] for o in assigned["obligations_discharged"]] == [owed[0]["id"]]
    gained = [{"kind": "quirk", "name": "Quirk: hums when afraid", "points": -1}]
    state(run, Mira={**MIRA, "traits_gained": gained})
    refused(run, 'trait assign Mira "Quirk: another"', "No trait is owed to Mira")

    # Table 18 + 4 = 22: a -10-point delusion.
    delusion = run.json("fright Mira --dice 6,6,4 --table-dice 6,6,6")
    assert (delusion["table"]["total"], delusion["table"]["row"]) == (22, 22)
    state(run, owed=[("assign-trait", "Mira")])

    # 17 is a critical failure at Will 12, by 5; table 18 + 5 = 23: a -10-point phobia.
    phobia = run.json("fright Mira --dice 6,6,5 --table-dice 6,6,6")
    assert (phobia["outcome"], phobia["margin"]) == ("critical_failure", -5)
    assert (phobia["table"]["total"], phobia["table"]["row"]) == (23, 23)
    owed = state(run, owed=[("assign-trait", "Mira"), ("assign-trait", "Mira")])
    assert [o["data"]["trait"] for o in owed] == ["delusion", "phobia"]

    run.ok('trait assign Mira "Phobia: deep cellars" --kind phobia')
    left = state(run, owed=[("assign-trait", "Mira")])
    assert left[0]["data"]["trait"] == "delusion"
    run.ok('trait assign Mira "Delusion: the ghoul is still following her"')
    state(
        run,
        Mira={
            "traits_gained": [
                *gained,
                {"kind": "phobia", "name": "Phobia: deep cellars", "points": -10},
                {
                    "kind": "delusion",
                    "name": "Delusion: the ghoul is still following her",
                    "points": -10,
                },
            ]
        },
    )


def test_status_of_a_character_says_the_traits_and_stats_play_left(iron):
    """``status NAME`` says what ``--json`` has of what play left for good: a trait a fright
    check cost, and a stat it lowered (row 40+: as 30, plus -1 IQ)."""
    run = iron
    run.ok("fright Mira --dice 6,6,4 --table-dice 3,3,3")
    run.ok('trait assign Mira "Quirk: hums when afraid"')
    run.ok("fright Mira --dice 6,6,6 --table-dice 6,6,6 --mod -20 --effect-dice 1")
    doc = run.json("status Mira")
    assert doc["stat_changes"] == {"IQ": -1, "Will": -1, "Per": -1}
    shown = run.ok("status Mira").stdout.splitlines()[1:]
    assert "  Gained in play: Quirk: hums when afraid (quirk, -1 point)" in shown
    assert "  IQ -1 for good" in shown
    assert "  Will -1 for good" in shown


def test_totals_between_listed_rows_and_past_forty(iron):
    run = iron

    # Vora (Will 11) fails by 3; table 16 + 3 = 19, between rows: the 18 row (faint).
    faint = run.json("fright Vora --dice 5,5,4 --table-dice 6,5,5")
    assert (faint["table"]["total"], faint["table"]["row"]) == (19, 18)
    state(run, Vora={"conditions": ["fainted"], "hp": 12})

    # Fails by 7 (18); table 18 + 7 = 25: the 23 row (phobia).
    phobia = run.json("fright Vora --dice 6,6,6 --table-dice 6,6,6")
    assert (phobia["table"]["total"], phobia["table"]["row"]) == (25, 23)
    state(run, owed=[("assign-trait", "Vora")], Vora={"conditions": ["fainted"]})

    # A fright check is rolled at any target: Will 12 - 16 = -4, 18 fails by 22;
    # table 18 + 22 = 40: catatonia for 1d days and 1 point of IQ lost for good.
    abyss = run.json(
        [
            "fright",
            "Mira",
            "--mod",
            "-16:the unspeakable",
            "--dice",
            "6,6,6",
            "--table-dice",
            "6,6,6",
            "--effect-dice",
            "2",
        ]
    )
    assert (abyss["effective"], abyss["margin"]) == (-4, -22)
    assert (abyss["table"]["total"], abyss["table"]["row"]) == (40, 40)
    state(
        run,
        owed=[("assign-trait", "Vora")],
        Mira={"conditions": ["catatonia"], "stat_changes": {"IQ": -1, "Will": -1, "Per": -1}},
    )
    catatonia = run.json("status Mira")["conditions"][0]
    assert (catatonia["duration"], catatonia["unit"]) == (2, "days")


def test_unfazeable_needs_no_fright_check(run, tmp_path):
    run.ok("campaign new Iron --system gurps")
    sheet = tmp_path / "stone.toml"
    sheet.write_text('name = "Stone"\ntraits = ["Unfazeable"]\n[stats]\nIQ = 10\nWill = 10\n')
    run.ok(["character", "add", "--sheet", str(sheet)])
    run.ok("session start")
    refused(run, "fright Stone --dice 6,6,6 --table-dice 6,6,6", "Unfazeable")
    state(run, Stone={"conditions": [], "traits_gained": []})


def test_the_same_threat_within_a_day_gives_plus_one_per_exposure(iron):
    run = iron

    first = run.json('fright Vora --threat "the ghoul" --dice 3,3,3')
    assert (mods(first), first["effective"]) == ([], 11)
    state(run, Vora={"conditions": []})

    second = run.json('fright Vora --threat "The Ghoul" --dice 3,3,3')
    assert [value for value, _ in mods(second)] == [1]
    assert second["effective"] == 12
    state(run, Vora={"conditions": []})

    # Another threat is a first exposure; the ghoul a third time is +2, with the table's own.
    rat = run.json('fright Vora --threat "a rat" --dice 3,3,3')
    assert (mods(rat), rat["effective"]) == ([], 11)
    third = run.json('fright Vora --threat "the ghoul" --mod alone --dice 3,3,3')
    assert sorted(value for value, _ in mods(third)) == [-2, 2]
    assert third["effective"] == 11
    state(run, Vora={"conditions": []})


# -- A major project ----------------------------------------------------------------------------


def test_a_major_project_accumulates_man_hours_day_by_day(iron):
    run = iron
    run.ok("character add Builder --stat IQ=10 --skill Masonry=12")
    run.ok("character add Boss --stat IQ=12 --skill Leadership=13")
    started = run.json("project start Bridge --skill Masonry --hours 40")
    assert started["man_hours"] == 40

    def progress() -> dict:
        projects = run.json("project status")["projects"]
        assert [p["name"] for p in projects] == ["Bridge"]
        return {key: projects[0][key] for key in ("done", "days", "destroyed", "complete")}

    assert progress() == {"done": 0, "days": 0, "destroyed": 0, "complete": False}

    days = [
        # (options, dice, outcome, man-hours, destroyed, done)
        ("", "3,3,3", "success", 8, 0, 8),
        ("", "1,1,2", "critical_success", 12, 0, 20),
        ("", "4,4,5", "failure", 4, 0, 24),
        # GURPS, 'Major projects': a supervisor's successful Leadership gives +1.
        ("--supervisor Boss --supervisor-dice 3,3,3", "4,4,5", "success", 8, 0, 32),
        ("--destroyed-dice 3,4", "6,6,6", "critical_failure", 0, 7, 25),
        ("", "2,3,3", "success", 8, 0, 33),
        ("", "2,3,3", "success", 8, 0, 41),
    ]
    for day, (options, dice, outcome, hours, destroyed, done) in enumerate(days, start=1):
        doc = run.json(f"project roll Bridge Builder {options} --dice {dice}")
        [worker] = doc["workers"]
        assert (worker["outcome"], worker["man_hours"]) == (outcome, hours), day
        assert (doc["man_hours"], doc["destroyed"], doc["done"]) == (hours, destroyed, done), day
        assert (doc["needed"], doc["days"]) == (40, day)
        assert progress() == {
            "done": done,
            "days": day,
            "destroyed": 0 if day < 5 else 7,
            "complete": done >= 40,
        }
        state(run, Builder={"conditions": []})

    supervised = run.json("log")["events"]
    rolls = [e["payload"] for e in supervised if e["type"] == "RollMade"]
    assert [(r["kind"], r["trait"]) for r in rolls[3:5]] == [
        ("supervision", "Leadership"),
        ("project", "Masonry"),
    ]
    assert [m["value"] for m in rolls[4]["inputs"]["modifiers"]] == [1]


def test_a_supervisor_rolls_once_for_the_whole_team_and_the_day_counts_once(iron):
    """GURPS, 'Major projects': "A supervisor using Leadership or Administration instead of
    working personally can give the team +1 to +2 on success." One supervisor roll for the
    day gives every worker the bonus, and the project counts one day, not one per roll."""
    run = iron
    run.ok("character add Builder --stat IQ=10 --skill Masonry=12")
    run.ok("character add Mason --stat IQ=10 --skill Masonry=11")
    run.ok("character add Boss --stat IQ=12 --skill Leadership=13")
    run.ok("project start Bridge --skill Masonry --hours 40")
    before = run.event_count()
    doc = run.json(
        "project roll Bridge Builder Mason --supervisor Boss --supervisor-dice 3,3,3 "
        "--dice 4,4,5 --dice 6,6,6 --destroyed-dice 3,4"
    )
    # One supervisor roll and one roll per worker, each at +1 from that one success.
    assert run.event_count() == before + 3
    assert (doc["supervisor"]["character"], doc["supervisor"]["outcome"]) == ("Boss", "success")
    assert [(w["character"], w["effective"], w["outcome"]) for w in doc["workers"]] == [
        ("Builder", 13, "success"),
        ("Mason", 12, "critical_failure"),
    ]
    # 8 hours, then a critical failure that adds none and destroys 3+4.
    assert (doc["man_hours"], doc["destroyed"], doc["done"], doc["days"]) == (8, 7, 1, 1)
    rolls = [e["payload"] for e in run.json("log")["events"] if e["type"] == "RollMade"]
    assert len({r["inputs"]["day"] for r in rolls}) == 1
    assert [r["kind"] for r in rolls] == ["supervision", "project", "project"]
    status = run.json("project status")["projects"][0]
    assert (status["days"], status["done"], status["destroyed"]) == (1, 1, 7)

    # The next day, unsupervised, is a day of its own.
    run.ok("project roll Bridge Builder Mason --dice 3,3,3 --dice 3,3,3")
    status = run.json("project status")["projects"][0]
    assert (status["days"], status["done"]) == (2, 17)
    assert "2 days," in run.ok("project status").stdout
    # An undo of one worker's roll leaves the day the other worked.
    run.ok("undo")
    assert run.json("project status")["projects"][0]["days"] == 2
    assert "chain intact" in run.ok("verify").stdout


def test_a_supervisor_who_fails_gives_nothing_and_a_supervisor_needs_the_skill(iron):
    iron.ok("character add Builder --stat IQ=10 --skill Masonry=12")
    iron.ok("character add Boss --stat IQ=12 --skill Administration=13")
    iron.ok("project start Bridge --skill Masonry --hours 40")
    failed = iron.json(
        "project roll Bridge Builder --supervisor Boss --supervisor-skill Administration "
        "--supervisor-dice 6,5,4 --dice 4,4,5"
    )
    assert (failed["supervisor"]["outcome"], failed["workers"][0]["effective"]) == ("failure", 12)
    doubled = iron.json(
        "project roll Bridge Builder --supervisor Boss --supervisor-skill administration "
        "--supervisor-bonus 2 --supervisor-dice 3,3,3 --dice 4,4,5"
    )
    assert doubled["workers"][0]["effective"] == 14
    refused(
        iron,
        "project roll Bridge Builder --supervisor Builder --dice 4,4,5",
        "cannot supervise and work the same day",
        code=2,
    )


@pytest.mark.parametrize(
    ("command", "words"),
    [
        # "instead of working personally": the supervisor is not one of the day's workers.
        ("project roll Bridge Builder Boss --supervisor Boss", "cannot supervise and work"),
        ("project roll Bridge Builder builder", "Builder is named twice"),
        ("project roll Bridge Builder Mason --dice 3,3,3", "give it once per worker"),
        (
            "project roll Bridge Builder Mason --dice 6,6,6 --dice 6,6,6 --destroyed-dice 1,1",
            "give it once per critical failure",
        ),
    ],
)
def test_a_project_day_asked_wrongly_is_refused(iron, command, words):
    iron.ok("character add Builder --stat IQ=10 --skill Masonry=12")
    iron.ok("character add Mason --stat IQ=10 --skill Masonry=11")
    iron.ok("character add Boss --stat IQ=12 --skill Leadership=13 --skill Masonry=12")
    iron.ok("project start Bridge --skill Masonry --hours 40")
    refused(iron, command, words, code=2)


# -- influence rolls and extra effort (GURPS 'Influence Rolls', 'Extra Effort') --------------


def test_diplomacy_takes_the_better_of_the_contest_and_a_reaction_roll(iron):
    # Aldric's Diplomacy 15, +1 for his appearance, against a Will of 11: 10 vs 12, he wins by
    # 7 → Good. The reaction roll 3+3+3 +1 = 10 is Neutral; the better of the two is Good.
    won = iron.json(
        'influence Aldric Diplomacy "Harbour master" 11 --reaction-mod +1:appearance '
        "--dice-a 5,3,2 --dice-b 4,4,4 --reaction-dice 3,3,3"
    )
    assert (won["winner"], won["margin_of_victory"]) == ("Aldric", 7)
    assert (won["contest_level"], won["reaction"]["level"], won["level"]) == (
        "Good",
        "Neutral",
        "Good",
    )
    # Both fail, Aldric by 2 (17 on 15) and the harbour master by 1: the smaller failure wins,
    # which reads Bad; the reaction 6+6+5 = 17 is Very Good, and the better of the two stands.
    lost = iron.json(
        'influence Aldric Diplomacy "Harbour master" 11 '
        "--dice-a 6,6,5 --dice-b 4,4,4 --reaction-dice 6,6,5"
    )
    assert lost["winner"] == "Harbour master"
    assert (lost["contest_level"], lost["reaction"]["total"], lost["level"]) == (
        "Bad",
        17,
        "Very Good",
    )
    # A stalemate (both succeed by 3) reads Bad too; a reaction of 4-6 is Bad as well.
    tied = iron.json(
        'influence Aldric Diplomacy "Harbour master" 11 '
        "--dice-a 4,4,4 --dice-b 2,3,3 --reaction-dice 1,2,3"
    )
    assert tied["winner"] is None
    assert (tied["contest_level"], tied["reaction"]["level"], tied["level"]) == (
        "Bad",
        "Bad",
        "Bad",
    )
    assert "chain intact" in iron.ok("verify").stdout


def test_reaction_modifiers_apply_to_the_influence_roll_itself(iron):
    """GURPS, 'Influence Rolls': "Modifiers: Your reaction modifiers (appearance, social
    status, etc.) apply." They are labelled modifiers to the influence skill in the Quick
    Contest, whatever the skill; Diplomacy's reaction roll takes them as well."""
    iron.ok("character default Aldric Fast-Talk IQ-5")
    # Fast-Talk 9 (IQ 14 - 5) +2 = 11: a 10 succeeds by 1 where 9 alone would fail; the
    # guard's 12 on Will 11 fails by 1, so Aldric wins by 2 → Good.
    talk = iron.json(
        "influence Aldric Fast-Talk Guard 11 --reaction-mod +2:appearance "
        "--dice-a 3,3,4 --dice-b 4,4,4"
    )
    assert talk["a"]["modifiers"] == [{"value": 2, "label": "appearance (reaction modifier)"}]
    assert (talk["a"]["base"], talk["a"]["effective"]) == (9, 11)
    assert (talk["winner"], talk["margin_of_victory"], talk["level"]) == ("Aldric", 2, "Good")
    shown = iron.ok(
        "influence Aldric Fast-Talk Guard 11 --reaction-mod +2:appearance "
        "--dice-a 3,3,4 --dice-b 4,4,4"
    ).stdout
    assert "Fast-Talk 9 +2 appearance (reaction modifier) = effective 11" in shown
    # Diplomacy: on the contest (15 - 2 = 13) and on the reaction roll (3+3+3 - 2 = 7, Poor).
    status = iron.json(
        "influence Aldric Diplomacy Guard 11 --reaction-mod -2:status "
        "--dice-a 4,4,4 --dice-b 4,4,4 --reaction-dice 3,3,3"
    )
    assert status["a"]["effective"] == 13
    assert [m["value"] for m in status["reaction"]["modifiers"]] == [-2]
    assert (status["reaction"]["total"], status["reaction"]["level"]) == (7, "Poor")
    # An unlabelled one is a reaction modifier all the same; on a player's character it
    # bears on the contest, and no reaction is rolled.
    iron.ok('character add Spy --npc --stat IQ=12 --stat Will=11 --skill "Sex Appeal=14"')
    spy = iron.json(
        'influence Spy "Sex Appeal" Mira --reaction-mod +2 --dice-a 3,3,4 --dice-b 3,4,4'
    )
    assert spy["a"]["modifiers"] == [{"value": 2, "label": "reaction modifier"}]
    assert (spy["a"]["effective"], spy["margin_of_victory"], spy["reaction"]) == (16, 5, None)
    assert "every stored outcome re-derived and matching" in iron.ok("verify").stdout


@pytest.mark.parametrize(
    ("skill", "dice_a", "level"),
    [
        ("Intimidation", "6,6,6", "Very Bad"),  # a loss to Intimidation
        ("Intimidation", "1,2,3", "Good"),
        ("Fast-Talk", "6,6,6", "Bad"),
        ("Sex Appeal", "1,2,3", "Very Good"),  # a win with Sex Appeal
    ],
)
def test_influence_levels_by_skill(iron, skill, dice_a, level):
    iron.ok(f'character add Kell --stat IQ=12 --stat Will=12 --skill "{skill}=14"')
    iron.ok("character update Vora --npc")  # a reaction is read from an NPC only
    doc = iron.json(["influence", "Kell", skill, "Vora", "--dice-a", dice_a, "--dice-b", "4,4,4"])
    assert doc["b"]["effective"] == 11  # Vora's own Will from her sheet
    assert doc["level"] == level
    assert doc["reaction"] is None


@pytest.mark.parametrize(
    ("words", "code", "says"),
    [
        (["Kell", "Intimidation", "Vora", "--unfazeable"], 1, "Unfazeable"),
        (["Aldric", "Diplomacy", "Guard", "10", "--indomitable"], 1, "Indomitable"),
        (["Aldric", "Cooking", "Vora"], 2, "not an influence skill"),
        (["Aldric", "Diplomacy", "Guard", "ten"], 1, "No character named"),
        (["Ghost", "Diplomacy", "Vora"], 1, "No character named"),
        (["Aldric", "Diplomacy", "Guard", "10", "--dice-a", "7,1,1"], 2, "d6"),
    ],
)
def test_influence_refusals_append_nothing(iron, words, code, says):
    iron.ok("character add Kell --stat IQ=12 --stat Will=12 --skill Intimidation=13")
    before = iron.event_count()
    result = iron(["influence", *words])
    assert result.exit_code == code, result.output
    assert says in result.stderr
    assert iron.event_count() == before


def test_empathy_reaches_an_indomitable_subject_and_slave_mentality_needs_no_roll(iron):
    doc = iron.json("influence Aldric Diplomacy Guard 10 --indomitable --empathy --seed 3")
    assert doc["level"] in ("Bad", "Good", "Very Good", "Excellent", "Neutral", "Poor")
    complied = iron.json("influence Aldric Diplomacy Guard 10 --slave-mentality")
    assert complied["influence"]["complied"] is True
    assert complied["influence"]["level"] == "Good"
    last = iron.json("log")["events"][-1]
    assert last["type"] == "NoteAdded"
    assert "no roll" in last["payload"]["text"]


def test_an_npc_who_beats_a_pc_leaves_its_margin_of_victory_on_that_pc(iron):
    # GURPS, 'Influencing PCs': "a beautiful spy who beats a PC's Will by 3 using Sex
    # Appeal might impose -3 to that PC's Detect Lies rolls when dealing with her."
    iron.ok('character add Spy --npc --stat IQ=12 --stat Will=11 --skill "Sex Appeal=14"')
    iron.ok('character update Mira --skill "Detect Lies=12"')
    # Spy 14 rolls 10 (by 4), Mira's Will 12 rolls 11 (by 1): the spy wins by 3.
    doc = iron.json('influence Spy "Sex Appeal" Mira --dice-a 3,3,4 --dice-b 3,4,4')
    assert (doc["winner"], doc["margin_of_victory"], doc["on_pc"]) == ("Spy", 3, True)
    # No reaction is read for a player's character: the player decides how Mira reacts.
    assert (doc["reaction"], doc["level"], doc["modifier"]) == (None, None, 3)
    [held] = iron.json("status Mira")["conditions"]
    assert (held["name"], held["modifier"]) == ("influenced by Spy", 3)
    lie = iron.json('roll Mira "Detect Lies" --mod influence:Spy --dice 3,3,4')
    assert lie["modifiers"] == [{"value": -3, "label": "influenced by Spy"}]
    assert rolled(lie) == (9, 10, "failure", -1)
    # A bonus where the GM rules the influence helps the roll.
    helped = iron.json('roll Mira "Detect Lies" --mod influence:Spy:bonus --dice 3,3,4')
    assert rolled(helped)[:2] == (15, 10)
    said = iron.ok('influence Spy "Sex Appeal" Mira --dice-a 3,3,4 --dice-b 3,4,4').stdout
    assert "Mira is influenced by Spy: -3 (or +3)" in said
    assert (
        "Spy uses Sex Appeal on Mira: Spy wins by 3, Mira influenced (±3)" in iron.ok("log").stdout
    )
    assert "every stored outcome re-derived and matching" in iron.ok("verify").stdout
    # The GM ends it when it no longer bears on anything; a roll then cannot take it.
    iron.ok(["condition", "clear", "Mira", "influenced by Spy"])
    refused(iron, 'roll Mira "Detect Lies" --mod influence:Spy', "under no influence of Spy", 2)


def test_an_influence_that_fails_on_a_pc_leaves_nothing_and_undo_takes_a_win_back(iron):
    iron.ok('character add Spy --npc --stat IQ=12 --stat Will=11 --skill "Sex Appeal=14"')
    # Spy rolls 16 (fails by 2), Mira 12 (succeeds): Mira holds.
    lost = iron.json('influence Spy "Sex Appeal" Mira --dice-a 6,6,4 --dice-b 4,4,4')
    assert (lost["winner"], lost["modifier"], lost["effects"]) == ("Mira", 0, [])
    assert (
        "Mira is not swayed"
        in iron.ok('influence Spy "Sex Appeal" Mira --dice-a 6,6,4 --dice-b 4,4,4').stdout
    )
    assert iron.json("status Mira")["conditions"] == []
    won = iron.json('influence Spy "Sex Appeal" Mira --dice-a 1,1,1 --dice-b 4,4,4')
    assert iron.json("status Mira")["conditions"][0]["modifier"] == won["margin_of_victory"]
    iron.ok(f"undo {won['event_id']}")
    assert iron.json("status Mira")["conditions"] == []


def test_a_secret_influence_on_a_pc_stays_off_the_players_view(iron):
    iron.ok('character add Spy --npc --stat IQ=12 --stat Will=11 --skill "Sex Appeal=14"')
    iron.ok('influence Spy "Sex Appeal" Mira --dice-a 1,1,1 --dice-b 4,4,4 --secret')
    assert iron.json("status Mira")["conditions"][0]["name"] == "influenced by Spy"
    players = iron.json("status --player-view")
    [mira] = [c for c in players["characters"] if c["name"] == "Mira"]
    assert mira["conditions"] == []


@pytest.mark.parametrize(
    ("words", "code", "says"),
    [
        # The player decides how their character reacts: no reaction roll, no compliance.
        (["Spy", "Diplomacy", "Mira", "--reaction-dice", "3,3,3"], 2, "leave out --reaction-dice"),
        (["Spy", "Diplomacy", "Mira", "--slave-mentality"], 2, "leave out --slave-mentality"),
        (["Mira", "Diplomacy", "Mira"], 2, "cannot influence themselves"),
        # The rulebook's special cases are the subject's traits, whoever plays them.
        (["Spy", "Intimidation", "Mira", "--unfazeable"], 1, "Unfazeable"),
    ],
)
def test_influence_on_a_pc_refuses_what_would_decide_for_the_player(iron, words, code, says):
    iron.ok("character add Spy --npc --stat Will=11 --skill Diplomacy=14 --skill Intimidation=13")
    refused(iron, ["influence", *words], says, code)


def test_verify_decides_an_influence_on_a_pc_again_and_finds_a_forged_margin(iron):
    from tracker.app.verify import redecide
    from tracker.events import decode
    from tracker.systems import registry

    iron.ok('character add Spy --npc --stat Will=11 --skill "Sex Appeal=14"')
    iron.ok('influence Spy "Sex Appeal" Mira --dice-a 3,3,4 --dice-b 3,4,4')
    stored, gurps = _last_event(iron), registry.get("gurps")
    assert redecide(stored, gurps) is None
    payload = stored.payload
    effect = payload["effects"][0]
    forged = [
        {**payload, "effects": []},
        {**payload, "effects": [{**effect, "modifier": 5}]},
        {**payload, "result": {**payload["result"], "modifier": 5}},
    ]
    for doc in forged:
        data = decode(stored.type, stored.schema_version, doc)
        assert redecide(stored._replace(data=data), gurps) is not None, doc


def test_diplomacy_on_a_pc_rolls_no_reaction(iron):
    iron.ok("character add Spy --npc --stat Will=11 --skill Diplomacy=14")
    doc = iron.json("influence Spy Diplomacy Mira --dice-a 3,3,3 --dice-b 4,4,4")
    assert (doc["reaction"], doc["level"], doc["modifier"]) == (None, None, 5)


def test_who_plays_a_character_is_on_the_sheet_and_changes_as_an_event(iron, tmp_path):
    sheet = tmp_path / "warden.toml"
    sheet.write_text('name = "Warden"\nnpc = true\n[stats]\nWill = 13\n', encoding="utf-8")
    assert "NPC" in iron.ok(["character", "add", "--sheet", str(sheet)]).stdout
    assert iron.json("character show Warden")["npc"] is True
    assert iron.json("character show Mira")["npc"] is False
    assert "NPC Warden added" in iron.ok("log").stdout
    assert "played by a player" in iron.ok("character update Warden --pc").stdout
    assert iron.json("character show Warden")["npc"] is False
    refused(iron, "character update Warden --pc", "already reads so")
    # An NPC by the sheet, a player's by the option: the option wins.
    iron.ok(["character", "add", "--sheet", str(sheet), "--pc", "Gaoler"])
    assert iron.json("character show Gaoler")["npc"] is False
    events = iron.json("log")["events"]
    handed = next(e["version"] for e in events if e["type"] == "CharacterUpdated")
    assert iron.json(f"character show Warden --as-of {handed - 1}")["npc"] is True
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "Bad"\nnpc = "yes"\n', encoding="utf-8")
    refused(iron, ["character", "add", "--sheet", str(bad)], "npc must be true or false", 2)


def test_influence_is_gurps_only(glintlock):
    result = glintlock("influence Wren Diplomacy Tomas")
    assert result.exit_code == 1
    assert "GURPS" in result.stderr


@pytest.mark.parametrize(
    ("percent", "motivated", "effective"),
    [(1, False, 10), (5, False, 10), (6, False, 9), (20, False, 7), (21, False, 6), (50, True, 6)],
)
def test_extra_effort_is_will_at_minus_one_per_five_percent(iron, percent, motivated, effective):
    words = ["effort", "Vora", str(percent), "--dice", "1,1,2"]
    doc = iron.json([*words, "--motivated"] if motivated else words)
    assert doc["effective"] == effective  # Vora's Will 11
    assert doc["granted"] is True
    state(iron, Vora={"fp": 11, "hp": 12})  # always 1 FP, win or lose


def test_a_critical_failure_of_extra_effort_costs_hp_too_and_undo_gives_both_back(iron):
    doc = iron.json("effort Vora 30 --dice 6,6,6")
    assert (doc["outcome"], doc["granted"]) == ("critical_failure", False)
    state(iron, Vora={"fp": 11, "hp": 11})
    iron.ok("undo")
    state(iron, Vora={"fp": 12, "hp": 12})


def test_a_machine_cannot_use_extra_effort(iron, tmp_path):
    sheet = tmp_path / "unit.toml"
    sheet.write_text(
        'name = "Unit 7"\ntraits = ["Machine"]\n[stats]\nST = 14\nHT = 12\nWill = 10\n',
        encoding="utf-8",
    )
    iron.ok(["character", "add", "--sheet", str(sheet)])
    before = iron.event_count()
    result = iron(["effort", "Unit 7", "10"])
    assert result.exit_code == 1
    assert "Machine" in result.stderr
    assert iron.event_count() == before


# -- physical feats and senses (GURPS 'Climbing', 'Swimming', 'Running', 'Sense Rolls') -----

SCOUT = """name = "Scout"
traits = ["Acute Vision 2", "Danger Sense", "Discriminatory Hearing"]
[stats]
ST = 10
DX = 12
IQ = 11
HT = 11
Will = 11
Per = 13
"""


@pytest.fixture
def scout(iron, tmp_path):
    sheet = tmp_path / "scout.toml"
    sheet.write_text(SCOUT, encoding="utf-8")
    iron.ok(["character", "add", "--sheet", str(sheet)])
    return iron


def test_climbing_and_swimming_default_as_the_rulebook_says(scout):
    # Climbing DX-5 = 7, +5 on an ordinary tree; Swimming HT-4 = 7.
    climb = scout.json("roll Scout Climbing --mod climbing:ordinary-tree --dice 3,3,3")
    assert (climb["base"], climb["base_source"], climb["effective"]) == (7, "DX-5", 12)
    swim = scout.json("roll Scout Swimming --mod encumbrance:2 --dice 2,2,1")
    assert (swim["base_source"], swim["effective"], swim["outcome"]) == ("HT-4", 5, "success")
    state(scout, Scout={"fp": 11})
    # Mira's sheet lists Climbing 15 of her own: the rulebook default does not replace it.
    assert scout.json("roll Mira Climbing --dice 3,3,3")["base"] == 15


def test_a_failed_swimming_or_running_roll_costs_one_fp(scout):
    scout.ok("roll Scout Swimming --dice 6,6,3")  # inhales water
    state(scout, Scout={"fp": 10})
    scout.ok("roll Scout HT --feat running --dice 4,4,4")  # 12 on 11: winded
    state(scout, Scout={"fp": 9})
    scout.ok("roll Scout HT --feat running --dice 1,2,3")
    scout.ok("roll Scout HT --dice 6,6,6")  # an HT roll that is not running costs nothing
    state(scout, Scout={"fp": 9})


def test_sense_rolls_are_per_with_acute_senses_and_secret_unless_public(scout):
    seen = scout.json("roll Scout Vision --mod darkness:3 --dice 3,4,5")
    assert seen["effective"] == 13 - 3 + 2  # Per, partial darkness, Acute Vision 2
    assert seen["secret"] is True
    heard = scout.json(
        "roll Scout Hearing --mod hearing:normal-conversation@4 --public --dice 3,3,3"
    )
    assert heard["effective"] == 13 - 2 + 4  # two range steps out, Discriminatory Hearing
    assert heard["secret"] is False
    assert scout.json("roll Scout Vision --mod obvious --dice 6,6,6")["effective"] == 25


def test_total_darkness_refuses_vision_without_dark_vision(scout):
    before = scout.event_count()
    result = scout("roll Scout Vision --mod total-darkness")
    assert result.exit_code == 1
    assert "total darkness" in result.stderr
    assert scout("roll Scout Hearing --mod total-darkness").exit_code == 2
    assert scout.event_count() == before


def test_danger_sense_rolls_per_again_in_secret_after_a_failed_sense_roll(scout):
    doc = scout.json("roll Scout Vision --danger --dice 6,6,4 --danger-dice 2,3,4")
    assert doc["outcome"] == "failure"
    assert doc["danger_sense"]["success"] is True
    events = scout.json("log")["events"]
    # Kept inside the secret roll it answers: whether it was rolled is as secret as that roll.
    roll = events[-1]["payload"]
    assert events[-1]["visibility"] == "gm"
    assert roll["kind"] == "check"
    assert [(t["kind"], t["dice"]) for t in roll["then"]] == [("danger-sense", [2, 3, 4])]
    assert "; then Per (danger sense) at 13: 2+3+4 = 9 → success by 4" in scout.ok("log").stdout
    # After a public sense roll, whose failure the players saw, it is a secret roll of its own.
    scout.ok("roll Scout Vision --public --danger --dice 6,6,4 --danger-dice 6,6,6")
    events = scout.json("log")["events"]
    assert [(e["payload"]["kind"], e["visibility"]) for e in events[-2:]] == [
        ("check", "public"),
        ("danger-sense", "gm"),
    ]
    # Physical dice for the first roll need physical dice for the second; nothing is logged.
    before = scout.event_count()
    result = scout("roll Scout Vision --danger --dice 6,6,4")
    assert result.exit_code == 2
    assert "--danger-dice" in result.stderr
    assert scout.event_count() == before
    # Without Danger Sense, or when the roll succeeds, there is no second roll.
    assert "danger_sense" not in scout.json("roll Scout Vision --danger --dice 1,1,1")
    assert "danger_sense" not in scout.json("roll Mira Vision --danger --dice 6,6,6")
    assert "chain intact" in scout.ok("verify").stdout


def test_character_show_gives_what_basic_move_allows(iron):
    iron.ok('character add Runner --stat DX=12 --stat HT=12 --stat "Basic Move=6"')
    moves = iron.json("character show Runner")["movement"]
    # GURPS: sprint +20% (min +1), water Move = BM/5 (min 1), (6 x BM) - 10 in, (2 x BM) - 3 ft.
    assert moves == {
        "basic_move": 6,
        "sprint_move": 7,
        "paced_move": 3,
        "water_move": 1,
        "high_jump_inches": 26,
        "broad_jump_feet": 9,
    }
    iron.ok('character add Leaper --stat DX=12 --stat "Move=5" --skill Jumping=14')
    leaper = iron.json("character show Leaper")["movement"]
    assert (leaper["high_jump_inches"], leaper["broad_jump_feet"]) == (32, 11)  # half Jumping: 7
    assert iron.json("character show Mira")["movement"] is None  # her sheet lists no Basic Move
    assert "Basic Move 6: sprinting 7" in iron.ok("character show Runner").stdout
    # A run-up asked of a sheet without Basic Move is refused, not silently ignored.
    said = iron("character show Mira --run-up 4")
    assert said.exit_code == 2
    assert "character update Mira --stat Move=N" in said.stderr


def test_a_sense_roll_is_against_per_itself_which_the_rule_of_20_does_not_cap(scout, tmp_path):
    sheet = tmp_path / "hawk.toml"
    sheet.write_text('name = "Hawk"\n[stats]\nDX = 12\nHT = 10\nPer = 22\n', encoding="utf-8")
    scout.ok(["character", "add", "--sheet", str(sheet)])
    seen = scout.json("roll Hawk Vision --dice 3,3,3")
    assert (seen["base"], seen["effective"], seen["trait"]) == (22, 22, "Vision")


def test_influence_reads_the_traits_on_both_sheets(iron, tmp_path):
    for name, trait in (("Stoic", "Unfazeable"), ("Rock", "Indomitable")):
        sheet = tmp_path / f"{name}.toml"
        sheet.write_text(
            f'name = "{name}"\nnpc = true\ntraits = ["{trait}"]\n[stats]\nWill = 12\n',
            encoding="utf-8",
        )
        iron.ok(["character", "add", "--sheet", str(sheet)])
    iron.ok("character add Kell --stat IQ=12 --stat Will=12 --skill Intimidation=13")
    before = iron.event_count()
    assert "Unfazeable" in iron("influence Kell Intimidation Stoic").stderr
    assert "Indomitable" in iron("influence Aldric Diplomacy Rock").stderr
    assert iron.event_count() == before
    seer = tmp_path / "seer.toml"
    seer.write_text(
        'name = "Seer"\ntraits = ["Empathy"]\n[stats]\nWill = 12\n[skills]\nDiplomacy = 14\n',
        encoding="utf-8",
    )
    iron.ok(["character", "add", "--sheet", str(seer)])
    doc = iron.json(
        "influence Seer Diplomacy Stoic --dice-a 3,3,3 --dice-b 6,6,6 --reaction-dice 3,4,4"
    )
    assert (doc["winner"], doc["level"]) == ("Seer", "Good")


@pytest.mark.parametrize("distance", ["1e200000", "0", "2000000", "-3", "x"])
def test_a_hearing_distance_out_of_range_is_refused_at_once(scout, distance):
    result = scout(["roll", "Scout", "Hearing", "--mod", f"hearing:normal-traffic@{distance}"])
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1


def test_verify_decides_an_influence_roll_again_from_its_dice(iron):
    from tracker.app.verify import redecide
    from tracker.events import decode
    from tracker.systems import registry

    iron.ok(
        'influence Aldric Diplomacy "Harbour master" 11 '
        "--dice-a 5,3,2 --dice-b 4,4,4 --reaction-dice 3,3,3"
    )
    stored, gurps = _last_event(iron), registry.get("gurps")
    assert redecide(stored, gurps) is None
    payload = stored.payload
    forged = [
        {**payload, "winner": "b"},
        {**payload, "result": {**payload["result"], "contest_level": "Bad"}},
        {**payload, "result": {**payload["result"], "level": "Excellent"}},
        {
            **payload,
            "result": {
                **payload["result"],
                "reaction": {**payload["result"]["reaction"], "dice": [6, 6, 6]},
            },
        },
    ]
    for changed in forged:
        data = decode(stored.type, stored.schema_version, changed)
        assert redecide(stored._replace(data=data), gurps) is not None


def test_a_buy_up_takes_the_sense_roll_not_the_secret_danger_sense_roll(tmp_path, run):
    run.ok("campaign new Cine --system gurps --cinematic")
    sheet = tmp_path / "scout.toml"
    sheet.write_text(SCOUT, encoding="utf-8")
    run.ok(["character", "add", "--sheet", str(sheet)])
    run.ok("session start")
    run.ok("points award Scout 5")
    sensed = run.json("roll Scout Vision --danger --dice 6,6,4 --danger-dice 2,3,4")
    bought = run.json("spend Scout buy-up")
    assert bought["roll_event_id"] == sensed["event_id"]


def test_will_and_per_start_at_iq_when_the_sheet_lists_neither(iron):
    iron.ok("character add Pell --stat ST=10 --stat DX=11 --stat IQ=13 --stat HT=10")
    shown = iron.json("character show Pell")["stats"]
    assert (shown.get("Will"), shown.get("Per")) == (13, 13)
    assert iron.json("roll Pell Vision --dice 3,3,3")["base"] == 13
    assert iron.json("effort Pell 5 --dice 3,3,3")["effective"] == 12
    iron.ok("character add Quill --stat IQ=12 --stat Will=15")
    assert iron.json("character show Quill")["stats"]["Will"] == 15


# "Lockpicking defaults to IQ−5." / "Roll against Climbing skill (defaults to DX−5) ...": the
# skill named just before "defaults to" (or before "skill (defaults to"), and its default.
DEFAULTS_TO = re.compile(
    r"(?P<skill>[A-Z][\w-]*)(?: skill)?\s*\(?defaults to (?P<trait>[A-Z][A-Za-z]*)"
    r"\s*(?P<sign>[-+\u2212])\s*(?P<number>\d+)"
)


def rulebook_defaults() -> list[tuple[str, str, int, str]]:
    """(skill, attribute, modifier, sentence) for every "defaults to" sentence of the GURPS
    rulebook, read from its text now."""
    found = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n", rulebook("gurps")):
        if "defaults to" not in sentence:
            continue
        match = DEFAULTS_TO.search(sentence)
        assert match, f"a 'defaults to' sentence this test cannot read: {sentence!r}"
        sign = -1 if match["sign"] in "-\u2212" else 1
        found.append((match["skill"], match["trait"], sign * int(match["number"]), sentence))
    return found


@pytest.mark.parametrize("level", [8, 14, 20, 25])
def test_every_default_the_rulebook_names_is_rolled_for_a_character_lacking_the_skill(run, level):
    """GURPS, 'Default Rolls': "Lockpicking defaults to IQ−5. If Aldric has IQ 14, he can attempt
    to pick a lock by rolling against 14−5 = 9." and "Rule of 20: If a basic attribute exceeds
    20, treat it as 20 when calculating defaults. So IQ 25 still gives a default Lockpicking of
    15 (20−5), not 20." Every default the text names, read from the rulebook now, is rolled for
    a character whose sheet lacks the skill and lists no default for it."""
    named = rulebook_defaults()
    assert {skill for skill, *_ in named} >= {"Lockpicking", "Climbing", "Swimming"}
    run.ok("campaign new Defaults --system gurps")
    stats = [f"--stat={attribute}={level}" for attribute in ("ST", "DX", "IQ", "HT")]
    run.ok(["character", "add", "Aldric", *stats])
    run.ok("session start")
    for skill, attribute, modifier, sentence in named:
        expected = min(level, 20) + modifier
        source = f"{attribute}{modifier:+d}"
        doc = run.json(f"roll Aldric {skill} --dice 1,1,1")
        assert (doc["base"], doc["base_source"]) == (expected, source), sentence
        assert doc["outcome"] == "critical_success", sentence
        contest = run.json(f"contest Aldric {skill} Rival 10 --dice-a 1,1,2 --dice-b 5,5,5")
        assert contest["a"]["effective"] == expected, sentence


def test_the_rulebooks_lockpicking_example_is_rolled_without_a_default_on_the_sheet(run):
    """GURPS, 'Default Rolls': "Lockpicking defaults to IQ−5. If Aldric has IQ 14, he can attempt
    to pick a lock by rolling against 14−5 = 9." A sheet's own default still wins, and a skill
    with no default is still refused."""
    run.ok("campaign new Defaults --system gurps")
    run.ok("character add Aldric --stat IQ=14 --stat DX=11")
    run.ok("session start")
    lock = run.json("roll Aldric Lockpicking --dice 3,3,3")
    assert rolled(lock) == (9, 9, "success", 0)
    assert lock["base_source"] == "IQ-5"
    assert run.json("roll Aldric Lockpicking/TL4 --dice 3,3,3")["base"] == 9
    run.ok("character default Aldric Lockpicking DX-6")  # the sheet's, though worse: it wins
    assert run.json("roll Aldric Lockpicking --dice 3,3,3")["base_source"] == "DX-6"
    refused(run, "roll Aldric Alchemy --dice 3,3,3", "cannot attempt Alchemy untrained")
    refused(run, "roll Aldric Forgery --dice 3,3,3", "no default for it")


def test_a_default_the_sheet_lists_replaces_the_rulebook_one(iron):
    iron.ok("character add Pell --stat DX=11 --stat IQ=13 --stat HT=10")
    iron.ok("character default Pell Swimming HT-6")  # worse than the rulebook's HT-4, and chosen
    swim = iron.json("roll Pell Swimming --dice 3,3,3")
    assert (swim["base"], swim["base_source"]) == (4, "HT-6")


def test_a_sense_contested_rolls_per_with_its_acute_bonus_in_secret(scout):
    # GURPS, 'Sense Rolls': a sense roll is against Per, with Acute Senses added; it is
    # rolled secretly, in a contest against Stealth as in a roll.
    shown = scout.ok("contest Scout Vision Mira Stealth --dice-a 3,3,3 --dice-b 5,5,5").stdout
    assert "(secret)" in shown
    doc = scout.json("contest Scout Vision Mira Stealth --dice-a 3,3,3 --dice-b 5,5,5")
    assert (doc["a"]["effective"], doc["secret"]) == (15, True)  # Per 13 + Acute Vision 2
    assert "a secret event for the GM" in scout.ok("log --player-view").stdout
    open_ = scout.json("contest Scout Hearing Thief 12 --public --dice-a 3,3,3 --dice-b 5,5,5")
    assert (open_["a"]["effective"], open_["secret"]) == (13 + 4, False)  # Discriminatory


def test_a_contest_uses_the_rulebook_defaults_for_climbing_and_swimming(scout):
    climb = scout.json("contest Scout Climbing Rival 10 --dice-a 3,3,3 --dice-b 5,5,5")
    assert climb["a"]["effective"] == 7  # DX 12 - 5
    swim = scout.json("contest Scout Swimming Rival 10 --dice-a 3,3,3 --dice-b 5,5,5")
    assert swim["a"]["effective"] == 7  # HT 11 - 4


def test_extra_effort_may_roll_a_will_based_skill(iron):
    # GURPS, 'Extra Effort': "Roll against Will (or Will-based relevant skill) at -1 per 5%".
    iron.ok("character add Monk --stat IQ=11 --stat Will=12 --skill Meditation=14")
    doc = iron.json("effort Monk 20 --skill Meditation --dice 3,3,3")
    assert (doc["trait"], doc["base"], doc["effective"], doc["granted"]) == (
        "Meditation",
        14,
        10,
        True,
    )
    assert "Monk rolls Meditation (extra effort) at 10" in iron.ok("log").stdout
    assert "chain intact" in iron.ok("verify").stdout


def test_climbing_swimming_and_running_say_what_follows_as_the_rulebook_does(iron):
    # GURPS, 'Success Roll — Mira Scales a Wall': -3 to Climbing, encumbrance 0, effective
    # 12, and she succeeds with a margin of 3 (a 9).
    wall = iron.ok("roll Mira Climbing --mod climbing:vertical-stone-wall --dice 3,3,3").stdout
    assert "effective 12" in wall
    assert "SUCCESS by 3" in wall
    assert "climbing speed: 1 ft/5 sec in combat, 4 ft/min otherwise" in wall
    assert "roll again every five minutes of climbing" in wall
    # 'Climbing': "Failure means you fall; critical failure means you fall even if roped".
    assert "a fall\n" in iron.ok("roll Mira Climbing --dice 6,6,4").stdout
    assert "even if roped" in iron.ok("roll Mira Climbing --dice 6,6,6").stdout
    # 'Swimming': "Failure means you inhale water and lose 1 FP; roll again in five seconds."
    assert "roll again in five seconds" in iron.ok("roll Mira Swimming --dice 6,6,4").stdout
    sprint = iron.ok("roll Vora HT --feat running --dice 3,3,3").stdout
    assert "after 15 more seconds of sprinting, or a minute of paced running" in sprint


def test_the_sheets_encumbrance_counts_on_climbing_and_swimming_once(iron):
    # 'Climbing': "Subtract your current encumbrance level (0-4) from every Climbing roll".
    iron.ok("character update Vora --stat Encumbrance=2")
    assert iron.json("roll Vora Climbing --dice 3,3,3")["effective"] == 13 - 2
    assert iron.json("roll Vora Swimming --dice 3,3,3")["effective"] == 12 - 4 - 2
    given = iron.json("roll Vora Climbing --mod encumbrance:1 --dice 3,3,3")
    assert given["effective"] == 13 - 1  # the roll's own level, not the sheet's as well
    assert iron.json("roll Vora Broadsword --dice 3,3,3")["effective"] == 16
    # Level 0 is a level too ("encumbrance level (0-4)"): travelling light today.
    light = iron.json("roll Vora Climbing --mod encumbrance:0 --dice 3,3,3")
    assert (light["effective"], mods(light)) == (13, [(0, "encumbrance 0")])


def test_an_automatic_task_is_rolled_when_asked_with_the_rulebook_s_word_on_it(iron):
    """GURPS, 'Task Difficulty Scale': "+10 | Automatic | Starting a car — GM should skip
    the roll entirely"."""
    doc = iron.json("roll Mira Lockpicking --mod automatic --dice 3,3,3")
    assert doc["effective"] == 22
    assert any('"GM should skip the roll entirely"' in note for note in doc["notes"])
    assert (
        "GM should skip the roll entirely"
        in iron.ok("roll Mira Lockpicking --mod automatic --dice 3,3,3").stdout
    )
    assert not any("skip" in n for n in iron.json("roll Mira Lockpicking --dice 3,3,3")["notes"])


def test_movement_gives_paced_running_and_running_start_jumps(iron):
    # 'Running & Sprinting': paced running is half the sprint; 'Jumping': a running start adds
    # the yards run to Basic Move: Move 6 and 4 yards is (6 x 10) - 10 = 50 in, 2 x 10 - 3 = 17.
    iron.ok("character update Vora --stat Move=6")
    shown = iron.ok("character show Vora --run-up 4").stdout
    assert "sprinting 7 after a second, paced running 3" in shown
    assert "After a 4-yard run-up: high jump 50 in, broad jump 17 ft" in shown
    moves = iron.json("character show Vora --run-up 4")["movement"]
    assert (moves["paced_move"], moves["running_high_jump_inches"]) == (3, 50)


def test_what_follows_a_secret_roll_and_would_give_it_away_is_secret_too(iron):
    # A roll taking the margin a secret influence left (its label and number would say it).
    iron.ok('character add Spy --npc --stat Will=11 --skill "Sex Appeal=14"')
    iron.ok('influence Spy "Sex Appeal" Mira --secret --dice-a 3,3,4 --dice-b 3,4,4')
    assert iron.json("roll Mira Per --mod influence:Spy --dice 3,4,5")["secret"] is True
    # The round after a secret round of a regular contest (its number would say how it went).
    iron.ok("contest Vora Broadsword Duellist 12 --secret --mode regular --dice-a 4,4,4 "
            "--dice-b 4,4,4")  # fmt: skip
    assert (
        iron.json(
            "contest Vora Broadsword Duellist 12 --mode regular --dice-a 3,4,5 --dice-b 6,6,6"
        )["secret"]
        is True
    )
    # Ending a condition only a secret roll set (the players never saw it begin).
    iron.ok("fright Mira --secret --dice 6,6,2 --table-dice 5,5,2")
    assert iron.json("condition clear Mira stunned")["secret"] is True
    events = iron.json("log")["events"]
    assert [e["visibility"] for e in events[-1:]] == ["gm"]
    players = iron.ok("log --player-view").stdout
    assert "influenced" not in players
    assert "round 2" not in players
    assert "no longer stunned" not in players
    # Nothing secret about a public contest's next round, or a condition the players saw.
    iron.ok("condition set Mira shaken")
    assert iron.json("condition clear Mira shaken")["secret"] is False


def test_the_players_cannot_tell_one_kind_of_secret_event_from_another(iron):
    iron.ok("fright Mira --secret --mod alone --dice 6,6,2 --table-dice 5,5,2")
    iron.ok('trait assign Mira "Quirk: counts the exits"')  # owed by the secret check
    iron.ok("roll Mira Vision --dice 1,2,3")
    iron.ok("contest Vora Broadsword Duellist 12 --secret --dice-a 3,3,3 --dice-b 4,4,4")
    shown = iron.json("log --player-view")["events"][-4:]
    assert {e["type"] for e in shown} == {"Secret"}
    assert {json.dumps(e["payload"]) for e in shown} == {'{"secret": true}'}
    lines = iron.ok("export rolls --format jsonl --player-view").stdout.splitlines()
    rows = [json.loads(line) for line in lines]
    kinds = [r["kind"] for r in rows if r.get("secret")]
    assert len(kinds) == 4
    assert len(set(kinds)) == 1


def test_hp_past_minus_hp_or_at_the_floor_tracker_keeps_says_so(iron):
    """GURPS names no HP threshold, so the line says where HP stands against -HP and the
    -5×HP that tracker keeps it at, and that the GM rules what it means."""
    assert iron.ok("hp Vora -3").stdout.strip() == "Vora HP 12 → 9 of 12."
    past = iron.ok("hp Vora -30").stdout.splitlines()
    assert past[0] == "Vora HP 9 → -21 of 12."
    assert past[1] == (
        "! HP -21 is past -HP (-12); the GURPS rulebook gives no HP thresholds, so what it means "
        "is the GM's call."
    )
    doc = iron.json("hp Vora -100")
    assert (doc["after"], doc["delta"]) == (-60, -100)
    [note] = doc["notes"]
    assert note.startswith("HP -60 is -5×HP, as low as tracker keeps HP: the change asked for")
    assert "would have taken it to -121" in note
    fp = iron.json("fp Mira -30")
    assert fp["after"] == -11
    assert fp["notes"][0].startswith("FP -11 is -FP, as low as tracker keeps FP")


def test_a_stunned_fainted_character_rolls_and_the_line_names_what_is_on_them(iron):
    """GURPS's fright table gives a stun or a faint a duration and a roll to recover, no
    modifier: the roll is not refused (recovering is a roll) and takes nothing for them, and
    its line says so instead of passing as if Vora had neither."""
    # Will 11, 17 fails by 6: table 4 + 6 = 10, stunned 3 s; then 11 + 6 = 17, fainted.
    iron.ok("fright Vora --dice 6,6,5 --table-dice 1,1,2 --effect-dice 3")
    iron.ok("fright Vora --dice 6,6,5 --table-dice 4,4,3 --effect-dice 2")
    state(iron, Vora={"conditions": ["stunned", "fainted"]})
    doc = iron.json("roll Vora Broadsword --dice 3,4,5")
    assert (doc["effective"], doc["outcome"]) == (16, "success")
    said = "Also on Vora: stunned and fainted; this roll applied nothing for them"
    assert any(note.startswith(said) for note in doc["notes"])
    assert said in iron.ok("roll Vora HT --dice 3,4,5").stdout  # the HT roll to come round
    iron.ok("condition clear Vora stunned")
    iron.ok("condition clear Vora fainted")
    assert "Also on Vora" not in iron.ok("roll Vora Broadsword --dice 3,4,5").stdout
