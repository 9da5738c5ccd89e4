"""A hostile or damaged export is refused whole: one sentence naming the line, exit 2, and the
database left as it was (empty, and usable), never a traceback.

Each case below starts from a real export of a short evening. Where a case changes an event,
every hash after it and the header's heads are recomputed, as a careful forger would: the chain
then checks out, and only reading, upcasting and folding every event before committing can
find what is wrong.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner
from conftest import Run

from tracker.events.envelope import (
    GENESIS_HASH,
    MAX_LINE,
    MAX_PAYLOAD,
    chain_fields,
    event_hash,
)


@pytest.fixture
def export(glintlock, tmp_path):
    glintlock.ok("session start")
    glintlock.ok("roll Wren Grit --tag 1:gear --dice 15")
    glintlock.ok("stress Tomas +2 --cause 'the scribe'")
    glintlock.ok("undo")
    glintlock.ok("note 'The shelves groan.'")
    path = tmp_path / "evening.jsonl"
    glintlock.ok(f"export events -o {path}")
    return path


def lines_of(path) -> tuple[dict, list[dict]]:
    header, *events = path.read_text(encoding="utf-8").splitlines()
    return json.loads(header), [json.loads(e) for e in events]


def written(path, header: dict, events: list[dict], *, rehash: bool = True) -> bytes:
    """The export as a forger writes it back: every chain and the header recomputed."""
    if rehash:
        prev: dict[str, str] = {}
        for event in events:
            cid = event["campaign_id"]
            event["prev_hash"] = prev.get(cid, GENESIS_HASH)
            fields = {k: v for k, v in event.items() if k not in ("position", "hash")}
            event["hash"] = event_hash(chain_fields(**fields))
            prev[cid] = event["hash"]
        header = {**header, "campaigns": prev, "events": len(events)}
    text = "\n".join(json.dumps(x, ensure_ascii=False) for x in [header, *events]) + "\n"
    return text.encode("utf-8")


def edited(path, change) -> bytes:
    header, events = lines_of(path)
    change(events)
    return written(path, header, events)


def import_refused(tmp_path, data: bytes, *words: str) -> None:
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_bytes(data)
    target = Run(tmp_path / "target.db", CliRunner())
    result = target(f"import {hostile}")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == 2, result.output
    assert "nothing was imported" in result.stderr or "not a tracker" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    for word in words:
        assert word in result.stderr, result.stderr
    with sqlite3.connect(target.db) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM campaigns").fetchone() == (0,)
    # The database is as it was: empty and usable.
    target.ok("campaign new Fresh --system gloom")
    assert target("verify").exit_code == 0


def note_line(events: list[dict]) -> dict:
    return next(e for e in events if e["type"] == "NoteAdded")


def test_the_export_itself_imports(export, tmp_path):
    target = Run(tmp_path / "target.db", CliRunner())
    target.ok(f"import {export}")
    assert target("verify").exit_code == 0
    # And so does the forger's rewrite of an unchanged export: the helper is honest.
    again = tmp_path / "again.jsonl"
    again.write_bytes(edited(export, lambda events: None))
    other = Run(tmp_path / "other.db", CliRunner())
    other.ok(f"import {again}")


def test_a_payload_that_is_a_list_or_a_string(export, tmp_path):
    def as_list(events):
        note_line(events)["payload"] = ["The shelves groan."]

    import_refused(tmp_path, edited(export, as_list), "line")
    (tmp_path / "target.db").unlink()

    def as_string(events):
        note_line(events)["payload"] = "The shelves groan."

    import_refused(tmp_path, edited(export, as_string), "line")


def test_a_schema_version_from_the_future(export, tmp_path):
    def newer(events):
        note_line(events)["schema_version"] = 99

    import_refused(tmp_path, edited(export, newer), "line")


def test_an_event_for_a_character_never_created(export, tmp_path):
    def stranger(events):
        roll = next(e for e in events if e["type"] == "RollMade")
        roll["character_id"] = roll["payload"]["character_id"] = (
            "00000000-0000-4000-8000-00000000beef"
        )

    import_refused(tmp_path, edited(export, stranger), "line 6", "character")


def test_an_export_cut_at_a_line_boundary(export, tmp_path):
    data = export.read_bytes().splitlines(keepends=True)
    import_refused(tmp_path, b"".join(data[:-2]), "cut short")


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("bytes that are not UTF-8", b'"\xff\xfe"'),
        ("a lone surrogate", b'"\\ud800"'),
        ("nesting 10,000 deep", b"[" * 10_000 + b"]" * 10_000),
        ("a line of two megabytes", b'"' + b"x" * (2 << 20) + b'"'),
    ],
)
def test_text_that_is_not_an_event(export, tmp_path, name, bad):
    data = export.read_bytes().replace(b'"The shelves groan."', bad)
    import_refused(tmp_path, data, "line")


@pytest.mark.parametrize(
    "extra",
    [{"big": 10**400}, {"junk": "x" * 500_000}],
    ids=["a number of 400 digits", "500 KB of junk"],
)
def test_a_payload_key_no_event_type_has(export, tmp_path, extra):
    """No command writes a key its event's type has no field for: one is refused, by name,
    rather than hashed and kept where no reader looks."""
    header, events = lines_of(export)
    note = note_line(events)
    note["payload"].update(extra)
    (key,) = extra
    line = events.index(note) + 2
    import_refused(tmp_path, written(export, header, events), f"line {line}", f"`{key}`")


def test_an_effect_key_no_effect_has(export, tmp_path):
    header, events = lines_of(export)
    roll = next(e for e in events if e["type"] == "RollMade")
    roll["payload"]["effects"][0]["junk"] = 1
    line = events.index(roll) + 2
    import_refused(tmp_path, written(export, header, events), f"line {line}", "`junk`")


def test_an_event_larger_than_one_event_may_hold(export, tmp_path):
    """No command logs a payload past MAX_PAYLOAD, though its line may fit an export's."""
    header, events = lines_of(export)
    note = note_line(events)
    note["payload"]["text"] = "x" * 1_046_000
    line = events.index(note) + 2
    data = written(export, header, events)
    assert max(len(text) for text in data.splitlines()) < MAX_LINE
    import_refused(tmp_path, data, f"line {line}", f"more than the {MAX_PAYLOAD:,}")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("position", 10**30),
        ("session_id", 10**30),
        ("version", -1),
        ("recorded_at", "yesterday"),
        ("visibility", "everyone"),
        ("event_id", "x" * 500),
    ],
)
def test_fields_out_of_bounds(export, tmp_path, field, value):
    def odd(events):
        note_line(events)[field] = value

    import_refused(tmp_path, edited(export, odd), "line")


