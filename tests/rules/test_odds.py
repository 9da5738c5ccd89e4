"""Exact odds: the rulebooks' own probability tables, and properties that must hold everywhere."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracker.systems.glintlock import odds as glintlock_odds
from tracker.systems.gloom import odds as gloom_odds
from tracker.systems.gurps import odds as gurps_odds

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
    result = glintlock_odds.check(stat, tags=1)
    assert result.details["position"] == "risky"
    assert (result.details["weak_dc"], result.details["strong_dc"]) == (weak, strong)
    assert result.outcomes == {
        "miss": Fraction(miss_pct, 100),
        "weak_hit": Fraction(weak_pct, 100),
        "strong_hit": Fraction(strong_pct, 100),
    }


@pytest.mark.parametrize(
    ("stat", "weak", "strong", "miss_pct", "weak_pct", "strong_pct"), GLINTLOCK_TABLE
)
def test_training_counts_as_one_more_in_the_table(
    stat, weak, strong, miss_pct, weak_pct, strong_pct
):
    # A trained stat one lower reads the same printed row.
    trained = glintlock_odds.check(stat - 1, trained=True, tags=1)
    assert (trained.details["weak_dc"], trained.details["strong_dc"]) == (weak, strong)
    assert trained.outcomes == {
        "miss": Fraction(miss_pct, 100),
        "weak_hit": Fraction(weak_pct, 100),
        "strong_hit": Fraction(strong_pct, 100),
    }


@pytest.mark.parametrize(("target", "percent"), sorted(THREE_D6_OR_LESS.items()))
def test_three_d6_cumulative_table_to_the_printed_precision(target, percent):
    assert round(float(gurps_odds.cumulative_3d6(target)) * 100, 1) == percent


def test_glintlock_positions_by_two_dice_counted_by_hand():
    # Stat 3 untrained: weak DC 14, strong DC 17. Desperate keeps the lower of 2d20.
    desperate = glintlock_odds.check(3, tags=0)
    pairs = list(itertools.product(range(1, 21), repeat=2))
    low = [min(p) for p in pairs]
    assert desperate.outcomes["strong_hit"] == Fraction(sum(k >= 17 for k in low), 400)
    assert desperate.outcomes["weak_hit"] == Fraction(sum(14 <= k < 17 for k in low), 400)
    controlled = glintlock_odds.check(3, tags=3)
    high = [max(p) for p in pairs]
    assert controlled.outcomes["strong_hit"] == Fraction(sum(k >= 17 for k in high), 400)


def test_gloom_hacking_14_dl_5_succeeds_on_ten_faces():
    # Window 6-14 plus the floor 5 itself as a complication: faces 5..14.
    result = gloom_odds.check(14, 5)
    assert result.success == Fraction(10, 20)
    assert result.outcomes["complication"] == Fraction(1, 20)
    assert result.outcomes["overshoot"] == Fraction(6, 20)


def test_gurps_skill_12_by_hand():
    # Success on 3..12 = 160 of 216; critical success 3-4 = 4 of 216; critical failure 18 and 17.
    result = gurps_odds.success_roll(12)
    assert result.success == Fraction(160, 216)
    assert result.outcomes["critical_success"] == Fraction(4, 216)
    assert result.outcomes["critical_failure"] == Fraction(4, 216)


# -- independent references ----------------------------------------------------------------------
# Tiny re-statements of each system's rulings, enumerating every way the dice can fall. They never
# call the engine, so the odds are checked against the rulings, not against themselves.

D20 = range(1, 21)
THREE_D6_WAYS = Counter(sum(d) for d in itertools.product(range(1, 7), repeat=3))

# tracker/systems/gloom/RULINGS.md: outcomes ranked worst to best for advantage and disadvantage.
REF_GLOOM_RANKING = (
    "catastrophe",
    "overshoot",
    "undershoot",
    "complication",
    "success",
    "special",
    "perfect",
)
REF_GLOOM_SUCCESSES = {"complication", "success", "special", "perfect"}


def ref_gloom_outcome(rank, dl, die, above=0):
    """tracker/systems/gloom/RULINGS.md, 'The check, face by face': the first matching rule wins."""
    ceiling = min(rank, 20)
    rules = [
        (die == 1, "catastrophe"),
        (die > rank, "overshoot"),
        (die < dl or die <= above, "undershoot"),
        (die == dl, "complication"),
        (die == ceiling, "perfect"),
        (die == ceiling - 1, "special"),
    ]
    return next((name for hit, name in rules if hit), "success")


def ref_gloom_kept(rank, dl, advantage=False, disadvantage=False, above=0):
    """How many ways each face ends up kept: rank 21+ gives advantage; the two cancel."""
    has_advantage = advantage or rank >= 21
    if has_advantage == disadvantage:
        return Counter(D20)

    def strength(die):
        return REF_GLOOM_RANKING.index(ref_gloom_outcome(rank, dl, die, above)), die

    choose = max if has_advantage else min
    return Counter(choose(pair, key=strength) for pair in itertools.product(D20, repeat=2))


def ref_shares(wins):
    total = sum(wins.values())
    return {k: Fraction(wins[k], total) for k in ("a", "b", "stalemate")}


def ref_gloom_contest(
    a_rank, b_rank, *, tie_rule="stat", a_adv=False, a_dis=False, b_adv=False, b_dis=False
):
    """tracker/systems/gloom/RULINGS.md, 'Contested rolls'; DL 0 on both sides."""
    wins = Counter()
    for a, a_ways in ref_gloom_kept(a_rank, 0, a_adv, a_dis).items():
        for b, b_ways in ref_gloom_kept(b_rank, 0, b_adv, b_dis).items():
            a_ok = ref_gloom_outcome(a_rank, 0, a) in REF_GLOOM_SUCCESSES
            b_ok = ref_gloom_outcome(b_rank, 0, b) in REF_GLOOM_SUCCESSES
            if a_ok != b_ok:
                winner = "a" if a_ok else "b"
            elif not a_ok:
                winner = "stalemate"
            elif a != b:
                winner = "a" if a > b else "b"
            elif tie_rule == "stat" and a_rank > b_rank:
                winner = "a"
            else:
                winner = "b"
            wins[winner] += a_ways * b_ways
    return ref_shares(wins)


def ref_gloom_dynamic(attacker_rank, defender_rank, base_dl=0, *, b_adv=False):
    """tracker/systems/gloom/RULINGS.md, 'The dynamic floor': the defender's successful die sets
    the floor."""
    wins = Counter()
    for b, b_ways in ref_gloom_kept(defender_rank, 0, b_adv).items():
        b_ok = ref_gloom_outcome(defender_rank, 0, b) in REF_GLOOM_SUCCESSES
        dl, above = (max(base_dl, b), b) if b_ok else (base_dl, 0)
        for a, a_ways in ref_gloom_kept(attacker_rank, dl, above=above).items():
            a_ok = ref_gloom_outcome(attacker_rank, dl, a, above) in REF_GLOOM_SUCCESSES
            wins["a" if a_ok else "b" if b_ok else "stalemate"] += a_ways * b_ways
    return ref_shares(wins)


def ref_gurps_outcome(effective, total):
    """tracker/systems/gurps/RULINGS.md, 'Success and failure': 3-4 succeed, 17-18 fail;
    criticals by the detailed table."""
    if total <= 4:
        return "critical_success"
    if total <= 16 and total <= effective:
        critical = (total == 5 and effective >= 15) or (total == 6 and effective >= 16)
        return "critical_success" if critical else "success"
    critical = total == 18 or (total == 17 and effective <= 15) or total >= effective + 10
    return "critical_failure" if critical else "failure"


def ref_succeeds(effective, total):
    return ref_gurps_outcome(effective, total) in ("success", "critical_success")


def ref_quick_winner(a_eff, a_total, b_eff, b_total):
    """tracker/systems/gurps/RULINGS.md, 'Quick contests': margins max(E - t, 0) and
    max(t - E, 0)."""
    a_ok, b_ok = ref_succeeds(a_eff, a_total), ref_succeeds(b_eff, b_total)
    if a_ok != b_ok:
        return "a" if a_ok else "b"
    if a_ok:
        a_margin, b_margin = max(a_eff - a_total, 0), max(b_eff - b_total, 0)
    else:  # the smaller margin of failure wins: compare negated
        a_margin, b_margin = -max(a_total - a_eff, 0), -max(b_total - b_eff, 0)
    if a_margin == b_margin:
        return "stalemate"
    return "a" if a_margin > b_margin else "b"


def ref_pairs():
    """Every pair of 3d6 totals with the number of ways (out of 216 * 216) it comes up."""
    for a_total, a_ways in THREE_D6_WAYS.items():
        for b_total, b_ways in THREE_D6_WAYS.items():
            yield a_total, b_total, a_ways * b_ways


def ref_quick_contest(a_eff, b_eff):
    wins = Counter()
    for a_total, b_total, ways in ref_pairs():
        wins[ref_quick_winner(a_eff, a_total, b_eff, b_total)] += ways
    return {k: Fraction(wins[k], 216 * 216) for k in ("a", "b", "stalemate")}


def ref_resistance(attacker, defender, supernatural=False):
    """The attacker must succeed; ties go to the defender; Rule of 16 when supernatural."""
    if supernatural:
        attacker = min(attacker, max(16, defender))
    wins = Counter()
    for a_total, b_total, ways in ref_pairs():
        attacker_wins = ref_succeeds(attacker, a_total) and (
            ref_quick_winner(attacker, a_total, defender, b_total) == "a"
        )
        wins["a" if attacker_wins else "b"] += ways
    return {k: Fraction(wins[k], 216 * 216) for k in ("a", "b")}


def ref_regular_contest(a_eff, b_eff):
    """Rounds until one succeeds and the other fails, after the rulebook's normalisation."""
    low = min(a_eff, b_eff)
    if a_eff <= 6 and b_eff <= 6:
        a_eff, b_eff = a_eff + 10 - low, b_eff + 10 - low
    elif a_eff >= 14 and b_eff >= 14:
        a_eff, b_eff = a_eff - (low - 10), b_eff - (low - 10)
    a_round = b_round = 0
    for a_total, b_total, ways in ref_pairs():
        a_ok, b_ok = ref_succeeds(a_eff, a_total), ref_succeeds(b_eff, b_total)
        a_round += ways * (a_ok and not b_ok)
        b_round += ways * (b_ok and not a_ok)
    # The undecided rounds repeat, so each side's final chance is its share of decided rounds.
    return {"a": Fraction(a_round, a_round + b_round), "b": Fraction(b_round, a_round + b_round)}


