"""GURPS success rolls, modifiers and defaults (the GURPS rules, and
tracker/systems/gurps/RULINGS.md)."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracker.errors import BadInput, DiceError, Refused
from tracker.systems.dice import PhysicalDice
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.defaults import base_skill, check_default_for, parse_default
from tracker.systems.gurps.rules.feats import climbing_modifiers
from tracker.systems.gurps.rules.presets import difficulty_notes, extra_time, haste, preset
from tracker.systems.gurps.rules.success import (
    OUTCOMES,
    Modifier,
    decide_roll,
    effective_skill,
    outcome,
    success_roll,
)

ALL_3D6 = list(itertools.product(range(1, 7), repeat=3))


def dice_totalling(total: int) -> PhysicalDice:
    """Physical dice showing the given 3d6 total (spread as evenly as the faces allow)."""
    for combo in ALL_3D6:
        if sum(combo) == total:
            return PhysicalDice(combo)
    raise ValueError(total)


def expected_outcome(effective: int, total: int) -> str:
    """Reference written from the rulebook's tables and tracker/systems/gurps/RULINGS.md,
    independent of the engine."""
    if total in (3, 4):
        return "critical_success"
    if total == 18:
        return "critical_failure"
    if total == 17:
        return "critical_failure" if effective <= 15 else "failure"
    if total <= effective:
        needs = {5: 15, 6: 16}
        if total in needs and effective >= needs[total]:
            return "critical_success"
        return "success"
    return "critical_failure" if total - effective >= 10 else "failure"


CS, S, F, CF = "critical_success", "success", "failure", "critical_failure"

# Literal rows, typed by hand, for totals 3..18.
LITERAL_ROWS = {
    2: [CS, CS, F, F, F, F, F, F, F, CF, CF, CF, CF, CF, CF, CF],
    6: [CS, CS, S, S, F, F, F, F, F, F, F, F, F, CF, CF, CF],
    10: [CS, CS, S, S, S, S, S, S, F, F, F, F, F, F, CF, CF],
    15: [CS, CS, CS, S, S, S, S, S, S, S, S, S, S, F, CF, CF],
    16: [CS, CS, CS, CS, S, S, S, S, S, S, S, S, S, S, F, CF],
    20: [CS, CS, CS, CS, S, S, S, S, S, S, S, S, S, S, F, CF],
}


@pytest.mark.parametrize("effective", [0, 1, 2, *range(3, 21), 21, 25])
@pytest.mark.parametrize("total", range(3, 19))
def test_outcome_matches_the_rulebook_for_every_total(effective: int, total: int) -> None:
    assert outcome(effective, total) == expected_outcome(effective, total)


@pytest.mark.parametrize("effective", sorted(LITERAL_ROWS))
def test_outcome_literal_rows(effective: int) -> None:
    assert [outcome(effective, t) for t in range(3, 19)] == LITERAL_ROWS[effective]


@pytest.mark.parametrize("effective", [-20, -3, 40, 100])
def test_outcome_works_far_outside_the_usual_skills(effective: int) -> None:
    results = [outcome(effective, t) for t in range(3, 19)]
    assert results[:2] == [CS, CS]
    assert results[-1] == CF
    assert all(r in OUTCOMES for r in results)


@pytest.mark.parametrize("total", [0, 2, 19, -1])
def test_outcome_rejects_impossible_totals(total: int) -> None:
    with pytest.raises(BadInput):
        outcome(10, total)


def test_outcomes_are_ordered_worst_to_best() -> None:
    assert OUTCOMES == ("critical_failure", "failure", "success", "critical_success")


# Worked examples ----------------------------------------------------------------------------


def test_mira_picks_the_lock_with_an_8() -> None:
    roll = success_roll(12, dice=PhysicalDice([2, 3, 3]))
    assert roll.total == 8
    assert roll.success
    assert roll.outcome == "success"


def test_mira_would_fail_the_lock_with_a_15() -> None:
    roll = success_roll(12, dice=PhysicalDice([5, 5, 5]))
    assert not roll.success
    assert roll.outcome == "failure"


def test_mira_climbs_a_wall_in_the_dark_at_effective_3() -> None:
    modifiers = [Modifier(-3, "vertical stone wall"), Modifier(-9, "total darkness")]
    assert effective_skill(15, modifiers) == 3
    roll = success_roll(15, modifiers, dice=PhysicalDice([1, 1, 1]))
    assert roll.effective == 3
    assert roll.success
    assert not success_roll(15, modifiers, dice=PhysicalDice([1, 1, 3])).success


def test_mira_scales_a_wall_with_margin_3() -> None:
    modifiers = [Modifier(-3, "vertical stone wall"), Modifier(0, "encumbrance 0")]
    roll = success_roll(15, modifiers, dice=PhysicalDice([3, 3, 3]))
    assert roll.effective == 12
    assert roll.success
    assert roll.margin == 3
    assert roll.margin_of_success == 3


def test_margin_of_success_example() -> None:
    roll = success_roll(14, dice=PhysicalDice([3, 3, 3]))
    assert roll.margin_of_success == 5
    assert roll.margin == 5


def test_margin_of_failure_example() -> None:
    roll = success_roll(9, dice=PhysicalDice([4, 4, 5]))
    assert roll.total == 13
    assert roll.margin_of_failure == 4
    assert roll.margin == -4
    assert roll.margin_of_success is None


def test_rolling_16_on_a_skill_of_6_is_a_critical_failure() -> None:
    roll = success_roll(6, dice=PhysicalDice([6, 6, 4]))
    assert roll.outcome == "critical_failure"
    assert roll.critical


def test_lockpicking_20_fails_on_a_17_as_an_ordinary_failure() -> None:
    # The rulebook's summary calls every 17 critical; its detailed table (and the ruling) wins.
    roll = success_roll(20, dice=PhysicalDice([6, 6, 5]))
    assert roll.outcome == "failure"
    assert not roll.success
    assert not roll.critical


def test_lockpicking_20_fumbles_on_an_18() -> None:
    assert success_roll(20, dice=PhysicalDice([6, 6, 6])).outcome == "critical_failure"


def test_lockpicking_5_succeeds_on_a_3() -> None:
    roll = success_roll(5, dice=PhysicalDice([1, 1, 1]))
    assert roll.outcome == "critical_success"
    assert roll.success


def test_dark_improvised_hasty_work_is_14_below_base() -> None:
    modifiers = [Modifier(-9, "dark"), preset("equipment:improvised"), haste(30)]
    assert [m.value for m in modifiers] == [-9, -2, -3]
    assert effective_skill(16, modifiers) == 16 - 14


def test_aldric_defaults_lockpicking_to_iq_minus_5() -> None:
    result = base_skill(
        "Lockpicking", attributes={"IQ": 14}, skills={}, defaults=["IQ-5"], character="Aldric"
    )
    assert result.value == 9
    assert result.source == "IQ-5"


def test_rule_of_20_caps_iq_25_at_a_default_of_15() -> None:
    result = base_skill("Lockpicking", attributes={"IQ": 25}, skills={}, defaults=["IQ-5"])
    assert result.value == 15


# Success rolls ------------------------------------------------------------------------------


def test_success_roll_keeps_its_inputs_and_dice() -> None:
    modifiers = (Modifier(2, "fine tools"), Modifier(-1, "rushed"))
    roll = success_roll(11, modifiers, dice=PhysicalDice([4, 2, 6]))
    assert roll.base == 11
    assert roll.modifiers == modifiers
    assert roll.effective == 12
    assert roll.dice == (4, 2, 6)
    assert roll.total == 12
    assert roll.margin == 0
    assert roll.success


def test_success_roll_to_dict_is_json_ready() -> None:
    roll = success_roll(12, [Modifier(-1, "dark")], dice=PhysicalDice([1, 2, 3]))
    assert roll.to_dict() == {
        "base": 12,
        "modifiers": [{"value": -1, "label": "dark"}],
        "effective": 11,
        "dice": [1, 2, 3],
        "total": 6,
        "outcome": "success",
        "success": True,
        "critical": False,
        "margin": 5,
        "margin_of_success": 5,
        "margin_of_failure": None,
    }


@pytest.mark.parametrize("effective", [2, 0, -4])
def test_an_attempt_below_effective_3_is_refused(effective: int) -> None:
    with pytest.raises(Refused, match="cannot be attempted"):
        success_roll(effective, dice=PhysicalDice([1, 1, 1]))


def test_a_refused_attempt_does_not_use_the_dice() -> None:
    dice = PhysicalDice([1, 1, 1])
    with pytest.raises(Refused):
        success_roll(10, [Modifier(-8, "impossible odds")], dice=dice)
    assert success_roll(3, dice=dice).success


def test_active_defense_rolls_at_any_effective_skill() -> None:
    assert success_roll(1, dice=PhysicalDice([1, 1, 2]), defense=True).success
    assert not success_roll(1, dice=PhysicalDice([1, 2, 2]), defense=True).success


def test_a_resisting_side_rolls_at_any_effective_skill() -> None:
    roll = success_roll(-2, dice=PhysicalDice([3, 3, 3]), resisting=True)
    assert roll.outcome == "critical_failure"


def test_success_roll_asks_for_three_d6_once_with_a_purpose() -> None:
    calls = []

    class Recorder:
        kind = "test"

        def roll(self, count: int, faces: int, purpose: str = "the roll") -> tuple[int, ...]:
            calls.append((count, faces, purpose))
            return (3, 3, 3)

    success_roll(10, dice=Recorder())
    assert len(calls) == 1
    assert calls[0][:2] == (3, 6)
    assert calls[0][2]


def test_physical_dice_with_the_wrong_count_are_rejected() -> None:
    with pytest.raises(DiceError, match="three d6"):
        success_roll(12, dice=PhysicalDice([3, 4]))


def test_physical_dice_showing_7_on_a_d6_are_rejected() -> None:
    with pytest.raises(DiceError, match="d6"):
        success_roll(12, dice=PhysicalDice([3, 4, 7]))


def test_decide_roll_redecides_recorded_dice() -> None:
    roll = decide_roll(13, [Modifier(-2, "dark")], [6, 4, 1])
    assert (roll.effective, roll.total, roll.outcome) == (11, 11, "success")
    with pytest.raises(BadInput):
        decide_roll(13, [], [6, 4])


# Modifiers ----------------------------------------------------------------------------------

TASK_DIFFICULTY_FROM_RULEBOOK = {
    "automatic": 10,
    "trivial": 8,
    "very-easy": 6,
    "easy": 4,
    "very-favorable": 2,
    "favorable": 1,
    "average": 0,
    "unfavorable": -1,
    "very-unfavorable": -2,
    "hard": -4,
    "very-hard": -6,
    "dangerous": -8,
    "impossible": -10,
}


def test_task_difficulty_table_takes_the_milder_value_of_each_band() -> None:
    assert tables.TASK_DIFFICULTY == TASK_DIFFICULTY_FROM_RULEBOOK


@pytest.mark.parametrize(("name", "value"), TASK_DIFFICULTY_FROM_RULEBOOK.items())
def test_difficulty_presets(name: str, value: int) -> None:
    assert preset(name).value == value
    assert preset(f"difficulty:{name}").value == value


@pytest.mark.parametrize("spelling", ["Very Hard", "VERY_HARD", "very-hard", " very hard "])
def test_preset_names_ignore_case_and_separators(spelling: str) -> None:
    assert preset(spelling).value == -6


@pytest.mark.parametrize(
    ("quality", "value"),
    [
        ("none-tech", -10),
        ("none", -5),
        ("improvised-tech", -5),
        ("improvised", -2),
        ("basic", 0),
        ("good", 1),
        ("fine", 2),
    ],
)
def test_equipment_presets(quality: str, value: int) -> None:
    assert tables.EQUIPMENT[quality] == value
    modifier = preset(f"Equipment:{quality}")
    assert modifier.value == value
    assert "equipment" in modifier.label


@pytest.mark.parametrize(("tl", "value"), [(0, 2), (3, 2), (4, 2), (5, 2), (6, 3), (8, 4), (11, 5)])
def test_best_equipment_is_half_tl_rounded_down_at_least_2(tl: int, value: int) -> None:
    assert preset("equipment:best", tl=tl).value == value


def test_best_equipment_needs_a_tech_level() -> None:
    with pytest.raises(BadInput, match="tech level"):
        preset("equipment:best")


@pytest.mark.parametrize(("multiple", "value"), [(2, 1), (4, 2), (8, 3), (15, 4), (30, 5)])
def test_extra_time_table(multiple: int, value: int) -> None:
    assert tables.EXTRA_TIME[multiple] == value
    assert extra_time(multiple).value == value
    assert preset(f"time:{multiple}x").value == value


@pytest.mark.parametrize(("multiple", "value"), [(3, 1), (7, 2), (14, 3), (29, 4), (60, 5)])
def test_extra_time_between_listed_multiples_takes_the_one_reached(
    multiple: int, value: int
) -> None:
    assert extra_time(multiple).value == value


def test_extra_time_below_2x_is_bad_input() -> None:
    with pytest.raises(BadInput):
        extra_time(1)


@pytest.mark.parametrize(
    ("percent", "value"), [(0, 0), (9, 0), (10, -1), (30, -3), (50, -5), (59, -5), (90, -9)]
)
def test_haste_is_minus_1_per_full_10_percent(percent: int, value: int) -> None:
    assert haste(percent).value == value
    assert preset(f"haste:{percent}%").value == value


def test_haste_past_90_percent_is_allowed_as_past_the_usual_maximum() -> None:
    """GURPS, 'Time Modifiers': "Haste: −1 per 10% less time taken. ... Maximum reduction
    is normally 90% (one-tenth time) for −9." Normally: past it, still -1 per full 10%, and
    said to be past the usual maximum; no time at all is refused."""
    assert haste(90).label == "haste (90% less time)"
    rushed = preset("haste:95")
    assert (rushed.value, rushed.label) == (
        -9,
        "haste (95% less time; past the usual 90% maximum)",
    )
    with pytest.raises(Refused, match="no time at all"):
        haste(100)


def test_negative_haste_is_bad_input() -> None:
    with pytest.raises(BadInput):
        haste(-10)


def test_an_automatic_task_says_the_rulebook_would_skip_the_roll() -> None:
    """GURPS, 'Task Difficulty Scale': "+10 | Automatic | Starting a car — GM should skip
    the roll entirely"."""
    [note] = difficulty_notes([preset("automatic")])
    assert '"GM should skip the roll entirely"' in note
    assert difficulty_notes([preset("trivial"), Modifier(10, "automatic")]) == []


