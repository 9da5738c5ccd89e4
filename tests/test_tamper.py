"""Tampering with a log from outside: each way is found by `tracker verify` or refused by the store.

Whoever holds the database file can drop the triggers and rewrite rows, recomputing every hash
after the one they changed; the chain alone then still looks whole. What is found anyway: an
event the rules would not have decided or logged (its effects, its outcome, a spend of Mettle
never given), positions that no longer follow versions, a snapshot that saw a longer log or
holds another state. What a file alone cannot show (its tail cut off, or a whole campaign gone)
a receipt kept by the players shows.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from tracker.events.envelope import GENESIS_HASH, MAX_PAYLOAD, chain_fields, event_hash


def rows(db) -> list[dict]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("SELECT * FROM events ORDER BY position")]


def rewrite(db, edit, *, snapshots: bool = True) -> None:
    """Drop the triggers, let ``edit`` change the rows of the events table (a list of dicts in
    position order), then store them back with every hash recomputed: a careful forger, who
    may also drop the snapshots (``snapshots=False``)."""
    events = rows(db)
    events = edit(events)
    prev: dict[str, str] = {}
    for row in sorted(events, key=lambda r: (r["campaign_id"], r["version"])):
        row["prev_hash"] = prev.get(row["campaign_id"], GENESIS_HASH)
        fields = chain_fields(
            **{k: row[k] for k in row if k not in ("position", "hash", "payload")},
            payload=json.loads(row["payload"]),
        )
        row["hash"] = event_hash(fields)
        prev[row["campaign_id"]] = row["hash"]
    with sqlite3.connect(db) as conn:
        for trigger in ("events_no_update", "events_no_delete", "events_no_replace"):
            conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        conn.execute("DELETE FROM events")
        if not snapshots:
            conn.execute("DELETE FROM snapshots")
        for row in events:
            names = ", ".join(row)
            marks = ", ".join("?" for _ in row)
            conn.execute(f"INSERT INTO events ({names}) VALUES ({marks})", list(row.values()))


def payload_of(row: dict) -> dict:
    return json.loads(row["payload"])


@pytest.fixture
def evening(glintlock):
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --dice 12")  # a miss: Threat +2
    glintlock.ok("roll Tomas Wits --tag 1:gear --dice 15")
    glintlock.ok("note 'The shelves groan.'")
    assert glintlock("verify").exit_code == 0
    return glintlock


def verify_fails(run, *words: str) -> str:
    result = run("verify")
    assert result.exit_code == 1, result.output
    for word in words:
        assert word in result.stderr, result.stderr
    return result.stderr


def test_forged_effects_on_a_roll_rehashed_are_found(evening):
    def more_mettle(events):
        roll = next(r for r in events if r["type"] == "RollMade")
        payload = payload_of(roll)
        payload["effects"] = [{"track": "mettle", "delta": 5}, {"track": "threat", "delta": 1}]
        roll["payload"] = json.dumps(payload)
        return events

    rewrite(evening.db, more_mettle)
    assert evening.json("status Wren")["mettle"] == 5  # the forgery took
    verify_fails(evening, "event 5", "effects are stored as")


NO_EVENT = "00000000-0000-4000-8000-0000000000ff"


def _undo_after(events: list[dict], payload: dict, kind: str = "EventsRevoked") -> list[dict]:
    last = events[-1]
    forged = dict(last)
    forged.update(
        position=last["position"] + 1,
        event_id="00000000-0000-4000-8000-000000000003",
        version=last["version"] + 1,
        type=kind,
        character_id=None,
        payload=json.dumps(payload),
    )
    return [*events, forged]


@pytest.mark.parametrize(
    ("forge", "why"),
    [
        # A look back in time takes the undos since back one by one: each must have been one
        # the undo command could log.
        (lambda events: _undo_after(events, payload_of(events[-1])), "undone already"),
        (
            lambda events: _undo_after(events, {"event_ids": [events[-1]["event_id"]]}),
            "no undo takes back (EventsRevoked)",
        ),
        (
            lambda events: _undo_after(events, {"event_ids": [NO_EVENT]}),
            "which is no event logged before it",
        ),
        (
            lambda events: _undo_after(
                events,
                {
                    "event_ids": payload_of(events[-1])["event_ids"],
                    "revocation": events[-2]["event_id"],
                },
                "EventsRestored",
            ),
            "other than the newest undo still open to a redo",
        ),
        (
            lambda events: _undo_after(
                events,
                {"event_ids": [next(e for e in events if e["type"] == "NoteAdded")["event_id"]]},
                "EventsRevealed",
            ),
            "it reveals an event that was never secret",
        ),
    ],
    ids=[
        "an event undone twice",
        "an undo of an undo",
        "an undo of no event",
        "a redo of another undo",
        "a reveal of a public event",
    ],
)
def test_an_undo_or_redo_tracker_could_not_have_logged_rehashed_is_found(evening, forge, why):
    """An undo of an undo, of an event the log never held, or a redo of other than the newest
    undo: no command logs one, and verify names each."""
    evening.ok("undo")
    rewrite(evening.db, forge)
    verify_fails(evening, f"event {rows(evening.db)[-1]['version']}", why)


def test_a_spend_the_rules_would_refuse_rehashed_is_found(evening):
    def spend(events):
        last = events[-1]
        wren = next(r for r in events if r["type"] == "CharacterAdded")
        forged = dict(last)
        forged.update(
            position=last["position"] + 1,
            event_id="00000000-0000-4000-8000-000000000001",
            version=last["version"] + 1,
            character_id=wren["character_id"],
            type="MettleSpent",
            payload=json.dumps(
                {
                    "character_id": wren["character_id"],
                    "action": "steel-yourself",
                    "base": 3,
                    "cost": 3,
                }
            ),
        )
        return [*events, forged]

    rewrite(evening.db, spend)
    verify_fails(evening, "event 8", "would not have logged it")


def test_an_event_of_another_systems_rehashed_is_found(evening):
    """A Glintlock campaign holds no GURPS character points: an award of them in its log was
    written by hand, and each system folds only the events it owns."""

    def award(events):
        last = events[-1]
        wren = next(r for r in events if r["type"] == "CharacterAdded")
        forged = dict(last)
        forged.update(
            position=last["position"] + 1,
            event_id="00000000-0000-4000-8000-000000000002",
            version=last["version"] + 1,
            character_id=wren["character_id"],
            type="PointsAwarded",
            payload=json.dumps({"character_id": wren["character_id"], "points": 5}),
        )
        return [*events, forged]

    rewrite(evening.db, award)
    verify_fails(evening, "event 8", "PointsAwarded is GURPS's, and the campaign plays Glintlock")


def test_swapped_positions_are_found(evening):
    def swap(events):
        a, b = events[4], events[5]
        a["position"], b["position"] = b["position"], a["position"]
        return events

    rewrite(evening.db, swap)
    verify_fails(evening, "position")


def test_a_tail_cut_below_a_snapshot_is_found(evening):
    for _ in range(3):
        evening.ok("note 'more'")
    evening.ok("session end")
    evening.ok("session start")  # a snapshot is stored as a session starts
    rewrite(evening.db, lambda events: [r for r in events if r["version"] < 8])
    verify_fails(evening, "cut short")


def test_a_tail_cut_or_a_campaign_gone_is_found_against_the_players_receipt(evening):
    receipt = evening.json("session end")["receipt"]
    assert evening.ok(f"verify --against {receipt}").exit_code == 0
    evening.ok("session start")
    evening.ok("note 'later'")
    # Events logged since the receipt are fine.
    assert evening(f"verify --against {receipt}").exit_code == 0
    rewrite(evening.db, lambda events: [r for r in events if r["version"] < 7], snapshots=False)
    assert evening("verify").exit_code == 0  # nothing left in the file tells
    result = evening(f"verify --against {receipt}")
    assert result.exit_code == 1
    assert "cut off" in result.stderr
    # A file holding the receipt works too.
    kept = evening.db.parent / "receipt.txt"
    kept.write_text(f"Receipt for the players: {receipt}\n", encoding="utf-8")
    assert evening(f"verify --against {kept}").exit_code == 1
    # A wrong guess at a receipt, or a file that is not one, is bad input.
    assert evening("verify --against tracker:zz").exit_code == 2


def test_a_whole_campaign_gone_is_found_against_the_players_receipt(evening):
    receipt = evening.json("session end")["receipt"]
    with sqlite3.connect(evening.db) as conn:
        for trigger in ("events_no_delete", "campaigns_no_delete"):
            conn.execute(f"DROP TRIGGER {trigger}")
        conn.execute("DELETE FROM snapshots")
        conn.execute("DELETE FROM events")
        conn.execute("DELETE FROM campaigns")
    result = evening(f"verify --against {receipt}")
    assert result.exit_code == 1
    assert "no campaign" in result.stderr


def test_a_replacing_insert_is_refused_with_the_triggers_in_place(evening):
    before = rows(evening.db)
    with sqlite3.connect(evening.db) as conn, pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            "INSERT OR REPLACE INTO events SELECT * FROM events WHERE version = "
            "(SELECT max(version) FROM events)"
        )
    assert rows(evening.db) == before
    assert evening("verify").exit_code == 0


def test_an_edited_snapshot_is_found_then_never_used_again(evening):
    evening.ok("session end")
    evening.ok("session start")
    honest = evening.json("status Wren")["story_tags"]
    with sqlite3.connect(evening.db) as conn:
        for name, text in conn.execute("SELECT projection, state FROM snapshots").fetchall():
            state = json.loads(text)
            for character in state["characters"]:
                character["own"]["story_tags"] = ["Forged"]
            conn.execute(
                "UPDATE snapshots SET state = ? WHERE projection = ?", (json.dumps(state), name)
            )
    # A cache is trusted between verifies.
    assert evening.json("status Wren")["story_tags"] == ["Forged"]
    verify_fails(evening, "snapshot", "does not fold to")
    # Named, then dropped: every command folds the log again.
    assert evening.json("status Wren")["story_tags"] == honest != ["Forged"]
    assert evening("verify").exit_code == 0


def test_a_snapshot_that_is_not_json_is_passed_over(evening):
    evening.ok("session end")
    evening.ok("session start")
    with sqlite3.connect(evening.db) as conn:
        conn.execute("UPDATE snapshots SET state = '{not json'")
    assert evening.json("status Wren")["mettle"] == 0
    assert evening.ok("roll Wren Grit --tag 1:gear --dice 18").exit_code == 0
    verify_fails(evening, "snapshot", "cannot be read")


@pytest.mark.parametrize("forgery", ["no trait owed", "HP lost"])
def test_forged_effects_of_a_fright_check_rehashed_are_found(run, forgery):
    run.ok("campaign new Fright --system gurps")
    run.ok("character add Mira --stat Will=12 --stat HT=11 --stat HP=10")
    run.ok("session start")
    # 18 on Will 12 fails by 6; the table's 6+6+6 + 6 = 24 reads row 23: a new phobia is owed.
    run.ok("fright Mira --dice 6,6,6 --table-dice 6,6,6")
    assert run.json("obligations")["obligations"]

    def forge(events):
        fright = next(r for r in events if r["type"] == "FrightChecked")
        payload = payload_of(fright)
        if forgery == "no trait owed":
            payload["effects"] = []
        else:
            payload["effects"].append({"track": "hp", "delta": -9, "cause": "fright"})
        fright["payload"] = json.dumps(payload)
        return events

    rewrite(run.db, forge, snapshots=False)
    verify_fails(run, "event 4", "effects are stored as")


def test_a_roll_edited_past_reading_is_named_by_every_reader_never_a_traceback(evening):
    def no_outcome(events):
        roll = next(r for r in events if r["type"] == "RollMade")
        payload = payload_of(roll)
        del payload["result"]["outcome"]
        roll["payload"] = json.dumps(payload)
        return events

    rewrite(evening.db, no_outcome)
    for command in ("log", "log --player-view", "replay", "replay --player-view"):
        result = evening(command)
        assert result.exception is None or isinstance(result.exception, SystemExit), command
        assert "cannot read" in result.stdout, command
    for command in ("export rolls", "verify"):
        result = evening(command)
        assert result.exit_code == 1, command
        assert len(result.stderr.strip().splitlines()) == 1, command


@pytest.mark.parametrize(
    ("forgery", "words"),
    [
        ("time", "is not a time"),
        ("session", "never begun"),
        ("envelope", "envelope names another character"),
    ],
)
def test_a_rehashed_envelope_that_tracker_would_not_write_is_found(evening, forgery, words):
    def forge(events):
        note = next(r for r in events if r["type"] == "NoteAdded")
        roll = next(r for r in events if r["type"] == "RollMade")
        if forgery == "time":
            note["recorded_at"] = "not a time"
        elif forgery == "session":
            note["session_id"] = 7
        else:
            other = next(r for r in events if r["type"] == "CharacterAdded")
            roll["character_id"] = next(
                r["character_id"]
                for r in events
                if r["type"] == "CharacterAdded" and r["character_id"] != other["character_id"]
            )
        return events

    rewrite(evening.db, forge)
    verify_fails(evening, words)
    for command in ("log", "replay 1", "log --player-view"):  # shown, never a traceback
        result = evening(command)
        assert result.exception is None or isinstance(result.exception, SystemExit), command


def test_a_campaign_renamed_or_twinned_behind_a_receipt_is_found(evening):
    receipt = evening.json("session end")["receipt"]
    with sqlite3.connect(evening.db) as conn:
        conn.execute("DROP TRIGGER campaigns_no_update")
        conn.execute("UPDATE campaigns SET name = 'Ashes of Veyrа'")  # a Cyrillic а
    verify_fails(evening, "the campaigns table was edited")
    with sqlite3.connect(evening.db) as conn:
        conn.execute("DROP TRIGGER campaigns_no_replace")
        conn.execute(
            "INSERT INTO campaigns SELECT substr(campaign_id, 1, 8) || '-0000-4000-8000-"
            "000000000000', 'Twin', system, created_at FROM campaigns"
        )
    result = evening(f"verify --against {receipt}")
    assert result.exit_code == 1
    assert "stand in" in result.stderr


@pytest.mark.parametrize(
    "export",
    [["export", "events"], ["export", "rolls", "--player-view", "--format", "csv"]],
    ids=["events", "players-csv"],
)
@pytest.mark.parametrize(
    "edit",
    ["SET name = 'Ashes of Veyrа'", "SET system = 'gloom'"],  # a Cyrillic а
    ids=["renamed", "another-system"],
)
def test_a_campaign_row_edited_behind_an_export_is_found(evening, tmp_path, export, edit):
    """The campaigns table is not hashed: against an export, as in a plain verify, its row
    must still say what the campaign's first event says."""
    kept = tmp_path / "kept"
    evening.ok([*export, "-o", str(kept)])
    assert evening(["verify", "--against", str(kept)]).exit_code == 0
    with sqlite3.connect(evening.db) as conn:
        conn.execute("DROP TRIGGER campaigns_no_update")
        conn.execute(f"UPDATE campaigns {edit}")
    result = evening(["verify", "--against", str(kept)])
    assert result.exit_code == 1, result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "the campaigns table was edited" in result.stderr
    shown = json.loads(evening(["verify", "--against", str(kept), "--json"]).stdout)
    assert shown["ok"] is False
    [campaign] = shown["campaigns"]
    assert (campaign["matches"], campaign["chain_intact"]) == (False, True)
    assert "the campaigns table was edited" in campaign["problem"]