# GURPS 'Fright Check Results': the first total of each listed row, typed from the table.
REF_FRIGHT_ROW_STARTS = (4, 6, 8, 10, 11, 12, 13, 14, 16, 17, 18, 20, 21, 22, 23, 28, 30, 40)


# -- gloom contests --------------------------------------------------------------------------------


def test_gloom_contest_rank_14_against_a_master_of_21():
    # The defender's rank of 21 gives it advantage by itself (tracker/systems/gloom/RULINGS.md).
    result = gloom_odds.contest(14, 21)
    assert result.outcomes["a"] == Fraction(819, 8000)
    assert result.outcomes["stalemate"] == Fraction(7, 8000)
    assert result.outcomes == ref_gloom_contest(14, 21)
    assert result.details["b_mode"] == "advantage"


@pytest.mark.parametrize(
    ("a_rank", "b_rank", "kwargs"),
    [
        (16, 14, {}),
        (16, 14, {"tie_rule": "defender"}),
        (14, 16, {"tie_rule": "defender"}),
        (12, 12, {}),
        (21, 14, {"tie_rule": "defender"}),
        (12, 15, {"a_advantage": True, "b_disadvantage": True}),
        (21, 21, {"a_disadvantage": True}),
        (10, 12, {"b_advantage": True, "b_disadvantage": True}),
    ],
)
def test_gloom_contest_matches_the_reference(a_rank, b_rank, kwargs):
    ref = {
        "tie_rule": kwargs.get("tie_rule", "stat"),
        "a_adv": kwargs.get("a_advantage", False),
        "a_dis": kwargs.get("a_disadvantage", False),
        "b_adv": kwargs.get("b_advantage", False),
        "b_dis": kwargs.get("b_disadvantage", False),
    }
    assert gloom_odds.contest(a_rank, b_rank, **kwargs).outcomes == ref_gloom_contest(
        a_rank, b_rank, **ref
    )