@pytest.mark.parametrize("name", ["sort-of-hard", "equipment:golden", "time:x", "haste:lots"])
def test_unknown_presets_are_bad_input(name: str) -> None:
    with pytest.raises(BadInput):
        preset(name)


def test_modifiers_stack() -> None:
    modifiers = [preset("hard"), preset("equipment:fine"), extra_time(4)]
    assert effective_skill(12, modifiers) == 12 - 4 + 2 + 2


# Defaults -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "name", "modifier", "text"),
    [
        ("IQ-5", "IQ", -5, "IQ-5"),
        ("dx-5", "DX", -5, "DX-5"),
        ("HT-4", "HT", -4, "HT-4"),
        ("Per", "Per", 0, "Per"),
        ("will-3", "Will", -3, "Will-3"),
        ("Climbing-2", "Climbing", -2, "Climbing-2"),
        ("Fast-Talk-3", "Fast-Talk", -3, "Fast-Talk-3"),
        ("Sex Appeal - 3", "Sex Appeal", -3, "Sex Appeal-3"),
        ("IQ\u22125", "IQ", -5, "IQ-5"),
        ("Jumping+1", "Jumping", 1, "Jumping+1"),
    ],
)
def test_parse_default(expr: str, name: str, modifier: int, text: str) -> None:
    default = parse_default(expr)
    assert (default.name, default.modifier, default.text) == (name, modifier, text)


