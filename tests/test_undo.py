"""Undo, redo and time travel: compensating events restore earlier states exactly."""

from __future__ import annotations

import json

import pytest
from synthetic import generate

from tracker.app import Tracker
from tracker.app.deciding import Logged
from tracker.app.loading import SNAPSHOT_EVERY
from tracker.projections.campaign import UNDO_TYPES, fold, to_snapshot
from tracker.systems.registry import roll_request


def tracks(run) -> dict:
    """The campaign as a GM sees it: every character's tracks, Threat, obligations."""
    doc = run.json("status")
    doc.pop("version")
    owed = run.json("obligations")["obligations"]
    return {"status": doc, "owed": [(o["kind"], o["opened_by"]) for o in owed]}


@pytest.fixture
def evening(glintlock):
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --tag 1:power --dice 15")
    glintlock.ok("roll Tomas Wits --tag -1:condition --dice 1,12")
    return glintlock


def test_undo_then_redo_restores_exactly_and_the_log_only_grows(evening):
    before = tracks(evening)
    count = evening.event_count()
    evening.ok("threat spend hard --note 'the shelves collapse'")
    after_spend = tracks(evening)
    assert after_spend["owed"] == []
    undone = evening.json("undo")
    assert [r["type"] for r in undone["revoked"]] == ["ThreatSpent"]
    assert tracks(evening) == before  # the floor is owed again
    evening.ok("redo")
    assert tracks(evening) == after_spend
    assert evening.event_count() == count + 3


def test_undo_of_a_whole_session_and_its_redo(evening):
    evening.ok("stress Tomas +2")
    evening.ok("session end")
    evening.ok("session start")
    evening.ok("stress Wren +1")
    second = tracks(evening)
    undone = evening.json("undo --session 1")
    assert {r["type"] for r in undone["revoked"]} == {"RollMade", "StressChanged"}
    status = evening.json("status")
    assert status["threat"] == 0
    assert {c["name"]: c["stress"] for c in status["characters"]} == {"Wren": 1, "Tomas": 0}
    evening.ok("redo")
    assert tracks(evening) == second


def test_an_undo_that_leaves_a_later_spend_without_mettle_is_refused(evening):
    evening.ok("spend Wren steel-yourself")
    before = evening.event_count()
    result = evening("undo 5")  # Wren's weak hit gave the Mettle the spend used
    assert result.exit_code == 1
    assert "7 (Wren would have 0 Mettle for a spend of 1)" in result.stderr
    assert "--cascade" in result.stderr
    assert evening.event_count() == before
    cascade = evening.json("undo 5 --cascade")
    assert [r["version"] for r in cascade["revoked"]] == [5, 7]
    wren = evening.json("status Wren")
    assert wren["mettle"] == 0
    assert wren["next_roll"]["bonus"] == 0


def test_a_roll_that_used_an_undone_steel_yourself_depends_on_it(evening):
    evening.ok("spend Wren steel-yourself")
    evening.ok("roll Wren Grit --tag 1:gear --dice 15")
    result = evening("undo 7")
    assert result.exit_code == 1
    assert "8 (it used a Mettle spend that would not have happened)" in result.stderr


@pytest.mark.parametrize(
    ("setup", "command", "words"),
    [
        ([], "redo", "nothing to redo"),
        (["undo"], "undo 6", "already undone"),
        ([], "undo 1", "cannot be undone"),
        # The session's start stays: a session undo strikes what happened in it.
        ([], "undo 4", "`tracker undo --session 1`"),
        ([], "undo 999", "No event 999"),
        ([], "undo zz", "No event"),
        (["session end"], "undo", "No session is running"),
        ([], "undo --session 7", "No session 7"),
        ([], "undo 6 --session 1", "not both"),
    ],
)
def test_undo_refusals_append_nothing(evening, setup, command, words):
    for line in setup:
        evening.ok(line)
    before = evening.event_count()
    result = evening(command)
    assert result.exit_code in (1, 2)
    assert words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert evening.event_count() == before


def test_a_redo_that_would_clash_with_later_play_is_refused(evening):
    evening.ok("spend Wren steel-yourself")  # Wren 1 -> 0 Mettle
    evening.ok("undo")  # Wren back to 1
    evening.ok("spend Wren resist")  # the Mettle is spent another way
    result = evening("redo --anyway")
    assert result.exit_code == 1
    assert "would leave event" in result.stderr