def test_gloom_tie_rule_defender_hands_the_higher_ranked_attacker_s_ties_to_the_defender():
    stat = gloom_odds.contest(16, 14, tie_rule="stat").outcomes
    defender = gloom_odds.contest(16, 14, tie_rule="defender").outcomes
    # Equal successful dice are faces 2..14 (13 of 400 pairs), none of them a natural 1.
    assert defender["a"] == stat["a"] - Fraction(13, 400)
    assert defender == ref_gloom_contest(16, 14, tie_rule="defender")


def test_gloom_dynamic_sniper_18_against_a_defender_of_14():
    result = gloom_odds.dynamic(18, 14)
    assert result.outcomes == ref_gloom_dynamic(18, 14)
    # Both fail (defender 1 or 15-20, attacker 1 or 19-20): a stalemate, 7 x 3 of 400.
    assert result.outcomes["stalemate"] == Fraction(21, 400)


@pytest.mark.parametrize(
    ("attacker", "defender", "base_dl", "b_adv"),
    [(18, 14, 6, False), (10, 10, 0, False), (14, 21, 0, False), (16, 12, 3, True)],
)
def test_gloom_dynamic_matches_the_reference(attacker, defender, base_dl, b_adv):
    result = gloom_odds.dynamic(attacker, defender, base_dl=base_dl, b_advantage=b_adv)
    assert result.outcomes == ref_gloom_dynamic(attacker, defender, base_dl, b_adv=b_adv)


