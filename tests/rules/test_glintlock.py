"""Glintlock rule engine: every face for every stat, the rulebook's probability table, naturals,
tags and position, the Mettle/Threat economy, Stress, and physical dice.

Expected values come from tables typed from Glintlock and tracker/systems/glintlock/RULINGS.md, or
from the small reference below, written from the rulebook's text independently of the engine.
"""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracker.errors import BadInput, DiceError, Refused
from tracker.systems.dice import PhysicalDice
from tracker.systems.glintlock import rules as gl

FACES = range(1, 21)


def reference_outcome(stat: int, trained: bool, face: int, bonus: int = 0) -> str:
    """Rulebook 'Core Mechanic' and 'Natural 20 / Natural 1', written out independently."""
    s = stat + 1 if trained else stat
    if face == 20:
        return "strong_hit"
    if face == 1:
        return "miss"
    total = face + bonus
    bands = [(20 - s, "strong_hit"), (20 - 2 * s, "weak_hit")]
    return next((name for dc, name in bands if total >= dc), "miss")


class RecordingDice:
    """A dice source that hands out fixed values and records every request."""

    kind = "test"

    def __init__(self, *rolls: tuple[int, ...]) -> None:
        self.rolls = list(rolls)
        self.requests: list[tuple[int, int, str]] = []

    def roll(self, count: int, faces: int, purpose: str = "the roll") -> tuple[int, ...]:
        self.requests.append((count, faces, purpose))
        return self.rolls.pop(0)


def dice(*values: int) -> PhysicalDice:
    return PhysicalDice(values)


GEAR = gl.Tag(1, "gear")
POWER = gl.Tag(1, "power")
STORY = gl.Tag(1, "story")
WEAKNESS = gl.Tag(-1, "weakness")

# ----------------------------------------------------------------------------- DCs and outcomes


@pytest.mark.parametrize(("stat", "trained"), list(itertools.product(range(11), [False, True])))
def test_every_face_for_every_stat(stat: int, trained: bool) -> None:
    effective = gl.effective_stat(stat, trained)
    for face in FACES:
        assert gl.outcome(effective, face) == reference_outcome(stat, trained, face), face


# Eff. Stat, Weak DC, Strong DC, Miss%, Weak%, Strong% (Glintlock, 'Probability Table')
PROBABILITY_TABLE = [
    (1, 18, 19, 85, 5, 10),
    (2, 16, 18, 75, 10, 15),
    (3, 14, 17, 65, 15, 20),
    (4, 12, 16, 55, 20, 25),
    (5, 10, 15, 45, 25, 30),
    (6, 8, 14, 35, 30, 35),
]


@pytest.mark.parametrize(
    ("eff", "weak", "strong", "miss_pct", "weak_pct", "strong_pct"), PROBABILITY_TABLE
)
def test_probability_table_row(
    eff: int, weak: int, strong: int, miss_pct: int, weak_pct: int, strong_pct: int
) -> None:
    assert (gl.weak_dc(eff), gl.strong_dc(eff)) == (weak, strong)
    counts = {"miss": 0, "weak_hit": 0, "strong_hit": 0}
    for face in FACES:
        counts[gl.outcome(eff, face)] += 1
    # Each face of a d20 is 5%.
    assert counts == {
        "miss": miss_pct // 5,
        "weak_hit": weak_pct // 5,
        "strong_hit": strong_pct // 5,
    }


def test_training_adds_one_to_both_dcs() -> None:
    assert gl.effective_stat(3, True) == 4
    assert gl.effective_stat(3, False) == 3
    assert (gl.weak_dc(4), gl.strong_dc(4)) == (12, 16)


def test_negative_stat_is_bad_input() -> None:
    with pytest.raises(BadInput, match="0 or more"):
        gl.effective_stat(-1, False)


@pytest.mark.parametrize("eff", [0, 5, 10, 15, 25])
def test_natural_20_always_strong_hit(eff: int) -> None:
    assert gl.outcome(eff, 20) == "strong_hit"
    assert gl.natural(20) == 20