@pytest.mark.parametrize(("track", "delta"), [("mettle", -1), ("hp", 10**20), ("hp", 0)])
def test_a_track_change_no_command_logs_is_found(run, track, delta):
    run.ok("campaign new Iron --system gurps")
    run.ok("character add Mira --stat HT=11 --stat HP=10")
    run.ok("session start")
    run.ok("hp Mira -2 --cause 'a fall'")

    def forge(events):
        change = next(r for r in events if r["type"] == "TrackChanged")
        payload = payload_of(change)
        payload.update(track=track, delta=delta)
        change["payload"] = json.dumps(payload)
        return events

    rewrite(run.db, forge, snapshots=False)
    verify_fails(run, "event 4", "would not have logged it")


def test_a_character_added_under_a_taken_name_rehashed_is_found(evening):
    """`character add` refuses a name that reads as one in the campaign; verify names one a
    forger wrote in."""

    def twin(events):
        added = [e for e in events if e["type"] == "CharacterAdded"][1]
        payload = payload_of(added)
        payload["name"] = "W\u200bREN"
        added["payload"] = json.dumps(payload)
        return events

    rewrite(evening.db, twin)
    verify_fails(evening, "reads as 'Wren', a name already in the campaign")


def test_a_campaign_named_as_an_older_one_rehashed_is_found(evening):
    evening.ok("campaign new Other --system gloom")
    lookalike = "ASHES OF\u2060 VEYRA"

    def rename(events):
        created = [e for e in events if e["type"] == "CampaignCreated"][1]
        payload = payload_of(created)
        payload["name"] = lookalike
        created["payload"] = json.dumps(payload)
        return events

    rewrite(evening.db, rename)
    with sqlite3.connect(evening.db) as conn:
        conn.execute("DROP TRIGGER IF EXISTS campaigns_no_update")
        conn.execute("UPDATE campaigns SET name = ? WHERE name = 'Other'", (lookalike,))
    verify_fails(evening, "reads as 'Ashes of Veyra', a campaign made before it")


