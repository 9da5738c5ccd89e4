"""Gloom rule engine: every face against every rank and DL, the rulebook's worked examples,
advantage, contests and the dynamic floor.

Expected values come from tables typed from Gloom and tracker/systems/gloom/RULINGS.md, or from the
small reference below, which paints the d20's faces from the ruling text independently of the
engine.
"""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracker.errors import BadInput, DiceError
from tracker.systems.dice import PhysicalDice
from tracker.systems.gloom import rules as gloom

FACES = range(1, 21)
REF_ORDER = ("catastrophe", "overshoot", "undershoot", "complication", "success", "special")
REF_ORDER += ("perfect",)
REF_SUCCESSES = {"complication", "success", "special", "perfect"}


def reference_faces(rank: int, dl: int, above: int = 0) -> dict[int, str]:
    """Paint each face from the lowest-priority ruling up, so the first-listed ruling wins."""
    ceiling = min(rank, 20)
    faces = dict.fromkeys(FACES, "success")
    layers = [
        ("special", {ceiling - 1}),
        ("perfect", {ceiling}),
        ("complication", {dl}),
        ("undershoot", {f for f in FACES if f < dl or f <= above}),
        ("overshoot", {f for f in FACES if f > rank}),
        ("catastrophe", {1}),
    ]
    for name, painted in layers:
        for face in painted & set(FACES):
            faces[face] = name
    return faces


def reference_keep(rank: int, dl: int, pair: tuple[int, int], best: bool) -> int:
    painted = reference_faces(rank, dl)
    first, second = pair
    a, b = REF_ORDER.index(painted[first]), REF_ORDER.index(painted[second])
    if a == b:
        return max(pair) if best else min(pair)
    if best:
        return first if a > b else second
    return first if a < b else second


class RecordingDice:
    """A dice source that hands out fixed values and records every request."""

    kind = "test"

    def __init__(self, *rolls: tuple[int, ...]) -> None:
        self.rolls = list(rolls)
        self.requests: list[tuple[int, int, str]] = []

    def roll(self, count: int, faces: int, purpose: str = "the roll") -> tuple[int, ...]:
        self.requests.append((count, faces, purpose))
        return self.rolls.pop(0)


def one(*values: int) -> PhysicalDice:
    return PhysicalDice(values)


# ----------------------------------------------------------------------------- the outcome table


def test_outcomes_ranked_worst_to_best() -> None:
    assert gloom.OUTCOMES == REF_ORDER
    assert gloom.OUTCOME_RANK == {
        "catastrophe": 0,
        "overshoot": 1,
        "undershoot": 2,
        "complication": 3,
        "success": 4,
        "special": 5,
        "perfect": 6,
    }
    assert gloom.SUCCESS_OUTCOMES == REF_SUCCESSES


@pytest.mark.parametrize("rank", range(1, 26))
def test_every_face_for_every_rank_and_dl(rank: int) -> None:
    for dl in range(22):
        expected = reference_faces(rank, dl)
        actual = {face: gloom.outcome(rank, dl, face) for face in FACES}
        assert actual == expected, (rank, dl)


@pytest.mark.parametrize("above", [1, 5, 11, 19, 20])
def test_every_face_with_a_dynamic_floor(above: int) -> None:
    for rank, dl in itertools.product(range(1, 26), range(22)):
        expected = reference_faces(rank, dl, above)
        actual = {face: gloom.outcome(rank, dl, face, above=above) for face in FACES}
        assert actual == expected, (rank, dl, above)


@pytest.mark.parametrize(
    ("rank", "dl"), [(14, 5), (15, 6), (8, 8), (3, 10), (20, 0), (21, 0), (21, 19), (25, 10)]
)
def test_every_advantage_and_disadvantage_pair(rank: int, dl: int) -> None:
    for pair in itertools.product(FACES, repeat=2):
        assert gloom.keep(rank, dl, pair, "advantage") == reference_keep(rank, dl, pair, True)
        assert gloom.keep(rank, dl, pair, "disadvantage") == reference_keep(rank, dl, pair, False)


# rank, advantage flag, disadvantage flag -> mode
MODE_TABLE = [
    (10, False, False, "normal"),
    (10, True, False, "advantage"),
    (10, False, True, "disadvantage"),
    (10, True, True, "normal"),
    (20, False, False, "normal"),
    (21, False, False, "advantage"),
    (21, True, False, "advantage"),
    (21, False, True, "normal"),
    (25, True, True, "normal"),
]


