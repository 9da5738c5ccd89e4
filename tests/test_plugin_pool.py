"""An outside rule system with a currency, an event, a command and an option of its own: Pool
(``tests/plugins/tracker_pool``), installed through entry-point metadata as a package from
elsewhere would be, playing through every door tracker has."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest
from test_completion import answers
from test_tamper import payload_of, rewrite

from tracker.app import Tracker
from tracker.cli.shell import Completer
from tracker.errors import BadInput
from tracker.projections.campaign import FOLD_VERSION_STEP, PROJECTION_VERSION
from tracker.testing import Run, SystemContract

PLUGIN = Path(__file__).resolve().parent / "plugins" / "tracker_pool"


class TestPool(SystemContract):
    """The contract, as an outside package would run it from its own tests."""

    name = "pool"

    @pytest.fixture(autouse=True)
    def installed(self, pool_installed):
        return pool_installed


@pytest.fixture
def road(pool_installed, run):
    """A Pool campaign with Ash (Nerve 3) and Bram (Brawn 4), a session started."""
    run.ok("campaign new 'The Long Road' --system pool")
    run.ok(["character", "add", "--sheet", str(PLUGIN / "ash.toml")])
    run.ok(["character", "add", "--sheet", str(PLUGIN / "bram.toml")])
    run.ok("session start")
    return run


def momentum(run, *words: str) -> int:
    return run.json(["status", *words])["momentum"]


def test_rolls_fill_the_pool_and_a_spend_empties_it_with_the_complication_met(road):
    first = road.json("roll Ash Nerve --dice 5,6,1")  # two successes: +1
    assert (first["outcome"], first["effects"][0]["after"]) == ("flourish", 1)
    shown = road.ok("roll Bram Brawn --dice 5,6,6,6").stdout  # four: +3, the pool at 4
    assert "FLOURISH" in shown
    assert "+3 Momentum (4)" in shown
    full = road.ok("roll Bram Brawn --dice 6,6,6,1").stdout  # +2: the pool is full
    assert "the GM owes a complication" in full
    [owed] = road.json("obligations")["obligations"]
    assert owed["kind"] == "pool-complication"
    assert road.ok("status").stdout.splitlines()[0].endswith("Momentum 6 (complication owed)")

    spent = road.ok(["momentum", "spend", "Ash", "2", "--on", "a second wind"]).stdout
    assert "Ash spends 2 Momentum on a second wind: the pool 6 → 4." in spent
    assert "done: pool complication (2 Momentum spent)" in spent
    assert road.json("obligations")["obligations"] == []
    assert road.json("log")["events"][-1]["type"] == "PoolMomentumSpent"


def test_a_spend_past_the_pool_is_one_sentence_and_logs_nothing(road):
    road.ok("roll Ash Nerve --dice 5,6,1")
    before = road.event_count()
    refused = road(["momentum", "spend", "Ash", "3", "--on", "everything"])
    assert refused.exit_code == 1
    assert refused.stderr == (
        "Refused: The party's pool holds 1 Momentum and Ash would spend 3; spend 1 or less.\n"
    )
    negative = road(["momentum", "spend", "Ash", "-1", "--on", "nothing"])
    assert negative.exit_code == 2
    # The declared limits of N (1 to the pool's most) refuse it before the handler reads it.
    assert "-1 is not in the range 1<=x<=6" in negative.stderr
    assert road.event_count() == before


def test_the_spend_as_json_and_undone_and_redone(road):
    road.ok("roll Bram Brawn --dice 5,6,6,1")  # +2
    doc = road.json(["momentum", "spend", "Bram", "2", "--on", "a shove", "--json"])
    assert {k: doc[k] for k in ("character", "amount", "on", "before", "after")} == {
        "character": "Bram",
        "amount": 2,
        "on": "a shove",
        "before": 2,
        "after": 0,
    }
    assert doc["event_id"]
    assert momentum(road) == 0
    undone = road.ok("undo").stdout
    assert "Bram spends 2 Momentum on a shove" in undone
    assert momentum(road) == 2
    road.ok("redo")
    assert momentum(road) == 0
    # Undoing the roll the spend drew on is refused while the spend stands.
    roll = road.json("log")["events"][-4]
    assert roll["type"] == "RollMade"
    assert road(["undo", roll["event_id"]]).exit_code == 1


def test_replay_and_log_say_the_spend_in_the_systems_words(road):
    road.ok("roll Bram Brawn --dice 5,6,6,1")
    road.ok(["momentum", "spend", "Bram", "1", "--on", "a shove"])
    assert "Bram spends 1 Momentum on a shove" in road.ok("log").stdout
    replay = road.ok("replay").stdout
    assert "Bram spends 1 Momentum on a shove" in replay
    assert "Momentum 2 → 1" in replay


def test_a_push_costs_a_die_of_momentum_and_is_refused_with_none(road):
    refused = road("roll Ash Nerve --push --dice 5,6,1,1")
    assert refused.exit_code == 1
    assert "no Momentum to push with" in refused.stderr
    road.ok("roll Ash Nerve --dice 5,6,1")  # +1
    pushed = road.json("roll Ash Nerve --push --dice 1,2,3,5")  # four dice, one success
    assert (pushed["effective"], pushed["outcome"]) == (4, "hit")
    assert momentum(road) == 0
    assert road.json("verify")["ok"]


def test_a_secret_rolls_momentum_stays_with_the_gm(road):
    road.ok("roll Ash Nerve --dice 5,6,1")  # +1, seen by all
    road.ok("roll Bram Brawn --dice 6,6,6,1 --secret")  # +2, the GM's
    assert momentum(road) == 3
    players = road.json("status --player-view")
    assert players["momentum"] == 1
    assert "6, 6, 6" not in road.ok("log --player-view").stdout
    rows = list(csv.DictReader(io.StringIO(road.ok("export rolls --player-view").stdout)))
    assert [r["outcome"] for r in rows] == ["flourish", ""]
    assert rows[1]["dice"] == rows[1]["effects"] == ""


def test_the_roll_history_exports_the_pools_rolls(road):
    road.ok("roll Ash Nerve --dice 5,6,1")
    road.ok("roll Ash Nerve --push --dice 5,6,6,6")
    rows = list(csv.DictReader(io.StringIO(road.ok("export rolls").stdout)))
    assert [(r["system"], r["dice"], r["effective"], r["outcome"]) for r in rows] == [
        ("pool", "5 6 1", "3", "flourish"),
        ("pool", "5 6 6 6", "4", "flourish"),
    ]
    assert rows[1]["modifiers"] == "push +1 die"
    assert float(rows[0]["p_success"]) == pytest.approx(1 - (4 / 6) ** 3)
    lines = road.ok("export rolls --format jsonl").stdout.splitlines()
    assert sum(json.loads(line).get("system") == "pool" for line in lines) == 2


def test_a_forged_spend_the_pool_could_not_afford_rehashed_is_found(road):
    road.ok("roll Ash Nerve --dice 5,6,1")  # +1
    road.ok(["momentum", "spend", "Ash", "1", "--on", "a breath"])
    assert road.json("verify")["ok"]

    def spend_more(events):
        spend = next(r for r in events if r["type"] == "PoolMomentumSpent")
        payload = payload_of(spend)
        payload["amount"] = 4
        spend["payload"] = json.dumps(payload)
        return events

    rewrite(road.db, spend_more)
    result = road("verify")
    assert result.exit_code == 1, result.output
    assert "the pool would hold 1 Momentum for a spend of 4" in result.stderr


def test_the_shell_takes_and_completes_the_systems_command(road):
    road.ok("roll Bram Brawn --dice 5,6,6,1")
    script = "momentum spend Bram 1 --on 'a shove'\nmomentum spend Bram 5 --on 'all'\n"
    result = road(["shell"], input=script + "status --json\n")
    assert result.exit_code == 0, result.output
    assert "Bram spends 1 Momentum on a shove: the pool 2 → 1." in result.stdout
    assert "holds 1 Momentum and Bram would spend 5" in result.stderr
    assert '"momentum": 1' in result.stdout

    tracker = Tracker(str(road.db))
    complete = Completer({"tracker": tracker, "db": str(road.db), "campaign": None})
    assert "momentum" in complete.words([])
    assert complete.words(["momentum"]) == ["spend"]
    assert complete.words(["momentum", "spend"]) == ["Ash", "Bram"]
    assert "--on" in complete.words(["momentum", "spend", "Bram", "1"], "--")
    tracker.close()
    shown = road(["shell"], input="help momentum spend\n").stdout
    assert "Usage: momentum spend [OPTIONS] CHARACTER N" in shown
    assert '    momentum spend Ash 2 --on "a second wind"' in shown


def test_a_trait_the_system_never_rolls_is_offered_nowhere_and_refused(road):
    """Bram's sheet keeps an Edge that Pool never rolls (``SheetRules.rollable``)."""
    tracker = Tracker(str(road.db))
    complete = Completer({"tracker": tracker, "db": str(road.db), "campaign": None})
    assert complete.words(["roll", "Bram"]) == ["Brawn", "Guile"]
    tracker.close()
    refused = road("roll Bram Edge --dice 6,6")
    assert refused.exit_code == 2
    assert (
        refused.stderr
        == "Error: Edge is kept on the sheet, never rolled; roll one of Brawn, Guile.\n"
    )
    missing = road("roll Bram Wits --dice 6")
    assert "(traits: Brawn, Guile)" in missing.stderr
    assert road.ok("log --json").stdout.count('"RollMade"') == 0


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_tab_completes_the_systems_command_at_the_terminal(road, shell):
    assert answers(road.db, shell, "tracker mom") == ["momentum"]
    assert answers(road.db, shell, "tracker momentum ") == ["spend"]
    assert answers(road.db, shell, "tracker momentum spend B") == ["Bram"]