@pytest.mark.parametrize("value", ["1e400", "-1e400", "NaN", '"\\ud800"'])
def test_a_payload_no_json_writer_spells_is_named_never_a_traceback(evening, value):
    """A number past a float's range, NaN or a lone surrogate has no hash and no output: every
    reader names the event in one sentence, and `--json` never prints what is not JSON."""
    with sqlite3.connect(evening.db) as conn:
        conn.execute("DROP TRIGGER events_no_update")
        (version,) = conn.execute(
            "UPDATE events SET payload = ? WHERE type = 'NoteAdded' RETURNING version",
            (f'{{"text":{value},"tags":[]}}',),
        ).fetchone()
    verify_fails(evening, f"event {version}", "not JSON")
    # The log lists it, as it lists every event it cannot read.
    listed = evening.json("log --json")["events"][version - 1]
    assert listed["payload"] is None
    assert "holds a payload that is not JSON" in listed["unreadable"]
    assert "cannot read" in evening.ok("log").stdout
    # An export of it would not read back: refused, and a file given -o is left as it was.
    kept = evening.db.with_name("kept.jsonl")
    kept.write_text("yesterday's export\n")
    result = evening(["export", "events", "-o", str(kept)])
    assert result.exit_code == 1, result.output
    assert len(result.stderr.strip().splitlines()) == 1
    assert f"Event {version}" in result.stderr
    assert kept.read_text() == "yesterday's export\n"
    assert [p.name for p in kept.parent.iterdir() if "kept" in p.name] == ["kept.jsonl"]