@pytest.mark.parametrize(("rank", "adv", "dis", "mode"), MODE_TABLE)
def test_mode_for(rank: int, adv: bool, dis: bool, mode: str) -> None:
    assert gloom.mode_for(rank, adv, dis) == mode


def test_advantage_keeps_the_better_outcome_not_the_higher_die() -> None:
    # Athletics 15: a 16 overshoots, a 9 succeeds; advantage keeps the 9.
    assert gloom.keep(15, 6, (16, 9), "advantage") == 9
    assert gloom.keep(15, 6, (16, 9), "disadvantage") == 16


def test_equal_outcomes_keep_the_higher_die_with_advantage_and_lower_with_disadvantage() -> None:
    assert gloom.keep(15, 6, (8, 12), "advantage") == 12
    assert gloom.keep(15, 6, (8, 12), "disadvantage") == 8


# ----------------------------------------------------------------------------- worked examples


def test_hacking_14_against_dl_5_has_window_6_to_14() -> None:
    result = gloom.window(14, 5)
    assert set(range(6, 15)) <= set(result.faces)
    assert gloom.outcome(14, 5, 12) == "success"
    assert gloom.outcome(14, 5, 15) == "overshoot"


def test_hacking_14_against_dl_5_counts_the_floor_as_a_complication() -> None:
    result = gloom.window(14, 5)
    assert result.faces == tuple(range(5, 15))
    assert (result.floor, result.ceiling) == (5, 14)
    assert gloom.outcome(14, 5, 5) == "complication"
    assert gloom.outcome(14, 5, 4) == "undershoot"


ATHLETICS_15_DL_6 = [
    (range(16, 21), "overshoot"),
    (range(15, 16), "perfect"),
    (range(14, 15), "special"),
    (range(7, 14), "success"),
    (range(6, 7), "complication"),
    (range(2, 6), "undershoot"),
    (range(1, 2), "catastrophe"),
]


@pytest.mark.parametrize(("faces", "expected"), ATHLETICS_15_DL_6)
def test_athletics_15_dl_6_table_row(faces: range, expected: str) -> None:
    for face in faces:
        assert gloom.outcome(15, 6, face) == expected


def test_scenario_a_hacker_duel_player_wins() -> None:
    result = gloom.contest(16, 14, dice_a=one(14), dice_b=one(5))
    assert result.a.success
    assert result.b.success
    assert result.winner == "a"
    assert result.reason == "higher die wins"


def test_scenario_b_dogfight_enemy_wins() -> None:
    result = gloom.contest(15, 13, dice_a=one(18), dice_b=one(4))
    assert result.a.outcome == "overshoot"
    assert result.b.success
    assert result.winner == "b"


def test_scenario_c_messy_brawl_stalemate() -> None:
    result = gloom.contest(10, 12, dice_a=one(15), dice_b=one(17))
    assert (result.a.outcome, result.b.outcome) == ("overshoot", "overshoot")
    assert result.winner is None
    assert result.reason == "both failed"


@pytest.mark.parametrize(
    ("sniper_die", "outcome", "winner"),
    [(5, "undershoot", "b"), (15, "success", "a"), (11, "undershoot", "b"), (12, "success", "a")],
)
def test_sniper_duel(sniper_die: int, outcome: str, winner: str) -> None:
    result = gloom.dynamic_contest(18, 14, dice_a=one(sniper_die), dice_b=one(11))
    assert result.b.outcome == "success"
    assert result.a.dl == 11
    assert result.a.above == 11
    assert result.a.outcome == outcome
    assert result.winner == winner


def test_sniper_must_roll_12_to_18() -> None:
    assert gloom.window(18, 11, above=11).faces == tuple(range(12, 19))


def test_tie_stat_rule_higher_rank_wins() -> None:
    result = gloom.contest(16, 14, dice_a=one(12), dice_b=one(12), tie_rule="stat")
    assert result.winner == "a"
    assert result.reason == "tie: higher rank wins"


def test_tie_stat_rule_higher_ranked_defender_wins() -> None:
    result = gloom.contest(14, 16, dice_a=one(12), dice_b=one(12), tie_rule="stat")
    assert result.winner == "b"
    assert result.reason == "tie: higher rank wins"


def test_tie_defender_rule_defender_wins() -> None:
    result = gloom.contest(16, 14, dice_a=one(12), dice_b=one(12), tie_rule="defender")
    assert result.winner == "b"
    assert result.reason == "tie: the defender wins"