# -- gurps contests --------------------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), [(14, 12), (12, 14), (10, 10), (16, 9), (2, 5), (20, 18)])
def test_gurps_quick_contest_matches_the_reference(a, b):
    assert gurps_odds.quick_contest(a, b).outcomes == ref_quick_contest(a, b)


def test_gurps_resistance_16_against_12():
    assert gurps_odds.resistance(16, 12).outcomes == ref_resistance(16, 12)


def test_rule_of_16_caps_the_attacker_in_resistance_odds():
    capped = gurps_odds.resistance(18, 12, supernatural=True)
    assert capped.details["effective"] == 16
    assert capped.outcomes == ref_resistance(16, 12)
    assert capped.outcomes != ref_resistance(18, 12)


@pytest.mark.parametrize(
    ("attacker", "defender", "supernatural"),
    [(18, 17, True), (15, 11, False), (12, 12, False), (20, 10, True)],
)
def test_gurps_resistance_matches_the_reference(attacker, defender, supernatural):
    result = gurps_odds.resistance(attacker, defender, supernatural=supernatural)
    assert result.outcomes == ref_resistance(attacker, defender, supernatural)


def test_gurps_regular_contest_10_against_11():
    # P(3d6 <= 10) = 1/2 and P(3d6 <= 11) = 5/8: decided rounds split 3/16 to 5/16.
    result = gurps_odds.regular_contest(10, 11)
    assert result.outcomes == {"a": Fraction(3, 8), "b": Fraction(5, 8)}
    assert result.outcomes == ref_regular_contest(10, 11)


@pytest.mark.parametrize(("a", "b"), [(16, 18), (4, 5), (14, 14), (7, 20), (3, 3)])
def test_gurps_regular_contest_matches_the_reference(a, b):
    assert gurps_odds.regular_contest(a, b).outcomes == ref_regular_contest(a, b)


# -- gurps fright checks ---------------------------------------------------------------------------


def test_fright_check_odds_apply_the_rule_of_14():
    # Will 18 rolls against 13: success on 3..13, critical success on 3-4 only.
    outcomes = Counter()
    for total, ways in THREE_D6_WAYS.items():
        outcomes[ref_gurps_outcome(13, total)] += ways
    result = gurps_odds.fright(18)
    assert result.details["effective"] == 13
    assert result.outcomes == {name: Fraction(outcomes[name], 216) for name in result.outcomes}
    assert result.success == Fraction(181, 216)


def test_the_fright_odds_name_the_rule_of_14_only_where_it_caps(run):
    """GURPS, 'The Rule of 14': "If modified Will exceeds 13… Treat as 13 for Fright Checks
    only"."""
    assert run.ok("odds gurps --skill 10 --fright").stdout.splitlines()[0] == (
        "GURPS Fright Check · Will 10"
    )
    assert run.ok("odds gurps --skill 15 --fright").stdout.splitlines()[0] == (
        "GURPS Fright Check · Will 15 → 13 (Rule of 14)"
    )
    assert "Rule of 14" not in run.ok("odds gurps --skill 13 --fright").stdout.splitlines()[0]