def test_a_snapshot_row_of_no_shape_tracker_writes_is_named_and_dropped(evening):
    evening.ok("session end")
    with sqlite3.connect(evening.db) as conn:
        assert conn.execute("UPDATE snapshots SET version = 'abc'").rowcount >= 1
    verify_fails(evening, "snapshot cannot be read")
    assert evening("verify").exit_code == 0
    assert evening.json("status Wren")["mettle"] >= 0


def _payload_set(kind: str, **changes):
    def forge(events):
        event = next(r for r in events if r["type"] == kind)
        event["payload"] = json.dumps({**payload_of(event), **changes})
        return events

    return forge


@pytest.mark.parametrize(
    "extra",
    [{"big": 10**400}, {"junk": "x" * 500_000}],
    ids=["a number of 400 digits", "500 KB of junk"],
)
def test_a_payload_key_no_event_type_has_rehashed_is_found(evening, extra):
    """A key no field of its event's type holds was written by no command: verify names the
    event, and every other command answers, in one sentence where it needs that event."""
    rewrite(evening.db, _payload_set("NoteAdded", **extra))
    (key,) = extra
    (note,) = [r for r in rows(evening.db) if r["type"] == "NoteAdded"]
    verify_fails(evening, f"event {note['version']}", f"unknown field `{key}`")
    assert "cannot read" in evening.ok("log").stdout
    for command in ("status Wren", "roll Wren Grit --tag 1:gear --dice 15", "undo"):
        result = evening(command)
        assert result.exception is None or isinstance(result.exception, SystemExit), command
        assert result.exit_code == 1, command
        assert len(result.stderr.strip().splitlines()) == 1, command
        assert f"Event {note['version']}" in result.stderr, command


def test_an_event_larger_than_one_event_may_hold_rehashed_is_found(evening):
    """No command logs a payload past MAX_PAYLOAD: one written in is named, and the commands
    that read it go on answering."""
    rewrite(evening.db, _payload_set("NoteAdded", text="x" * 1_046_000))
    (note,) = [r for r in rows(evening.db) if r["type"] == "NoteAdded"]
    verify_fails(evening, f"event {note['version']}", f"more than the {MAX_PAYLOAD:,}")
    assert evening.json("status Wren")["name"] == "Wren"
    evening.ok("log")


@pytest.mark.parametrize(
    ("kind", "changes", "words"),
    [
        ("MettleSpent", {"cost": -5}, "costs 1, or 2 strained, not -5"),
        ("MettleSpent", {"base": 2}, "costs 1 Mettle, not 2"),
        ("MettleSpent", {"action": "free-lunch"}, "'free-lunch' is no Mettle spend"),
        ("ThreatSpent", {"cost": 0}, "a soft spend costs 1 Threat, not 0"),
        ("ThreatAdded", {"amount": -3}, "1 or more, not -3"),
        ("StressChanged", {"delta": 0}, "a change of 0 stress"),
        ("CampaignCreated", {"tie_rule": "bogus"}, "--tie-rule is a Gloom setting"),
        ("CampaignCreated", {"threat_carries_over": True, "cinematic": True}, "--cinematic"),
    ],
)
def test_a_price_or_setting_no_command_logs_rehashed_is_found(glintlock, kind, changes, words):
    """Whatever the campaign's state, no command logs these numbers: a forger who rehashed the
    chain is found by verify, and an export of the forgery is refused by import."""
    glintlock.ok("session start")
    glintlock.ok("roll Tomas Wits --tag 1:gear --dice 15")  # a weak hit: Mettle for Tomas
    glintlock.ok("spend Tomas steel-yourself")
    glintlock.ok("threat add 2 --reason 'the dark'")
    glintlock.ok("threat spend soft --note 'a noise'")
    glintlock.ok("stress Tomas +1 --cause 'the noise'")
    assert glintlock("verify").exit_code == 0
    rewrite(glintlock.db, _payload_set(kind, **changes), snapshots=False)
    verify_fails(glintlock, words)
    dump = glintlock.db.with_name("forged.jsonl")
    glintlock.ok(f"export events -o {dump}")
    copy = glintlock.db.with_name("copy.db")
    result = glintlock(["--db", str(copy), "import", str(dump)])
    assert result.exit_code == 2, result.output
    assert words in result.stderr