@pytest.mark.parametrize("eff", [0, 5, 10, 15, 25])
def test_natural_1_always_miss_even_with_steel_yourself(eff: int) -> None:
    assert gl.outcome(eff, 1) == "miss"
    assert gl.outcome(eff, 1, bonus=2) == "miss"
    assert gl.natural(1) == 1


@pytest.mark.parametrize("face", range(2, 20))
def test_no_natural_between(face: int) -> None:
    assert gl.natural(face) is None


@pytest.mark.parametrize(
    ("stat", "trained", "face"), list(itertools.product(range(8), [False, True], FACES))
)
def test_steel_yourself_bonus_counts_on_the_kept_die(stat: int, trained: bool, face: int) -> None:
    effective = gl.effective_stat(stat, trained)
    assert gl.outcome(effective, face, bonus=2) == reference_outcome(stat, trained, face, 2)


def test_steel_yourself_lifts_a_miss_to_a_weak_hit() -> None:
    # Stat 3: Weak DC 14; a 12 misses, 12 + 2 is a weak hit.
    assert gl.outcome(3, 12) == "miss"
    assert gl.outcome(3, 12, bonus=gl.STEEL_YOURSELF_BONUS) == "weak_hit"


# outcome, natural -> (Mettle, Threat)  (Glintlock 'Core Mechanic', 'Natural 20 / Natural 1')
DELTA_TABLE = [
    ("strong_hit", 19, (1, 0)),
    ("weak_hit", 12, (1, 1)),
    ("miss", 5, (0, 2)),
    ("strong_hit", 20, (2, 0)),
    ("miss", 1, (0, 3)),
]


@pytest.mark.parametrize(("result", "kept", "expected"), DELTA_TABLE)
def test_deltas(result: str, kept: int, expected: tuple[int, int]) -> None:
    assert gl.deltas(result, kept) == expected


@pytest.mark.parametrize(
    ("face", "outcome", "mettle", "threat"),
    [
        (19, "strong_hit", 1, 0),
        (12, "weak_hit", 1, 1),
        (5, "miss", 0, 2),
        (20, "strong_hit", 2, 0),
        (1, "miss", 0, 3),
    ],
)
def test_check_deltas_at_stat_4(face: int, outcome: str, mettle: int, threat: int) -> None:
    # One gear tag: risky, one die. Stat 4: Weak DC 12, Strong DC 16.
    result = gl.check(4, dice=dice(face), tags=[GEAR])
    assert (result.outcome, result.mettle_delta, result.threat_delta) == (outcome, mettle, threat)
    assert result.max_damage is (face == 20)


# ----------------------------------------------------------------------------- tags


PARSE_TABLE = [
    ("1", gl.Tag(1, None)),
    ("-2", gl.Tag(-2, None)),
    ("1:power", gl.Tag(1, "power")),
    ("1:gear", gl.Tag(1, "gear")),
    ("+1:gear", gl.Tag(1, "gear")),
    ("1:scene", gl.Tag(1, "scene")),
    ("-1:scene", gl.Tag(-1, "scene")),
    ("1:story", gl.Tag(1, "story")),
    ("-1:weakness", gl.Tag(-1, "weakness")),
    ("-1:condition", gl.Tag(-1, "condition")),
    (" 1 : GEAR ", gl.Tag(1, "gear")),
]


@pytest.mark.parametrize(("text", "tag"), PARSE_TABLE)
def test_parse_tag(text: str, tag: gl.Tag) -> None:
    assert gl.parse_tag(text) == tag


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("2:gear", "gear tag is worth \\+1, not \\+2"),
        ("+1:weakness", "weakness tag is worth -1, not \\+1"),
        ("-1:power", "power tag"),
        ("2:scene", "\\+1 or -1"),
        ("-1:story", "story tag"),
        ("1:condition", "condition tag"),
        ("1:luck", "kind"),
        ("one", "number"),
        ("1:", "kind"),
        ("", "number"),
    ],
)
def test_parse_tag_refuses_values_that_break_the_kind_rule(text: str, words: str) -> None:
    with pytest.raises(BadInput, match=words):
        gl.parse_tag(text)


