"""GURPS: retries, buy-ups, major projects, reactions and influence, extra effort, feats, senses."""

from __future__ import annotations

import pytest

from tracker.errors import BadInput, DiceError, Refused
from tracker.systems.dice import PhysicalDice
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.attempts import buy_up_cost, retry_modifier
from tracker.systems.gurps.rules.feats import (
    broad_jump_feet,
    climbing_modifiers,
    extra_effort,
    high_jump_inches,
    paced_move,
    sprint_move,
    water_move,
)
from tracker.systems.gurps.rules.influence import (
    InfluenceResult,
    better_reaction,
    influence_roll,
    reaction_level,
    reaction_roll,
)
from tracker.systems.gurps.rules.projects import project_day, supervisor_modifier
from tracker.systems.gurps.rules.senses import hearing_modifier, vision_modifiers
from tracker.systems.gurps.rules.success import Modifier


def dice(total: int) -> PhysicalDice:
    """Physical 3d6 showing ``total``."""
    first = min(6, total - 2)
    second = min(6, total - first - 1)
    return PhysicalDice([first, second, total - first - second])


class Untouchable:
    """A dice source that fails the test if anything rolls it."""

    kind = "test"

    def roll(self, count: int, faces: int, purpose: str = "the roll") -> tuple[int, ...]:
        raise AssertionError(f"nothing should roll {purpose}")


CF, F, S, CS = "critical_failure", "failure", "success", "critical_success"


# Repeated attempts --------------------------------------------------------------------------


def test_retry_modes() -> None:
    assert tables.RETRY_MODES == (
        "one-chance",
        "retry-with-damage",
        "retry-at-penalty",
        "retry-freely",
    )


def test_one_chance_allows_the_first_attempt() -> None:
    assert retry_modifier("one-chance", 0, 0) is None


def test_one_chance_refuses_a_second_attempt() -> None:
    with pytest.raises(Refused, match="one chance"):
        retry_modifier("one-chance", 1, 1)


@pytest.mark.parametrize(("failures", "value"), [(1, -1), (2, -2), (5, -5)])
def test_retry_at_penalty_is_minus_1_per_earlier_failure(failures: int, value: int) -> None:
    modifier = retry_modifier("retry-at-penalty", failures, failures)
    assert modifier is not None
    assert modifier.value == value


def test_retry_at_penalty_counts_failures_not_attempts() -> None:
    modifier = retry_modifier("retry-at-penalty", 4, 1)
    assert modifier is not None
    assert modifier.value == -1
    assert retry_modifier("retry-at-penalty", 0, 0) is None


@pytest.mark.parametrize("mode", ["retry-freely", "retry-with-damage", "Retry Freely"])
def test_other_modes_take_no_modifier(mode: str) -> None:
    assert retry_modifier(mode, 6, 6) is None


@pytest.mark.parametrize(
    ("mode", "attempts", "failures"),
    [("twice", 0, 0), ("retry-freely", -1, 0), ("retry-at-penalty", 1, 2)],
)
def test_impossible_retry_inputs_are_bad_input(mode: str, attempts: int, failures: int) -> None:
    with pytest.raises(BadInput):
        retry_modifier(mode, attempts, failures)


# Cinematic buy-ups --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("current", "target", "cost"),
    [(CF, F, 2), (F, S, 1), (S, CS, 2), (CF, S, 3), (F, CS, 3), (CF, CS, 5)],
)
def test_buy_up_costs_chain(current: str, target: str, cost: int) -> None:
    assert buy_up_cost(current, target) == cost


@pytest.mark.parametrize(("current", "target"), [(S, S), (S, F), (CS, CF), (F, CF)])
def test_a_buy_up_must_improve_the_outcome(current: str, target: str) -> None:
    with pytest.raises(Refused):
        buy_up_cost(current, target)


def test_buy_up_rejects_unknown_outcomes() -> None:
    with pytest.raises(BadInput):
        buy_up_cost("failure", "triumph")


# Major projects -----------------------------------------------------------------------------