@pytest.mark.parametrize(
    ("system", "changes", "words"),
    [
        ("gloom", {"stress_limit": -1}, "--stress-limit is 1 to 20, not -1"),
        ("gloom", {"tie_rule": "bogus"}, "--tie-rule must be stat or defender"),
        ("gurps", {"tech_level": 99}, "A tech level is 0 to 12, not 99"),
        # A setting is stored as whatever its JSON is: one of another kind or a name no system
        # declares is held to the declaration.
        ("gurps", {"tech_level": "3"}, "--tech-level is a whole number, not '3'"),
        ("gurps", {"cinematic": "yes"}, "--cinematic is yes or no, not 'yes'"),
        ("gurps", {"weather": "fog"}, "GURPS does not use it"),
    ],
)
def test_a_setting_no_command_logs_rehashed_is_found(run, system, changes, words):
    run.ok(f"campaign new Forged --system {system}")
    if system == "gurps":
        run.ok("campaign set --tech-level 3")
    kind = "CampaignSettingsChanged" if system == "gurps" else "CampaignCreated"
    rewrite(run.db, _payload_set(kind, **changes), snapshots=False)
    verify_fails(run, words)


def test_a_campaign_row_removed_or_added_alone_is_found(evening):
    """Without its row a campaign's log is listed by no command; a row without a log is a
    campaign that never began. verify walks the events table, not only the campaigns'."""
    with sqlite3.connect(evening.db) as conn:
        [(campaign_id,)] = conn.execute("SELECT campaign_id FROM campaigns").fetchall()
    with sqlite3.connect(evening.db) as conn:
        conn.execute("DROP TRIGGER IF EXISTS campaigns_no_delete")
        conn.execute("DELETE FROM campaigns")
    stderr = verify_fails(evening, f"campaign {campaign_id}", "belong to no campaign")
    assert len(stderr.strip().splitlines()) == 1
    result = evening("verify --json")
    assert result.exit_code == 1
    shown = json.loads(result.stdout)
    assert shown["ok"] is False
    assert [c["events"] for c in shown["campaigns"]] == [evening.event_count()]
    with sqlite3.connect(evening.db) as conn:
        conn.execute(
            "INSERT INTO campaigns VALUES (?, 'Ashes of Veyra', 'glintlock', '2026-01-01')",
            (campaign_id,),
        )
        conn.execute("INSERT INTO campaigns VALUES ('x', 'Empty', 'gloom', '2026-01-02')")
    verify_fails(evening, "Empty", "has no events, not even its creation")


@pytest.mark.parametrize(
    ("forgery", "words"),
    [
        ("blank id", "its id is blank"),
        ("salted in public", "public but salted as only a secret event is"),
        ("no time zone", "says no time zone"),
    ],
)
def test_an_envelope_no_release_writes_rehashed_is_found(evening, forgery, words):
    """A secret roll turned public keeps the salt only a secret event carries; every release
    stamps its times in UTC with the offset, and gives each event an id."""
    evening.ok("roll Wren Grit --tag 1:gear --secret --dice 9")

    def forge(events):
        secret = next(r for r in events if r["visibility"] == "gm")
        if forgery == "blank id":
            secret["event_id"] = " "
        elif forgery == "salted in public":
            secret["visibility"] = "public"
        else:
            secret["recorded_at"] = secret["recorded_at"][:19]
        return events

    rewrite(evening.db, forge, snapshots=False)
    verify_fails(evening, words)


@pytest.mark.parametrize(
    "edit",
    [
        "UPDATE snapshots SET state = json_set(state, '$.revoked', json('[1]'))",
        "UPDATE snapshots SET state = substr(state, 1, length(state) - 1) || ',\"zz\":' || "
        "replace(hex(zeroblob(5000)), '00', '[') || replace(hex(zeroblob(5000)), '00', ']') || '}'",
        "UPDATE snapshots SET state = json_set(state, '$.characters', json('[]')) "
        "WHERE projection = 'session-start'",
    ],
    ids=["revoked-not-text", "nested-past-reading", "characters-lost"],
)
def test_a_snapshot_that_reads_but_cannot_take_the_log_is_folded_anew(glintlock, edit):
    """A stored state that parses yet is none tracker wrote (an id that is not text, nesting
    past what a parser follows, a character lost before later events name them) never crashes
    a command: the cache is forgotten, the log folded, and verify ends clean."""
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --dice 12")
    glintlock.ok("undo")
    glintlock.ok("redo")
    before = glintlock.json("status --json")
    with sqlite3.connect(glintlock.db) as conn:
        assert conn.execute(edit).rowcount >= 1
        conn.execute("DELETE FROM snapshots WHERE projection = 'campaign-refolded'")
    for command in ("status --json", "status --player-view --json", "log --json"):
        result = glintlock(command)
        assert result.exit_code == 0, (command, result.output)
    assert glintlock.json("status --json") == before
    glintlock.ok("undo")
    glintlock.ok("roll Tomas Wits --tag 1:gear --dice 15")
    first = glintlock("verify")
    assert first.exit_code in (0, 1), first.output
    assert glintlock("verify").exit_code == 0


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("$.system", "gloom"),
        ("$.system", "nosuch"),
        ("$.name", "Another"),
        ("$.characters[0].skills", '{"Stealth": "12"}'),
    ],
    ids=["another-system", "no-such-system", "another-name", "a-skill-as-text"],
)
def test_a_snapshot_edited_to_mislead_a_decision_never_reaches_the_log(run, field, value):
    """A stored state naming another rule system than the campaign's row, or holding a value of
    a kind no fold gives, would have a command decide by the wrong rules (and log what they
    give for good) or crash: it is passed over, the log folded, and the roll decided right."""
    run.ok("campaign new Hidden --system gurps")
    run.ok("character add Ann --stat DX=10 --stat IQ=10 --skill Stealth=12")
    run.ok("session start")
    with sqlite3.connect(run.db) as conn:
        kind = "json(?)" if value.startswith("{") else "?"
        changed = conn.execute(
            f"UPDATE snapshots SET state = json_set(state, '{field}', {kind}) "
            "WHERE projection = 'session-start'",
            (value,),
        ).rowcount
    assert changed == 1
    assert run.json("status --json")["system"] == "gurps"
    rolled = run.json("roll Ann Stealth --dice 3,3,3 --json")
    assert rolled["effective"] == 12
    first = run("verify")
    assert first.exit_code in (0, 1), first.output
    assert run("verify").exit_code == 0


