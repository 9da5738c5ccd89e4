"""A Glintlock evening at the table, driven through the CLI with physical dice.

Each step is checked the way a GM reads the table: what the command answered, then the campaign
(Threat, spending floor), the characters' tracks and the open obligations. Expected numbers come
from the rulebook (Glintlock) and tracker/systems/glintlock/RULINGS.md, worked by hand:
Wren Grit 3 (Weak DC 14, Strong DC 17), Wren Lore 4 and Tomas Wits 4 (Weak DC 12, Strong DC 16).
"""

from __future__ import annotations

from pathlib import Path

SHEETS = Path(__file__).resolve().parent.parent / "fixtures" / "sheets"
FRESH = {"mettle": 0, "stress": 0}


def state(run, *, threat: int, floor: str = "none", owed=(), **tracks) -> list[dict]:
    """Check Threat, the spending floor, each named character's tracks and the open obligations.

    ``tracks`` maps a character to the fields of ``status NAME --json`` it must show; ``owed``
    lists the open obligations as (kind, severity). Returns the obligations.
    """
    campaign = run.json("status")
    assert (campaign["threat"], campaign["spending_floor"]) == (threat, floor)
    for name, expected in tracks.items():
        shown = run.json(["status", name])
        assert {key: shown[key] for key in expected} == expected, name
    obligations = run.json("obligations")["obligations"]
    assert [(o["kind"], o["severity"]) for o in obligations] == list(owed)
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


def moves(doc: dict) -> dict[str, tuple[int, int]]:
    """The tracks a command moved, as {track: (delta, value after)}."""
    return {e["track"]: (e["delta"], e.get("after")) for e in doc["effects"] if "track" in e}


def kinds(obligations: list[dict]) -> list[str]:
    return [o["kind"] for o in obligations]


def pending(bonus: int, steps: int = 0) -> dict:
    """What ``status NAME --json`` shows waiting for the next roll (``next_roll``)."""
    return {"bonus": bonus, "position_steps": steps, "suppressed": []}


def character_id(run, name: str) -> str:
    return run.json(["status", name])["character_id"]


# -- the evening of the example session: Mettle, Threat and a breaking point ------------------


def test_the_example_evening(glintlock):
    run = glintlock
    started = run.json('session start --title "The drowned archive"')
    assert (started["number"], started["title"]) == (1, "The drowned archive")
    state(run, threat=0, Wren=FRESH, Tomas=FRESH)

    # Wren · Grit 3 · risky (net tags +2) · Weak DC 14 · Strong DC 17; d20 15: weak hit.
    wren = run.json("roll Wren Grit --tag 1:gear --tag 1:power --dice 15")
    assert (wren["effective"], wren["weak_dc"], wren["strong_dc"]) == (3, 14, 17)
    assert (wren["net_tags"], wren["position"]) == (2, "risky")
    assert (wren["dice"], wren["kept"]) == ([15], 15)
    assert (wren["outcome"], wren["success"], wren["natural"]) == ("weak_hit", True, None)
    assert moves(wren) == {"mettle": (1, 1), "threat": (1, 1)}
    state(run, threat=1, Wren={"mettle": 1}, Tomas=FRESH)

    # Tomas · Wits 4 · desperate (net -1: keep lower) · Weak DC 12 · Strong DC 16;
    # d20 1, 12 keeps the 1: a natural 1, +3 Threat, and Threat 4 opens the spending floor.
    tomas = run.json("roll Tomas Wits --tag -1:condition --dice 1,12")
    assert (tomas["weak_dc"], tomas["strong_dc"]) == (12, 16)
    assert (tomas["net_tags"], tomas["position"]) == (-1, "desperate")
    assert (tomas["dice"], tomas["kept"]) == ([1, 12], 1)
    assert (tomas["outcome"], tomas["natural"]) == ("miss", 1)
    assert moves(tomas) == {"threat": (3, 4)}
    assert kinds(tomas["obligations_opened"]) == ["threat-floor"]
    floor = state(run, threat=4, floor="owed", owed=[("threat-floor", "owed")], Tomas=FRESH)
    assert floor[0]["opened_by"] == tomas["event_id"]

    refused(run, "threat spend soft", "Threat is 4 and while it is 4 or more a spend must be hard")
    state(run, threat=4, floor="owed", owed=[("threat-floor", "owed")])

    spent = run.json('threat spend hard --note "the shelves collapse"')
    assert (spent["before"], spent["after"]) == (4, 2)
    assert kinds(spent["obligations_discharged"]) == ["threat-floor"]
    state(run, threat=2)

    steel = run.json("spend Wren steel-yourself")
    assert (steel["cost"], steel["after"]) == (1, 0)
    state(run, threat=2, Wren={"mettle": 0, "next_roll": pending(2)})

    shaken = run.json('stress Tomas +2 --cause "saw the drowned scribe"')
    assert (shaken["after"], shaken["effects"]) == (2, ["shaken"])
    state(run, threat=2, Tomas={"stress": 2, "mettle": 0})

    ended = run.json("session end")
    assert (ended["number"], ended["lapsed"]) == (1, [])
    assert run.json("status")["session"] is None
    assert run.json("verify")["ok"] is True


