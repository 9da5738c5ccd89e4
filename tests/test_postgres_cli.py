"""Every command against a PostgreSQL server: `tracker --db postgresql+psycopg://...`.

One short evening per system, driven through the CLI as a GM types it, with physical dice so the
answers are known: rolls, a contest, the system's own economy (a fright check, Mettle and
Threat), undo and redo, status, obligations, a replay, the roll export, the whole-log export and
verify. Expected outcomes are the rulebook's, worked by hand as in the SQLite session tests. Then
an events export (from PostgreSQL, or from a SQLite file) imported into a fresh PostgreSQL
database exports again byte for byte, and a server that cannot be reached is one sentence.
"""

from __future__ import annotations

import csv
import io
import json
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import create_engine, text

from tracker.cli import cli
from tracker.events.envelope import GENESIS_HASH, StoredEvent, check_chain

# tests/pg.py: the pg_url and pg_database fixtures (a PostgreSQL server).
pytest_plugins = ("pg",)

SHEETS = Path(__file__).resolve().parent.parent / "fixtures" / "sheets"


@dataclass
class Db:
    """Runs ``tracker`` commands against one database (a URL or a path), as a user types them."""

    db: str
    runner: CliRunner

    def __call__(self, command: str | list[str], *, input: str | None = None) -> Result:
        args = shlex.split(command) if isinstance(command, str) else command
        return self.runner.invoke(cli, ["--db", self.db, *args], input=input)

    def ok(self, command: str | list[str], *, input: str | None = None) -> Result:
        result = self(command, input=input)
        assert result.exit_code == 0, (command, result.output, result.exception)
        return result

    def json(self, command: str | list[str]) -> dict:
        args = shlex.split(command) if isinstance(command, str) else command
        return json.loads(self.ok([*args, "--json"]).stdout)

    def event_count(self) -> int:
        engine = create_engine(self.db)
        try:
            with engine.connect() as conn:
                return conn.execute(text("SELECT count(*) FROM events")).scalar_one()
        finally:
            engine.dispose()


@pytest.fixture
def pg(pg_database) -> Db:
    """The CLI bound to a new, empty PostgreSQL database."""
    return Db(pg_database, CliRunner())