def test_tie_stat_rule_equal_ranks_defender_wins() -> None:
    result = gloom.contest(14, 14, dice_a=one(12), dice_b=one(12))
    assert result.winner == "b"
    assert result.reason == "tie: equal ranks, the defender wins"


# ----------------------------------------------------------------------------- window notes


def test_dl_above_rank_has_no_window() -> None:
    result = gloom.window(10, 12)
    assert not result.has_window
    assert result.faces == ()
    assert any("no success is possible" in note for note in result.notes)


def test_dl_equal_to_rank_is_a_single_complication_face_with_a_warning() -> None:
    result = gloom.window(12, 12)
    assert result.faces == (12,)
    assert gloom.outcome(12, 12, 12) == "complication"
    assert any("single face 12" in note for note in result.notes)


def test_dl_zero_notes_a_routine_task() -> None:
    result = gloom.window(12, 0)
    assert result.faces == tuple(range(2, 13))
    assert any("routine" in note for note in result.notes)


def test_ordinary_window_has_no_notes() -> None:
    assert gloom.window(14, 5).notes == ()


def test_rank_one_can_never_succeed() -> None:
    assert not gloom.window(1, 0).has_window


def test_no_window_check_may_still_be_logged() -> None:
    result = gloom.check(10, 12, dice=one(8))
    assert result.outcome == "undershoot"
    assert not result.window.has_window
    assert result.notes


# ----------------------------------------------------------------------------- check


def test_check_rolls_one_d20_once_with_a_purpose() -> None:
    source = RecordingDice((9,))
    result = gloom.check(14, 5, dice=source)
    assert source.requests == [(1, 20, "a gloom check")]
    assert (result.dice, result.kept, result.outcome, result.success) == ((9,), 9, "success", True)
    assert result.mode == "normal"


def test_check_with_advantage_rolls_two_d20_once() -> None:
    source = RecordingDice((16, 9))
    result = gloom.check(15, 6, dice=source, advantage=True)
    assert source.requests == [(2, 20, "a gloom check with advantage")]
    assert (result.mode, result.dice, result.kept) == ("advantage", (16, 9), 9)


def test_master_rank_rolls_with_advantage_automatically() -> None:
    result = gloom.check(21, 0, dice=one(1, 20))
    assert result.mode == "advantage"
    assert (result.kept, result.outcome) == (20, "perfect")


def test_disadvantage_keeps_the_worse() -> None:
    result = gloom.check(15, 6, dice=one(9, 1), disadvantage=True)
    assert (result.kept, result.outcome) == (1, "catastrophe")


def test_perfect_success_may_restore_stress() -> None:
    result = gloom.check(15, 6, dice=one(15))
    assert result.may_restore_stress
    assert not result.panic_check


def test_catastrophe_opens_a_panic_check() -> None:
    result = gloom.check(15, 6, dice=one(1))
    assert result.panic_check
    assert not result.may_restore_stress
    assert not result.success


def test_check_to_dict_is_json_ready() -> None:
    document = gloom.check(15, 6, dice=one(16, 9), advantage=True).to_dict()
    assert json.loads(json.dumps(document)) == document
    assert document["dice"] == [16, 9]
    assert document["kept"] == 9
    assert document["outcome"] == "success"
    assert document["success"] is True
    assert document["window"]["faces"] == list(range(6, 16))


def test_contest_to_dict_is_json_ready() -> None:
    document = gloom.contest(16, 14, dice_a=one(14), dice_b=one(5)).to_dict()
    assert json.loads(json.dumps(document)) == document
    assert document["winner"] == "a"


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: gloom.outcome(0, 0, 5), "Skill Rank"),
        (lambda: gloom.outcome(10, -1, 5), "Difficulty Level"),
        (lambda: gloom.outcome(10, 0, 21), "d20"),
        (lambda: gloom.outcome(10, 0, 0), "d20"),
        (lambda: gloom.check(0, dice=one(5)), "Skill Rank"),
        (lambda: gloom.check(10, -2, dice=one(5)), "Difficulty Level"),
        (lambda: gloom.keep(10, 0, (5, 6), "sideways"), "mode"),
        (lambda: gloom.keep(10, 0, (5,), "advantage"), "2 d20"),
        (lambda: gloom.contest(10, 10, dice_a=one(5), dice_b=one(5), tie_rule="coin"), "tie"),
    ],
)
def test_impossible_inputs_are_bad_input(call, words: str) -> None:
    with pytest.raises(BadInput, match=words):
        call()


# ----------------------------------------------------------------------------- contests