def test_undo_takes_back_the_stress_and_redo_puts_it_back(glintlock):
    run = glintlock
    run.ok("session start")
    run.ok('stress Tomas +2 --cause "saw the drowned scribe"')
    before = run.event_count()
    run.ok("undo")
    assert run.event_count() == before + 1  # nothing deleted: the undo is an event of its own
    state(run, threat=0, Tomas={"stress": 0})
    run.ok("redo")
    state(run, threat=0, Tomas={"stress": 2})


def test_undo_says_which_obligation_it_took_back_and_redo_which_it_put_back(glintlock):
    run = glintlock
    run.ok("session start")
    broken = run.json("stress Tomas +6")
    state(run, threat=0, owed=[("breaking-point", "owed")], Tomas={"stress": 6})
    undone = run("undo")
    assert "done: the breaking point (taken back with the event that opened it)" in undone.stdout
    state(run, threat=0, Tomas={"stress": 0})
    redone = run.json("redo")
    assert kinds(redone["obligations_opened"]) == ["breaking-point"]
    assert redone["obligations_opened"][0]["opened_by"] == broken["event_id"]
    state(run, threat=0, owed=[("breaking-point", "owed")], Tomas={"stress": 6})
    again = run.json("undo")
    assert kinds(again["obligations_discharged"]) == ["breaking-point"]
    assert again["obligations_discharged"][0]["how"] == "taken back with the event that opened it"


def test_the_gm_sees_what_is_owed_right_after_the_command(glintlock):
    run = glintlock
    run.ok("session start")
    run.ok('threat add 1 --reason "exploration turn in danger"')
    shown = run.ok("roll Tomas Wits --tag -1:condition --dice 1,12").stdout
    owed = state(run, threat=4, floor="owed", owed=[("threat-floor", "owed")])
    assert owed[0]["what"] in shown
    met = run.ok('threat spend hard --note "the shelves collapse"').stdout
    assert "Threat 4 → 2" in met
    state(run, threat=2)


# -- the spending floor -------------------------------------------------------------------------


