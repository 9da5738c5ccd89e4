"""GURPS Fright Checks: modifiers, the Rule of 14 and the fright table (rulebook, Fright Checks)."""

from __future__ import annotations

import json

import pytest

from tracker.errors import BadInput, DiceError, Refused
from tracker.systems.dice import PhysicalDice
from tracker.systems.gurps import tables
from tracker.systems.gurps.rules.fright import fright_check, fright_modifier
from tracker.systems.gurps.rules.fright_table import FRIGHT_TABLE, fright_table_from_rows
from tracker.systems.gurps.rules.success import Modifier, decide_roll


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


class Recorder:
    """Hands out the given values and records every request."""

    kind = "test"

    def __init__(self, values: list[int]) -> None:
        self.values = values
        self.calls: list[tuple[int, int, str]] = []

    def roll(self, count: int, faces: int, purpose: str = "the roll") -> tuple[int, ...]:
        self.calls.append((count, faces, purpose))
        return tuple(self.values[:count])


# The rulebook's listed rows, by their first total.
LISTED_ROWS = (4, 6, 8, 10, 11, 12, 13, 14, 16, 17, 18, 20, 21, 22, 23, 28, 30, 40)


def listed_row_for(total: int) -> int:
    return max(first for first in LISTED_ROWS if first <= total)


def fright_with_total(total: int, *, effect_dice=None, ht=11, will=10, modifiers=()):
    """A failed Fright Check whose table total (3d6 + margin of failure) is ``total``.

    Will is lowered when needed so the check roll itself stays a plain 3d6 total.
    """
    table_total = min(18, total - 1)
    margin = total - table_total
    capped = min(will + sum(m.value for m in modifiers), 13)
    excess = max(0, capped + margin - 16)
    return fright_check(
        will - excess,
        modifiers,
        dice=dice(capped - excess + margin),
        table_dice=dice(table_total),
        effect_dice=effect_dice if effect_dice is not None else Untouchable(),
        ht=ht,
    )


# Modifiers ----------------------------------------------------------------------------------

FRIGHT_MODIFIERS_FROM_RULEBOOK = {
    "fearlessness": 1,
    "fearfulness": -1,
    "combat-reflexes": 2,
    "combat-paralysis": -2,
    "in-combat": 5,
    "far": 1,
    "remote": 3,
    "alone": -2,
    "dark": -1,
    "touched": -1,
    "previous-exposure": 1,
}


@pytest.mark.parametrize(("name", "value"), FRIGHT_MODIFIERS_FROM_RULEBOOK.items())
def test_fright_modifier_table(name: str, value: int) -> None:
    assert tables.FRIGHT_MODIFIERS[name][0] == value
    assert fright_modifier(name.upper().replace("-", " ")).value == value


def test_fright_modifier_table_has_no_extra_rows() -> None:
    assert set(tables.FRIGHT_MODIFIERS) == set(FRIGHT_MODIFIERS_FROM_RULEBOOK)


@pytest.mark.parametrize(
    ("name", "count", "value"),
    [("fearlessness", 3, 3), ("fearfulness", 2, -2), ("previous-exposure", 4, 4)],
)
def test_counted_fright_modifiers_scale(name: str, count: int, value: int) -> None:
    assert fright_modifier(name, count).value == value


@pytest.mark.parametrize(("name", "count"), [("alone", 2), ("fearlessness", 0), ("gloomy", 1)])
def test_bad_fright_modifiers_are_bad_input(name: str, count: int) -> None:
    with pytest.raises(BadInput):
        fright_modifier(name, count)


# The check and the Rule of 14 ---------------------------------------------------------------


def test_rule_of_14_high_will_counts_as_13_and_a_14_fails() -> None:
    check = fright_check(16, dice=dice(14), table_dice=dice(10), effect_dice=Recorder([3, 4]))
    assert check.modified_will == 16
    assert check.effective == 13
    assert check.rule_of_14
    assert not check.roll.success
    assert check.roll.margin_of_failure == 1
    assert check.table is not None
    assert check.table.total == 11


def test_rule_of_14_a_13_still_succeeds() -> None:
    check = fright_check(18, dice=dice(13), table_dice=Untouchable(), effect_dice=Untouchable())
    assert check.roll.success
    assert check.table is None


def test_rule_of_14_applies_after_modifiers() -> None:
    check = fright_check(
        10,
        [fright_modifier("in-combat")],
        dice=dice(13),
        table_dice=Untouchable(),
        effect_dice=Untouchable(),
    )
    assert check.modified_will == 15
    assert check.effective == 13
    assert check.roll.effective == 13
    assert check.roll.base == 10
    assert check.roll.success