def test_help_offers_it_and_the_shipped_reference_names_only_tracker_own(road):
    from tracker.cli import cli
    from tracker.cli.reference import reference

    assert "momentum" in road.ok("--help").stdout
    assert "--push" in road.ok("roll --help").stdout
    assert "momentum" not in reference()
    # Made anew for each line, never kept on the command line: gone with the plugin.
    assert "momentum" not in cli.commands


def test_a_gloom_campaign_refuses_the_command_and_the_option(pool_installed, run):
    run.ok("campaign new Drift --system gloom")
    run.ok("character add Kade --skill Hacking=14")
    run.ok("session start")
    before = run.event_count()
    refused = run(["momentum", "spend", "Kade", "1", "--on", "a hack"])
    assert refused.exit_code == 1
    assert refused.stderr == (
        "Refused: Momentum is a Pool rule and this campaign plays gloom; switch to a Pool "
        "campaign with `tracker campaign use NAME`, or give --campaign NAME.\n"
    )
    pushed = run("roll Kade Hacking --push")
    assert pushed.exit_code == 2
    assert (
        "--push is Pool's option; this campaign plays Gloom, so leave it out "
        "(see `tracker roll --help`)." in (pushed.stderr)
    )
    assert run.event_count() == before


def test_a_setting_of_the_systems_own_is_logged_by_its_name_shown_and_folded(pool_installed, run):
    """Pool's pool size is a setting of its own name: given to `campaign new` and `campaign
    set`, logged under that name as tracker's own settings are, shown by `campaign set`, read
    by the system's fold, taken back by an undo, and held to its limits."""
    run.ok("campaign new 'The Long Road' --system pool --pool-size 4")
    assert run.json("campaign set")["settings"] == {"pool_size": 4}
    assert run.ok("campaign set").stdout == "The Long Road (Pool)\n  pool size: 4\n"
    run.ok(["character", "add", "--sheet", str(PLUGIN / "ash.toml")])
    run.ok("session start")
    run.ok("roll Ash Nerve --dice 5,6,6")
    full = run.ok("roll Ash Nerve --dice 5,6,6").stdout
    assert "The party's pool is full (4 Momentum): the GM owes a complication." in full
    said = run.ok(["campaign", "set", "--pool-size", "5", "--note", "a deeper pool"]).stdout
    assert said.startswith('"The Long Road": pool size 4 → 5.')
    assert "settings: pool size 5 (a deeper pool)" in run.ok("log").stdout
    logged = [e for e in run.json("log")["events"] if e["type"] == "CampaignSettingsChanged"]
    assert [e["payload"] for e in logged] == [
        {"pool_size": 4, "note": None},
        {"pool_size": 5, "note": "a deeper pool"},
    ]
    run.ok("roll Ash Nerve --dice 5,6,1")
    assert momentum(run) == 5
    assert run.json("obligations")["obligations"][0]["kind"] == "pool-complication"
    assert run.ok("verify").exit_code == 0
    run.ok("undo")
    run.ok("undo")
    assert run.json("campaign set")["settings"] == {"pool_size": 4}
    before = run.event_count()
    too_big = run("campaign set --pool-size 9")
    assert too_big.exit_code == 2
    assert "--pool-size is 3 to 6, not 9; give one from 3 to 6." in too_big.stderr
    assert run.event_count() == before