def test_the_spending_floor_from_threat_four_to_six_and_back(glintlock):
    run = glintlock
    run.ok("session start")

    added = run.json('threat add 3 --reason "exploration turn in danger"')
    assert (added["before"], added["after"]) == (0, 3)
    state(run, threat=3)

    # Tomas Wits 4, risky: 13 is a weak hit (+1 Mettle, +1 Threat): Threat 4 owes a hard spend.
    weak = run.json("roll Tomas Wits --tag 1:gear --dice 13")
    assert (weak["position"], weak["outcome"]) == ("risky", "weak_hit")
    assert moves(weak) == {"mettle": (1, 1), "threat": (1, 4)}
    floor = state(run, threat=4, floor="owed", owed=[("threat-floor", "owed")], Tomas={"mettle": 1})
    assert floor[0]["opened_by"] == weak["event_id"]

    refused(run, "threat spend soft", "must be hard or dire")
    state(run, threat=4, floor="owed", owed=[("threat-floor", "owed")])

    # Free moves (atmosphere, foreshadowing) are always allowed and leave the floor owed.
    free = run.json('threat spend free --note "the lamps gutter"')
    assert (free["cost"], free["after"], free["obligations_discharged"]) == (0, 4, [])
    state(run, threat=4, floor="owed", owed=[("threat-floor", "owed")])

    # Wren Grit 3, risky: 9 misses (+2 Threat): Threat 6 makes the floor immediate.
    miss = run.json("roll Wren Grit --tag 1:gear --dice 9")
    assert miss["outcome"] == "miss"
    assert moves(miss) == {"threat": (2, 6)}
    state(run, threat=6, floor="immediate", owed=[("threat-floor", "immediate")])

    refused(run, "roll Tomas Wits --tag 1:gear --dice 13", "must spend hard or dire")
    refused(run, "threat spend soft", "Threat is 6 and while it is 4 or more a spend must be hard")
    state(
        run, threat=6, floor="immediate", owed=[("threat-floor", "immediate")], Tomas={"mettle": 1}
    )

    # --override logs the roll as a deliberate exception; the Threat it earns is lost past 6.
    forced = run.json("roll Tomas Wits --tag 1:gear --dice 13 --override")
    assert forced["outcome"] == "weak_hit"
    assert moves(forced) == {"mettle": (1, 2), "threat": (1, 6)}
    assert [e["lost"] for e in forced["effects"] if e.get("track") == "threat"] == [1]
    logged = run.json("log")["events"][-1]
    assert logged["event_id"] == forced["event_id"]
    assert logged["payload"]["inputs"]["override"] is True
    state(
        run, threat=6, floor="immediate", owed=[("threat-floor", "immediate")], Tomas={"mettle": 2}
    )

    # A hard spend answers the immediate floor; at Threat 4 a hard or dire spend is owed again.
    hard = run.json('threat spend hard --note "the archive floods"')
    assert (hard["before"], hard["after"]) == (6, 4)
    assert [o["severity"] for o in hard["obligations_discharged"]] == ["immediate"]
    state(run, threat=4, floor="owed", owed=[("threat-floor", "owed")])

    # Player rolls are allowed again: Wren Grit 3, 17 is a strong hit (+1 Mettle).
    strong = run.json("roll Wren Grit --tag 1:gear --dice 17")
    assert strong["outcome"] == "strong_hit"
    assert moves(strong) == {"mettle": (1, 1)}
    state(run, threat=4, floor="owed", owed=[("threat-floor", "owed")], Wren={"mettle": 1})

    dire = run.json('threat spend dire --note "the stair gives way"')
    assert (dire["before"], dire["after"]) == (4, 1)
    assert kinds(dire["obligations_discharged"]) == ["threat-floor"]
    state(run, threat=1)

    refused(run, "threat spend hard", "Threat is 1 and a hard spend costs 2; spend a smaller")
    state(run, threat=1)
    assert run.json("verify")["ok"] is True


def test_ending_a_session_with_the_floor_owed_records_it_as_lapsed(glintlock):
    run = glintlock
    run.ok("session start")
    run.ok("threat add 4")
    state(run, threat=4, floor="owed", owed=[("threat-floor", "owed")])
    ended = run.json("session end")
    assert len(ended["lapsed"]) == 1
    assert "Threat 4" in ended["lapsed"][0]
    assert run.json("session list")["sessions"][0]["lapsed"] == ended["lapsed"]


def test_a_lapsed_floor_is_closed_in_every_view_and_undoing_the_end_puts_it_back(glintlock):
    """Lapsed means closed: the session's end that says "Lapsed" closes the floor it names, in
    the GM's view and the players', and logs how it closed; no spend (between sessions) or
    dismissal is needed, and undoing the end owes it again."""
    run = glintlock
    run.ok("session start")
    run.ok("threat add 4")
    ended = run.ok("session end").stdout
    assert "Lapsed: Threat 4: the GM owes a hard or dire spend." in ended
    assert "Still owed" not in ended
    state(run, threat=4, floor="none", owed=[])
    assert "hard spend owed" not in run.ok("status").stdout
    players = run.json("status --player-view")
    assert (players["spending_floor"], players["obligations"]) == ("none", 0)
    assert "Nothing is owed." in run.ok("obligations").stdout
    closed = run.json("obligations --all")["discharged"]
    assert [(o["kind"], o["how"]) for o in closed] == [
        ("threat-floor", "lapsed at the end of session 1")
    ]
    end = run.json("log")["events"][-1]
    assert end["type"] == "SessionEnded"
    assert closed[0]["discharged_version"] == end["version"]

    undone = run.json(f"undo {end['version']}")
    assert kinds(undone["obligations_opened"]) == ["threat-floor"]
    state(run, threat=4, floor="owed", owed=[("threat-floor", "owed")])
    run.ok("redo")
    state(run, threat=4, floor="none", owed=[])
    assert run.json("verify")["ok"] is True