@pytest.mark.parametrize("expr", ["", "-5", "IQ-", "IQ-five", "5-IQ", "IQ--5", "IQ-5-2x"])
def test_malformed_defaults_are_bad_input(expr: str) -> None:
    with pytest.raises(BadInput):
        parse_default(expr)


def test_sheet_level_beats_a_lower_default() -> None:
    result = base_skill(
        "Lockpicking", attributes={"IQ": 14}, skills={"Lockpicking": 13}, defaults=["IQ-5"]
    )
    assert (result.value, result.source) == (13, "skill")


def test_a_higher_default_beats_a_low_sheet_level() -> None:
    result = base_skill(
        "Climbing", attributes={"DX": 14}, skills={"Climbing": 8}, defaults=["DX-5"]
    )
    assert (result.value, result.source) == (9, "DX-5")
    assert result.candidates == (("skill", 8), ("DX-5", 9))


def test_the_best_of_several_defaults_is_used() -> None:
    result = base_skill(
        "Fast-Talk",
        attributes={"IQ": 12},
        skills={"Acting": 14},
        defaults=["IQ-5", "Acting-5"],
    )
    assert (result.value, result.source) == (9, "Acting-5")


def test_rule_of_20_does_not_cap_a_skill_default() -> None:
    result = base_skill(
        "Fast-Talk", attributes={"IQ": 12}, skills={"Acting": 24}, defaults=["Acting-5"]
    )
    assert result.value == 19