def test_a_first_line_that_is_no_header(export, tmp_path):
    data = export.read_bytes().splitlines(keepends=True)
    import_refused(tmp_path, b"".join(data[1:]), "not a tracker events export")
    (tmp_path / "target.db").unlink()
    import_refused(tmp_path, b'{"format": "tracker-events/1"}\n' + b"".join(data[1:]), "damaged")


@pytest.mark.parametrize("change", ["no outcome", "another outcome", "more Mettle"])
def test_a_roll_the_rules_would_not_have_decided(export, tmp_path, change):
    def forge(events):
        roll = next(e for e in events if e["type"] == "RollMade")
        if change == "no outcome":
            del roll["payload"]["result"]["outcome"]
        elif change == "another outcome":
            roll["payload"]["result"]["outcome"] = "strong_hit"
        else:
            roll["payload"]["effects"].append({"track": "mettle", "delta": 5})

    import_refused(tmp_path, edited(export, forge), "line 6")


@pytest.mark.parametrize(
    ("field", "value"), [("name", ""), ("name", "x" * 5000), ("stats", {"Grit": 2**62})]
)
def test_a_sheet_the_command_line_would_refuse(export, tmp_path, field, value):
    def odd(events):
        added = next(e for e in events if e["type"] == "CharacterAdded")
        added["payload"][field] = value

    import_refused(tmp_path, edited(export, odd), "line 3")


def added_lines(events: list[dict]) -> list[dict]:
    return [e for e in events if e["type"] == "CharacterAdded"]


@pytest.mark.parametrize(
    "name",
    ["Wren", "WREN", "\uff37\uff52\uff45\uff4e", "Wr\u200ben", "Wr\u200den", "Wren\ufe0f"],
    ids=["the same", "in capitals", "full-width", "a zero-width space", "a joiner", "a selector"],
)
def test_a_character_named_as_one_already_in_the_campaign(export, tmp_path, name):
    """`character add` refuses a name that reads as one taken; so does an import."""
    header, events = lines_of(export)
    second = added_lines(events)[1]
    second["payload"]["name"] = name
    line = events.index(second) + 2
    import_refused(
        tmp_path, written(export, header, events), f"line {line}", "a name already in the campaign"
    )


def test_a_character_added_under_another_ones_id(export, tmp_path):
    header, events = lines_of(export)
    first, second = added_lines(events)[:2]
    second["payload"]["character_id"] = second["character_id"] = first["character_id"]
    line = events.index(second) + 2
    import_refused(
        tmp_path, written(export, header, events), f"line {line}", "whose id another character"
    )


def _appended(events: list[dict], copy: dict, **changes) -> None:
    last = events[-1]
    events.append({**copy, "position": last["position"] + 1, "version": last["version"] + 1})
    events[-1].update(changes)


def test_a_campaign_created_a_second_time(export, tmp_path):
    header, events = lines_of(export)
    _appended(events, events[0], event_id="00000000-0000-4000-8000-00000000c0de")
    import_refused(
        tmp_path,
        written(export, header, events),
        f"line {len(events) + 1}",
        "creates its campaign a second time",
    )


def test_an_event_id_given_twice(export, tmp_path):
    """Caught by the database's keys, not by a line: still one sentence, and nothing imported."""
    header, events = lines_of(export)
    _appended(events, note_line(events))
    import_refused(tmp_path, written(export, header, events), "holds an event or a campaign twice")


def test_a_second_campaign_whose_name_reads_as_the_first(export, tmp_path):
    header, events = lines_of(export)
    created = events[0]
    events.append(
        {
            **created,
            "position": events[-1]["position"] + 1,
            "campaign_id": "00000000-0000-4000-8000-0000000ca111",
            "event_id": "00000000-0000-4000-8000-0000000ca112",
            "payload": {**created["payload"], "name": created["payload"]["name"].upper()},
        }
    )
    import_refused(tmp_path, written(export, header, events), f"line {len(events) + 1}", "read as")