def test_threat_carried_over_at_four_or_more_owes_the_floor_again_from_the_start(run):
    """Ruling (beside ``spending_floor``): the floor follows the Threat on hand. Carried over
    at 5 it is owed from the next session's start; at 6 player rolls wait for a hard spend; a
    session that resets Threat owes nothing."""
    run.ok("campaign new Veyra --system glintlock --threat-carries-over")
    run.ok("character add Wren --stat Grit=3")
    run.ok("session start")
    run.ok("threat add 5")
    run.ok("session end")
    state(run, threat=5, floor="none", owed=[])

    started = run.json("session start")
    assert [(o["kind"], o["severity"]) for o in started["obligations_opened"]] == [
        ("threat-floor", "owed")
    ]
    assert "Threat 5: the GM owes a hard or dire spend." in run.ok("obligations").stdout
    owed = state(run, threat=5, floor="owed", owed=[("threat-floor", "owed")])
    assert owed[0]["opened_version"] == run.json("log")["events"][-1]["version"]
    run.ok("threat add 1")
    run.ok("session end")
    said = run.ok("session start").stdout
    assert "Threat 6: the GM must spend hard or dire now" in said
    state(run, threat=6, floor="immediate", owed=[("threat-floor", "immediate")])
    refused(run, "roll Wren Grit --tag 1 --dice 12", "hard or dire")
    run.ok("threat spend hard")
    state(run, threat=4, floor="owed", owed=[("threat-floor", "owed")])

    run.ok("session end")
    run.ok("campaign set --threat-resets")
    run.ok("session start")
    state(run, threat=0, floor="none", owed=[])
    assert run.json("verify")["ok"] is True


# -- Mettle: gains, steel yourself, the advantage die, overspending ------------------------------


def test_steel_yourself_and_the_advantage_die_apply_to_the_next_roll_once(glintlock):
    run = glintlock
    run.ok("session start")

    assert run.json("gain Wren deep-cut")["after"] == 1
    assert run.json("gain Wren invoke-weakness")["after"] == 2
    state(run, threat=0, Wren={"mettle": 2, "next_roll": pending(0)})

    steel = run.json("spend Wren steel-yourself")
    assert (steel["cost"], steel["doubled"], steel["after"]) == (1, False, 1)
    state(run, threat=0, Wren={"mettle": 1, "next_roll": pending(2)})

    # Kept 15 + 2 = 17 reaches the Strong DC: a strong hit (+1 Mettle, no Threat).
    lifted = run.json("roll Wren Grit --tag 1:gear --dice 15")
    assert (lifted["kept"], lifted["bonus"], lifted["outcome"]) == (15, 2, "strong_hit")
    assert moves(lifted) == {"mettle": (1, 2)}
    state(run, threat=0, Wren={"mettle": 2, "next_roll": pending(0)})

    # Consumed: the same die is a weak hit on the roll after.
    plain = run.json("roll Wren Grit --tag 1:gear --dice 15")
    assert (plain["bonus"], plain["outcome"]) == (0, "weak_hit")
    assert moves(plain) == {"mettle": (1, 3), "threat": (1, 1)}
    state(run, threat=1, Wren={"mettle": 3, "next_roll": pending(0)})

    # Leaning into a condition needs one to lean into.
    refused(run, "gain Tomas lean-into-condition", "Tomas has no condition to lean into")
    run.ok("condition set Tomas winded")
    assert run.json("gain Tomas lean-into-condition")["after"] == 1
    run.ok("condition clear Tomas winded")
    die = run.json("spend Tomas advantage-die")
    assert (die["cost"], die["after"]) == (1, 0)
    state(run, threat=1, Tomas={"mettle": 0, "next_roll": pending(0, 1)})

    # One tag is risky; the advantage die makes it controlled: two d20, keep the higher.
    refused(run, "roll Tomas Wits --tag 1:gear --dice 13", "needs two d20", code=2)
    better = run.json("roll Tomas Wits --tag 1:gear --dice 4,14")
    assert (better["position"], better["dice"], better["kept"]) == ("controlled", [4, 14], 14)
    assert better["outcome"] == "weak_hit"
    assert moves(better) == {"mettle": (1, 1), "threat": (1, 2)}
    state(run, threat=2, Tomas={"mettle": 1, "next_roll": pending(0)})

    # The next roll is back to one die.
    again = run.json("roll Tomas Wits --tag 1:gear --dice 4")
    assert (again["position"], again["outcome"]) == ("risky", "miss")
    state(run, threat=4, floor="owed", owed=[("threat-floor", "owed")], Tomas={"mettle": 1})

    refused(run, "spend Tomas flashback", "Tomas has 1 Mettle and flashback costs 2; gain some")
    state(run, threat=4, floor="owed", owed=[("threat-floor", "owed")], Tomas={"mettle": 1})