def test_a_gloom_campaign_refuses_the_pool_size(pool_installed, run):
    run.ok("campaign new Drift --system gloom")
    before = run.event_count()
    refused = run("campaign set --pool-size 4")
    assert refused.exit_code == 2
    assert "--pool-size is a Pool setting and Gloom does not use it" in refused.stderr
    assert run.event_count() == before


def _upgrade_pool(monkeypatch, *, bump: bool) -> None:
    """Pool as a newer release of its package would fold: each success beyond the first adds 2
    Momentum where it added 1, with its ``Folding.version`` bumped when ``bump``."""
    from tracker.systems import registry

    folding = type(registry.get("pool").folding)
    earlier = folding.track_moved

    def doubled(self, state, ch, track, delta, raw):
        earlier(self, state, ch, track, 2 * delta if track == "momentum" else delta, raw)

    monkeypatch.setattr(folding, "track_moved", doubled)
    if bump:
        monkeypatch.setattr(folding, "version", folding.version + 1)


def _stored_snapshots(run) -> set[tuple[str, int]]:
    with sqlite3.connect(run.db) as conn:
        return set(conn.execute("SELECT projection, projection_version FROM snapshots"))


@pytest.fixture
def folded_once(road) -> Run:
    """The road with Ash's flourish folded into Momentum 1 and stored as the campaign's
    snapshot, beside the one its session's start stored."""
    road.ok("roll Ash Nerve --dice 5,6,1")
    tracker = Tracker(str(road.db))
    tracker.loader.save(tracker.state())
    tracker.close()
    assert _stored_snapshots(road) == {
        ("campaign", PROJECTION_VERSION),
        ("session-start", PROJECTION_VERSION),
    }
    return road