def test_tag_kinds_data() -> None:
    assert {kind: spec.values for kind, spec in gl.TAG_KINDS.items()} == {
        "power": (1,),
        "gear": (1,),
        "scene": (1, -1),
        "story": (1,),
        "weakness": (-1,),
        "condition": (-1,),
    }
    assert [kind for kind, spec in gl.TAG_KINDS.items() if spec.single_use] == ["story"]


def test_the_tags_a_form_offers_are_every_kind_and_value_but_story_each_worded_as_worth() -> None:
    """A phone taps its tags rather than typing them: every tag the rulebook names is a tap
    away, each read as what it is worth, and each is one the command line takes."""
    from tracker.systems.glintlock.options import TAG_PICKS

    rulebook = {
        (value, kind)
        for kind, spec in gl.TAG_KINDS.items()
        if not spec.single_use
        for value in spec.values
    }
    picked = {(gl.parse_tag(v).value, gl.parse_tag(v).kind) for v, _ in TAG_PICKS}
    assert picked == rulebook
    assert len(TAG_PICKS) == len(rulebook)
    for value, words in TAG_PICKS:
        tag = gl.parse_tag(value)
        assert words == f"{tag.value:+d} {tag.kind}".replace("-", "\u2212")


@pytest.mark.parametrize(
    ("tags", "stress", "net"),
    [
        ((), 0, 0),
        ((GEAR, POWER), 0, 2),
        ((GEAR, POWER), 1, 2),
        ((GEAR, POWER), 2, 1),
        ((GEAR, POWER), 6, 1),
        ((GEAR, POWER, STORY, WEAKNESS), 0, 2),
        ((gl.Tag(-1, "scene"), gl.Tag(-1, "condition")), 3, -3),
        ((gl.Tag(3),), 0, 3),
    ],
)
def test_net_tags(tags: tuple[gl.Tag, ...], stress: int, net: int) -> None:
    assert gl.net_tags(tags, stress) == net


# net tags -> position (Glintlock, 'Tag-Driven Position')
POSITION_TABLE = [
    (-3, "desperate"),
    (-1, "desperate"),
    (0, "desperate"),
    (1, "risky"),
    (2, "risky"),
    (3, "controlled"),
    (4, "controlled"),
    (9, "controlled"),
]


@pytest.mark.parametrize(("net", "expected"), POSITION_TABLE)
def test_position(net: int, expected: str) -> None:
    assert gl.position(net) == expected


def test_dice_for_position() -> None:
    assert gl.DICE_FOR_POSITION == {"desperate": 2, "risky": 1, "controlled": 2}


@pytest.mark.parametrize(
    ("rolled", "at", "kept"),
    [
        ((20, 5), "desperate", 5),
        ((5, 20), "desperate", 5),
        ((1, 8), "controlled", 8),
        ((8, 1), "controlled", 8),
        ((13,), "risky", 13),
        ((7, 7), "controlled", 7),
    ],
)
def test_keep(rolled: tuple[int, ...], at: str, kept: int) -> None:
    assert gl.keep(rolled, at) == kept


def test_improve_position_steps_up() -> None:
    assert gl.improve_position("desperate") == "risky"
    assert gl.improve_position("risky") == "controlled"


def test_improve_position_refused_at_controlled() -> None:
    with pytest.raises(Refused, match="already controlled"):
        gl.improve_position("controlled")


# ----------------------------------------------------------------------------- the check


def test_desperate_roll_rolls_two_d20_once_and_keeps_the_lower() -> None:
    source = RecordingDice((20, 5))
    result = gl.check(3, dice=source)
    assert source.requests == [(2, 20, "a desperate roll (net tags +0: no --tag given)")]
    assert (result.position, result.dice, result.kept) == ("desperate", (20, 5), 5)
    # With two dice, "natural" means the kept die: the 20 that was not kept is no natural.
    assert result.natural is None
    assert result.outcome == "miss"


