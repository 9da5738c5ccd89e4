"""Declared commands run by name with a form's values (``tracker.app.actions``): the same
handlers as the command line, the same refusals, nothing appended on one."""

from __future__ import annotations

import pytest

from tracker.app.actions import declaration, declarations, perform
from tracker.app.tracker import Tracker
from tracker.errors import BadInput, Refused, TrackerError


@pytest.fixture
def table(glintlock) -> Tracker:
    glintlock.ok("session start")
    return Tracker(str(glintlock.db))


def head(t: Tracker) -> int:
    return t.store.head(t.campaign().campaign_id).version


def test_a_roll_from_a_form_is_the_roll_the_command_line_logs(table, glintlock):
    done = perform(
        table, ("roll",), {"character": "wren", "trait": "grit", "tags": ["1:gear"], "dice": "15"}
    )
    cli = glintlock.json("roll Wren Grit --tag 1:gear --dice 15")
    for key in ("character", "trait", "effective", "dice", "kept", "outcome", "position"):
        assert done.doc[key] == cli[key]
    assert [e.type for e in done.events] == ["RollMade"]


@pytest.mark.parametrize(
    ("values", "error"),
    [
        ({"character": "Wren", "trait": "Grit", "bogus": "1"}, BadInput),
        ({"character": "Wren"}, BadInput),
        ({"character": "Nobody", "trait": "Grit"}, Refused),
        ({"character": "Wren", "trait": "Grit", "dice": "25"}, BadInput),
        ({"character": "Wren", "trait": "Grit", "tags": ["x"] * 100}, BadInput),
        ({"character": "Wren", "trait": "Grit", "override": "maybe"}, BadInput),
        ({"character": "Wren", "trait": "Grit", "mods": ["-2"]}, BadInput),
    ],
)
def test_a_refused_form_appends_nothing(table, values, error):
    before = head(table)
    with pytest.raises(error) as raised:
        perform(table, ("roll",), values)
    assert "\n" not in str(raised.value)
    assert head(table) == before


def test_undo_and_redo_say_what_they_take_back_before_they_do(table):
    done = perform(table, ("stress",), {"character": "Tomas", "change": "+2"})
    state = table.state()
    assert [e.event_id for e in table.history.next_undo(state)] == [done.events[0].event_id]
    perform(table, ("undo",), {})
    state = table.state()
    assert [e.event_id for e in table.history.next_redo(state)] == [done.events[0].event_id]
    perform(table, ("redo",), {})
    assert table.history.next_redo(table.state()) == []


def test_undo_takes_what_the_command_line_takes_from_one_declaration(table):
    from tracker.app.declared import UNDO
    from tracker.cli.history import undo

    assert [p.name for p in undo.params][:4] == ["event", *(o.name for o in UNDO.options)]
    played = [perform(table, ("stress",), {"character": "Tomas", "change": "+1"}) for _ in "ab"]
    done = perform(table, ("undo",), {"session": table.state().current_session})
    assert [r["event_id"] for r in done.doc["revoked"]] == [p.events[0].event_id for p in played]
    with pytest.raises(BadInput):
        perform(table, ("undo",), {"event": "1", "session": 1})


def test_a_campaign_offers_its_systems_commands_and_its_options_only(table):
    rules = table.state().rules
    paths = [c.path for c in declarations(rules)]
    assert ("threat", "spend") in paths
    assert ("session", "end") in paths
    roll = declaration(rules, ("roll",))
    names = {o.name for o in roll.options}
    assert {"tags", "trained", "secret", "dice"} <= names
    assert "mods" not in names  # GURPS's, not this campaign's
    with pytest.raises(TrackerError):
        declaration(rules, ("verify",))


def test_a_session_ends_and_starts_from_a_form(table):
    ended = perform(table, ("session", "end"), {})
    assert [e.type for e in ended.events] == ["SessionEnded"]
    started = perform(table, ("session", "start"), {"title": "Below"})
    assert started.doc["title"] == "Below"
    with pytest.raises(Refused):
        perform(table, ("session", "start"), {})