def test_every_bought_bonus_is_one_at_a_time_and_one_of_each_combines(glintlock):
    """Glintlock, 'Mettle & Threat': "Proactive: Steel Yourself (1M, +2), Advantage Die
    (1M)". The text is silent on buying either twice for one roll; the ruling is one at a
    time for every bought bonus, alike: a second Steel Yourself is refused as a second
    Advantage Die is, and one of each waits together for the same roll."""
    run = glintlock
    run.ok("session start")
    for _ in range(4):
        run.ok("gain Wren deep-cut")
    run.ok("spend Wren steel-yourself")
    # As the feed words it, with a space: the same spend, so refused the same.
    refused(run, 'spend Wren "Steel yourself"', "Wren has a Steel Yourself waiting")
    run.ok("spend Wren advantage-die")
    refused(run, "spend Wren advantage-die", "Wren has an Advantage Die waiting")
    state(run, threat=0, Wren={"mettle": 2, "next_roll": pending(2, 1)})
    # Both on one roll: risky lifted to controlled (keep the higher), and +2 on the kept die.
    both = run.json("roll Wren Grit --tag 1:gear --dice 4,15")
    assert (both["position"], both["kept"], both["bonus"]) == ("controlled", 15, 2)
    assert both["outcome"] == "strong_hit"
    state(run, threat=0, Wren={"mettle": 3, "next_roll": pending(0)})
    # Used, each may be bought again.
    run.ok("spend Wren steel-yourself")
    state(run, threat=0, Wren={"mettle": 2, "next_roll": pending(2)})


def test_what_mettle_bought_and_no_roll_used_lapses_at_session_start_and_says_so(glintlock):
    """Glintlock, 'Mettle & Threat': Mettle "starts 0 per session". What it bought for the
    next roll lapses with the session it was bought in, and the next start says so."""
    run = glintlock
    run.ok("session start")
    for _ in range(3):
        run.ok("gain Wren deep-cut")
    run.ok("spend Wren steel-yourself")
    run.ok("spend Wren advantage-die")
    run.ok("gain Tomas deep-cut")
    run.ok("spend Tomas advantage-die")
    run.ok("session end")
    started = run.ok("session start").stdout
    assert "Lapsed: Wren's unused Steel Yourself (+2), Advantage Die, paid in Mettle" in started
    assert "Lapsed: Tomas's unused Advantage Die, paid in Mettle last session" in started
    state(run, threat=0, Wren={"mettle": 0, "next_roll": pending(0)})
    # Nothing waits now: the next start has nothing to say.
    run.ok("session end")
    assert run.json("session start")["lapsed_spends"] == []


# -- Stress: shaken, strained, the breaking point -------------------------------------------------