def test_a_redo_that_would_bring_back_a_name_taken_since_is_refused(evening):
    """Undo a character's addition, add another that reads the same: the redo would leave two
    characters no one at the table could tell apart."""
    evening.ok("character add Ilse --stat Grit=1")
    evening.ok("undo")
    evening.ok("character add ILSE --stat Grit=2")
    before = evening.event_count()
    result = evening("redo --anyway")
    assert result.exit_code == 1, result.output
    assert "could not be told apart" in result.stderr
    assert evening.event_count() == before
    assert [c["name"] for c in evening.json("status")["characters"]].count("ILSE") == 1


def test_redo_is_an_editors_it_puts_back_only_while_nothing_else_was_logged(evening):
    """Undo, undo, redo, redo puts both back, as an editor does; once anything else is logged
    after an undo, redo is refused in one sentence that says how to put it back on purpose."""
    evening.ok("roll Wren Grit --tag 1:gear --dice 15")
    evening.ok("roll Tomas Wits --tag 1:gear --dice 9")
    first, second = (_version(evening, "RollMade") - 1, _version(evening, "RollMade"))
    evening.ok("undo")
    evening.ok("undo")
    assert "Restored " + str(first) in evening.ok("redo").stdout
    assert "Restored " + str(second) in evening.ok("redo").stdout
    evening.ok("undo")
    evening.ok("note 'the lamp gutters'")
    noted = evening.event_count()
    before = evening.event_count()
    refused = evening("redo")
    assert refused.exit_code == 1, refused.output
    assert refused.stderr.strip() == (
        f"Refused: Event {noted} was logged after the last undo, so there is nothing to redo; "
        f"`tracker redo --anyway` puts back what that undo took on purpose, after event {noted}."
    )
    assert evening.event_count() == before
    # Nor does the console offer it: it offers what `redo` would put back.
    table = Tracker(str(evening.db))
    assert table.history.next_redo(table.state()) == []
    table.close()
    assert f"Restored {second}." in evening.ok("redo --anyway").stdout
    # A session started since the undo is an edit too: a redo would not reach back into it.
    evening.ok("undo")
    evening.ok("session end")
    evening.ok("session start")
    assert evening("redo").exit_code == 1


def test_status_as_of_an_event_shows_the_state_then(evening):
    evening.ok("threat spend hard")
    then = evening.json("status --as-of 6")  # right after Tomas's natural 1
    assert then["threat"] == 4
    assert then["spending_floor"] == "owed"
    assert evening.json("status")["threat"] == 2
    wren = evening.json("status Wren --as-of 4")
    assert wren["mettle"] == 0
    bad = evening("status --as-of yesterday-ish")
    assert bad.exit_code == 2


def test_as_of_a_time_before_the_campaign_is_refused(evening):
    result = evening(["status", "--as-of", "2001-01-01 10:00"])
    assert result.exit_code == 1
    assert "had not begun" in result.stderr


def test_undo_far_behind_a_snapshot_refolds_correctly(tmp_path):
    tracker = Tracker(str(tmp_path / "long.db"))
    row = generate(tracker, "Long", "glintlock", events=1_500, seed=3)
    tracker.state(row)  # stores a snapshot at the head
    events = list(tracker.store.read(row.campaign_id))
    early = next(e for e in events if e.type == "NoteAdded")
    tracker.history.undo(early.event_id)
    assert to_snapshot(tracker.state(row)) == to_snapshot(tracker.rebuild(row))
    tracker.history.redo()
    assert to_snapshot(tracker.state(row)) == to_snapshot(tracker.rebuild(row))
    tracker.close()


def test_undo_json_names_what_was_revoked(evening):
    doc = json.loads(evening("undo --json").stdout)
    assert doc["revoked"][0]["version"] == 6
    assert doc["revoked"][0]["type"] == "RollMade"


def _counting_reads(tracker):
    """Wrap the store's reads so a test can see how many events a command read."""
    seen = {"events": 0}
    read = tracker.store.read

    def counted(*args, **kwargs):
        for event in read(*args, **kwargs):
            seen["events"] += 1
            yield event

    tracker.store.read = counted
    return seen