def refused(run: Db, command: str, words: str, code: int = 1) -> None:
    """The command is refused with one sentence on stderr, and nothing is appended."""
    before = run.event_count()
    result = run(command)
    assert result.exit_code == code, (command, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert words in lines[0]
    assert run.event_count() == before


def owed(run: Db) -> list[tuple[str, str | None]]:
    """The open obligations as (kind, character name or None)."""
    names = {c["character_id"]: c["name"] for c in run.json("status")["characters"]}
    return [
        (o["kind"], names.get(o["character_id"])) for o in run.json("obligations")["obligations"]
    ]


def after_the_evening(run: Db, rolls: list[tuple[str, str]]) -> list[dict]:
    """Replay, roll export, events export and verify agree with the log; return the events."""
    replay = run.json("replay 1")
    assert replay["session"] == 1
    assert replay["events"][0]["type"] == "SessionStarted"

    rows = list(csv.DictReader(io.StringIO(run.ok("export rolls --format csv").stdout)))
    assert [(r["character"], r["outcome"]) for r in rows] == rolls
    logged = run.json("log")["events"]
    assert {r["log_head"] for r in rows} == {logged[-1]["hash"]}

    lines = run.ok("export events").stdout.splitlines()
    header = json.loads(lines[0])
    events = [json.loads(line) for line in lines[1:]]
    assert header["events"] == len(events) == run.event_count()
    assert [e["position"] for e in events] == sorted(e["position"] for e in events)
    stored = [StoredEvent.from_dict(e) for e in events]
    assert stored[0].prev_hash == GENESIS_HASH
    assert check_chain(iter(stored)) is None
    assert list(header["campaigns"].values()) == [stored[-1].hash]

    verified = run.json("verify")
    assert verified["ok"] is True
    assert verified["campaigns"][0]["events"] == len(events)
    return events


def test_a_gloom_evening(pg):
    pg.ok("campaign new Neon --system gloom")
    for name in ("kade", "juno"):
        pg.ok(["character", "add", "--sheet", str(SHEETS / f"gloom-{name}.toml")])
    assert pg.json('session start --title "The relay"')["number"] == 1

    # Juno, Hacking 14 against DL 5: the window is 5-14; 12 succeeds, 15 overshoots.
    assert pg.json("roll Juno Hacking --dl 5 --dice 12")["outcome"] == "success"
    over = pg.json("roll Juno Hacking --dl 5 --dice 15")
    assert (over["outcome"], over["success"]) == ("overshoot", False)

    # Both succeed (Kade Hacking 16 rolls 13, the ICE's 10 rolls 4): the higher die wins.
    duel = pg.json("contest Kade Hacking ICE 10 --dice-a 13 --dice-b 4")
    assert (duel["a"]["outcome"], duel["b"]["outcome"]) == ("success", "success")
    assert duel["winner"] == "Kade"

    assert pg.json('stress Kade +2 --cause "ICE burn"')["after"] == 2

    # A natural 1 is a catastrophe and calls a panic check; Mind 12 rolls 15 and panics.
    disaster = pg.json("roll Juno Hacking --dl 5 --dice 1")
    assert disaster["outcome"] == "catastrophe"
    assert owed(pg) == [("panic-check", "Juno")]
    panic = pg.json("panic Juno Mind --dice 15")
    assert panic["outcome"] == "overshoot"
    assert owed(pg) == []
    assert [c["name"] for c in pg.json("status Juno")["conditions"]] == ["panicked"]

    # Undo appends a compensating event: the panic check is owed again; redo restores it.
    before = pg.event_count()
    pg.ok("undo")
    assert pg.event_count() == before + 1
    assert owed(pg) == [("panic-check", "Juno")]
    assert pg.json("status Juno")["conditions"] == []
    pg.ok("redo")
    assert owed(pg) == []
    assert [c["name"] for c in pg.json("status Juno")["conditions"]] == ["panicked"]
    assert pg.json("status Kade")["stress"] == 2

    after_the_evening(
        pg,
        [
            ("Juno", "success"),
            ("Juno", "overshoot"),
            ("Kade", "success"),
            ("ICE", "success"),
            ("Juno", "catastrophe"),
            ("Juno", "overshoot"),
        ],
    )


def test_a_gurps_evening(pg):
    pg.ok("campaign new Iron --system gurps")
    for name in ("mira", "aldric", "vora"):
        pg.ok(["character", "add", "--sheet", str(SHEETS / f"gurps-{name}.toml")])
    pg.ok("character default Vora Stealth DX-5")
    pg.ok("session start")

    # Mira's Lockpicking 12: 8 succeeds by 4; at -2 for darkness, 15 fails by 5.
    lock = pg.json("roll Mira Lockpicking --dice 2,3,3")
    assert (lock["effective"], lock["total"], lock["margin"]) == (12, 8, 4)
    assert lock["outcome"] == "success"
    dark = pg.json("roll Mira Lockpicking --mod -2:darkness --dice 6,5,4")
    assert (dark["effective"], dark["outcome"], dark["margin"]) == (10, "failure", -5)
    # Vora's Stealth defaults to DX 14 - 5 = 9: a 9 succeeds by 0.
    stealth = pg.json("roll Vora Stealth --dice 3,3,3")
    assert (stealth["effective"], stealth["outcome"], stealth["margin"]) == (9, "success", 0)

    # Vora (Broadsword 16) rolls 7, succeeding by 9; the duellist (12) rolls 10, by 2.
    duel = pg.json("contest Vora Broadsword Duellist 12 --dice-a 2,2,3 --dice-b 3,3,4")
    assert (duel["winner"], duel["margin_of_victory"]) == ("Vora", 7)

    # Mira (Will 12) rolls 15 and fails by 3; table 11 + 3 = 14: 1d FP (4) and stunned.
    fright = pg.json("fright Mira --dice 5,5,5 --table-dice 4,4,3 --effect-dice 4,2")
    assert (fright["effective"], fright["margin"]) == (12, -3)
    assert (fright["table"]["total"], fright["table"]["row"]) == (14, 14)
    mira = pg.json("status Mira")
    assert (mira["fp"], [c["name"] for c in mira["conditions"]]) == (7, ["stunned"])

    # A fright result that calls for a quirk is owed until assigned.
    quirk = pg.json("fright Mira --dice 6,6,4 --table-dice 3,3,3")
    assert [o["kind"] for o in quirk["obligations_opened"]] == ["assign-trait"]
    assert owed(pg) == [("assign-trait", "Mira")]
    pg.ok('trait assign Mira "Quirk: hums when afraid"')
    assert owed(pg) == []

    pg.ok("undo")
    assert owed(pg) == [("assign-trait", "Mira")]
    pg.ok("redo")
    assert owed(pg) == []
    refused(pg, 'trait assign Mira "Quirk: another"', "No trait is owed to Mira")

    pg.json("hp Vora -3 --cause arrow")
    assert pg.json("status Vora")["hp"] == 9

    after_the_evening(
        pg,
        [
            ("Mira", "success"),
            ("Mira", "failure"),
            ("Vora", "success"),
            ("Vora", "success"),
            ("Duellist", "success"),
            ("Mira", "failure"),
            ("Mira", "failure"),
        ],
    )


def test_a_glintlock_evening(pg):
    pg.ok('campaign new "Ashes of Veyra" --system glintlock')
    pg.ok("character add Wren --stat Grit=3 --stat Wits=2 --trained Climb --class Seer")
    pg.ok("character add Tomas --stat Grit=2 --stat Wits=4")
    pg.ok('session start --title "The drowned archive"')

    # Wren, Grit 3, risky: 15 is a weak hit (+1 Mettle, +1 Threat).
    wren = pg.json("roll Wren Grit --tag 1:gear --tag 1:power --dice 15")
    assert (wren["position"], wren["outcome"]) == ("risky", "weak_hit")
    # Tomas, Wits 4, desperate: 1 and 12 keep the 1, a natural 1: +3 Threat, the floor is owed.
    tomas = pg.json("roll Tomas Wits --tag -1:condition --dice 1,12")
    assert (tomas["kept"], tomas["outcome"]) == (1, "miss")
    campaign = pg.json("status")
    assert (campaign["threat"], campaign["spending_floor"]) == (4, "owed")
    assert owed(pg) == [("threat-floor", None)]
    refused(pg, "threat spend soft", "while it is 4 or more a spend must be hard")

    spent = pg.json('threat spend hard --note "the shelves collapse"')
    assert (spent["before"], spent["after"]) == (4, 2)
    assert owed(pg) == []
    assert pg.json("spend Wren steel-yourself")["after"] == 0
    assert pg.json("gain Tomas deep-cut")["after"] == 1
    assert pg.json('stress Tomas +2 --cause "saw the drowned scribe"')["after"] == 2

    # Glintlock has no contested rolls: the opposition sets the position instead.
    refused(pg, "contest Wren Grit Guard 2 --dice-a 17 --dice-b 3", "no contested rolls")
    # Grit 3, risky: 17 is a strong hit, +1 Mettle.
    strong = pg.json("roll Wren Grit --tag 1:gear --dice 17")
    assert strong["outcome"] == "strong_hit"
    assert pg.json("status Wren")["mettle"] == 1

    pg.ok("undo")
    assert pg.json("status Wren")["mettle"] == 0
    pg.ok("undo")
    assert pg.json("status Tomas")["stress"] == 0
    pg.ok("redo")
    assert pg.json("status Tomas")["stress"] == 2
    assert pg.json("status Wren")["mettle"] == 0

    events = after_the_evening(
        pg, [("Wren", "weak_hit"), ("Tomas", "miss"), ("Wren", "strong_hit")]
    )
    assert sum(e["type"] == "EventsRevoked" for e in events) == 2


def test_an_export_imported_into_a_new_database_exports_again_byte_for_byte(pg, pg_other_database):
    pg.ok("campaign new Neon --system gloom")
    pg.ok("character add Kade --skill Hacking=14 --stat Mind=12")
    pg.ok("session start --title 'The relay'")
    pg.ok("roll Kade Hacking --dl 5 --dice 12")
    pg.ok("roll Kade Hacking --secret --dl 5 --dice 9")
    pg.ok('note "Ünïcode survives: the relay goes dark."')
    pg.ok('campaign new "Ashes of Veyra" --system glintlock')
    pg.ok("character add Wren --stat Grit=3")
    pg.ok("session start")
    pg.ok("roll Wren Grit --tag 1:gear --dice 15")
    pg.ok("undo")
    dump = pg.ok("export events").stdout

    target = Db(pg_other_database, CliRunner())
    target.ok(["import", "-"], input=dump)
    assert target.ok("export events").stdout == dump
    assert target.json("verify")["ok"] is True
    # The copy carries on where the log left off.
    target.ok('campaign use "Ashes of Veyra"')
    target.ok("roll Wren Grit --tag 1:gear --dice 17")
    lines = target.ok("export events").stdout.splitlines()
    assert lines[1:-1] == dump.splitlines()[1:]
    assert json.loads(lines[-1])["position"] > json.loads(dump.splitlines()[-1])["position"]


def test_a_sqlite_log_moves_to_postgresql_unchanged(tmp_path, pg_database):
    sqlite = Db(str(tmp_path / "table.db"), CliRunner())
    sqlite.ok("campaign new Iron --system gurps")
    sqlite.ok(["character", "add", "--sheet", str(SHEETS / "gurps-mira.toml")])
    sqlite.ok("session start")
    sqlite.ok("roll Mira Lockpicking --dice 2,3,3")
    sqlite.ok("fright Mira --dice 5,5,5 --table-dice 4,4,3 --effect-dice 4,2")
    dump = sqlite.ok("export events").stdout

    server = Db(pg_database, CliRunner())
    server.ok(["import", "-"], input=dump)
    assert server.ok("export events").stdout == dump
    mira = server.json("--campaign Iron status Mira")
    assert (mira["fp"], [c["name"] for c in mira["conditions"]]) == (7, ["stunned"])


def test_a_server_that_cannot_be_reached_is_one_sentence():
    # Nothing listens on port 1; no server is needed to check the message.
    unreachable = Db("postgresql+psycopg://tracker:secret@127.0.0.1:1/campaigns", CliRunner())
    result = unreachable("status")
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "Cannot connect to the database" in lines[0]
    assert "secret" not in lines[0]


def test_an_append_wakes_the_live_view_by_notification_and_the_page_follows(pg, pg_database):
    import subprocess
    import sys

    from tracker.app.live import Live
    from tracker.app.tracker import Tracker

    pg.ok("campaign new Iron --system gurps")
    pg.ok(["character", "add", "--sheet", str(SHEETS / "gurps-mira.toml")])
    pg.ok("session start")
    table = Tracker(pg_database)
    try:
        watcher = Live(table).watcher()
        assert watcher.listening
        assert not watcher.wait(0.2)  # nothing logged: no notification
        # Logged by another process, as at the table: its commit notifies the listener.
        subprocess.run(
            [sys.executable, "-m", "tracker", "--db", pg_database, "note", "the gate opens"],
            check=True,
            capture_output=True,
        )
        assert watcher.wait(10)
        watcher.close()
    finally:
        table.close()
    # A refused command appends nothing, and so notifies no one.
    table = Tracker(pg_database)
    try:
        watcher = Live(table).watcher()
        assert pg("roll Nobody Lockpicking").exit_code != 0
        assert not watcher.wait(0.5)
        watcher.close()
    finally:
        table.close()


def test_the_players_feed_follows_a_campaign_on_postgresql(pg, pg_database):
    from test_live import items, serving, sse

    pg.ok("campaign new Iron --system gurps")
    pg.ok(["character", "add", "--sheet", str(SHEETS / "gurps-mira.toml")])
    pg.ok("session start")
    with serving(pg_database) as server:
        pg.ok("roll Mira Lockpicking --dice 3,4,5")
        pg.ok("roll Mira Vision --dice 1,2,3")
        version = max(e["version"] for e in pg.json("log")["events"])
        texts = [i["text"] for i in items(sse(server.base + "/events", until_version=version))]
    assert "Mira rolls Lockpicking at 12: 3+4+5 = 12 → success" in texts
    assert texts[-1] == "a secret event for Mira"


@pytest.mark.parametrize("password", ["50%off", "p%20ss%25w", "p ss"])
def test_a_url_read_by_the_set_up_is_read_alike_by_every_command(pg_database, password):
    """The schema is set up through SQLAlchemy and commands run on psycopg: a password with a
    space or a bare % in it (the test server takes any) reaches the server the same way."""
    from sqlalchemy.engine import make_url

    url = make_url(pg_database)
    written = f"{url.drivername}://{url.username}:{password}@{url.host}:{url.port}/{url.database}"
    run = Db(written, CliRunner())
    run.ok("campaign new Ash --system glintlock")
    run.ok("character add Wren --stat Grit=3")
    listed = run.ok("campaign list")
    assert "Ash" in listed.stdout
    assert password not in listed.output