@pytest.mark.parametrize(
    ("forge", "words"),
    [
        (_payload_set("NoteAdded", text="  "), "a note without text"),
        (
            lambda events: [
                *events,
                {
                    **events[-1],
                    "event_id": "00000000-0000-4000-8000-0000000000ee",
                    "version": events[-1]["version"] + 1,
                    "position": events[-1]["position"] + 1,
                    "type": "CampaignSettingsChanged",
                    "character_id": None,
                    "payload": json.dumps({"note": None}),
                },
            ],
            "changes no setting",
        ),
    ],
    ids=["blank-note", "no-setting"],
)
def test_a_note_or_setting_change_no_command_logs_rehashed_is_found(evening, forge, words):
    rewrite(evening.db, forge, snapshots=False)
    verify_fails(evening, words)


def import_refused(run, *words: str) -> None:
    """An export of the forged log is refused whole by an import into an empty database."""
    dump = run.db.with_name("forged.jsonl")
    run.ok(f"export events -o {dump}")
    copy = run.db.with_name("copy.db")
    result = run(["--db", str(copy), "import", str(dump)])
    assert result.exit_code == 2, result.output
    assert "nothing was imported" in result.stderr, result.stderr
    for word in words:
        assert word in result.stderr, result.stderr
    with sqlite3.connect(copy) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (0,)


def one_sentence(run, command: str) -> str:
    """``command`` on the forged database: refused in one sentence, never a traceback."""
    result = run(command)
    assert result.exit_code == 1, (command, result.output, result.exception)
    assert isinstance(result.exception, SystemExit), (command, result.exception)
    assert len(result.stderr.strip().splitlines()) == 1, (command, result.stderr)
    return result.stderr


def _roll_for_a_stranger(events):
    roll = next(r for r in events if r["type"] == "RollMade")
    payload = payload_of(roll)
    payload["character_id"] = roll["character_id"] = "00000000-0000-4000-8000-0000000000aa"
    roll["payload"] = json.dumps(payload)
    return events


def _undo_of_the_creation(events):
    undo = next(r for r in events if r["type"] == "EventsRevoked")
    undo["payload"] = json.dumps({**payload_of(undo), "event_ids": [events[0]["event_id"]]})
    return events


@pytest.mark.parametrize(
    ("forge", "version", "words"),
    [
        (_roll_for_a_stranger, 5, "its character would not exist"),
        (_undo_of_the_creation, 8, "no undo takes back (CampaignCreated)"),
    ],
    ids=["a roll for a character never added", "an undo of the campaign's creation"],
)
def test_a_log_no_fold_can_take_is_named_and_every_other_command_says_one_sentence(
    evening, forge, version, words
):
    """A rehashed log that no fold can take (a roll for a character the campaign never added,
    an undo of the campaign's creation) is named by verify and refused by import; every
    command that reads the campaign says so in one sentence instead of a traceback, and the
    log still lists what it holds."""
    evening.ok("undo")
    rewrite(evening.db, forge, snapshots=False)
    logged = len(rows(evening.db))
    named = verify_fails(evening, f"event {version}", words)
    assert len(named.strip().splitlines()) == 1, named  # that event alone
    import_refused(evening)
    for command in ("status", "status Wren --json", "roll Tomas Wits --tag 1:gear", "undo"):
        assert "run `tracker verify`" in one_sentence(evening, command)
    assert "The shelves groan" in evening("log").stdout
    assert "tracker verify" in one_sentence(evening, "log")
    assert len(rows(evening.db)) == logged  # nothing was appended


def _first(events: list[dict], kind: str) -> tuple[dict, dict]:
    event = next(r for r in events if r["type"] == kind)
    return event, payload_of(event)


def _gurps_skill_15(events):
    """Lockpicking 12 on the sheet, rolled 5+5+5: a failure a base of 15 makes a success."""
    from tracker.systems.gurps.rules.success import decide_roll

    roll, payload = _first(events, "RollMade")
    payload["inputs"]["base"] = 15
    payload["result"] = decide_roll(15, [], tuple(payload["dice"])).to_dict()
    roll["payload"] = json.dumps(payload)
    return events


def _gurps_will_13(events):
    """A Fright Check against Will 13 where the sheet says 12: 6+4+3 fails the one and passes
    the other."""
    from tracker.systems.gurps.rules.success import decide_roll

    fright, payload = _first(events, "FrightChecked")
    payload["inputs"]["will"] = payload["result"]["will"] = 13
    roll = payload["result"]["roll"]
    payload["result"]["roll"] = decide_roll(13, [], tuple(roll["dice"])).to_dict()
    payload["result"]["table"], payload["effects"] = None, []
    fright["payload"] = json.dumps(payload)
    return events


