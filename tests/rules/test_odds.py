"""Exact odds: the rulebooks' own probability tables, and properties that must hold everywhere."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracker.rules import odds

# Glintlock rulebook, 'Probability Table' (one d20, risky position), percentages as printed.
GLINTLOCK_TABLE = [
    # eff. stat, weak DC, strong DC, miss %, weak %, strong %
    (1, 18, 19, 85, 5, 10),
    (2, 16, 18, 75, 10, 15),
    (3, 14, 17, 65, 15, 20),
    (4, 12, 16, 55, 20, 25),
    (5, 10, 15, 45, 25, 30),
    (6, 8, 14, 35, 30, 35),
]

# The published 3d6 cumulative table: P(3d6 <= N) in percent, to one decimal.
THREE_D6_OR_LESS = {
    3: 0.5, 4: 1.9, 5: 4.6, 6: 9.3, 7: 16.2, 8: 25.9, 9: 37.5, 10: 50.0,
    11: 62.5, 12: 74.1, 13: 83.8, 14: 90.7, 15: 95.4, 16: 98.1, 17: 99.5, 18: 100.0,
}  # fmt: skip


@pytest.mark.parametrize(
    ("stat", "weak", "strong", "miss_pct", "weak_pct", "strong_pct"), GLINTLOCK_TABLE
)
def test_glintlock_probability_table_is_reproduced_exactly(
    stat, weak, strong, miss_pct, weak_pct, strong_pct
):
    result = odds.glintlock_check(stat, tags=1)
    assert result.details["position"] == "risky"
    assert (result.details["weak_dc"], result.details["strong_dc"]) == (weak, strong)
    assert result.outcomes == {
        "miss": Fraction(miss_pct, 100),
        "weak_hit": Fraction(weak_pct, 100),
        "strong_hit": Fraction(strong_pct, 100),
    }


@pytest.mark.parametrize(("stat", "row"), [(s - 1, s) for s in range(1, 7)])
def test_training_counts_as_one_more_in_the_table(stat, row):
    trained = odds.glintlock_check(stat, trained=True, tags=1)
    assert trained.outcomes == odds.glintlock_check(row, tags=1).outcomes


@pytest.mark.parametrize(("target", "percent"), sorted(THREE_D6_OR_LESS.items()))
def test_three_d6_cumulative_table_to_the_printed_precision(target, percent):
    assert round(float(odds.cumulative_3d6(target)) * 100, 1) == percent


def test_glintlock_positions_by_two_dice_counted_by_hand():
    # Stat 3 untrained: weak DC 14, strong DC 17. Desperate keeps the lower of 2d20.
    desperate = odds.glintlock_check(3, tags=0)
    pairs = list(itertools.product(range(1, 21), repeat=2))
    low = [min(p) for p in pairs]
    assert desperate.outcomes["strong_hit"] == Fraction(sum(k >= 17 for k in low), 400)
    assert desperate.outcomes["weak_hit"] == Fraction(sum(14 <= k < 17 for k in low), 400)
    controlled = odds.glintlock_check(3, tags=3)
    high = [max(p) for p in pairs]
    assert controlled.outcomes["strong_hit"] == Fraction(sum(k >= 17 for k in high), 400)


def test_gloom_hacking_14_dl_5_succeeds_on_ten_faces():
    # Window 6-14 plus the floor 5 itself as a complication: faces 5..14.
    result = odds.gloom_check(14, 5)
    assert result.success == Fraction(10, 20)
    assert result.outcomes["complication"] == Fraction(1, 20)
    assert result.outcomes["overshoot"] == Fraction(6, 20)


def test_gurps_skill_12_by_hand():
    # Success on 3..12 = 160 of 216; critical success 3-4 = 4 of 216; critical failure 18 and 17.
    result = odds.gurps_roll(12)
    assert result.success == Fraction(160, 216)
    assert result.outcomes["critical_success"] == Fraction(4, 216)
    assert result.outcomes["critical_failure"] == Fraction(4, 216)


def test_rule_of_16_caps_the_attacker_in_resistance_odds():
    capped = odds.gurps_resistance(18, 12, supernatural=True)
    assert capped.details["effective"] == 16
    assert capped.outcomes == odds.gurps_resistance(16, 12).outcomes


def test_fright_check_odds_apply_the_rule_of_14():
    assert odds.gurps_fright(18).outcomes == odds.gurps_roll(13).outcomes
    rows = odds.gurps_fright(10).details["rows"]
    assert pytest.approx(sum(rows.values())) == 1 - float(odds.gurps_roll(10).success)


ALL_ODDS = [
    lambda: odds.gloom_check(14, 5),
    lambda: odds.gloom_check(21, 10),
    lambda: odds.gloom_check(12, 3, disadvantage=True),
    lambda: odds.gloom_contest(16, 14),
    lambda: odds.gloom_dynamic(18, 14),
    lambda: odds.gurps_roll(12),
    lambda: odds.gurps_quick_contest(14, 12),
    lambda: odds.gurps_resistance(15, 11),
    lambda: odds.gurps_regular_contest(16, 18),
    lambda: odds.gurps_fright(12, -2),
    lambda: odds.glintlock_check(3, trained=True, tags=2),
]


@pytest.mark.parametrize("make", ALL_ODDS)
def test_every_distribution_sums_to_one(make):
    assert sum(make().outcomes.values()) == 1


@given(st.integers(1, 25), st.integers(0, 21))
def test_gloom_probabilities_sum_to_one(rank, dl):
    for kwargs in ({}, {"advantage": True}, {"disadvantage": True}):
        assert sum(odds.gloom_check(rank, dl, **kwargs).outcomes.values()) == 1


@given(st.integers(1, 25), st.integers(0, 21))
def test_gloom_advantage_never_lowers_the_chance_of_success(rank, dl):
    plain = odds.gloom_check(min(rank, 20), dl).success
    assert odds.gloom_check(min(rank, 20), dl, advantage=True).success >= plain
    assert odds.gloom_check(min(rank, 20), dl, disadvantage=True).success <= plain


@given(st.integers(-5, 30))
def test_gurps_success_never_falls_as_skill_rises(skill):
    assert odds.gurps_roll(skill + 1).success >= odds.gurps_roll(skill).success
    assert sum(odds.gurps_roll(skill).outcomes.values()) == 1


@given(st.integers(0, 10), st.booleans(), st.integers(-3, 5))
def test_glintlock_better_position_never_hurts(stat, trained, tags):
    worse = odds.glintlock_check(stat, trained=trained, tags=tags)
    better = odds.glintlock_check(stat, trained=trained, tags=tags + 1)
    assert sum(better.outcomes.values()) == 1
    assert better.success >= worse.success
    assert better.outcomes["strong_hit"] >= worse.outcomes["strong_hit"]


@given(st.integers(3, 20), st.integers(3, 20))
def test_gurps_quick_contest_is_symmetric(a, b):
    ab = odds.gurps_quick_contest(a, b).outcomes
    ba = odds.gurps_quick_contest(b, a).outcomes
    assert ab["a"] == ba["b"]
    assert ab["stalemate"] == ba["stalemate"]


@pytest.mark.parametrize(
    "command",
    [
        "odds gloom --rank 14 --dl 5",
        "odds gloom --rank 16 --vs 14",
        "odds gloom --rank 18 --vs 14 --dynamic",
        "odds gurps --skill 12",
        "odds gurps --skill 14 --vs 12 --contest regular",
        "odds gurps --skill 15 --fright",
        "odds glintlock --stat 3 --trained --tags 2",
    ],
)
def test_odds_json_follows_the_scripting_contract(run, command):
    doc = run.json(command)
    assert set(doc) >= {"outcomes"}
    assert all(isinstance(v, float) for v in doc["outcomes"].values())
    assert sum(doc["outcomes"].values()) == pytest.approx(1)
    assert json.dumps(doc)


def test_odds_table_names_the_window_for_people(run):
    out = run.ok("odds gloom --rank 5 --dl 9").stdout
    assert "No window" in out
    assert "catastrophe" in out


@pytest.mark.parametrize(
    ("command", "code"),
    [
        ("odds gloom --rank 0", 2),
        ("odds gloom --rank 14 --dl -1", 2),
        ("odds glintlock --stat -1", 2),
        ("odds gurps", 2),
        ("odds gurps --skill twelve", 2),
    ],
)
def test_odds_bad_input_is_one_sentence(run, command, code):
    result = run(command)
    assert result.exit_code == code
    assert len(result.stderr.strip().splitlines()) == 1