@pytest.mark.parametrize("attribute", ["ST", "DX", "IQ", "HT", "Will", "Per"])
def test_rule_of_20_caps_every_attribute_in_a_default(attribute: str) -> None:
    # tracker/systems/gurps/RULINGS.md: "an attribute counts as at most 20 in an attribute default".
    result = base_skill("Task", attributes={attribute: 23}, skills={}, defaults=[f"{attribute}-4"])
    assert (result.value, result.source) == (16, f"{attribute}-4")


@pytest.mark.parametrize("attribute", ["ST", "DX", "IQ", "HT", "Will", "Per"])
def test_rule_of_20_leaves_an_attribute_of_20_or_less_alone(attribute: str) -> None:
    result = base_skill("Task", attributes={attribute: 20}, skills={}, defaults=[f"{attribute}-4"])
    assert result.value == 16


@pytest.mark.parametrize(("attribute", "value"), [("IQ", 25), ("Will", 23), ("Per", 22)])
def test_rolling_against_an_attribute_directly_is_not_capped(attribute: str, value: int) -> None:
    result = base_skill(attribute.lower(), attributes={attribute: value}, skills={}, defaults=[])
    assert (result.value, result.source) == (value, "attribute")


def test_base_skill_matches_names_without_case() -> None:
    result = base_skill(
        "LOCKPICKING", attributes={"iq": 14}, skills={"lockpicking": 11}, defaults=["Iq-5"]
    )
    assert result.value == 11