def test_a_fold_of_a_new_version_folds_the_log_anew_rather_than_read_the_old_snapshots(
    folded_once, monkeypatch
):
    """An upgraded system whose fold makes another state of the same events says so with its
    ``Folding.version``: the state is the log folded by the new fold, verify finds nothing
    wrong, and the snapshots are stored again under the new version."""
    _upgrade_pool(monkeypatch, bump=True)
    assert momentum(folded_once) == 2
    checked = folded_once.ok("verify")
    assert "snapshot" not in checked.output
    assert momentum(folded_once) == 2
    folded_once.ok("session end")
    folded_once.ok("session start")
    upgraded = PROJECTION_VERSION + FOLD_VERSION_STEP
    assert ("session-start", upgraded) in _stored_snapshots(folded_once)
    assert momentum(folded_once) == 2
    assert folded_once.ok("verify").exit_code == 0


def test_a_fold_changed_without_its_version_reads_the_old_snapshot_and_verify_says_so(
    folded_once, monkeypatch
):
    """Why the version is there: the snapshot of the fold before still serves, and verify
    reports it as a state the log does not fold to."""
    _upgrade_pool(monkeypatch, bump=False)
    assert momentum(folded_once) == 1
    checked = folded_once("verify")
    assert checked.exit_code != 0
    assert "the campaign snapshot, folded to event" in checked.output
    assert "holds a state the log does not fold to" in checked.output