def test_rule_of_14_is_recorded_as_a_labelled_modifier() -> None:
    check = fright_check(16, dice=dice(14), table_dice=dice(10), effect_dice=Recorder([3, 4]))
    assert check.roll.base == 16
    assert check.roll.modifiers == (Modifier(-3, "Rule of 14"),)
    assert check.roll.effective == 13
    assert check.modified_will == 16


def test_rule_of_14_modifier_follows_the_other_modifiers() -> None:
    in_combat = fright_modifier("in-combat")
    check = fright_check(
        10, [in_combat], dice=dice(13), table_dice=Untouchable(), effect_dice=Untouchable()
    )
    assert check.roll.modifiers == (in_combat, Modifier(-2, "Rule of 14"))
    assert check.modified_will == 15


def test_no_rule_of_14_modifier_at_13_or_less() -> None:
    check = fright_check(13, dice=dice(13), table_dice=Untouchable(), effect_dice=Untouchable())
    assert check.roll.modifiers == ()
    assert not check.rule_of_14


def test_will_16_rolling_14_re_decides_as_the_stored_failure() -> None:
    check = fright_check(16, dice=dice(14), table_dice=dice(10), effect_dice=Recorder([3, 4]))
    again = decide_roll(check.roll.base, check.roll.modifiers, check.roll.dice)
    assert check.roll.outcome == again.outcome == "failure"


@pytest.mark.parametrize(
    "modifiers",
    [(), (Modifier(5, "in combat when the event occurs"),), (Modifier(-2, "alone"),)],
    ids=["none", "in-combat", "alone"],
)
def test_every_fright_roll_re_decides_to_the_stored_roll(modifiers) -> None:
    # What `tracker verify` relies on: base + modifiers is what the roll was judged against.
    for will in range(3, 26):
        for total in range(3, 19):
            check = fright_check(
                will,
                modifiers,
                dice=dice(total),
                table_dice=dice(10),
                effect_dice=Recorder([1] * 8),
            )
            roll = check.roll
            assert roll.effective == min(will + sum(m.value for m in modifiers), 13)
            assert roll.effective == roll.base + sum(m.value for m in roll.modifiers)
            assert decide_roll(roll.base, roll.modifiers, roll.dice) == roll


def test_modifiers_below_13_are_used_as_they_are() -> None:
    check = fright_check(
        12,
        [fright_modifier("alone"), fright_modifier("dark")],
        dice=dice(9),
        table_dice=Untouchable(),
        effect_dice=Untouchable(),
    )
    assert check.effective == 9
    assert not check.rule_of_14
    assert check.roll.success


def test_a_fright_check_is_never_refused_for_low_will() -> None:
    check = fright_check(1, dice=dice(3), table_dice=Untouchable(), effect_dice=Untouchable())
    assert check.roll.outcome == "critical_success"


def test_unfazeable_needs_no_fright_check() -> None:
    with pytest.raises(Refused, match="Unfazeable and needs no Fright Check"):
        fright_check(
            12,
            dice=Untouchable(),
            table_dice=Untouchable(),
            effect_dice=Untouchable(),
            unfazeable=True,
            character="Wren",
        )


def test_fright_check_dice_are_validated() -> None:
    with pytest.raises(DiceError):
        fright_check(12, dice=PhysicalDice([1, 1]), table_dice=dice(10), effect_dice=Untouchable())


def test_table_total_is_table_dice_plus_margin_of_failure() -> None:
    check = fright_check(8, dice=dice(15), table_dice=dice(9), effect_dice=Recorder([2]))
    assert check.table is not None
    assert check.table.margin_of_failure == 7
    assert check.table.total == 9 + 7
    assert check.table.row == 16


def test_fright_check_to_dict_has_the_contract_fields() -> None:
    check = fright_check(16, dice=dice(14), table_dice=dice(12), effect_dice=Recorder([3, 4]))
    document = check.to_dict()
    assert document["effective"] == 13
    assert document["roll"]["effective"] == 13
    table = document["table"]
    assert table["dice"] == list(dice(12).values)
    assert table["total"] == 13
    assert table["row"] == 13
    assert table["effects"][0]["kind"] == "trait"


# Row lookup ---------------------------------------------------------------------------------


@pytest.mark.parametrize("total", range(4, 46))
def test_every_total_maps_to_its_listed_row(total: int) -> None:
    row = FRIGHT_TABLE.lookup(total)
    assert row.first == listed_row_for(total)


@pytest.mark.parametrize(
    ("total", "row"),
    [(19, 18), (24, 23), (25, 23), (26, 23), (27, 23), (31, 30), (35, 30), (39, 30), (45, 40)],
)
def test_gaps_take_the_listed_row_below(total: int, row: int) -> None:
    assert FRIGHT_TABLE.lookup(total).first == row