@pytest.mark.parametrize(
    ("path", "change", "said"),
    [
        (("stress",), "two", "Give the stress change as +N or -N, not 'two'."),
        (("stress",), "+", "Give the stress change as +N or -N, not '+'."),
        (("stress",), "1.5", "Give the stress change as +N or -N, not '1.5'."),
    ],
)
def test_a_change_is_read_in_one_place_and_refused_in_the_same_words_everywhere(
    table, glintlock, path, change, said
):
    before = head(table)
    with pytest.raises(BadInput) as raised:
        perform(table, path, {"character": "Tomas", "change": change})
    assert str(raised.value) == said
    typed = glintlock([*path, "Tomas", change])
    assert typed.exit_code == 2
    assert typed.stderr.startswith(f"Error: {said} See `")
    assert head(table) == before
    # "+2" and "2" alike add; "-1" takes away.
    assert perform(table, path, {"character": "Tomas", "change": "2"}).doc["after"] == 2
    assert glintlock.json("stress Tomas -1")["after"] == 1


def test_a_session_and_a_campaign_are_the_same_from_a_form_and_the_command_line(tmp_path):
    """`session start`, `session end` and `campaign use` have one binding each: a form's
    document is the command line's `--json` (the scripting contract's), and each logs the
    same events; only the clock and the campaign's id differ between two databases."""
    from click.testing import CliRunner

    from tracker.testing import Run

    tables = {}
    for door in ("cli", "form"):
        run = Run(tmp_path / f"{door}.db", CliRunner())
        run.ok('campaign new "Neon Drift" --system gloom')
        run.ok('campaign new "Ashes of Veyra" --system glintlock')
        run.ok("session start")
        # Threat at 4 owes a spend: it lapses with the session and is owed again at its start.
        run.ok("threat add 4")
        tables[door] = run
    steps = [
        (("session", "end"), {}),
        (("session", "start"), {"title": "Below the archive"}),
        (("campaign", "use"), {"name": "Neon Drift"}),
    ]
    typed = tables["cli"]
    form = Tracker(str(tables["form"].db))
    docs = {}
    for path, values in steps:
        flags = [w for k, v in values.items() for w in (f"--{k}", v)]
        line = [*path, *(list(values.values()) if path[0] == "campaign" else flags)]
        before = typed.event_count()
        cli = typed.json(line)
        done = perform(form, path, values)
        assert masked(done.doc) == masked(cli), path
        logged = [(e.type, e.payload) for e in done.events]
        assert logged == stored_since(typed, before), path
        docs[path] = cli
    assert [o["kind"] for o in docs["session", "end"]["obligations_discharged"]] == ["threat-floor"]
    assert [o["kind"] for o in docs["session", "start"]["obligations_opened"]] == ["threat-floor"]
    assert cli["name"] == "Neon Drift"
    assert form.campaign().name == "Neon Drift"


def masked(doc):
    """A document without what differs between two databases played alike: the clock, the
    ids of the campaign and its events, and the receipt that covers them."""
    if isinstance(doc, list):
        return [masked(v) for v in doc]
    if not isinstance(doc, dict):
        return doc
    varies = ("started_at", "ended_at", "campaign_id", "receipt", "opened_by", "discharged_by")
    return {k: "..." if k in varies else masked(v) for k, v in doc.items()}


def stored_since(run, count: int) -> list:
    """The events ``run``'s database logged after its first ``count``, as (type, payload)."""
    import json
    import sqlite3

    with sqlite3.connect(run.db) as conn:
        rows = conn.execute(
            "SELECT type, payload FROM events ORDER BY rowid LIMIT -1 OFFSET ?", (count,)
        ).fetchall()
    return [(t, json.loads(p)) for t, p in rows]


def test_the_console_offers_the_cores_commands_from_their_one_table(table):
    """The console's forms are the core's bindings in their order, less what the campaign's
    system cannot play (a Glintlock table has no contests), then the system's own."""
    from tracker.app.declared import BINDINGS

    paths = [c.path for c in declarations(table.state().rules)]
    core = [p for p in paths if p in BINDINGS]
    assert core == [p for p in BINDINGS if p != ("contest",)]
    assert paths[: len(core)] == core
    assert ("session", "end") in core
    assert ("campaign", "use") in core


@pytest.mark.parametrize("typed", ["12", "+3", " Hard ", "1_0", "\u0663"])
def test_a_difficulty_is_read_in_one_place_for_the_command_line_and_a_form(typed):
    """A DL typed at the command line and sent by a form reads the same: a whole number in
    ASCII digits, else a difficulty's name ("1_0" and an Arabic-Indic three are names, refused
    as such by the system, not numbers on one door and names on the other)."""
    from tracker.cli.options import Difficulty
    from tracker.systems.commands import Command, Option, taken

    declared = Command(("roll",), "A roll.", options=(Option("--dl", "A DL.", "difficulty"),))
    assert Difficulty().convert(typed, None, None) == taken(declared, {"dl": typed})["dl"]