def test_fright_rows_for_will_10_by_hand():
    rows = Counter()
    for check in itertools.product(range(1, 7), repeat=3):
        if ref_succeeds(10, sum(check)):
            continue
        margin = sum(check) - 10
        for table in itertools.product(range(1, 7), repeat=3):
            total = sum(table) + margin
            rows[max(first for first in REF_FRIGHT_ROW_STARTS if first <= total)] += 1
    assert sum(rows.values()) == 108 * 216  # Will 10 fails on 11..18, 108 of 216
    expected = {row: float(Fraction(n, 216 * 216)) for row, n in rows.items()}
    assert gurps_odds.fright(10).details["rows"] == expected


ALL_ODDS = [
    lambda: gloom_odds.check(14, 5),
    lambda: gloom_odds.check(21, 10),
    lambda: gloom_odds.check(12, 3, disadvantage=True),
    lambda: gloom_odds.contest(16, 14),
    lambda: gloom_odds.dynamic(18, 14),
    lambda: gurps_odds.success_roll(12),
    lambda: gurps_odds.quick_contest(14, 12),
    lambda: gurps_odds.resistance(15, 11),
    lambda: gurps_odds.regular_contest(16, 18),
    lambda: gurps_odds.fright(12, -2),
    lambda: glintlock_odds.check(3, trained=True, tags=2),
]


@pytest.mark.parametrize("make", ALL_ODDS)
def test_every_distribution_sums_to_one(make):
    assert sum(make().outcomes.values()) == 1


@given(st.integers(1, 25), st.integers(0, 21))
def test_gloom_probabilities_sum_to_one(rank, dl):
    for kwargs in ({}, {"advantage": True}, {"disadvantage": True}):
        assert sum(gloom_odds.check(rank, dl, **kwargs).outcomes.values()) == 1


@given(st.integers(1, 25), st.integers(0, 21))
def test_gloom_advantage_never_lowers_the_chance_of_success(rank, dl):
    plain = gloom_odds.check(min(rank, 20), dl).success
    assert gloom_odds.check(min(rank, 20), dl, advantage=True).success >= plain
    assert gloom_odds.check(min(rank, 20), dl, disadvantage=True).success <= plain


@given(st.integers(-5, 30))
def test_gurps_success_never_falls_as_skill_rises(skill):
    assert gurps_odds.success_roll(skill + 1).success >= gurps_odds.success_roll(skill).success
    assert sum(gurps_odds.success_roll(skill).outcomes.values()) == 1


@given(st.integers(0, 10), st.booleans(), st.integers(-3, 5))
def test_glintlock_better_position_never_hurts(stat, trained, tags):
    worse = glintlock_odds.check(stat, trained=trained, tags=tags)
    better = glintlock_odds.check(stat, trained=trained, tags=tags + 1)
    assert sum(better.outcomes.values()) == 1
    assert better.success >= worse.success
    assert better.outcomes["strong_hit"] >= worse.outcomes["strong_hit"]


@given(st.integers(3, 20), st.integers(3, 20))
def test_gurps_quick_contest_is_symmetric(a, b):
    ab = gurps_odds.quick_contest(a, b).outcomes
    ba = gurps_odds.quick_contest(b, a).outcomes
    assert ab["a"] == ba["b"]
    assert ab["stalemate"] == ba["stalemate"]