def test_controlled_roll_keeps_the_higher_so_a_1_beside_it_is_no_natural() -> None:
    result = gl.check(3, dice=dice(1, 8), tags=[GEAR, POWER, gl.Tag(1, "scene")])
    assert result.position == "controlled"
    assert result.kept == 8
    assert result.natural is None
    assert result.threat_delta == 2


def test_risky_roll_rolls_one_d20() -> None:
    source = RecordingDice((15,))
    result = gl.check(5, dice=source, tags=[GEAR])
    assert source.requests == [(1, 20, "a risky roll (net tags +1)")]
    assert (result.position, result.outcome, result.success) == ("risky", "strong_hit", True)


def test_check_fields() -> None:
    result = gl.check(3, dice=dice(16), trained=True, tags=[GEAR, STORY], stress=2, bonus=2)
    assert (result.stat, result.trained, result.effective) == (3, True, 4)
    assert (result.weak_dc, result.strong_dc) == (12, 16)
    assert result.net_tags == 1
    assert result.position == "risky"
    assert (result.kept, result.bonus, result.outcome) == (16, 2, "strong_hit")
    assert result.spent_tags == (STORY,)
    assert result.backlash is None


def test_stress_two_pushes_a_risky_roll_to_desperate() -> None:
    result = gl.check(3, dice=dice(9, 14), tags=[GEAR], stress=2)
    assert result.net_tags == 0
    assert result.position == "desperate"


def test_advantage_die_from_desperate_rolls_risky() -> None:
    source = RecordingDice((17,))
    result = gl.check(3, dice=source, position_steps=1)
    assert source.requests == [
        (1, 20, "a risky roll (net tags +0: no --tag given; 1 step better from Mettle)")
    ]
    assert (result.tag_position, result.position, result.kept) == ("desperate", "risky", 17)


def test_two_advantage_dice_from_desperate_roll_controlled() -> None:
    result = gl.check(3, dice=dice(4, 17), position_steps=2)
    assert (result.position, result.kept) == ("controlled", 17)


def test_advantage_die_from_risky_rolls_controlled() -> None:
    result = gl.check(3, dice=dice(4, 17), tags=[GEAR], position_steps=1)
    assert (result.tag_position, result.position, result.kept) == ("risky", "controlled", 17)


def test_advantage_die_refused_at_controlled() -> None:
    with pytest.raises(Refused, match="already controlled"):
        gl.check(3, dice=dice(4, 17), tags=[GEAR, POWER, STORY], position_steps=1)


@pytest.mark.parametrize("caster", ["Invoker", "seer"])
def test_natural_1_on_a_spell_by_invoker_or_seer_rolls_backlash(caster: str) -> None:
    backlash = RecordingDice((7, 11))
    result = gl.check(
        4, dice=dice(1), tags=[GEAR], spell=True, caster_class=caster, backlash_dice=backlash
    )
    assert backlash.requests == [(2, 12, "the spell's backlash")]
    assert result.backlash is not None
    assert (result.backlash.dice, result.backlash.total) == ((7, 11), 18)
    assert result.threat_delta == 3


@pytest.mark.parametrize(
    ("face", "spell", "caster"),
    [(1, True, "Warden"), (1, False, "Invoker"), (2, True, "Invoker"), (1, True, None)],
)
def test_no_backlash_otherwise(face: int, spell: bool, caster: str | None) -> None:
    backlash = RecordingDice()
    result = gl.check(
        4, dice=dice(face), tags=[GEAR], spell=spell, caster_class=caster, backlash_dice=backlash
    )
    assert result.backlash is None
    assert backlash.requests == []