@pytest.mark.parametrize(("outcome", "hours"), [(CS, 12), (S, 8), (F, 4)])
def test_major_project_hours(outcome: str, hours: int) -> None:
    day = project_day(outcome, dice=Untouchable())
    assert (day.man_hours, day.destroyed_hours, day.dice) == (hours, 0, ())


def test_major_project_critical_failure_destroys_2d_hours() -> None:
    day = project_day(CF, dice=PhysicalDice([3, 5]))
    assert (day.man_hours, day.destroyed_hours, day.dice) == (0, 8, (3, 5))
    assert day.to_dict()["dice"] == [3, 5]


def test_major_project_destroyed_hours_need_two_d6() -> None:
    with pytest.raises(DiceError, match="two d6"):
        project_day(CF, dice=PhysicalDice([3]))


def test_major_project_unknown_outcome() -> None:
    with pytest.raises(BadInput):
        project_day("great", dice=Untouchable())


def test_supervisor_bonus() -> None:
    assert tables.SUPERVISOR_BONUS == (1, 2)
    assert supervisor_modifier().value == 1
    assert supervisor_modifier(2).value == 2
    with pytest.raises(BadInput):
        supervisor_modifier(3)


# Reactions ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "level"),
    [
        (-6, "Disastrous"),
        (0, "Disastrous"),
        (1, "Very Bad"),
        (3, "Very Bad"),
        (4, "Bad"),
        (6, "Bad"),
        (7, "Poor"),
        (9, "Poor"),
        (10, "Neutral"),
        (12, "Neutral"),
        (13, "Good"),
        (15, "Good"),
        (16, "Very Good"),
        (18, "Very Good"),
        (19, "Excellent"),
        (30, "Excellent"),
    ],
)
def test_reaction_table_boundaries(total: int, level: str) -> None:
    assert reaction_level(total) == level


def test_reaction_roll_adds_modifiers() -> None:
    result = reaction_roll([Modifier(2, "Appearance"), Modifier(-1, "foreign")], dice=dice(12))
    assert (result.total, result.level) == (13, "Good")
    assert sum(result.dice) == 12


def test_better_reaction() -> None:
    assert better_reaction("Bad", "Very Good") == "Very Good"
    assert better_reaction("Good", "Very Bad") == "Good"


# Influence ----------------------------------------------------------------------------------


def influence(skill: str, a_total: int, b_total: int, **kwargs) -> InfluenceResult:
    return influence_roll(skill, 12, 10, dice_a=dice(a_total), dice_b=dice(b_total), **kwargs)


def test_aldric_at_the_gate_diplomacy_win_and_the_better_of_two() -> None:
    result = influence("Diplomacy", 6, 12, reaction_dice=dice(17))
    assert result.won
    assert result.contest is not None
    assert result.contest.margin_of_victory == 6 + 2
    assert result.contest_level == "Good"
    assert result.reaction is not None
    assert result.reaction.level == "Very Good"
    assert result.level == "Very Good"


def test_diplomacy_keeps_the_contest_result_when_the_reaction_is_worse() -> None:
    result = influence("diplomacy", 6, 12, reaction_dice=dice(5))
    assert result.reaction is not None
    assert result.reaction.level == "Bad"
    assert result.level == "Good"


def test_diplomacy_loss_can_be_saved_by_the_reaction_roll() -> None:
    result = influence("Diplomacy", 14, 6, reaction_dice=dice(11))
    assert not result.won
    assert result.contest_level == "Bad"
    assert result.level == "Neutral"


def test_diplomacy_reaction_takes_reaction_modifiers() -> None:
    result = influence(
        "Diplomacy", 14, 6, reaction_dice=dice(11), reaction_modifiers=[Modifier(2, "status")]
    )
    assert result.level == "Good"


def test_diplomacy_needs_reaction_dice() -> None:
    with pytest.raises(BadInput):
        influence("Diplomacy", 6, 12)