def test_stress_shakes_then_strains_then_breaks(glintlock):
    run = glintlock
    run.ok("session start")

    calm = run.json("roll Tomas Wits --tag 1:gear --dice 13")
    assert (calm["position"], calm["outcome"]) == ("risky", "weak_hit")
    state(run, threat=1, Tomas={"mettle": 1, "stress": 0})

    shaken = run.json('stress Tomas +2 --cause "saw the drowned scribe"')
    assert (shaken["before"], shaken["after"], shaken["effects"]) == (0, 2, ["shaken"])
    state(run, threat=1, Tomas={"mettle": 1, "stress": 2})

    # Stress 2 counts as a -1 condition tag: the same +1 tag is now desperate (keep lower).
    refused(run, "roll Tomas Wits --tag 1:gear --dice 13", "needs two d20", code=2)
    desperate = run.json("roll Tomas Wits --tag 1:gear --dice 13,5")
    assert (desperate["net_tags"], desperate["position"]) == (0, "desperate")
    assert desperate["kept"] == 5
    assert desperate["outcome"] == "miss"
    assert moves(desperate) == {"threat": (2, 3)}
    state(run, threat=3, Tomas={"mettle": 1, "stress": 2})

    run.ok("gain Tomas deep-cut")
    strained = run.json("stress Tomas +2")
    assert (strained["after"], strained["effects"]) == (4, ["shaken", "strained"])
    state(run, threat=3, Tomas={"mettle": 2, "stress": 4})

    # Stress 4 doubles every Mettle cost.
    refused(run, "spend Tomas flashback", "Tomas has 2 Mettle and flashback costs 4 at stress 4")
    steel = run.json("spend Tomas steel-yourself")
    assert (steel["base"], steel["cost"], steel["doubled"], steel["after"]) == (1, 2, True, 0)
    state(run, threat=3, Tomas={"mettle": 0, "stress": 4, "next_roll": pending(2)})
    refused(run, "spend Tomas resist", "Tomas has 0 Mettle and resist costs 2 at stress 4; gain")

    # 4 + 3 stops at 6: the breaking point is owed, opened by this stress event.
    broken = run.json('stress Tomas +3 --cause "the scribe speaks his name"')
    assert broken["after"] == 6
    assert broken["effects"] == ["shaken", "strained", "breaking_point"]
    owed = state(
        run, threat=3, owed=[("breaking-point", "owed")], Tomas={"stress": 6, "consequences": []}
    )
    assert owed[0]["opened_by"] == broken["event_id"]
    assert owed[0]["character_id"] == character_id(run, "Tomas")

    resolved = run.json('breaking-point Tomas "freezes" "fear of deep water"')
    assert resolved["stress_after"] == 3
    assert kinds(resolved["obligations_discharged"]) == ["breaking-point"]
    state(run, threat=3, Tomas={"stress": 3, "consequences": ["fear of deep water"]})

    refused(run, 'breaking-point Tomas "freezes" "again"', "Tomas is not at the breaking point")
    rested = run.json('stress Tomas -1 --cause "a night\'s rest"')
    assert (rested["before"], rested["after"]) == (3, 2)
    state(run, threat=3, Tomas={"stress": 2})
    assert run.json("verify")["ok"] is True


def test_status_of_a_character_says_the_consequences_its_breaking_points_left(glintlock):
    """``status NAME`` says what ``--json`` and ``character show`` say of a breaking point's
    lasting consequence."""
    run = glintlock
    run.ok("session start")
    run.ok("stress Tomas +6")
    run.ok('breaking-point Tomas "freezes" "fear of deep water"')
    assert run.json("status Tomas")["consequences"] == ["fear of deep water"]
    assert "Breaking point: fear of deep water" in run.ok("character show Tomas").stdout
    shown = run.ok("status Tomas").stdout.splitlines()
    assert shown[0].startswith("Tomas · Mettle 0 · stress 3")
    assert shown[1:] == ["  Breaking point: fear of deep water"]


# -- Story tags ---------------------------------------------------------------------------------


def test_a_story_tag_is_spent_by_the_roll_that_uses_it(glintlock):
    run = glintlock
    run.ok("session start")

    run.ok('tag add Wren "the old map"')
    state(run, threat=0, Wren={"story_tags": ["the old map"]})

    # gear + power + story = +3: controlled, two d20 keep the higher; 16 is a weak hit.
    mapped = run.json('roll Wren Grit --tag 1:gear --tag 1:power --story "the old map" --dice 6,16')
    assert (mapped["net_tags"], mapped["position"], mapped["kept"]) == (3, "controlled", 16)
    assert mapped["outcome"] == "weak_hit"
    assert {"story_tag_spent": "the old map"} in mapped["effects"]
    state(run, threat=1, Wren={"story_tags": [], "mettle": 1})

    refused(
        run,
        'roll Wren Grit --tag 1:gear --tag 1:power --story "the old map" --dice 16',
        'holds no story tag "the old map"',
    )
    state(run, threat=1, Wren={"story_tags": [], "mettle": 1})

    # Without it the same tags are risky again.
    plain = run.json("roll Wren Grit --tag 1:gear --tag 1:power --dice 16")
    assert (plain["net_tags"], plain["position"]) == (2, "risky")
    state(run, threat=2, Wren={"mettle": 2})


