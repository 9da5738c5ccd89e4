"""Projections: a snapshot plus the tail always equals a rebuild from the first event."""

from __future__ import annotations

import json
import sqlite3

import pytest
from synthetic import generate

from tracker.app import Tracker
from tracker.app.loading import CAMPAIGN_SNAPSHOT, SESSION_SNAPSHOT, SNAPSHOT_EVERY
from tracker.projections.campaign import (
    PROJECTION_VERSION,
    UNDO_TYPES,
    CampaignState,
    Character,
    apply,
    fold,
    from_snapshot,
    refold_state,
    to_snapshot,
)
from tracker.projections.rolls import luck, roll_rows, row_sources


def through_json(state: CampaignState) -> CampaignState:
    """What the snapshot table gives back: the state written as JSON text and read again."""
    return from_snapshot(json.loads(json.dumps(to_snapshot(state))))


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A generated Glintlock campaign of 10,000 events (twenty snapshots' worth), and smaller
    Gloom and GURPS ones."""
    path = tmp_path_factory.mktemp("big") / "big.db"
    tracker = Tracker(str(path))
    rows = {
        "glintlock": generate(tracker, "Long glintlock", "glintlock", events=10_000, seed=11),
        "gloom": generate(tracker, "Long gloom", "gloom", events=4_000, seed=12),
        "gurps": generate(tracker, "Long gurps", "gurps", events=4_000, seed=13),
    }
    yield tracker, rows
    tracker.close()


@pytest.mark.slow
@pytest.mark.parametrize("system", ["glintlock", "gloom", "gurps"])
def test_snapshot_at_any_point_plus_the_tail_equals_a_rebuild(big, system):
    tracker, rows = big
    row = rows[system]
    events = list(tracker.store.read(row.campaign_id))
    full = to_snapshot(fold(events, row.campaign_id))
    for cut in (1, 57, len(events) // 3, len(events) // 2, len(events) - 1):
        state = fold(events[:cut], row.campaign_id)
        resumed = through_json(state)
        for event in events[cut:]:
            apply(resumed, event)
        assert to_snapshot(resumed) == full, f"diverged when cut at event {cut}"
    assert len(full["characters"]) == 3


@pytest.mark.slow
def test_the_stored_snapshot_serves_status_and_matches_a_rebuild(big):
    tracker, rows = big
    row = rows["glintlock"]
    assert tracker.store.count(row.campaign_id) >= 10_000
    first = tracker.state(row)
    # Whatever answered, it folded no more than SNAPSHOT_EVERY events on top of a snapshot.
    stored = [
        tracker.store.load_snapshot(row.campaign_id, name, PROJECTION_VERSION)
        for name in (CAMPAIGN_SNAPSHOT, SESSION_SNAPSHOT)
    ]
    newest = max(found[0] for found in stored if found is not None)
    assert first.version - newest < SNAPSHOT_EVERY
    tracker.campaigns.campaign_use(row.name)
    started = first.current_session is None
    if started:
        tracker.campaigns.session_start("After the snapshot")
    for i in range(30):
        tracker.tracks.stress("Wren", 1 if i % 3 else -1, cause="the tail")
        tracker.tracks.note(f"tail note {i}")
    via_snapshot = tracker.state(row)
    rebuilt = tracker.rebuild(row)
    assert (
        via_snapshot.version
        == rebuilt.version
        == first.version + 60 + (1 if first.current_session is None else 0)
    )
    assert to_snapshot(via_snapshot) == to_snapshot(rebuilt)
    rules = rebuilt.rules
    for character in rebuilt.characters.values():
        shown = via_snapshot.characters[character.character_id].tracks(rules)
        assert shown == character.tracks(rules)


def test_a_snapshot_that_no_longer_matches_the_log_is_ignored(glintlock):
    glintlock.ok("session start")
    glintlock.ok("stress Wren +2")
    tracker = Tracker(str(glintlock.db))
    state = tracker.state()
    tracker.loader.save(state)
    with sqlite3.connect(glintlock.db) as conn:
        conn.execute("UPDATE snapshots SET head_hash = 'x', state = :s", {"s": "{}"})
    assert tracker.store.load_snapshot(state.campaign_id, "campaign", PROJECTION_VERSION) is None
    assert to_snapshot(tracker.state()) == to_snapshot(tracker.rebuild())
    tracker.close()


@pytest.mark.parametrize(
    ("field", "value"), [("head_hash", "0" * 64), ("version", 2), ("version", "two")]
)
def test_a_snapshot_saying_it_was_folded_elsewhere_than_it_is_stored_is_ignored(
    glintlock, field, value
):
    """Its own version or head, edited apart from the row's, would fold the tail on the wrong
    events or refuse every command as if the log had been replaced: it is folded anew."""
    glintlock.ok("session start")
    glintlock.ok("stress Wren +2")
    tracker = Tracker(str(glintlock.db))
    tracker.loader.save(tracker.state())
    tracker.close()
    with sqlite3.connect(glintlock.db) as conn:
        changed = conn.execute(
            f"UPDATE snapshots SET state = json_set(state, '$.{field}', ?)", (value,)
        ).rowcount
    assert changed >= 1
    glintlock.ok("stress Wren +1")
    assert glintlock.json("status --json")["characters"][0]["stress"] == 3
    tracker = Tracker(str(glintlock.db))
    assert to_snapshot(tracker.state()) == to_snapshot(tracker.rebuild())
    tracker.close()


def test_a_snapshot_of_another_projection_version_is_ignored(glintlock):
    tracker = Tracker(str(glintlock.db))
    state = tracker.state()
    tracker.store.save_snapshot(
        state.campaign_id, "campaign", PROJECTION_VERSION + 1, state.version, state.head_hash, {}
    )
    assert tracker.store.load_snapshot(state.campaign_id, "campaign", PROJECTION_VERSION) is None
    assert tracker.state().character("Wren") is not None
    tracker.close()


def test_the_generator_is_deterministic_by_seed(tmp_path):
    def outcomes(path):
        tracker = Tracker(str(path))
        row = generate(tracker, "Twice", "gloom", events=600, seed=5)
        seen = [
            (e.type, e.payload.get("result", {}).get("outcome"), e.payload.get("dice"))
            for e in tracker.store.read(row.campaign_id)
        ]
        tracker.close()
        return seen

    assert outcomes(tmp_path / "a.db") == outcomes(tmp_path / "b.db")


def test_generated_campaigns_verify(big):
    tracker, _ = big
    assert all(report.ok for report in tracker.verifier.verify())


def test_generated_campaigns_take_back_play_and_fold_to_the_same_state(big):
    tracker, rows = big
    for system, row in rows.items():
        kinds = [e.type for e in tracker.store.read(row.campaign_id, types=UNDO_TYPES)]
        assert kinds.count("EventsRevoked") >= 5, system
        assert to_snapshot(tracker.state(row)) == to_snapshot(tracker.rebuild(row)), system


def test_the_session_list_reads_every_session_though_the_state_keeps_one(big):
    tracker, rows = big
    row = rows["gloom"]
    tracker.campaigns.campaign_use(row.name)
    counted: dict[int, int] = {}
    for event in tracker.store.read(row.campaign_id):
        if event.session_id is not None:
            counted[event.session_id] = counted.get(event.session_id, 0) + 1
    listed = tracker.campaigns.session_list()
    assert [s.number for s in listed] == sorted(counted)
    assert {s.number: s.event_count for s in listed} == counted
    assert all(s.ended_at for s in listed[:-1])
    assert tracker.state(row).session.number == listed[-1].number


def test_the_one_pass_rebuild_gives_the_luck_the_roll_history_gives(big):
    tracker, rows = big
    for system, row in rows.items():
        state, tallied = tracker.rebuild_all(row)
        events = tracker.store.read(row.campaign_id, types=row_sources())
        rolls = roll_rows(events, state.rules, state.revoked)
        assert tallied.to_dict() == luck(rolls, state.rules).to_dict(), system
        assert sum(c.rolls for c in tallied.characters.values()) > 100, system
        assert to_snapshot(state) == to_snapshot(tracker.state(row)), system


def test_a_fold_of_a_stream_is_the_fold_of_its_events_one_at_a_time(big):
    """``fold`` looks up its system's handlers once for a stream; ``apply`` at every event.
    Every system's campaign, its undos and redos among it, folds alike either way, from the
    first event and from a state part way through."""
    tracker, rows = big
    for system, row in rows.items():
        events = list(tracker.store.read(row.campaign_id))
        revoked = tracker.state(row).revoked
        streamed = fold(events, row.campaign_id, refold_state(row.campaign_id, revoked))
        stepped = refold_state(row.campaign_id, revoked)
        for event in events:
            apply(stepped, event)
        assert to_snapshot(streamed) == to_snapshot(stepped), system
        half = len(events) // 2
        resumed = through_json(fold(events[:half], row.campaign_id))
        fold(events[half:], row.campaign_id, resumed)
        whole = fold(events, row.campaign_id)
        assert to_snapshot(resumed) == to_snapshot(whole), system


def test_an_undo_logged_while_the_state_is_folded_from_scratch_is_not_lost(tmp_path):
    path = str(tmp_path / "race.db")
    mine, other = Tracker(path), Tracker(path)
    row = generate(mine, "Race", "glintlock", events=700, seed=4)
    other.campaigns.campaign_use(row.name)
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM snapshots")  # the first status after an import or an upgrade
    if other.state(row).current_session is None:
        other.campaigns.session_start("Late")
    other.tracks.stress("Wren", 1, cause="the dark")
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM snapshots")
    read_revoked = mine.loader.revoked

    def revoked_then_someone_undoes(found_row, until_version):
        revoked = read_revoked(found_row, until_version)
        other.history.undo()  # takes back the stress, between reading the undos and folding the log
        return revoked

    mine.loader.revoked = revoked_then_someone_undoes
    raced = mine.state(row)
    mine.loader.revoked = read_revoked
    rebuilt = mine.rebuild(row)
    assert raced.version == rebuilt.version
    assert to_snapshot(raced) == to_snapshot(rebuilt)
    assert to_snapshot(mine.state(row)) == to_snapshot(rebuilt)  # and so is what it stored
    mine.close()
    other.close()


def test_a_fold_from_the_first_event_stores_a_snapshot_for_the_next_command(big):
    tracker, rows = big
    row = rows["gurps"]
    with sqlite3.connect(tracker.location) as conn:
        conn.execute("DELETE FROM snapshots WHERE campaign_id = ?", (row.campaign_id,))
    state = tracker.state(row)
    stored = tracker.store.load_snapshot(row.campaign_id, CAMPAIGN_SNAPSHOT, PROJECTION_VERSION)
    assert stored is not None
    assert stored[0] == state.version


def test_a_copied_state_and_its_snapshot_share_nothing_a_fold_changes(tmp_path):
    """An undo tries its fold on a copy, and a deferred snapshot is written after the state
    moved on: neither may share a list or a set with the state it came from."""
    tracker = Tracker(str(tmp_path / "copy.db"))
    row = generate(tracker, "Copies", "glintlock", events=400, seed=3)
    state = tracker.state(row)
    scar = "a scar that aches in the rain"
    for ch in state.characters.values():
        ch.own.consequences.append(scar)
    state.revoked.add("an undone event")
    before = to_snapshot(state)
    copied, saved = state.copy(), to_snapshot(state)
    for ch in copied.characters.values():
        ch.own.consequences.append("the copy's own")
    copied.revoked.add("the copy's own")
    assert to_snapshot(state) == before
    for ch in state.characters.values():
        ch.own.consequences.append("the state's own")
    state.revoked.add("the state's own")
    assert saved == before
    assert all(
        c["own"]["consequences"][-1] == "a scar that aches in the rain" for c in saved["characters"]
    )
    tracker.close()


def test_a_characters_current_stats_are_each_stat_as_a_roll_reads_it():
    """Read in one pass (a roll, and verify for every roll, read them all): each stat as
    ``stat`` gives it, a name in another case read as the first that reads so, and what play
    changed for good added."""
    mira = Character("m", "Mira", {"IQ": 12, "iq": 9, "HT": 11}, {}, (), None, {}, (), None)
    mira.stat_changes = {"Iq": -1}
    assert mira.current_stats() == {name: mira.stat(name) for name in mira.stats}
    assert mira.current_stats() == {"IQ": 11, "iq": 11, "HT": 11}