def test_backlash_uses_the_roll_dice_when_none_are_given() -> None:
    source = RecordingDice((1,), (3, 4))
    result = gl.check(4, dice=source, tags=[GEAR], spell=True, caster_class="seer")
    assert source.requests == [
        (1, 20, "a risky roll (net tags +1)"),
        (2, 12, "the spell's backlash"),
    ]
    assert result.backlash is not None
    assert result.backlash.total == 7


def test_decide_re_checks_a_logged_roll() -> None:
    rolled = gl.check(2, dice=dice(14, 3), tags=[GEAR, POWER, STORY])
    again = gl.decide(2, rolled.dice, tags=[GEAR, POWER, STORY])
    assert again == rolled


def test_check_to_dict_is_json_ready() -> None:
    result = gl.check(
        4,
        dice=dice(1),
        tags=[GEAR],
        spell=True,
        caster_class="Invoker",
        backlash_dice=dice(5, 6),
    )
    document = result.to_dict()
    assert json.loads(json.dumps(document)) == document
    assert document["tags"] == [{"value": 1, "kind": "gear"}]
    assert document["natural"] == 1
    assert document["backlash"] == {"dice": [5, 6], "total": 11}
    assert document["outcome"] == "miss"
    assert document["position"] == "risky"


# ----------------------------------------------------------------------------- physical dice


@pytest.mark.parametrize("values", [(21,), (0,)])
def test_physical_d20_out_of_range_is_refused(values: tuple[int, ...]) -> None:
    with pytest.raises(DiceError):
        gl.check(4, dice=PhysicalDice(values), tags=[GEAR])


def test_physical_one_die_where_desperate_needs_two_is_refused() -> None:
    with pytest.raises(DiceError, match="two d20"):
        gl.check(4, dice=PhysicalDice((12,)))


def test_physical_two_dice_where_risky_needs_one_is_refused() -> None:
    with pytest.raises(DiceError, match="one d20"):
        gl.check(4, dice=PhysicalDice((12, 3)), tags=[GEAR])


def test_physical_backlash_die_out_of_range_is_refused() -> None:
    with pytest.raises(DiceError):
        gl.check(
            4, dice=dice(1), tags=[GEAR], spell=True, caster_class="seer", backlash_dice=dice(13, 2)
        )


# ----------------------------------------------------------------------------- tracks


@pytest.mark.parametrize(
    ("value", "delta", "after", "lost", "unused"),
    [
        (0, 1, 1, 0, 0),
        (5, 1, 6, 0, 0),
        (5, 2, 6, 1, 0),
        (6, 3, 6, 3, 0),
        (4, -2, 2, 0, 0),
        (1, -3, 0, 0, 2),
        (3, 0, 3, 0, 0),
    ],
)
def test_apply_track_clamps_and_shows_the_loss(
    value: int, delta: int, after: int, lost: int, unused: int
) -> None:
    change = gl.apply_track(value, delta)
    assert (change.before, change.after, change.lost, change.unused) == (value, after, lost, unused)


def test_track_maxima() -> None:
    assert gl.METTLE_MAX == gl.THREAT_MAX == gl.STRESS_MAX == 6


def test_apply_track_refuses_a_value_outside_the_track() -> None:
    with pytest.raises(BadInput):
        gl.apply_track(7, 1)


@pytest.mark.parametrize("action", ["deep-cut", "lean-into-condition", "invoke-weakness"])
def test_mettle_gains(action: str) -> None:
    assert gl.METTLE_GAINS[action] == 1
    assert gl.gain_mettle(6, action).lost == 1


# Base costs (Glintlock, 'Mettle & Threat')
BASE_COSTS = {
    "resist": 1,
    "suppress-condition": 1,
    "defy-death": 2,
    "steel-yourself": 1,
    "advantage-die": 1,
    "press-advantage": 2,
    "declare-detail": 1,
    "invoke-bond": 1,
    "call-contact": 1,
    "flashback": 2,
    "force-transition": 2,
}