# -- Sessions reset Mettle and Threat ------------------------------------------------------------


def test_a_new_session_resets_mettle_and_threat_once_the_floor_has_lapsed(glintlock):
    run = glintlock
    run.ok("campaign set --threat-resets")  # the table's setting; a new campaign keeps Threat
    run.ok("session start")
    for _ in range(3):
        run.ok("gain Wren deep-cut")
    run.ok('stress Tomas +2 --cause "saw the drowned scribe"')
    run.ok("threat add 5")
    state(
        run,
        threat=5,
        floor="owed",
        owed=[("threat-floor", "owed")],
        Wren={"mettle": 3},
        Tomas={"stress": 2},
    )

    run.ok("session end")
    # The floor lapses with the session; Threat itself is reset only by the next start.
    state(run, threat=5, owed=[], Wren={"mettle": 3})

    second = run.json("session start")
    assert second["number"] == 2
    # Mettle and Threat start at 0; stress is not a session currency and stays.
    state(run, threat=0, Wren={"mettle": 0}, Tomas={"mettle": 0, "stress": 2})


# -- Naturals and gains past 6 -------------------------------------------------------------------


def test_naturals_and_gains_past_six(glintlock):
    run = glintlock
    run.ok("session start")
    for _ in range(5):
        run.ok("gain Wren deep-cut")
    state(run, threat=0, Wren={"mettle": 5})

    # A natural 20 is a strong hit for +2 Mettle (in place of +1); 5 + 2 stops at 6, 1 lost.
    twenty = run.json("roll Wren Grit --tag 1:gear --dice 20")
    assert (twenty["outcome"], twenty["natural"], twenty["max_damage"]) == ("strong_hit", 20, True)
    assert moves(twenty) == {"mettle": (2, 6)}
    assert twenty["effects"][0]["lost"] == 1
    state(run, threat=0, Wren={"mettle": 6})

    capped = run.json("gain Wren deep-cut")
    assert (capped["after"], capped["lost"]) == (6, 1)
    state(run, threat=0, Wren={"mettle": 6})

    # A natural 1 is a miss for +3 Threat (in place of +2).
    one = run.json("roll Tomas Wits --tag 1:gear --dice 1")
    assert (one["outcome"], one["natural"]) == ("miss", 1)
    assert moves(one) == {"threat": (3, 3)}
    state(run, threat=3, Tomas={"mettle": 0})

    # With two dice, "natural" means the kept die: a desperate 20, 5 keeps the 5.
    low = run.json("roll Tomas Wits --tag -1:weakness --dice 20,5")
    assert (low["position"], low["kept"], low["natural"]) == ("desperate", 5, None)
    assert low["outcome"] == "miss"
    assert moves(low) == {"threat": (2, 5)}
    state(run, threat=5, floor="owed", owed=[("threat-floor", "owed")], Tomas={"mettle": 0})

    # A controlled 1, 15 keeps the 15: a weak hit, not a natural 1. Mettle past 6 and Threat
    # reaching 6 are both shown.
    high = run.json("roll Wren Grit --tag 1:gear --tag 1:power --tag 1:scene --dice 1,15")
    assert (high["position"], high["kept"], high["natural"]) == ("controlled", 15, None)
    assert high["outcome"] == "weak_hit"
    assert moves(high) == {"mettle": (1, 6), "threat": (1, 6)}
    assert [e["lost"] for e in high["effects"]] == [1, 0]
    state(
        run, threat=6, floor="immediate", owed=[("threat-floor", "immediate")], Wren={"mettle": 6}
    )

    lost = run.json("roll Tomas Wits --tag 1:gear --dice 1 --override")
    assert moves(lost) == {"threat": (3, 6)}
    assert lost["effects"][0]["lost"] == 3
    state(run, threat=6, floor="immediate", owed=[("threat-floor", "immediate")])


# -- Spell backlash -----------------------------------------------------------------------------