def test_undo_and_redo_in_a_long_campaign_read_only_the_running_session(tmp_path):
    tracker = Tracker(str(tmp_path / "long.db"))
    row = generate(tracker, "Long", "glintlock", events=3_000, seed=8)
    tracker.campaigns.campaign_use(row.name)
    if tracker.state(row).current_session is None:
        tracker.campaigns.session_start("Late night")
    for i in range(5):
        tracker.tracks.stress("Wren", 1, cause=f"the dark {i}")
        tracker.tracks.note(f"note {i}")
    seen = _counting_reads(tracker)
    tracker.history.undo()
    tracker.history.undo()  # a second undo right after the first, which stored a fresh snapshot
    tracker.history.redo()
    state = tracker.state(row)
    assert seen["events"] < 1_500, "undo and redo fold from the session's start, not event 1"
    assert to_snapshot(state) == to_snapshot(tracker.rebuild(row))
    assert [e.type for e in tracker.store.read(row.campaign_id)][-3:] == [
        "EventsRevoked",
        "EventsRevoked",
        "EventsRestored",
    ]
    tracker.close()


def test_undoing_an_event_of_an_earlier_session_after_the_snapshot_still_matches(evening):
    evening.ok("stress Tomas +2")
    evening.ok("session end")
    evening.ok("session start")  # stores the state at this session's start
    evening.ok("stress Wren +1")
    evening.ok("undo 5")  # Wren's roll in session 1, before that snapshot
    tracker = Tracker(str(evening.db))
    assert to_snapshot(tracker.state()) == to_snapshot(tracker.rebuild())
    evening.ok("redo")
    assert to_snapshot(tracker.state()) == to_snapshot(tracker.rebuild())
    evening.ok("status --as-of 6")
    tracker.close()


def test_undo_undo_redo_keep_starting_from_the_snapshot_they_agree_with(tmp_path):
    """Without a session-start snapshot (a session begun before an import), each one-shot starts
    from the campaign snapshot or the one before it, which a refold does not replace."""
    import sqlite3

    path = str(tmp_path / "long.db")
    tracker = Tracker(path)
    row = generate(tracker, "Long", "glintlock", events=3_000, seed=9)
    tracker.campaigns.campaign_use(row.name)
    if tracker.state(row).current_session is None:
        tracker.campaigns.session_start("Late night")
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM snapshots")
    tracker.close()
    Tracker(path).state()  # a snapshot at the head, as the first status after an import has
    tracker = Tracker(path)
    for i in range(501):  # the next snapshot lands one event short of the head
        tracker.tracks.note(f"note {i}")
    tracker.close()
    log = Tracker(path).store.count()
    for command in ("undo", "undo", "redo", "state"):
        one_shot = Tracker(path)
        seen = _counting_reads(one_shot)
        if command == "state":
            one_shot.state()
        else:
            getattr(one_shot.history, command)()
        # At most the events since the snapshot before the newest, twice: never the whole log.
        bound = 2 * SNAPSHOT_EVERY + 100
        assert seen["events"] < bound < log, f"{command} read {seen['events']} of {log} events"
        assert to_snapshot(one_shot.state()) == to_snapshot(one_shot.rebuild())
        one_shot.close()


def test_a_redo_then_play_that_rests_on_it_folds_from_a_snapshot_taken_before_it(tmp_path):
    """Each line a fresh process: a snapshot stored while the undo stood must not be folded
    past the redo as if the undone events were still gone."""
    path = str(tmp_path / "redo.db")
    first = Tracker(path)
    first.campaigns.campaign_new("Mire", "glintlock")
    first.campaigns.character_add("Wren", stats=["Grit=3", "Wits=2"])
    first.campaigns.character_add("Bram", stats=["Grit=2", "Wits=3"])
    first.campaigns.session_start("One")
    first.tracks.stress("Wren", 1, cause="the dark")
    first.close()
    steps = [
        lambda t: t.history.undo(
            "2", cascade=True
        ),  # Wren's arrival, and the stress that needed her
        lambda t: t.state(),  # stores a snapshot while she is gone
        lambda t: t.history.redo(),
        lambda t: t.tracks.stress("Wren", 1, cause="back again"),
        lambda t: t.campaigns.status(),
    ]
    for step in steps:
        one_shot = Tracker(path)
        step(one_shot)
        assert to_snapshot(one_shot.state()) == to_snapshot(one_shot.rebuild())
        one_shot.close()
    assert Tracker(path).state().character("Wren").stress == 2