@pytest.mark.parametrize("total", [4, 9, 13, 15, 19, 23, 27, 29, 33, 40, 45])
def test_a_failed_check_reports_the_row_applied(total: int) -> None:
    effect_dice = Recorder([2, 2, 2, 2, 2, 2])
    check = fright_with_total(total, effect_dice=effect_dice)
    assert check.table is not None
    assert check.table.total == total
    assert check.table.row == listed_row_for(total)


def test_the_builtin_table_lists_the_rulebooks_rows() -> None:
    assert tuple(row.first for row in FRIGHT_TABLE.rows) == LISTED_ROWS
    assert FRIGHT_TABLE.rows[-1].last is None


# Row effects --------------------------------------------------------------------------------


def effects_for(total: int, effect_values=(), **kwargs):
    recorder = Recorder(list(effect_values))
    check = fright_with_total(total, effect_dice=recorder if effect_values else None, **kwargs)
    assert check.table is not None
    return check.table.effects, recorder


def test_row_4_stunned_1_second_recover_automatically() -> None:
    (effect,), _ = effects_for(4)
    assert (effect.kind, effect.name, effect.duration, effect.unit) == (
        "condition",
        "stunned",
        1,
        "seconds",
    )
    assert effect.recovery is None


def test_row_6_recovery_rolls_against_will() -> None:
    (effect,), _ = effects_for(7, will=11)
    assert effect.recovery == "Will"
    assert effect.recovery_target == 11


def test_row_8_recovery_rolls_against_modified_will() -> None:
    (effect,), _ = effects_for(8, will=12, modifiers=(Modifier(-2, "alone"),))
    assert effect.recovery == "modified Will"
    assert effect.recovery_target == 10


def test_row_10_stunned_for_1d_seconds() -> None:
    (effect,), recorder = effects_for(10, [4])
    assert (effect.name, effect.duration, effect.dice) == ("stunned", 4, (4,))
    assert recorder.calls[0][:2] == (1, 6)


def test_row_11_stunned_for_2d_seconds() -> None:
    (effect,), _ = effects_for(11, [2, 5])
    assert (effect.duration, effect.dice, effect.recovery) == (7, (2, 5), "modified Will")


@pytest.mark.parametrize(("ht", "seconds"), [(11, 14), (10, 15), (24, 1), (30, 1)])
def test_row_12_retching_for_25_minus_ht_seconds(ht: int, seconds: int) -> None:
    (effect,), _ = effects_for(12, ht=ht)
    assert (effect.name, effect.duration, effect.unit) == ("retching", seconds, "seconds")
    assert effect.recovery == "HT"
    assert effect.recovery_target == ht


def test_row_12_without_ht_leaves_the_duration_to_the_gm() -> None:
    (effect,), _ = effects_for(12, ht=None)
    assert effect.duration is None
    assert "HT" in (effect.note or "")


def test_row_13_a_new_mental_quirk() -> None:
    (effect,), _ = effects_for(13)
    assert (effect.kind, effect.trait, effect.points) == ("trait", "quirk", -1)


def test_row_14_loses_1d_fp_then_stunned_1d_seconds_from_one_roll() -> None:
    effects, recorder = effects_for(15, [3, 5])
    fp, stun = effects
    assert (fp.kind, fp.amount, fp.dice) == ("fp_loss", 3, (3,))
    assert (stun.name, stun.duration, stun.dice) == ("stunned", 5, (5,))
    assert len(recorder.calls) == 1
    assert recorder.calls[0][:2] == (2, 6)


def test_row_14_with_physical_effect_dice() -> None:
    check = fright_with_total(14, effect_dice=PhysicalDice([6, 1]))
    assert check.table is not None
    assert check.table.effect_dice == (6, 1)
    assert [e.amount for e in check.table.effects] == [6, None]


def test_row_14_rejects_the_wrong_number_of_effect_dice() -> None:
    with pytest.raises(DiceError, match="two d6"):
        fright_with_total(14, effect_dice=PhysicalDice([6]))


def test_row_16_stunned_and_a_quirk() -> None:
    (stun, quirk), _ = effects_for(16, [2])
    assert (stun.name, stun.duration) == ("stunned", 2)
    assert (quirk.kind, quirk.trait) == ("trait", "quirk")


def test_row_17_faint_for_1d_minutes() -> None:
    (effect,), _ = effects_for(17, [5], ht=12)
    assert (effect.name, effect.duration, effect.unit) == ("fainted", 5, "minutes")
    assert (effect.recovery, effect.recovery_target) == ("HT", 12)


def test_row_18_faint_and_1_hp_if_the_ht_roll_fails() -> None:
    (faint, injury), _ = effects_for(18)
    assert (faint.name, faint.duration) == ("fainted", None)
    assert (injury.kind, injury.amount, injury.only_if_failed) == ("hp_loss", 1, "HT")