@pytest.mark.parametrize(
    "command",
    [
        "odds gloom --rank 14 --dl 5",
        "odds gloom --rank 16 --vs 14",
        "odds gloom --rank 18 --vs 14 --dynamic",
        "odds gloom --rank 14 --vs 21 --vs-disadvantage --dynamic",
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


# -- the command -----------------------------------------------------------------------------------


def _exact(outcomes):
    return {k: f"{v.numerator}/{v.denominator}" for k, v in outcomes.items()}


def test_odds_command_gives_a_defender_of_21_its_advantage(run):
    doc = run.json("odds gloom --rank 14 --vs 21")
    assert doc["exact"]["a"] == "819/8000"
    assert doc["exact"]["stalemate"] == "7/8000"
    assert (doc["a_mode"], doc["b_mode"]) == ("normal", "advantage")


@pytest.mark.parametrize(
    ("flags", "ref"),
    [
        ("--vs-advantage", {"b_adv": True}),
        ("--vs-disadvantage", {"b_dis": True}),
        ("--advantage --vs-disadvantage", {"a_adv": True, "b_dis": True}),
        (
            "--disadvantage --vs-advantage --tie-rule defender",
            {"a_dis": True, "b_adv": True, "tie_rule": "defender"},
        ),
    ],
)
def test_odds_command_rolls_each_side_in_its_own_mode(run, flags, ref):
    doc = run.json(f"odds gloom --rank 14 --vs 16 {flags}")
    assert doc["exact"] == _exact(ref_gloom_contest(14, 16, **ref))


def test_odds_command_dynamic_floor_with_a_defender_of_21(run):
    doc = run.json("odds gloom --rank 16 --vs 21 --dynamic")
    assert doc["exact"] == _exact(ref_gloom_dynamic(16, 21))


# -- the roll kinds at the table: supervised project days, influence, sense contests ---------------


def _totals():
    """Each 3d6 total with one fall of the dice that makes it, and its weight of 216."""
    weights = Counter(sum(d) for d in itertools.product(range(1, 7), repeat=3))
    falls = {sum(d): d for d in itertools.product(range(1, 7), repeat=3)}
    return [(falls[t], Fraction(n, 216)) for t, n in sorted(weights.items())]


@pytest.mark.parametrize(
    ("worker", "supervisor", "bonus"), [(12, None, 1), (12, 13, 1), (9, 15, 2), (15, 3, 1)]
)
def test_a_project_day_matches_the_rules_roll_by_roll(worker, supervisor, bonus):
    from tracker.systems.dice import PhysicalDice
    from tracker.systems.gurps import tables
    from tracker.systems.gurps.rules.projects import supervisor_modifier
    from tracker.systems.gurps.rules.success import success_roll

    expected: Counter[str] = Counter()
    hours = Fraction(0)
    for lead, p_lead in _totals() if supervisor is not None else [(None, Fraction(1))]:
        led = lead is not None and success_roll(supervisor, [], dice=PhysicalDice(lead)).success
        mods = [supervisor_modifier(bonus)] if led else []
        for dice, p in _totals():
            day = success_roll(worker, mods, dice=PhysicalDice(dice))
            expected[day.outcome] += p_lead * p
            hours += p_lead * p * tables.PROJECT_HOURS[day.outcome]
    result = gurps_odds.project_day(worker, supervisor=supervisor, bonus=bonus)
    assert result.outcomes == {k: expected[k] for k in result.outcomes}
    assert result.extras["expected_man_hours"] == hours


def test_a_team_s_day_shares_one_supervisor_roll_and_adds_every_worker_s_hours(run):
    """GURPS, 'Major projects': "A supervisor using Leadership or Administration instead of
    working personally can give the team +1 to +2 on success." One supervisor roll gives the
    whole team its bonus that day: the team's hours, fall by fall of every die."""
    from tracker.systems.dice import PhysicalDice
    from tracker.systems.gurps import tables
    from tracker.systems.gurps.rules.projects import supervisor_modifier
    from tracker.systems.gurps.rules.success import success_roll

    hours = Fraction(0)
    for lead, p_lead in _totals():
        led = success_roll(13, [], dice=PhysicalDice(lead)).success
        mods = [supervisor_modifier(1)] if led else []
        for first, p1 in _totals():
            for second, p2 in _totals():
                day = [success_roll(12, mods, dice=PhysicalDice(d)) for d in (first, second)]
                p = p_lead * p1 * p2
                hours += p * sum(tables.PROJECT_HOURS[roll.outcome] for roll in day)
    team = gurps_odds.project_day(12, supervisor=13, workers=2)
    assert team.extras["expected_man_hours"] == hours
    shown = run.json("odds gurps --skill 12 --project --workers 2 --supervisor 13")
    assert shown["workers"] == 2
    assert shown["expected_man_hours"] == pytest.approx(float(hours))
    assert "2 workers at 12" in run.ok("odds gurps --skill 12 --project --workers 2").stdout


def test_a_supervisor_never_slows_the_work():
    for worker in range(3, 19):
        alone = gurps_odds.project_day(worker).extras["expected_man_hours"]
        led = gurps_odds.project_day(worker, supervisor=12).extras["expected_man_hours"]
        assert led >= alone


@pytest.mark.parametrize(
    ("skill", "effective", "will", "reaction"),
    [("Diplomacy", 15, 11, 1), ("Diplomacy", 9, 14, -2), ("Intimidation", 13, 12, 0),
     ("Sex Appeal", 14, 10, 0), ("Fast-Talk", 12, 12, 0), ("Fast-Talk", 9, 11, 2)],
)  # fmt: skip
def test_influence_odds_match_influence_rolls_fall_by_fall(skill, effective, will, reaction):
    """GURPS, 'Influence Rolls': "Modifiers: Your reaction modifiers (appearance, social
    status, etc.) apply." They are part of the influence roll's skill, and Diplomacy's reaction
    roll takes them too."""
    from tracker.systems.dice import PhysicalDice
    from tracker.systems.gurps.rules.influence import influence_roll
    from tracker.systems.gurps.rules.success import Modifier

    expected: Counter[str] = Counter()
    reactions = _totals() if skill == "Diplomacy" else [(None, Fraction(1))]
    for a, pa in _totals():
        for b, pb in _totals():
            for r, pr in reactions:
                decided = influence_roll(
                    skill,
                    effective + reaction,
                    will,
                    dice_a=PhysicalDice(a),
                    dice_b=PhysicalDice(b),
                    reaction_dice=None if r is None else PhysicalDice(r),
                    reaction_modifiers=[Modifier(reaction, "reaction")] if reaction else [],
                )
                expected[decided.level] += pa * pb * pr
    result = gurps_odds.influence(skill, effective, will, reaction=reaction)
    assert result.outcomes == dict(expected)
    assert sum(result.outcomes.values()) == 1


def test_influence_odds_on_a_pc_give_each_margin_the_rules_leave():
    from tracker.systems.dice import PhysicalDice
    from tracker.systems.gurps.rules.influence import influence_roll

    margins: Counter[int] = Counter()
    for a, pa in _totals():
        for b, pb in _totals():
            decided = influence_roll(
                "Sex Appeal", 14, 12, dice_a=PhysicalDice(a), dice_b=PhysicalDice(b), on_pc=True
            )
            margins[decided.modifier] += pa * pb
    result = gurps_odds.influence("Sex Appeal", 14, 12, on_pc=True)
    assert result.outcomes["a"] == 1 - margins[0]
    assert result.details["margins"] == {m: float(p) for m, p in sorted(margins.items()) if m}


def test_odds_command_covers_the_new_roll_kinds(run):
    day = run.json("odds gurps --skill 12 --project --supervisor 13")
    assert day["check"] == "project day"
    assert day["supervisor_succeeds"] == pytest.approx(float(gurps_odds.cumulative_3d6(13)))
    talk = run.ok("odds gurps --skill 15 --vs 11 --influence Diplomacy --reaction-mod 1").stdout
    assert "Good" in talk
    assert "Excellent" in talk
    pc = run.ok('odds gurps --skill 14 --vs 12 --influence "Sex Appeal" --on-pc').stdout
    assert "influencer wins" in pc
    assert "by  3:" in pc
    # A sense contest is Per with the sense's Acute bonus against Stealth: a Quick Contest.
    sense = run.json("odds gurps --skill 12 --mod 2 --vs 13")
    assert sense["exact"] == _exact(gurps_odds.quick_contest(14, 13).outcomes)
    die = run.json("odds glintlock --stat 3 --tags 2 --advantage-die")
    assert (die["position"], die["exact"]) == (
        "controlled",
        _exact(glintlock_odds.check(3, tags=3).outcomes),
    )
    waits = run.ok("odds glintlock --stat 3 --tags 3 --advantage-die").stdout
    assert "waits for a roll it can improve" in waits


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("odds gurps --skill 12 --supervisor 13", "add --project"),
        ("odds gurps --skill 12 --workers 3", "add --project"),
        ("odds gurps --skill 12 --project --workers 0", "--workers 1 or more"),
        ("odds gurps --skill 12 --project --supervisor-bonus 3", "+1 or +2"),
        ("odds gurps --skill 12 --influence Cooking --vs 10", "not an influence skill"),
        ("odds gurps --skill 12 --influence Diplomacy", "--vs WILL"),
    ],
)
def test_odds_refuses_a_new_roll_kind_asked_wrongly(run, command, says):
    result = run(command)
    assert result.exit_code == 2
    assert says in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