@pytest.mark.parametrize("seed", [7, 36])
def test_any_run_of_play_undo_and_redo_across_processes_folds_as_a_rebuild(
    tmp_path, monkeypatch, seed
):
    """A seeded evening of play, undos (last event, by number, whole session, with and without
    --cascade) and redos, each command in a fresh process, with snapshots taken every few
    events: after every step the state read from snapshots equals a fold from the first event."""
    import contextlib
    import random

    import tracker.app.loading as module
    from tracker.errors import TrackerError

    monkeypatch.setattr(module, "SNAPSHOT_EVERY", 7)
    path = str(tmp_path / "evening.db")
    setup = Tracker(path)
    setup.campaigns.campaign_new("Evening", "glintlock")
    for name in ("Wren", "Bram"):
        setup.campaigns.character_add(name, stats=["Grit=2", "Wits=1", "Grace=1", "Lore=2"])
    setup.close()
    rng = random.Random(seed)
    moves = [
        lambda t, who: t.rolls.roll(
            who, roll_request("Grit", seed=str(rng.random()), override=True)
        ),
        lambda t, who: t.tracks.stress(who, rng.choice([1, 1, -1])),
        lambda t, who: t.acting.run(("gain",), character=who, action="deep-cut"),
        lambda t, who: t.acting.run(("spend",), character=who, action="steel-yourself"),
        lambda t, who: t.acting.run(("threat", "add"), amount=1),
        lambda t, who: t.tracks.note("a note"),
        lambda t, who: t.history.undo(cascade=rng.random() < 0.5),
        lambda t, who: t.history.undo(
            str(rng.randint(2, t.state().version)), cascade=rng.random() < 0.5
        ),
        lambda t, who: t.state().session and t.history.undo(session=t.state().session.number),
        lambda t, who: t.history.redo(),
        lambda t, who: (
            t.campaigns.session_start("Next")
            if t.state().current_session is None
            else t.campaigns.session_end()
        ),
    ]
    for step in range(150):
        one_shot = Tracker(path)
        names = [c.name for c in one_shot.state().characters.values()] or ["Wren"]
        move = rng.choice(moves)
        # A move the state refuses is refused with nothing logged; the GM picks another.
        done = None
        with contextlib.suppress(TrackerError):
            done = move(one_shot, rng.choice(names))
        one_shot.close()
        check = Tracker(path)
        rebuilt = to_snapshot(check.rebuild())
        assert to_snapshot(check.state()) == rebuilt, f"step {step}"
        # What the command itself ended on (an undo's or a redo's trial, folded on) too.
        if isinstance(done, Logged):
            assert to_snapshot(done.state) == rebuilt, f"step {step}"
        # A look back: what the undos up to then left revoked, folded to then.
        row, head = check.campaign(), check.state().version
        back = rng.randint(max(1, head - 12), head)
        undos = check.store.read(row.campaign_id, until_version=back, types=UNDO_TYPES)
        then = check.loader.refold(row, fold(undos, row.campaign_id).revoked, back)
        assert to_snapshot(check.history.as_of(str(back))[0]) == to_snapshot(then), f"step {step}"
        check.close()


def _version(run, type_: str) -> int:
    return next(e["version"] for e in run.json("log")["events"][::-1] if e["type"] == type_)


def test_a_clear_suppress_or_lean_that_needs_an_undone_condition_depends_on_it(evening):
    evening.ok("condition set Wren poisoned")
    cause = _version(evening, "ConditionSet")
    evening.ok("gain Wren lean-into-condition")
    evening.ok("spend Wren suppress-condition --condition poisoned")
    evening.ok("condition clear Wren poisoned")
    before = evening.event_count()
    refused = evening(f"undo {cause}")
    assert refused.exit_code == 1
    for words in ("no condition to lean into", "would not be poisoned", "no poisoned to clear"):
        assert words in refused.stderr
    assert evening.event_count() == before
    taken = evening.json(f"undo {cause} --cascade")["revoked"]
    assert [r["type"] for r in taken] == [
        "ConditionSet",
        "MettleGained",
        "MettleSpent",
        "ConditionCleared",
    ]