def test_contest_success_with_complication_counts_as_success() -> None:
    result = gloom.contest(14, 14, dice_a=one(5), dice_b=one(16), a_dl=5)
    assert result.a.outcome == "complication"
    assert result.winner == "a"


def test_contest_uses_each_sides_own_dl() -> None:
    result = gloom.contest(14, 14, dice_a=one(9), dice_b=one(9), a_dl=10, b_dl=0)
    assert result.a.outcome == "undershoot"
    assert result.winner == "b"


def test_contest_sides_may_roll_with_advantage() -> None:
    result = gloom.contest(14, 14, dice_a=one(3, 12), dice_b=one(11), a_advantage=True)
    assert result.a.kept == 12
    assert result.winner == "a"


def test_dynamic_failed_defence_leaves_the_base_dl() -> None:
    result = gloom.dynamic_contest(18, 14, dice_a=one(6), dice_b=one(17), base_dl=6)
    assert result.b.outcome == "overshoot"
    assert (result.a.dl, result.a.above) == (6, 0)
    assert result.a.outcome == "complication"
    assert result.winner == "a"


def test_dynamic_both_fail_is_a_stalemate() -> None:
    # tracker/systems/gloom/RULINGS.md: "Both fail: stalemate"; the rulebook's Scenario C: the
    # situation doesn't change.
    result = gloom.dynamic_contest(10, 10, dice_a=one(15), dice_b=one(15))
    assert (result.a.outcome, result.b.outcome) == ("overshoot", "overshoot")
    assert result.winner is None
    assert result.reason == "both failed"


def test_dynamic_floor_takes_the_higher_of_base_dl_and_defender_die() -> None:
    result = gloom.dynamic_contest(18, 14, dice_a=one(8), dice_b=one(3), base_dl=8)
    assert (result.a.dl, result.a.above) == (8, 3)
    assert result.a.outcome == "complication"
    assert result.winner == "a"


def test_dynamic_defender_rolls_first() -> None:
    order: list[str] = []

    class Named(RecordingDice):
        def __init__(self, name: str, value: int) -> None:
            super().__init__((value,))
            self.name = name

        def roll(self, count: int, faces: int, purpose: str = "the roll") -> tuple[int, ...]:
            order.append(self.name)
            return super().roll(count, faces, purpose)

    gloom.dynamic_contest(18, 14, dice_a=Named("attacker", 12), dice_b=Named("defender", 11))
    assert order == ["defender", "attacker"]


# ----------------------------------------------------------------------------- physical dice


@pytest.mark.parametrize("values", [(21,), (0,)])
def test_physical_d20_out_of_range_is_refused(values: tuple[int, ...]) -> None:
    with pytest.raises(DiceError):
        gloom.check(14, 5, dice=PhysicalDice(values))


def test_physical_one_die_where_advantage_needs_two_is_refused() -> None:
    with pytest.raises(DiceError, match="two d20"):
        gloom.check(14, 5, dice=PhysicalDice((12,)), advantage=True)


def test_physical_two_dice_where_one_is_needed_is_refused() -> None:
    with pytest.raises(DiceError, match="one d20"):
        gloom.check(14, 5, dice=PhysicalDice((12, 4)))


# ----------------------------------------------------------------------------- properties


def _successes(rank: int, dl: int, above: int, mode: str) -> int:
    """Successful outcomes out of 400 equally likely two-dice rolls."""
    total = 0
    for pair in itertools.product(FACES, repeat=2):
        dice = pair[:1] if mode == "normal" else pair
        kept = gloom.keep(rank, dl, dice, mode, above=above)
        total += gloom.outcome(rank, dl, kept, above=above) in REF_SUCCESSES
    return total


@settings(max_examples=40, deadline=None)
@given(
    rank=st.integers(min_value=1, max_value=30),
    dl=st.integers(min_value=0, max_value=22),
    above=st.integers(min_value=0, max_value=20),
)
def test_advantage_never_lowers_the_chance_of_success(rank: int, dl: int, above: int) -> None:
    normal = _successes(rank, dl, above, "normal")
    assert _successes(rank, dl, above, "advantage") >= normal
    assert _successes(rank, dl, above, "disadvantage") <= normal


@settings(max_examples=60, deadline=None)
@given(
    rank=st.integers(min_value=1, max_value=30),
    dl=st.integers(min_value=0, max_value=22),
    die=st.integers(min_value=1, max_value=20),
)
def test_success_iff_die_in_window(rank: int, dl: int, die: int) -> None:
    assert (gloom.outcome(rank, dl, die) in REF_SUCCESSES) == (die in gloom.window(rank, dl).faces)
