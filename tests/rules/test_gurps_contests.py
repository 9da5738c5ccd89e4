"""GURPS contests: Quick Contests, Resistance Rolls, Regular Contests (rulebook 'Contests')."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracker.errors import DiceError, Refused
from tracker.systems.dice import PhysicalDice
from tracker.systems.gurps.rules.contests import (
    QuickContest,
    compare_rolls,
    normalise_regular,
    quick_contest,
    regular_round,
    resistance_roll,
)
from tracker.systems.gurps.rules.success import decide_roll


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


def quick(a: int, ta: int, b: int, tb: int) -> QuickContest:
    return quick_contest(a, b, dice_a=dice(ta), dice_b=dice(tb))


# Quick Contest table rows -------------------------------------------------------------------


def test_one_succeeds_one_fails_the_successful_side_wins() -> None:
    contest = quick(12, 10, 12, 14)
    assert contest.winner == "a"
    assert contest.margin_of_victory == 2 + 2

    contest = quick(12, 14, 12, 10)
    assert contest.winner == "b"
    assert contest.margin_of_victory == 2 + 2


def test_both_succeed_the_larger_margin_of_success_wins() -> None:
    contest = quick(14, 8, 12, 9)
    assert contest.winner == "a"
    assert contest.margin_of_victory == 6 - 3


def test_both_fail_the_smaller_margin_of_failure_wins() -> None:
    contest = quick(10, 15, 8, 12)
    assert contest.winner == "b"
    assert contest.margin_of_victory == 5 - 4


def test_tied_margins_are_a_stalemate() -> None:
    contest = quick(12, 9, 10, 7)
    assert contest.winner is None
    assert contest.margin_of_victory is None
    assert quick(9, 12, 10, 13).winner is None


def test_vora_disarms_her_opponent_decisively() -> None:
    # Vora (Broadsword 14) rolls 6; her opponent (Broadsword 12) rolls 15.
    contest = quick(14, 6, 12, 15)
    assert contest.a.success
    assert not contest.b.success
    assert contest.winner == "a"
    assert contest.margin_of_victory == (14 - 6) + (15 - 12)


def test_vora_wins_when_both_succeed() -> None:
    contest = quick(14, 6, 12, 11)
    assert contest.winner == "a"
    assert contest.margin_of_victory == (14 - 6) - (12 - 11)


def test_vora_wins_when_both_fail() -> None:
    contest = quick(14, 15, 12, 16)
    assert contest.winner == "a"
    assert contest.margin_of_victory == (16 - 12) - (15 - 14)


def test_an_automatic_success_has_margin_of_success_0() -> None:
    # A 3 on effective skill 2 succeeds, but by nothing; the defender's success by 0 ties it.
    contest = quick_contest(5, 2, dice_a=dice(5), dice_b=dice(3))
    assert contest.b.success
    assert contest.b.margin_of_success == 0
    assert contest.winner is None


def test_an_automatic_failure_has_margin_of_failure_0() -> None:
    # A 17 on 20 fails by nothing: it beats any other failure.
    contest = quick_contest(20, 10, dice_a=dice(17), dice_b=dice(11))
    assert contest.a.margin_of_failure == 0
    assert contest.winner == "a"
    assert contest.margin_of_victory == 1


def test_a_win_by_automatic_results_alone_has_margin_of_victory_0() -> None:
    contest = quick_contest(3, 17, dice_a=dice(3), dice_b=dice(17))
    assert contest.winner == "a"
    assert contest.margin_of_victory == 0


def test_the_active_side_below_3_cannot_attempt() -> None:
    with pytest.raises(Refused):
        quick_contest(2, 10, dice_a=dice(3), dice_b=dice(10))


def test_the_resisting_side_rolls_below_3() -> None:
    contest = quick_contest(10, 1, dice_a=dice(12), dice_b=dice(4))
    assert contest.b.success
    assert contest.winner == "b"


def test_quick_contest_to_dict() -> None:
    document = quick(14, 6, 12, 15).to_dict()
    assert document["winner"] == "a"
    assert document["margin_of_victory"] == 11
    assert document["a"]["total"] == 6
    assert document["b"]["total"] == 15


def test_contest_dice_are_validated() -> None:
    with pytest.raises(DiceError):
        quick_contest(12, 12, dice_a=PhysicalDice([1, 2]), dice_b=dice(10))


@given(st.integers(3, 20), st.integers(3, 18), st.integers(-5, 20), st.integers(3, 18))
def test_swapping_sides_swaps_the_winner(a: int, ta: int, b: int, tb: int) -> None:
    forward = quick(a, ta, b, tb)
    if b < 3:
        return
    backward = quick(b, tb, a, ta)
    swap = {"a": "b", "b": "a", None: None}
    assert backward.winner == swap[forward.winner]
    assert backward.margin_of_victory == forward.margin_of_victory
    assert (forward.winner is None) == (forward.margin_of_victory is None)
    if forward.winner is not None:
        # Only a success and a failure both by 0 (a 3 on 3 against a 17 on 17) give 0.
        assert forward.margin_of_victory >= 0
        if forward.a.success == forward.b.success:
            assert forward.margin_of_victory > 0


# Resistance rolls ---------------------------------------------------------------------------


def test_a_failed_attack_needs_no_resistance_roll() -> None:
    contest = resistance_roll(12, 10, dice_a=dice(13), dice_b=Untouchable())
    assert contest.b is None
    assert contest.winner == "b"
    assert contest.margin_of_victory is None


def test_ties_go_to_the_defender() -> None:
    contest = resistance_roll(12, 10, dice_a=dice(9), dice_b=dice(7))
    assert contest.winner == "b"
    assert contest.margin_of_victory == 0


def test_resistance_attacker_wins_with_the_larger_margin() -> None:
    contest = resistance_roll(14, 10, dice_a=dice(8), dice_b=dice(9))
    assert contest.winner == "a"
    assert contest.margin_of_victory == 6 - 1


def test_resistance_attacker_wins_when_the_defender_fails() -> None:
    contest = resistance_roll(12, 10, dice_a=dice(10), dice_b=dice(13))
    assert contest.winner == "a"
    assert contest.margin_of_victory == 2 + 3


def test_rule_of_16_wizard_rolls_against_16_not_18() -> None:
    contest = resistance_roll(18, 12, dice_a=dice(16), dice_b=dice(12), supernatural=True)
    assert contest.a.effective == 16
    assert contest.a.margin_of_success == 0
    assert contest.a_uncapped == 18
    assert contest.rule_of_16


def test_rule_of_16_lets_a_wizard_reach_a_high_resistance() -> None:
    contest = resistance_roll(20, 18, dice_a=dice(10), dice_b=dice(10), supernatural=True)
    assert contest.a.effective == 18


def test_rule_of_16_does_not_apply_without_supernatural() -> None:
    contest = resistance_roll(18, 12, dice_a=dice(10), dice_b=dice(10))
    assert contest.a.effective == 18
    assert not contest.rule_of_16


def test_rule_of_16_leaves_a_low_skill_alone() -> None:
    contest = resistance_roll(13, 12, dice_a=dice(10), dice_b=dice(10), supernatural=True)
    assert contest.a.effective == 13
    assert not contest.rule_of_16


# Regular contests ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "normalised"),
    [
        ((5, 3), (12, 10)),
        ((3, 5), (10, 12)),
        ((6, 6), (10, 10)),
        ((18, 14), (14, 10)),
        ((14, 20), (10, 16)),
        ((14, 14), (10, 10)),
        ((6, 14), (6, 14)),
        ((7, 5), (7, 5)),
        ((13, 15), (13, 15)),
        ((10, 11), (10, 11)),
    ],
)
def test_normalise_regular(scores: tuple[int, int], normalised: tuple[int, int]) -> None:
    assert normalise_regular(*scores) == normalised


def test_regular_round_decided_when_one_succeeds() -> None:
    round_ = regular_round(16, 14, dice_a=dice(11), dice_b=dice(11), round_number=3)
    assert (round_.a_normalised, round_.b_normalised) == (12, 10)
    assert round_.decided
    assert round_.winner == "a"
    assert round_.round == 3


def test_regular_round_goes_on_when_both_succeed_or_both_fail() -> None:
    both_succeed = regular_round(12, 11, dice_a=dice(8), dice_b=dice(9))
    both_fail = regular_round(12, 11, dice_a=dice(15), dice_b=dice(16))
    for round_ in (both_succeed, both_fail):
        assert not round_.decided
        assert round_.winner is None


def test_regular_round_rolls_low_scores_after_normalisation() -> None:
    round_ = regular_round(2, 9, dice_a=dice(4), dice_b=dice(12))
    assert (round_.a_normalised, round_.b_normalised) == (2, 9)
    assert round_.winner == "a"


def test_regular_round_to_dict() -> None:
    document = regular_round(4, 5, dice_a=dice(10), dice_b=dice(12)).to_dict()
    assert document["a_normalised"] == 10
    assert document["b_normalised"] == 11
    assert document["decided"] is True
    assert document["winner"] == "a"
    assert document["round"] == 1


def test_compare_rolls_decides_recorded_rolls() -> None:
    a = decide_roll(14, (), [1, 2, 3])
    b = decide_roll(12, (), [5, 5, 5])
    assert compare_rolls(a, b) == ("a", 8 + 3)
    assert compare_rolls(b, a) == ("b", 8 + 3)