def test_a_default_naming_a_missing_trait_is_skipped() -> None:
    result = base_skill(
        "Climbing", attributes={"DX": 12}, skills={}, defaults=["Acrobatics-6", "DX-5"]
    )
    assert (result.value, result.source) == (7, "DX-5")


def test_no_level_and_no_default_is_refused_with_the_fix() -> None:
    with pytest.raises(Refused) as refused:
        base_skill("Lockpicking", attributes={"IQ": 14}, skills={}, defaults=[], character="Wren")
    message = str(refused.value)
    assert "Wren has no Lockpicking skill and no default for it" in message
    assert "tracker character default Wren Lockpicking IQ-5" in message


def test_defaults_that_name_nothing_on_the_sheet_are_refused() -> None:
    with pytest.raises(Refused, match="Poisons"):
        base_skill("Poisons", attributes={}, skills={}, defaults=["Chemistry-3"])


@pytest.mark.parametrize("skill", ["Karate", "alchemy", "Alchemy/TL3", "Karate (Sport)"])
def test_a_skill_with_no_default_takes_none_even_one_listed(skill: str) -> None:
    """GURPS, 'Default Rolls': "Some skills — like Alchemy, Karate, and all spells — have no
    default. You cannot attempt them without training." """
    assert tables.NO_DEFAULT_SKILLS == ("Alchemy", "Karate")
    with pytest.raises(Refused, match=f"Vora cannot attempt {re.escape(skill)} untrained"):
        base_skill(skill, attributes={"DX": 14}, skills={}, defaults=["DX-5"], character="Vora")
    trained = base_skill(skill, attributes={"DX": 14}, skills={skill: 9}, defaults=["DX"])
    assert (trained.value, trained.source) == (9, "skill")
    with pytest.raises(Refused, match="has no default"):
        check_default_for(skill, "DX-5")
    check_default_for("Lockpicking", "IQ-5")