def test_a_seers_spell_on_a_natural_one_rolls_backlash_into_her_hp(run):
    run.ok('campaign new "Ashes of Veyra" --system glintlock')
    run.ok(["character", "add", "--sheet", str(SHEETS / "glintlock-wren.toml"), "--stat", "HP=10"])
    run.ok(["character", "add", "--sheet", str(SHEETS / "glintlock-tomas.toml")])
    run.ok("character add Ilse --stat Lore=3 --class Seer")
    run.ok("session start")
    state(run, threat=0, Wren={"hp": 10, "hp_max": 10, "mettle": 0})

    # Wren (Seer) Lore 4, risky: a natural 1 on a spell is a miss and 2d12 backlash, 5 + 7.
    spell = run.json("roll Wren Lore --tag 1 --spell --dice 1 --backlash-dice 5,7")
    assert (spell["outcome"], spell["natural"]) == ("miss", 1)
    assert spell["backlash"] == {"dice": [5, 7], "total": 12}
    assert {"track": "hp", "delta": -12, "cause": "backlash"} in spell["effects"]
    assert moves(spell)["threat"] == (3, 3)
    wren = run.json("status Wren")
    assert wren["hp_max"] == 10
    assert wren["hp"] <= 0  # 12 damage on 10 HP: the caster is down
    state(run, threat=3)
    hp_after_backlash = wren["hp"]

    run.ok("threat spend hard")
    state(run, threat=1)

    # A spell that does not roll a natural 1 has no backlash.
    clean = run.json("roll Wren Lore --tag 1 --spell --dice 12 --backlash-dice 5,7")
    assert (clean["outcome"], clean["backlash"]) == ("weak_hit", None)
    state(run, threat=2, Wren={"hp": hp_after_backlash})

    # A natural 1 on something that is not a spell has none either.
    mundane = run.json("roll Wren Lore --tag 1 --dice 1")
    assert (mundane["natural"], mundane["backlash"]) == (1, None)
    state(
        run, threat=5, floor="owed", owed=[("threat-floor", "owed")], Wren={"hp": hp_after_backlash}
    )

    run.ok("threat spend dire")
    state(run, threat=2)

    # Tomas is a Warden: only an Invoker or a Seer suffers backlash.
    warden = run.json("roll Tomas Lore --tag 2 --spell --dice 1 --backlash-dice 5,7")
    assert (warden["natural"], warden["backlash"]) == (1, None)
    assert moves(warden) == {"threat": (3, 5)}
    state(run, threat=5, floor="owed", owed=[("threat-floor", "owed")])

    # A Seer whose sheet has no HP still rolls the backlash; there is no HP track to take it.
    ilse = run.json("roll Ilse Lore --tag 1 --spell --dice 1 --backlash-dice 2,3")
    assert ilse["backlash"] == {"dice": [2, 3], "total": 5}
    assert "hp" not in run.json("status Ilse")
    state(run, threat=6, floor="immediate", owed=[("threat-floor", "immediate")])
    assert run.json("verify")["ok"] is True


def test_one_advantage_die_at_a_time_and_it_waits_through_a_controlled_roll(glintlock):
    # tracker/systems/glintlock/RULINGS.md: a die cannot lift past controlled, so it stays
    # pending through an already-controlled roll instead of being wasted; one pending at a time.
    run = glintlock
    run.ok("session start")
    run.ok("gain Wren deep-cut")
    run.ok("gain Wren invoke-weakness")
    run.ok("spend Wren advantage-die")
    refused(run, "spend Wren advantage-die", "Wren has an Advantage Die waiting")
    state(run, threat=0, Wren={"mettle": 1, "next_roll": pending(0, 1)})
    # Three tags: controlled already. The die waits, and the roll says so.
    controlled = run.json("roll Wren Grit --tag 1:gear --tag 1:power --tag 1:scene --dice 4,18")
    assert controlled["position"] == "controlled"
    assert any("waits for the next roll" in n for n in controlled["notes"])
    state(run, threat=0, Wren={"mettle": 2, "next_roll": pending(0, 1)})
    # The next risky roll takes it: controlled, two dice.
    lifted = run.json("roll Wren Grit --tag 1:gear --dice 4,18")
    assert (lifted["position"], lifted["kept"]) == ("controlled", 18)
    state(run, threat=0, Wren={"mettle": 3, "next_roll": pending(0)})
    # Undoing the roll that used it puts it back in waiting; a new session lapses it.
    run.ok("undo")
    state(run, threat=0, Wren={"next_roll": pending(0, 1)})
    run.ok("session end")
    run.ok("session start")
    state(run, threat=0, Wren={"mettle": 0, "next_roll": pending(0)})