def test_row_20_faint_for_4d_minutes_and_lose_1d_fp() -> None:
    (faint, fp), recorder = effects_for(20, [1, 2, 3, 4, 5])
    assert (faint.duration, faint.dice) == (10, (1, 2, 3, 4))
    assert (fp.amount, fp.dice) == (5, (5,))
    assert recorder.calls[0][:2] == (5, 6)


def test_row_21_panic_for_1d_minutes() -> None:
    (effect,), _ = effects_for(21, [6])
    assert (effect.name, effect.duration, effect.unit, effect.recovery) == (
        "panic",
        6,
        "minutes",
        "Will",
    )


@pytest.mark.parametrize(("total", "trait"), [(22, "delusion"), (23, "phobia"), (26, "phobia")])
def test_rows_22_and_23_minus_10_point_traits(total: int, trait: str) -> None:
    (effect,), _ = effects_for(total)
    assert (effect.kind, effect.trait, effect.points) == ("trait", trait, -10)


def test_row_28_coma() -> None:
    (effect,), _ = effects_for(29)
    assert (effect.name, effect.recovery, effect.duration) == ("coma", "HT", None)


def test_row_30_catatonia_for_1d_days_with_progressive_hp_loss() -> None:
    (catatonia, injury), _ = effects_for(34, [3])
    assert (catatonia.name, catatonia.duration, catatonia.unit) == ("catatonia", 3, "days")
    assert (injury.kind, injury.amount) == ("hp_loss", None)


def test_row_40_is_row_30_plus_1_iq_lost() -> None:
    effects, _ = effects_for(44, [2])
    assert [e.kind for e in effects] == ["condition", "hp_loss", "iq_loss"]
    assert effects[0].duration == 2
    assert effects[2].amount == 1


def test_trait_results_are_flagged_for_the_gm() -> None:
    check = fright_with_total(16, effect_dice=Recorder([1]))
    assert check.table is not None
    assert [e.trait for e in check.table.traits_to_assign] == ["quirk"]


# Campaign tables ----------------------------------------------------------------------------


def test_a_campaign_may_load_its_own_table() -> None:
    table = fright_table_from_rows(
        [
            {"first": 1, "last": 9, "text": "Shaken.", "effects": []},
            {
                "first": 10,
                "last": None,
                "text": "Flee for 3d seconds.",
                "effects": [
                    {"kind": "condition", "name": "fleeing", "duration": "3d", "unit": "seconds"}
                ],
            },
        ]
    )
    check = fright_check(
        10, dice=dice(12), table_dice=dice(10), effect_dice=PhysicalDice([1, 2, 3]), table=table
    )
    assert check.table is not None
    assert check.table.row == 10
    assert check.table.effects[0].duration == 6


def test_the_builtin_rows_round_trip() -> None:
    assert fright_table_from_rows(FRIGHT_TABLE.rows) == FRIGHT_TABLE


def test_a_row_without_last_covers_one_total() -> None:
    table = fright_table_from_rows([{"first": 5, "text": "x"}, {"first": 6, "text": "y"}])
    assert table.rows[0].last == 5


@pytest.mark.parametrize(
    "rows",
    [
        [],
        [{"first": 5, "last": 8, "text": "a"}, {"first": 7, "last": 9, "text": "b"}],
        [{"first": 5, "last": None, "text": "a"}, {"first": 9, "last": 9, "text": "b"}],
        [{"first": 5, "last": 4, "text": "a"}],
        [{"first": "5", "text": "a"}],
        [{"first": 5, "text": "a", "effects": [{"kind": "sneeze"}]}],
        [{"first": 5, "text": "a", "effects": [{"kind": "fp_loss", "amount": "d6"}]}],
        [{"first": 5, "text": "a", "effects": [{"kind": "fp_loss", "colour": "red"}]}],
        [{"first": 5, "text": "a", "effects": [{"kind": "condition"}]}],
        [{"first": 5, "text": "a", "effects": [{"kind": "trait", "points": -5}]}],
        [{"first": 5, "text": "a", "effects": [{"kind": "condition", "name": "x", "unit": "y"}]}],
        [{"first": 5, "text": "a", "effects": "stunned"}],
        ["not a row"],
    ],
)
def test_invalid_tables_are_bad_input(rows: list) -> None:
    with pytest.raises(BadInput):
        fright_table_from_rows(rows)


def test_a_total_below_the_first_row_takes_the_first_row() -> None:
    table = fright_table_from_rows([{"first": 10, "text": "a"}, {"first": 12, "text": "b"}])
    assert table.lookup(4).first == 10


def test_the_builtin_table_survives_a_json_round_trip() -> None:
    rows = json.loads(json.dumps(FRIGHT_TABLE.to_dict()))["rows"]
    assert fright_table_from_rows(rows) == FRIGHT_TABLE