@pytest.mark.parametrize(("action", "stress"), list(itertools.product(BASE_COSTS, range(7))))
def test_mettle_cost_doubles_at_stress_4_or_more(action: str, stress: int) -> None:
    expected = BASE_COSTS[action] * (2 if stress >= 4 else 1)
    assert gl.mettle_cost(action, stress=stress) == expected


@pytest.mark.parametrize(("base", "stress", "cost"), [(2, 0, 2), (3, 0, 3), (2, 4, 4), (3, 5, 6)])
def test_class_feature_takes_its_base_cost(base: int, stress: int, cost: int) -> None:
    assert gl.mettle_cost("class-feature", stress=stress, base=base) == cost


def test_class_feature_needs_a_base_cost() -> None:
    with pytest.raises(BadInput, match="2 or 3"):
        gl.mettle_cost("class-feature", stress=0)
    with pytest.raises(BadInput, match="2 or 3"):
        gl.mettle_cost("class-feature", stress=0, base=4)


def test_fixed_cost_accepts_only_its_own_base() -> None:
    assert gl.mettle_cost("flashback", stress=0, base=2) == 2
    with pytest.raises(BadInput, match="flashback"):
        gl.mettle_cost("flashback", stress=0, base=1)


def test_unknown_action_is_bad_input() -> None:
    with pytest.raises(BadInput, match="'nap' is no Mettle spend"):
        gl.mettle_cost("nap", stress=0)


def test_spend_mettle() -> None:
    spend = gl.spend_mettle(3, "flashback", stress=0)
    assert (spend.cost, spend.before, spend.after, spend.doubled) == (2, 3, 1, False)


def test_spend_mettle_refused_when_short() -> None:
    with pytest.raises(Refused) as caught:
        gl.spend_mettle(1, "flashback", stress=0, name="Wren")
    assert str(caught.value) == (
        "Wren has 1 Mettle and flashback costs 2; gain some first (`tracker gain`, or a hit on "
        "a roll), or choose a cheaper spend."
    )


def test_spend_mettle_refused_when_strained_doubles_the_cost() -> None:
    with pytest.raises(Refused) as caught:
        gl.spend_mettle(3, "defy-death", stress=4, name="Wren")
    assert str(caught.value) == (
        "Wren has 3 Mettle and defy death costs 4 at stress 4; gain some first (`tracker gain`, "
        "or a hit on a roll), or choose a cheaper spend."
    )


def test_spend_mettle_doubled_when_strained() -> None:
    spend = gl.spend_mettle(4, "flashback", stress=5)
    assert (spend.base, spend.cost, spend.after, spend.doubled) == (2, 4, 0, True)


def test_advantage_die_spend_refused_at_controlled() -> None:
    with pytest.raises(Refused, match="already controlled"):
        gl.spend_mettle(3, "advantage-die", stress=0, position="controlled")
    assert gl.spend_mettle(3, "advantage-die", stress=0, position="risky").after == 2


def test_spend_to_dict_is_json_ready() -> None:
    document = gl.spend_mettle(3, "class-feature", stress=0, base=3).to_dict()
    assert json.loads(json.dumps(document)) == document
    assert document["after"] == 0


# ----------------------------------------------------------------------------- Threat


def test_threat_spends_data() -> None:
    assert gl.THREAT_SPENDS == {"free": 0, "soft": 1, "hard": 2, "dire": 3}


FLOOR_TABLE = {0: "none", 1: "none", 2: "none", 3: "none", 4: "owed", 5: "owed", 6: "immediate"}


@pytest.mark.parametrize(("threat", "floor"), FLOOR_TABLE.items())
def test_spending_floor(threat: int, floor: str) -> None:
    assert gl.spending_floor(threat) == floor


# Threat 0..6 x tier -> allowed? (cost above Threat refused; soft refused at 4+; free always)
SPEND_ALLOWED = {
    "free": {0, 1, 2, 3, 4, 5, 6},
    "soft": {1, 2, 3},
    "hard": {2, 3, 4, 5, 6},
    "dire": {3, 4, 5, 6},
}
COSTS = {"free": 0, "soft": 1, "hard": 2, "dire": 3}