def test_a_roll_keeps_the_sheet_and_stress_it_was_rolled_from_through_their_undo(evening):
    """A roll records the stat and the stress it was rolled with. Undoing the sheet change or
    the stress before it takes back neither the roll nor what it recorded: verify holds the
    roll to the sheet as it stood when it was rolled, and so does an import of the log."""
    evening.ok("character update Wren --stat Grit=4")
    changed = _version(evening, "CharacterUpdated")
    evening.ok("stress Wren +2 --cause 'the deep water'")
    stressed = _version(evening, "StressChanged")
    evening.ok("roll Wren Grit --tag 1:gear --tag 1:power --dice 15")
    evening.ok(f"undo {changed}")
    evening.ok(f"undo {stressed}")
    assert evening.json("status Wren")["stress"] == 0
    assert evening("verify").exit_code == 0
    # Rolled while the stress stood undone, then the stress put back: that roll keeps none.
    evening.ok("roll Wren Grit --tag 1:gear --tag 1:power --dice 20")
    evening.ok("redo --anyway")
    evening.ok("roll Wren Grit --tag 1:gear --tag 1:power --dice 20")
    assert evening("verify").exit_code == 0
    dump = evening.db.with_name("evening.jsonl")
    evening.ok(f"export events -o {dump}")
    evening.ok(["--db", str(evening.db.with_name("copy.db")), "import", str(dump)])


def test_clearing_a_condition_a_roll_set_depends_on_the_roll(run):
    run.ok("campaign new Table --system gurps")
    run.ok("character add Mira --stat IQ=12 --stat Will=12 --stat HT=11")
    run.ok("session start")
    # Will 12 -2 = 10: a 14 fails by 4; 5+5+2 + 4 = 16 is row 16: stunned, and a quirk owed.
    run.ok("fright Mira --mod -2:alone --dice 6,6,2 --table-dice 5,5,2 --effect-dice 3")
    fright = _version(run, "FrightChecked")
    run.ok("trait assign Mira 'Quirk: hums'")
    run.ok("condition clear Mira stunned")
    refused = run(f"undo {fright}")
    assert "no stunned to clear" in refused.stderr
    run.ok(f"undo {fright} --cascade")
    assert run.json("status Mira")["conditions"] == []


def _replayed(tracker, session=None) -> list:
    _, lines = tracker.history.replay(session)
    return [(line.event.version, line.revoked, line.changes) for line in lines]


def _forget_snapshots(path) -> None:
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM snapshots")


def test_the_table_commands_after_an_undo_read_the_session_not_the_log(tmp_path):
    """Replay of tonight, a look back at a recent event, and the state after an undo each read
    tonight's events (from the snapshot taken as the session began: an undo of tonight's play
    leaves none of its own), and say exactly what a fold of the whole log says."""
    path = str(tmp_path / "long.db")
    tracker = Tracker(path)
    row = generate(tracker, "Long", "glintlock", events=3_000, seed=8)
    tracker.campaigns.campaign_use(row.name)
    if tracker.state(row).current_session is not None:
        tracker.campaigns.session_end()
    tracker.campaigns.session_start("Late night")
    for i in range(5):
        tracker.tracks.stress("Wren", 1, cause=f"the dark {i}")
        tracker.tracks.note(f"note {i}")
    tracker.history.undo()
    tracker.history.undo()
    tracker.history.redo()
    tracker.tracks.note("after")
    tracker.close()
    log = Tracker(path).store.count()
    session = Tracker(path).state().current_session
    head = Tracker(path).store.head(row.campaign_id).version

    one_shot = Tracker(path)
    seen = _counting_reads(one_shot)
    state = one_shot.state()
    # The session's start (the event the snapshot was folded to) and the 15 events since.
    assert seen["events"] <= 16, "the state after an undo folds tonight from the session's start"
    replayed = _replayed(one_shot)
    looked_back = to_snapshot(one_shot.history.as_of(str(head - 4))[0])
    assert seen["events"] < 100 < log, f"read {seen['events']} of {log} events"
    # The session's start and everything after it: ten events, two undos, a redo and a note.
    assert [v for v, _, _ in replayed] == list(range(head - 14, head + 1))
    one_shot.close()

    _forget_snapshots(path)
    scratch = Tracker(path)
    assert to_snapshot(scratch.state()) == to_snapshot(state)
    assert _replayed(scratch, session) == replayed
    assert to_snapshot(scratch.history.as_of(str(head - 4))[0]) == looked_back
    scratch.close()