@pytest.mark.parametrize(
    ("skill", "level"),
    [
        ("Fast-Talk", "Good"),
        ("Intimidation", "Good"),
        ("Savoir-Faire", "Good"),
        ("Sex Appeal", "Very Good"),
        ("Streetwise", "Good"),
    ],
)
def test_a_win_gives_good_or_very_good(skill: str, level: str) -> None:
    result = influence(skill, 8, 12)
    assert result.won
    assert result.level == level
    assert result.reaction is None


@pytest.mark.parametrize(
    ("skill", "level"),
    [
        ("Fast-Talk", "Bad"),
        ("Intimidation", "Very Bad"),
        ("Savoir-Faire", "Bad"),
        ("sex appeal", "Bad"),
        ("Streetwise", "Bad"),
    ],
)
def test_a_loss_gives_bad_or_very_bad(skill: str, level: str) -> None:
    assert influence(skill, 14, 8).level == level


def test_a_stalemate_counts_as_a_loss() -> None:
    result = influence("Intimidation", 9, 7)
    assert result.contest is not None
    assert result.contest.winner is None
    assert result.level == "Very Bad"


def test_indomitable_cannot_be_influenced_without_empathy() -> None:
    with pytest.raises(Refused, match="Indomitable"):
        influence("Fast-Talk", 8, 12, indomitable=True)
    assert influence("Fast-Talk", 8, 12, indomitable=True, empathy=True).won


def test_unfazeable_cannot_be_intimidated() -> None:
    with pytest.raises(Refused, match="Unfazeable"):
        influence("Intimidation", 8, 12, unfazeable=True)
    assert influence("Streetwise", 8, 12, unfazeable=True).won


def test_slave_mentality_complies_without_a_roll() -> None:
    result = influence_roll(
        "Fast-Talk", 12, 10, dice_a=Untouchable(), dice_b=Untouchable(), slave_mentality=True
    )
    assert result.complied
    assert result.contest is None
    assert result.level == "Good"


def test_unknown_influence_skill_is_bad_input() -> None:
    with pytest.raises(BadInput):
        influence("Bribery", 8, 12)


def test_influence_to_dict() -> None:
    document = influence("Diplomacy", 6, 12, reaction_dice=dice(17)).to_dict()
    assert document["level"] == "Very Good"
    assert document["contest"]["winner"] == "a"
    assert document["reaction"]["total"] == 17


# Extra effort -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("percent", "penalty"), [(1, -1), (5, -1), (6, -2), (10, -2), (20, -4), (25, -5), (26, -6)]
)
def test_extra_effort_is_minus_1_per_5_percent_rounded_up(percent: int, penalty: int) -> None:
    result = extra_effort(12, percent, dice=dice(10))
    assert result.roll.effective == 12 + penalty


def test_motivated_extra_effort_gets_plus_5() -> None:
    result = extra_effort(12, 20, dice=dice(13), motivated=True)
    assert result.roll.effective == 13
    assert result.granted


@pytest.mark.parametrize("total", [5, 12])
def test_extra_effort_always_costs_1_fp(total: int) -> None:
    result = extra_effort(11, 10, dice=dice(total))
    assert result.fp_cost == 1
    assert result.hp_loss == 0
    assert result.granted == (total <= 9)


def test_extra_effort_critical_failure_costs_hp_equal_to_fp() -> None:
    result = extra_effort(11, 10, dice=dice(18))
    assert result.roll.outcome == CF
    assert result.hp_loss == result.fp_cost == 1
    assert not result.granted


def test_machines_cannot_use_extra_effort() -> None:
    with pytest.raises(Refused, match="Machine"):
        extra_effort(12, 10, dice=Untouchable(), machine=True)


def test_extra_effort_needs_a_positive_percentage() -> None:
    with pytest.raises(BadInput):
        extra_effort(12, 0, dice=Untouchable())


# Physical feats -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("surface", "value"),
    [
        ("ordinary tree", 5),
        ("ordinary-mountain", 0),
        ("Vertical Stone Wall", -3),
        ("modern-building", -3),
        ("rope-up", -2),
    ],
)
def test_climbing_surfaces(surface: str, value: int) -> None:
    (modifier,) = climbing_modifiers(surface)
    assert modifier.value == value