def test_a_command_that_rolls_takes_its_own_option_which_a_roll_does_not(road):
    """Pool's resistance roll reads --against, declared by its command (its ``RollKind``'s
    options), not by ``tracker roll``: neither its help nor a check takes it."""
    held = road.json("resist Bram Brawn --against 2 --dice 5,6,1,1")
    assert (held["kind"], held["success"], held["against"]) == ("resist", True, 2)
    broke = road.ok("resist Bram Brawn --against 3 --dice 5,6,1,1").stdout
    assert "FLOURISH · broke against 3" in broke
    assert "--against" in road.ok("resist --help").stdout
    assert "--against" not in road.ok("roll --help").stdout
    before = road.event_count()
    refused = road("roll Bram Brawn --against 2 --dice 5,6,1,1")
    assert refused.exit_code == 2
    assert "No such option '--against'" in refused.stderr
    assert road("resist Bram Brawn --against 9 --dice 5,6,1,1").exit_code == 2
    assert road.event_count() == before
    # A form runs it through the same declaration, and a roll's own options stay out of it.
    from tracker.app.actions import declaration, perform

    tracker = Tracker(str(road.db))
    form = declaration(tracker.state().rules, ("resist",))
    assert form.options[0].name == "against"
    done = perform(
        tracker,
        ("resist",),
        {"character": "Bram", "trait": "Brawn", "against": "1", "dice": "1,1,1,5"},
    )
    assert done.doc["success"] is True
    with pytest.raises(BadInput):
        perform(tracker, ("resist",), {"character": "Bram", "trait": "Brawn", "push": True})
    tracker.close()
    assert road.ok("verify").exit_code == 0


def test_a_systems_own_column_and_detail_reach_the_history_the_exports_the_log_and_recap(road):
    """Pool counts its successes, which neither GURPS's margin nor Glintlock's position is:
    its own column (``OwnWords.roll_columns``) and its words (``RollFacts.columns``,
    ``verdict``, ``detail``) reach every output through the system's hooks alone."""
    road.ok("roll Ash Nerve --dice 5,6,1")
    rows = list(csv.DictReader(io.StringIO(road.ok("export rolls").stdout)))
    head = list(rows[0])
    assert head[head.index("outcome") + 1 :][:3] == ["margin", "position", "successes"]
    assert (rows[0]["successes"], rows[0]["margin"], rows[0]["position"]) == ("2", "", "")
    [line] = [
        json.loads(x)
        for x in road.ok("export rolls --format jsonl").stdout.splitlines()
        if '"system": "pool"' in x or '"system":"pool"' in x
    ]
    assert line["successes"] == 2
    assert "flourish, 2 successes" in road.ok("log").stdout
    recap = road.json("recap")
    assert recap["detail_column"] == "Successes"
    [roll] = [r for r in recap["rolls"] if r["trait"] == "Nerve"]
    assert (roll["detail"], roll["verdict"]) == ("2", "flourish, 2 successes")
    assert "Successes" in road.ok("recap --format html").stdout