def _glintlock_stat_6(events):
    """Grit 3 on Wren's sheet, rolled at 6, the outcome and its Mettle and Threat to match."""
    from tracker.systems.glintlock import rules

    roll, payload = _first(events, "RollMade")
    inputs = {**payload["inputs"], "stat": 6}
    decided = rules.decide(
        6,
        payload["dice"],
        trained=inputs["trained"],
        tags=[rules.Tag(t["value"], t["kind"]) for t in inputs["tags"]],
        stress=inputs["stress"],
        bonus=inputs["bonus"],
        position_steps=inputs["position_steps"],
    )
    moves = [("mettle", decided.mettle_delta), ("threat", decided.threat_delta)]
    payload.update(
        inputs=inputs,
        result=decided.to_dict(),
        effects=[{"track": track, "delta": delta} for track, delta in moves if delta],
    )
    roll["payload"] = json.dumps(payload)
    return events


def _glintlock_unstressed(events):
    """Tomas rolls as if the stress he carries were not there."""
    roll, payload = [(r, payload_of(r)) for r in events if r["type"] == "RollMade"][-1]
    payload["inputs"]["stress"] = payload["result"]["stress"] = 0
    roll["payload"] = json.dumps(payload)
    return events


def _gloom_rank_19(events):
    """Hacking 16 on Kade's sheet: an 18 overshoots it, and a rank of 19 makes it a success."""
    from tracker.systems.gloom import rules

    roll, payload = _first(events, "RollMade")
    payload["inputs"]["rank"] = 19
    payload["result"] = rules.decide(19, 5, tuple(payload["dice"])).to_dict()
    roll["payload"] = json.dumps(payload)
    return events


def _gloom_side_rank_19(events):
    """Kade's side of a contest at rank 19 where his sheet says 16."""
    from tracker.systems.gloom import rules

    contest, payload = _first(events, "ContestRolled")
    side, other = payload["a"], payload["b"]
    side["inputs"]["rank"] = 19
    a = rules.decide(19, 0, tuple(side["result"]["dice"]))
    b = rules.decide(other["result"]["rank"], 0, tuple(other["result"]["dice"]))
    decided = rules.decide_contest(a, b, tie_rule=payload["result"]["tie_rule"])
    side["result"] = a.to_dict()
    payload.update(winner=decided.winner, result=decided.to_dict())
    contest["payload"] = json.dumps(payload)
    return events


ROLLS = ("RollMade", "FrightChecked", "ContestRolled")
SHEETS = {
    "gurps": [
        "campaign new Salt --system gurps",
        "character add Mira --stat IQ=12 --stat DX=12 --stat HT=11 --skill Lockpicking=12",
        "session start",
    ],
    "glintlock": [
        "campaign new Ashes --system glintlock",
        "character add Wren --stat Grit=3 --stat Wits=2",
        "character add Tomas --stat Grit=2 --stat Wits=4",
        "session start",
    ],
    "gloom": [
        "campaign new Neon --system gloom",
        "character add Kade --stat Mind=15 --skill Hacking=16",
        "session start",
    ],
}


@pytest.mark.parametrize(
    ("system", "play", "forge", "words"),
    [
        (
            "gurps",
            "roll Mira Lockpicking --dice 5,5,5",
            _gurps_skill_15,
            "Lockpicking from a base of 15 where Mira's sheet gives 12",
        ),
        (
            "gurps",
            "fright Mira --dice 6,4,3 --table-dice 1,1,1",
            _gurps_will_13,
            "Will from a base of 13 where Mira's sheet gives 12",
        ),
        (
            "glintlock",
            "roll Wren Grit --tag 1:gear --dice 12",
            _glintlock_stat_6,
            "Grit at 6 where Wren's sheet gives 3",
        ),
        (
            "glintlock",
            "character update Wren --stat Grit=4\nroll Wren Grit --tag 1:gear --dice 12\nundo 5",
            _glintlock_stat_6,
            "Grit at 6 where Wren's sheet gives 4",
        ),
        (
            "glintlock",
            "stress Tomas +3 --cause 'the scribe'\n"
            "roll Tomas Wits --tag 1:gear --tag 1:power --dice 15",
            _glintlock_unstressed,
            "stress 0 where Tomas has 3",
        ),
        (
            "gloom",
            "roll Kade Hacking --dl 5 --dice 18",
            _gloom_rank_19,
            "Hacking at rank 19 where Kade's sheet gives 16",
        ),
        (
            "gloom",
            "contest Kade Hacking 'Corp netrunner' 14 --dice-a 18 --dice-b 5",
            _gloom_side_rank_19,
            "Hacking at rank 19 where Kade's sheet gives 16",
        ),
    ],
    ids=[
        "GURPS skill 15 on a sheet of 12",
        "GURPS Will 13 on a sheet of 12",
        "Glintlock stat 6 on a sheet of 3",
        "Glintlock stat 6 on a sheet of 4 undone since",
        "Glintlock stress left out",
        "Gloom rank 19 on a sheet of 16",
        "Gloom contest side at rank 19",
    ],
)
def test_a_roll_rehashed_from_another_sheet_is_found(run, system, play, forge, words):
    """A roll records its base (a skill, a stat, a rank, Will) and the state it was rolled in;
    a forger who raises them, decides the roll again to match and rehashes the chain has a roll
    that holds to its own inputs, but not to the character's sheet as it stood (a sheet change
    undone since included), which verify and import fold the log to read."""
    for command in [*SHEETS[system], *play.splitlines()]:
        run.ok(command)
    assert run("verify").exit_code == 0
    rewrite(run.db, forge, snapshots=False)
    rolled = next(r["version"] for r in rows(run.db) if r["type"] in ROLLS)
    verify_fails(run, f"event {rolled}", words)
    import_refused(run, words)