def test_climbing_subtracts_encumbrance() -> None:
    modifiers = climbing_modifiers("vertical-stone-wall", encumbrance=2)
    assert [m.value for m in modifiers] == [-3, -2]


@pytest.mark.parametrize(("surface", "encumbrance"), [("glass", 0), ("rope-up", 5)])
def test_climbing_bad_input(surface: str, encumbrance: int) -> None:
    with pytest.raises(BadInput):
        climbing_modifiers(surface, encumbrance)


@pytest.mark.parametrize(
    ("move", "run", "jumping", "inches"),
    [(5, 0, None, 20), (5, 3, None, 38), (5, 0, 14, 32), (5, 0, 8, 20), (1, 0, None, 0)],
)
def test_high_jump(move: int, run: int, jumping: int | None, inches: int) -> None:
    assert high_jump_inches(move, run, jumping) == inches


@pytest.mark.parametrize(
    ("move", "run", "jumping", "feet"),
    [(5, 0, None, 7), (5, 4, None, 15), (6, 0, 16, 13), (1, 0, None, 0)],
)
def test_broad_jump(move: int, run: int, jumping: int | None, feet: int) -> None:
    assert broad_jump_feet(move, run, jumping) == feet


@pytest.mark.parametrize(("move", "sprint"), [(1, 2), (5, 6), (7, 8), (10, 12), (13, 15)])
def test_sprint_adds_20_percent_at_least_1(move: int, sprint: int) -> None:
    assert sprint_move(move) == sprint


@pytest.mark.parametrize(
    ("move", "paced"), [(0, 1), (1, 1), (2, 1), (3, 2), (5, 3), (6, 3), (7, 4), (10, 6)]
)
def test_paced_running_is_half_the_sprint_rounded_down_at_least_1(move: int, paced: int) -> None:
    """GURPS, 'Running & Sprinting': "Paced running: Half sprinting speed, but FP loss rolls are
    every minute instead of every 15 seconds" (tracker/systems/gurps/RULINGS.md, 'Running and
    jumping': rounded down, at least 1). Move 6 sprints at 7 and paces at 3."""
    assert paced_move(sprint_move(move)) == paced


@pytest.mark.parametrize(("move", "water"), [(0, 1), (4, 1), (5, 1), (10, 2), (14, 2), (15, 3)])
def test_water_move_is_a_fifth_at_least_1(move: int, water: int) -> None:
    assert water_move(move) == water


# Senses -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sound", "yards", "value"),
    [
        ("normal conversation", 1, 0),
        ("normal conversation", 2, -1),
        ("normal conversation", 3, -2),
        ("normal conversation", 4, -2),
        ("normal conversation", 0.5, 1),
        ("normal conversation", 0.25, 2),
        ("normal conversation", 0.7, 0),
        ("quiet conversation", 0.5, 0),
        ("noisy office", 100, -4),
        ("jet takeoff", 128, 0),
    ],
)
def test_hearing_range_steps(sound: str, yards: float, value: int) -> None:
    assert hearing_modifier(sound, yards).value == value


def test_hearing_ranges_from_the_rulebook() -> None:
    assert {name: num / den for name, (num, den) in tables.HEARING_RANGES.items()} == {
        "quiet-conversation": 0.5,
        "normal-conversation": 1,
        "loud-conversation": 4,
        "noisy-office": 8,
        "normal-traffic": 16,
        "heavy-traffic": 64,
        "jet-takeoff": 128,
    }


def test_vision_is_impossible_in_total_darkness() -> None:
    with pytest.raises(Refused, match="total darkness"):
        vision_modifiers(total_darkness=True)
    assert vision_modifiers(total_darkness=True, sees_in_dark=True) == ()


def test_vision_obvious_and_partial_darkness() -> None:
    modifiers = vision_modifiers(darkness=4, obvious=True)
    assert [m.value for m in modifiers] == [-4, 10]
    with pytest.raises(BadInput):
        vision_modifiers(darkness=10)