def test_an_imported_log_replays_its_last_session_and_looks_back_without_walking_it(tmp_path):
    import io

    source = Tracker(str(tmp_path / "source.db"))
    row = generate(source, "Long", "glintlock", events=3_000, seed=21)
    source.campaigns.campaign_use(row.name)
    if source.state(row).current_session is not None:
        source.campaigns.session_end()
    source.campaigns.session_start("Exported mid-session")
    for i in range(8):
        source.tracks.stress("Wren", 1, cause=f"the dark {i}")
    source.history.undo()
    source.tracks.note("after the undo")
    out = io.StringIO()
    source.exports.export_events(out)
    session = source.state(row).session.number
    head = source.store.head(row.campaign_id).version
    expected = (_replayed(source, session), to_snapshot(source.history.as_of(str(head - 3))[0]))
    source.close()

    copy = Tracker(str(tmp_path / "copy.db"))
    out.seek(0)
    copy.exports.import_events(out, "export.jsonl")
    seen = _counting_reads(copy)
    found = (_replayed(copy, session), to_snapshot(copy.history.as_of(str(head - 3))[0]))
    assert found == expected
    assert seen["events"] < 500, f"read {seen['events']} of {head} events"
    copy.close()


def _stored(path) -> dict[str, tuple[int, str]]:
    import sqlite3

    with sqlite3.connect(path) as conn:
        return {
            name: (version, state)
            for name, version, state in conn.execute(
                "SELECT projection, version, state FROM snapshots"
            )
        }


def test_undo_and_redo_across_a_snapshot_of_many_revocations_fold_as_a_rebuild(tmp_path):
    """A long campaign with many events taken back, each command a fresh process: an undo or a
    redo of tonight's play leaves the stored states as they were, and the next command folds
    tonight on top of one; an undo of an event the newest stored state folded is refolded from
    one before it, and that is stored. After every step the state, the command's own, and every
    stored one agree with a fold from the first event."""
    path = str(tmp_path / "long.db")
    tracker = Tracker(path)
    row = generate(tracker, "Long", "glintlock", events=2_000, seed=11)
    tracker.campaigns.campaign_use(row.name)
    if tracker.state(row).current_session is not None:
        tracker.campaigns.session_end()
    earlier = next(
        e.version
        for e in tracker.store.read(row.campaign_id, newest_first=True)
        if e.type == "NoteAdded" and e.event_id not in tracker.state(row).revoked
    )
    tracker.campaigns.session_start("Late night")
    for i in range(4):
        tracker.tracks.stress("Wren", 1, cause=f"the dark {i}")
        tracker.tracks.note(f"note {i}")
    assert len(tracker.state(row).revoked) >= 10
    tracker.close()

    # Each step, and whether it stores a state: only an undo or a redo of an event the newest
    # stored state folded or skipped does (the session's start, then the refold stored).
    steps = [
        ("undo", False),
        ("undo", False),
        ("redo", False),
        ("note", False),
        ("undo", False),
        ("redo", False),
        ("redo", False),
        ("earlier", True),
        ("note", False),
        ("redo", True),
        ("note", False),
        ("undo", False),
        ("redo", False),
    ]
    for step, stores in steps:
        stored = _stored(path)
        one_shot = Tracker(path)
        if step == "note":
            done = one_shot.tracks.note("after")
        elif step == "earlier":
            done = one_shot.history.undo(str(earlier))
        elif step == "redo":  # after a note too: put back on purpose
            done = one_shot.history.redo(anyway=True)
        else:
            done = one_shot.history.undo()
        one_shot.close()
        assert (_stored(path) != stored) == stores, step
        check = Tracker(path)
        rebuilt = to_snapshot(check.rebuild(row))
        assert to_snapshot(done.state) == rebuilt, step
        assert to_snapshot(check.state(row)) == rebuilt, step
        assert all(report.ok for report in check.verifier.verify()), step
        check.close()