@pytest.mark.parametrize(("threat", "tier"), list(itertools.product(range(7), SPEND_ALLOWED)))
def test_spend_threat_table(threat: int, tier: str) -> None:
    if threat in SPEND_ALLOWED[tier]:
        spend = gl.spend_threat(threat, tier)
        assert spend.after == threat - COSTS[tier]
        assert spend.discharges_floor == (threat >= 4 and tier in {"hard", "dire"})
    else:
        with pytest.raises(Refused):
            gl.spend_threat(threat, tier)


def test_soft_spend_refused_at_the_floor_with_a_sentence() -> None:
    with pytest.raises(Refused) as caught:
        gl.spend_threat(4, "soft")
    assert str(caught.value) == (
        "Threat is 4 and while it is 4 or more a spend must be hard or dire; use "
        "`tracker threat spend hard` (or dire)."
    )


def test_spend_above_threat_refused_with_a_sentence() -> None:
    with pytest.raises(Refused) as caught:
        gl.spend_threat(1, "hard")
    assert str(caught.value) == (
        "Threat is 1 and a hard spend costs 2; spend a smaller tier, or add Threat first with "
        "`tracker threat add N`."
    )


def test_unknown_tier_is_bad_input() -> None:
    with pytest.raises(BadInput, match="free, soft, hard or dire"):
        gl.spend_threat(3, "gentle")


# ----------------------------------------------------------------------------- Stress

STRESS_TABLE = {
    0: (),
    1: (),
    2: ("shaken",),
    3: ("shaken",),
    4: ("shaken", "strained"),
    5: ("shaken", "strained"),
    6: ("shaken", "strained", "breaking_point"),
}


@pytest.mark.parametrize(("stress", "effects"), STRESS_TABLE.items())
def test_stress_effects(stress: int, effects: tuple[str, ...]) -> None:
    assert gl.stress_effects(stress) == effects
    assert gl.breaking_point(stress) is (stress == 6)


@pytest.mark.parametrize("stress", [-1, 7])
def test_stress_outside_the_track_is_bad_input(stress: int) -> None:
    with pytest.raises(BadInput, match="0 to 6"):
        gl.stress_effects(stress)


# ----------------------------------------------------------------------------- properties


def _counts(effective: int, at: str, bonus: int) -> tuple[int, int]:
    """(hits, strong hits) out of 400 equally likely two-dice rolls."""
    hits = strong = 0
    for pair in itertools.product(FACES, repeat=2):
        rolled = pair[:1] if at == "risky" else pair
        result = gl.outcome(effective, gl.keep(rolled, at), bonus)
        hits += result != "miss"
        strong += result == "strong_hit"
    return hits, strong


@settings(max_examples=30, deadline=None)
@given(
    stat=st.integers(min_value=0, max_value=12),
    trained=st.booleans(),
    bonus=st.sampled_from([0, 2]),
)
def test_controlled_never_worse_than_risky_never_worse_than_desperate(
    stat: int, trained: bool, bonus: int
) -> None:
    effective = gl.effective_stat(stat, trained)
    desperate = _counts(effective, "desperate", bonus)
    risky = _counts(effective, "risky", bonus)
    controlled = _counts(effective, "controlled", bonus)
    for i in range(2):
        assert desperate[i] <= risky[i] <= controlled[i]


@settings(max_examples=60, deadline=None)
@given(
    stat=st.integers(min_value=0, max_value=15),
    trained=st.booleans(),
    face=st.integers(min_value=1, max_value=20),
    bonus=st.integers(min_value=0, max_value=4),
)
def test_a_bonus_never_lowers_the_outcome(stat: int, trained: bool, face: int, bonus: int) -> None:
    effective = gl.effective_stat(stat, trained)
    order = gl.OUTCOMES
    assert order.index(gl.outcome(effective, face, bonus)) >= order.index(
        gl.outcome(effective, face)
    )