def _retired_roll(events):
    """Mira's roll, said to be Aldric's, who retired before it."""
    aldric = next(
        r["character_id"]
        for r in events
        if r["type"] == "CharacterAdded" and payload_of(r)["name"] == "Aldric"
    )
    roll, payload = _first(events, "RollMade")
    payload["character_id"] = roll["character_id"] = aldric
    roll["payload"] = json.dumps(payload)
    return events


@pytest.mark.parametrize(
    ("forge", "version", "words"),
    [
        (_payload_set("PointsAwarded", points=0), 7, "an award of 0 character points"),
        (_payload_set("RollBoughtUp", cost=0), 8, "costs 1 character point, not 0"),
        (
            _payload_set("RollBoughtUp", to_outcome="critical_success", cost=3),
            9,
            "it buys up from success, where that roll would stand at critical_success",
        ),
        (_retired_roll, 6, "Aldric would have retired from play at event 4"),
    ],
    ids=["points award 0", "a buy-up at no cost", "a buy-up past the roll", "a retired roller"],
)
def test_an_award_buy_up_or_roll_no_command_logs_rehashed_is_found(run, forge, version, words):
    """`points award` refuses an award under 1, a buy-up costs the rulebook's points from the
    outcome the roll stands at, and a retired character rolls no more: a forger who writes
    otherwise and rehashes the chain is found by verify, and refused by import."""
    run.ok("campaign new Salt --system gurps --cinematic")
    run.ok("character add Mira --stat IQ=12 --stat DX=12 --skill Lockpicking=12")
    run.ok("character add Aldric --stat IQ=14 --stat DX=11 --skill Lockpicking=12")
    run.ok("character retire Aldric")
    run.ok("session start")
    run.ok("roll Mira Lockpicking --dice 5,5,5")  # a failure
    run.ok("points award Mira 3")
    run.ok("spend Mira buy-up")  # to a success, for 1 point
    run.ok("spend Mira buy-up --to critical_success")
    assert run("verify").exit_code == 0
    rewrite(run.db, forge, snapshots=False)
    verify_fails(run, f"event {version} ", words)
    import_refused(run, words)


def test_an_event_recorded_before_the_one_before_it_rehashed_is_found(evening):
    """Every command stamps its events no earlier than the event before them (a look back to a
    time reads the log in order): one dated back and rehashed is named, and refused by import."""

    def backdated(events):
        note = next(r for r in events if r["type"] == "NoteAdded")
        note["recorded_at"] = "2020-01-01T00:00:00.000000+00:00"
        return events

    rewrite(evening.db, backdated, snapshots=False)
    verify_fails(evening, "event 7", "comes before", "when the event before it was recorded")
    import_refused(evening, "comes before")


def test_a_command_never_dates_an_event_before_the_one_before_it(evening):
    """A clock behind the log's last time (set back, or another machine's on a shared server)
    stamps a command's event at that time instead, so an honest log verifies."""
    from datetime import UTC, datetime, timedelta

    from tracker.app.tracker import Tracker
    from tracker.events import NewEvent

    ahead = (datetime.now(UTC) + timedelta(hours=1)).isoformat(timespec="microseconds")
    tracker = Tracker(str(evening.db))
    row = tracker.campaign()
    head = tracker.store.head(row.campaign_id).version
    later = NewEvent("NoteAdded", {"text": "from a clock ahead"}, session_id=1, recorded_at=ahead)
    tracker.store.append(row.campaign_id, [later], head)
    tracker.close()
    evening.ok("note 'from a clock behind'")
    assert rows(evening.db)[-1]["recorded_at"] == ahead
    assert evening("verify").exit_code == 0


def _quick_side_at(base: int | None, score: int):
    """Vora's side of the quick contest, its inputs' base made ``base`` (None: as logged) and
    the score it rolled against ``score``, its outcome decided again to match."""

    def forge(events):
        from tracker.systems.gurps.rules.success import decide_roll

        contest = [r for r in events if r["type"] == "ContestRolled"][-1]
        payload = payload_of(contest)
        side = payload["a"]
        if base is not None:
            side["inputs"]["base"] = base
            side["inputs"]["effective"] = base - 2
        side["result"] = decide_roll(score, [], tuple(side["result"]["dice"])).to_dict()
        contest["payload"] = json.dumps(payload)
        return events

    return forge


@pytest.mark.parametrize(
    ("forge", "words"),
    [
        (_quick_side_at(18, 16), "Broadsword from a base of 18 where Vora's sheet gives 16"),
        (_quick_side_at(None, 16), "Vora rolls against 16 where its inputs give 14"),
    ],
    ids=["a side's base raised", "a side's score raised"],
)
def test_a_contest_side_rolls_against_what_its_sheet_and_inputs_give(run, forge, words):
    """A contest side records its sheet's base and the modifiers given, and rolls against the
    effective skill they make (normalised, in a regular contest, so the lower score is 10): an
    honest evening of both verifies, and a side whose base or score was raised is named."""
    run.ok("campaign new Salt --system gurps")
    run.ok("character add Vora --stat DX=14 --stat IQ=10 --skill Broadsword=16")
    run.ok("session start")
    # 16 against 15 is rolled as 11 against 10: 6+6+3 fails both, and the contest goes on.
    run.ok("contest Vora Broadsword Duellist 15 --mode regular --dice-a 6,6,3 --dice-b 6,6,3")
    run.ok("contest Vora Broadsword Guard 12 --mod-a -2:footing --dice-a 4,4,4 --dice-b 5,5,5")
    assert run("verify").exit_code == 0
    rewrite(run.db, forge, snapshots=False)
    verify_fails(run, "event 5", words)
    import_refused(run, words)