def test_a_malformed_listed_default_is_bad_input() -> None:
    with pytest.raises(BadInput):
        base_skill("Climbing", attributes={"DX": 12}, skills={}, defaults=["DX minus 5"])


# Properties ---------------------------------------------------------------------------------


def successes(effective: int) -> int:
    return sum(1 for combo in ALL_3D6 if outcome(effective, sum(combo)) in (S, CS))


@given(st.integers(-30, 40), st.integers(-30, 40))
def test_success_chance_never_falls_as_skill_rises(low: int, high: int) -> None:
    low, high = sorted((low, high))
    assert successes(low) <= successes(high)


@given(st.integers(-30, 40), st.integers(-30, 40), st.integers(3, 18))
def test_outcome_never_worsens_as_skill_rises(low: int, high: int, total: int) -> None:
    low, high = sorted((low, high))
    rank = OUTCOMES.index
    assert rank(outcome(low, total)) <= rank(outcome(high, total))


@given(st.integers(-30, 40), st.tuples(*[st.integers(1, 6)] * 3))
def test_margins_are_consistent_with_success(effective: int, dice: tuple[int, int, int]) -> None:
    roll = success_roll(effective, dice=PhysicalDice(dice), resisting=True)
    assert roll.margin == effective - sum(dice)
    assert roll.success == (roll.outcome in (S, CS))
    assert roll.critical == (roll.outcome in (CS, CF))
    if roll.success:
        assert roll.margin_of_failure is None
        assert roll.margin_of_success == max(roll.margin, 0)
        assert roll.margin >= 0 or roll.total in (3, 4)
    else:
        assert roll.margin_of_success is None
        assert roll.margin_of_failure == max(-roll.margin, 0)
        assert roll.margin < 0 or roll.total in (17, 18)


def test_climbing_presets_follow_the_surface_table() -> None:
    # GURPS worked example: Mira scales a vertical stone wall, -3 to Climbing 15, with
    # encumbrance 0 → 12; in total darkness (-9) as well → 3.
    wall = preset("climbing:vertical-stone-wall")
    assert wall.value == -3
    assert effective_skill(15, [wall]) == 12
    assert effective_skill(15, [wall, Modifier(-9, "total darkness")]) == 3
    for surface, (value, *_) in tables.CLIMBING_SURFACES.items():
        assert preset(f"climbing:{surface}") == climbing_modifiers(surface)[0]
        assert preset(f"climbing:{surface}").value == value


@pytest.mark.parametrize("level", [0, 1, 2, 3, 4])
def test_encumbrance_preset_subtracts_the_level(level: int) -> None:
    """GURPS, 'Climbing': "Subtract your current encumbrance level (0–4) from every
    Climbing roll": 0 is a level too."""
    assert preset(f"encumbrance:{level}").value == -level


@pytest.mark.parametrize("name", ["climbing:glass", "encumbrance:5", "climbing"])
def test_unknown_climbing_and_encumbrance_presets_are_refused(name: str) -> None:
    with pytest.raises(BadInput):
        preset(name)
