"""The event store's contract: immutability, optimistic concurrency, idempotence, the hash chain.

``EventStoreContract`` holds the tests; each database subclasses it once with its own ``engine``
fixture (SQLAlchemy's, for statements the store never runs) and ``backend`` fixture, so the same
suite proves every database tracker runs on, and on SQLite both backends: the standard
``sqlite3`` one commands use, and SQLAlchemy's.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import subprocess
import sys
import threading
import time
import tracemalloc
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError

from tracker.errors import BadInput, ConcurrencyError, NotFound, Refused
from tracker.events.envelope import (
    GENESIS_HASH,
    NewEvent,
    StoredEvent,
    check_chain,
    loads_payload,
)
from tracker.store.engine import AlchemyBackend, create_engine_for, lock_writers
from tracker.store.eventstore import EventStore
from tracker.store.location import prepare_sqlite_file
from tracker.store.migrate import current_revision, ensure_schema, upgrade
from tracker.store.postgres import PostgresBackend
from tracker.store.revisions import HEAD_REVISION, KNOWN_REVISIONS
from tracker.store.sqlite import SqliteBackend

# tests/pg.py: the pg_url and pg_database fixtures (a PostgreSQL server for TestPostgresEventStore).
pytest_plugins = ("pg",)

WAIT_S = 30
ROOT = Path(__file__).resolve().parent.parent


def note(i: int, **extra) -> NewEvent:
    return NewEvent(type="Note", payload={"text": f"note {i}", **extra})


def campaign_created(name: str) -> NewEvent:
    return NewEvent(type="CampaignCreated", payload={"name": name, "system": "gloom"})


def exported_log(folder: Path) -> list[StoredEvent]:
    """The whole log of a small SQLite database (two campaigns, interleaved), as export reads it."""
    path = folder / "source.db"
    prepare_sqlite_file(path)
    engine = create_engine_for(f"sqlite:///{path}")
    ensure_schema(engine)
    source = EventStore(SqliteBackend(path))
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    source.create_campaign(first, "First", "gloom", [campaign_created("First")])
    source.create_campaign(second, "Second", "gloom", [campaign_created("Second")])
    source.append(first, [note(1), note(2)], expected_version=1)
    source.append(second, [note(1)], expected_version=1)
    source.append(first, [note(3)], expected_version=3)
    exported = list(source.read_all())
    source.close()
    engine.dispose()
    return exported


class EventStoreContract:
    """Subclasses provide an ``engine`` fixture with the schema at head, and a ``backend``
    fixture on the same database."""

    @pytest.fixture
    def store(self, backend) -> Iterator[EventStore]:
        store = EventStore(backend)
        yield store
        store.close()

    @pytest.fixture
    def campaign(self, store) -> str:
        campaign_id = str(uuid.uuid4())
        store.create_campaign(campaign_id, f"Test {campaign_id[:8]}", "gloom", [note(0)])
        return campaign_id

    def test_update_and_delete_fail_at_the_sql_level(self, engine, campaign):
        with engine.connect() as conn:
            with pytest.raises(DBAPIError, match="immutable"):
                conn.execute(text("UPDATE events SET payload = '{}'"))
            conn.rollback()
            with pytest.raises(DBAPIError, match="immutable"):
                conn.execute(text("DELETE FROM events"))
            conn.rollback()

    SWITCH_OFF_IMMUTABILITY: str  # what a database owner runs to get past the triggers

    def test_tampering_shows_in_the_chain(self, engine, store, campaign):
        store.append(campaign, [note(1), note(2)], expected_version=1)
        with engine.connect() as conn:
            conn.execute(text(self.SWITCH_OFF_IMMUTABILITY))
            conn.execute(
                text("UPDATE events SET payload = :p WHERE campaign_id = :c AND version = 2"),
                {"p": json.dumps({"text": "edited"}), "c": campaign},
            )
            conn.commit()
        problem = check_chain(store.read(campaign))
        assert problem is not None
        assert problem.version == 2
        assert "no longer match" in problem.reason

    def test_append_assigns_consecutive_versions_and_chains_hashes(self, store, campaign):
        stored = store.append(campaign, [note(1), note(2), note(3)], expected_version=1)
        assert [e.version for e in stored] == [2, 3, 4]
        events = list(store.read(campaign))
        assert events[0].prev_hash == GENESIS_HASH
        for before, after in itertools.pairwise(events):
            assert after.prev_hash == before.hash
            assert after.position > before.position
        assert all(e.computed_hash() == e.hash for e in events)
        assert check_chain(iter(events)) is None

    def test_stale_expected_version_raises_and_appends_nothing(self, store, campaign):
        store.append(campaign, [note(1)], expected_version=1)
        with pytest.raises(ConcurrencyError):
            store.append(campaign, [note(2), note(3)], expected_version=1)
        assert store.head(campaign).version == 2
        assert store.count(campaign) == 2

    def test_two_appends_with_the_same_expected_version_exactly_one_lands(self, store, campaign):
        barrier = threading.Barrier(2)
        outcomes: list[str] = []

        def writer(i: int) -> None:
            barrier.wait()
            try:
                store.append(campaign, [note(i)], expected_version=1)
                outcomes.append("landed")
            except ConcurrencyError:
                outcomes.append("refused")

        threads = [threading.Thread(target=writer, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) == ["landed", "refused"]
        assert store.count(campaign) == 2

    def test_a_writer_holding_the_lock_reads_a_head_nobody_can_move(self, store, campaign):
        blocked: list[str] = []

        def other_writer() -> None:
            try:
                store.append(campaign, [note(99)], expected_version=1)
                blocked.append("landed")
            except ConcurrencyError:
                blocked.append("refused: the log moved on while it waited")

        with store.writing(campaign) as append:
            head = store.head(campaign)
            thread = threading.Thread(target=other_writer)
            thread.start()
            thread.join(timeout=0.5)
            assert thread.is_alive(), "the other writer waits for the lock"
            assert store.head(campaign) == head
            stored = append([note(1), note(2)], head.version)
        thread.join(timeout=WAIT_S)
        assert [e.version for e in stored] == [2, 3]
        assert blocked == ["refused: the log moved on while it waited"]
        assert store.count(campaign) == 3

    def test_an_event_is_never_stamped_before_the_one_it_follows(self, store, campaign):
        """A clock set back, or another machine's a little behind on a shared server, never
        makes a campaign's times go back: an event is stamped at the time of the one before it
        at the earliest, whichever way it is appended."""
        ahead = (datetime.now(UTC) + timedelta(hours=1)).isoformat(timespec="microseconds")
        store.append(campaign, [dataclasses.replace(note(1), recorded_at=ahead)], 1)
        [after] = store.append(campaign, [note(2)], expected_version=2)
        with store.writing(campaign) as append:
            head = store.head(campaign)
            [held] = append([note(3)], head.version, head.hash)  # the head not read again
        times = [datetime.fromisoformat(e.recorded_at) for e in store.read(campaign)]
        assert times == sorted(times)
        assert after.recorded_at == held.recorded_at == ahead

    def test_a_refusal_inside_the_lock_appends_nothing(self, store, campaign):
        def refused_after_appending() -> None:
            with store.writing(campaign) as append:
                append([note(1)], 1)
                raise Refused("the rules said no after all")

        with pytest.raises(Refused):
            refused_after_appending()
        assert store.count(campaign) == 1
        store.append(campaign, [note(2)], expected_version=1)  # the lock was let go

    def test_two_threads_appending_five_hundred_each_leave_no_gap(self, store, campaign):
        def writer(tag: str) -> None:
            for i in range(500):
                event = note(i, writer=tag)
                while True:
                    head = store.head(campaign).version
                    try:
                        store.append(campaign, [event], expected_version=head)
                        break
                    except ConcurrencyError:
                        continue

        threads = [threading.Thread(target=writer, args=(tag,)) for tag in "ab"]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        events = list(store.read(campaign))
        assert [e.version for e in events] == list(range(1, 1002))
        assert len({e.event_id for e in events}) == 1001
        by_writer = [e.payload.get("writer") for e in events[1:]]
        assert by_writer.count("a") == by_writer.count("b") == 500
        assert check_chain(iter(events)) is None

    def test_resending_a_stored_event_is_a_no_op_returning_it(self, store, campaign):
        event = note(1)
        first = store.append(campaign, [event], expected_version=1)
        again = store.append(campaign, [event], expected_version=1)
        assert again == first
        assert store.count(campaign) == 2

    def test_a_batch_partly_stored_already_is_refused(self, store, campaign):
        event = note(1)
        store.append(campaign, [event], expected_version=1)
        with pytest.raises(Refused):
            store.append(campaign, [event, note(2)], expected_version=2)
        assert store.count(campaign) == 2

    def test_read_streams_in_order_without_holding_the_whole_log(self, store, campaign):
        big = "x" * 400
        for start in range(0, 20_000, 1_000):
            batch = [note(i, filler=big) for i in range(start, start + 1_000)]
            store.append(campaign, batch, expected_version=start + 1)
        stream = store.read(campaign)
        assert isinstance(stream, Iterator)
        tracemalloc.start()
        last = 0
        for event in stream:
            assert event.version == last + 1
            last = event.version
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert last == 20_001
        # The whole log as objects is over 20 MB; a streamed read holds one batch at a time.
        assert peak < 8_000_000, peak

    def test_read_filters_by_session_and_range(self, store, campaign):
        store.append(
            campaign,
            [NewEvent(type="Note", payload={}, session_id=s) for s in (1, 1, 2)],
            expected_version=1,
        )
        assert [e.version for e in store.read(campaign, session_id=1)] == [2, 3]
        assert [e.version for e in store.read(campaign, after_version=2, until_version=3)] == [3]

    def test_read_keeps_only_the_gms_secret_events_when_asked(self, store, campaign):
        store.append(
            campaign,
            [NewEvent(type="Note", payload={}, visibility=v) for v in ("gm", "public", "gm")],
            expected_version=1,
        )
        assert [e.version for e in store.read(campaign, secret=True)] == [2, 4]
        assert [e.version for e in store.read(campaign, secret=True, until_version=3)] == [2]
        assert [e.version for e in store.read(campaign)] == [1, 2, 3, 4]

    def test_streams_of_two_campaigns_chain_independently(self, store, campaign):
        other = str(uuid.uuid4())
        store.create_campaign(other, "Other", "gurps", [note(0)])
        store.append(campaign, [note(1)], expected_version=1)
        store.append(other, [note(1)], expected_version=1)
        assert check_chain(store.read(campaign)) is None
        assert check_chain(store.read(other)) is None
        assert next(store.read(other)).prev_hash == GENESIS_HASH

    def test_first_version_is_the_lowest_of_the_ids_in_that_campaign_alone(self, store, campaign):
        other = str(uuid.uuid4())
        store.create_campaign(other, "Other", "gurps", [note(0)])
        store.append(campaign, [note(i) for i in range(1, 6)], expected_version=1)
        store.append(other, [note(1)], expected_version=1)
        mine = {e.version: e.event_id for e in store.read(campaign)}
        theirs = [e.event_id for e in store.read(other)]
        assert store.first_version(campaign, [mine[5], mine[3], "no-such-id"]) == 3
        assert store.first_version(campaign, [*theirs, mine[6]]) == 6
        assert store.first_version(campaign, theirs) is None
        assert store.first_version(campaign, []) is None

    def test_a_sparse_read_gives_what_a_walk_of_the_log_gives(self, store, campaign):
        batch = [
            NewEvent(type="Marker", payload={"i": i}) if i % 7 == 0 else note(i)
            for i in range(1, 31)
        ]
        store.append(campaign, batch, expected_version=1)
        assert store.head(campaign).version == 31
        for types in (["Marker"], ["Marker", "CampaignCreated"], ["Note"], ["NoSuchType"]):
            for window in ({}, {"after_version": 5}, {"after_version": 3, "until_version": 20}):
                for newest_first in (False, True):
                    walked = list(
                        store.read(campaign, types=types, newest_first=newest_first, **window)
                    )
                    found = list(
                        store.read(
                            campaign, types=types, sparse=True, newest_first=newest_first, **window
                        )
                    )
                    assert found == walked
                    versions = [e.version for e in found]
                    assert versions == sorted(versions, reverse=newest_first)

    def test_reads_in_pages_give_every_event_once_in_order(self, store, campaign, monkeypatch):
        from tracker.store import eventstore

        monkeypatch.setattr(eventstore, "READ_BATCH", 4)
        store.append(campaign, [note(i) for i in range(1, 15)], expected_version=1)
        versions = list(range(1, 16))
        assert [e.version for e in store.read(campaign)] == versions
        assert [e.version for e in store.read(campaign, newest_first=True)] == versions[::-1]
        assert [e.version for e in store.read(campaign, after_version=4)] == versions[4:]
        window = store.read(campaign, after_version=2, until_version=12, newest_first=True)
        assert [e.version for e in window] == list(range(12, 2, -1))
        assert [e.version for e in store.read(campaign, after_version=3, until_version=7)] == [
            4,
            5,
            6,
            7,
        ]
        mine = [e for e in store.read_all() if e.campaign_id == campaign]
        assert [e.version for e in mine] == versions
        positions = [e.position for e in store.read_all()]
        assert positions == sorted(set(positions))

    def test_stored_snapshots_are_those_that_match_the_log_newest_first(self, store, campaign):
        """A snapshot is chosen among the ones still true of the log: newest first, the first
        named of two at one version, and one whose event the log no longer holds is left out."""
        first, second = store.append(campaign, [note(1), note(2)], expected_version=1)
        doc = {"revoked": ["x"], "name": "ä ✓", "n": 1.5}
        store.save_snapshot(campaign, "b", 1, first.version, first.hash, doc)
        store.save_snapshot(campaign, "a", 1, second.version, second.hash, {"k": "a"})
        store.save_snapshot(campaign, "c", 1, second.version, second.hash, {"k": "c"})
        store.save_snapshot(campaign, "stale", 1, second.version, "0" * 64, {"k": "stale"})
        store.save_snapshot(campaign, "old", 0, second.version, second.hash, {"k": "old"})
        found = store.stored_snapshots(campaign, ["c", "stale", "old", "a", "b"], 1)
        assert [(name, version, head) for name, version, head, _ in found] == [
            ("c", second.version, second.hash),
            ("a", second.version, second.hash),
            ("b", first.version, first.hash),
        ]
        assert loads_payload(found[-1][3]()) == doc
        # Replaced after the listing, a snapshot reads as nothing rather than as another's.
        store.save_snapshot(campaign, "b", 1, second.version, second.hash, {"k": "b"})
        assert found[-1][3]() is None
        assert store.load_snapshot(campaign, ["a", "c"], 1) == (second.version, {"k": "a"})
        assert store.load_snapshot(campaign, "stale", 1) is None

    def test_a_campaign_name_is_taken_only_once(self, store, campaign):
        name = next(c.name for c in store.campaigns() if c.campaign_id == campaign)
        with pytest.raises(Refused, match="already exists"):
            store.create_campaign(str(uuid.uuid4()), name.upper(), "gloom", [note(0)])

    def test_a_campaign_name_longer_than_the_column_is_refused_before_sql(self, store):
        with pytest.raises(BadInput, match="at most 200 characters"):
            store.create_campaign(str(uuid.uuid4()), "x" * 201, "gloom", [note(0)])
        assert store.campaigns() == []

    def test_an_imported_log_keeps_its_positions_and_new_events_follow_it(self, store, tmp_path):
        exported = exported_log(tmp_path)
        assert store.import_events(iter(exported)) == len(exported)
        assert list(store.read_all()) == exported
        campaign = exported[0].campaign_id
        head = store.head(campaign).version
        [added] = store.append(campaign, [note(99)], expected_version=head)
        assert added.position == exported[-1].position + 1
        assert check_chain(store.read(campaign)) is None


class TestSQLiteEventStore(EventStoreContract):
    @pytest.fixture
    def engine(self, tmp_path):
        path = tmp_path / "store.db"
        prepare_sqlite_file(path)
        engine = create_engine_for(f"sqlite:///{path}")
        ensure_schema(engine)
        yield engine
        engine.dispose()

    @pytest.fixture(params=["sqlite3", "sqlalchemy"])
    def backend(self, request, engine):
        if request.param == "sqlite3":
            return SqliteBackend(Path(engine.url.database))
        return AlchemyBackend(engine)

    # Whoever owns the file can drop the trigger; the chain still tells.
    SWITCH_OFF_IMMUTABILITY = "DROP TRIGGER events_no_update"

    # Every statement SQLite offers that rewrites or removes a row without an UPDATE or DELETE
    # trigger seeing it: a replacing insert deletes the row it collides with silently.
    @pytest.mark.parametrize(
        "statement",
        [
            "INSERT OR REPLACE INTO events SELECT * FROM events WHERE version = 1",
            "REPLACE INTO events SELECT * FROM events WHERE version = 1",
            "INSERT OR REPLACE INTO events (event_id, campaign_id, version, type, schema_version,"
            " payload, recorded_at, visibility, prev_hash, hash) SELECT 'forged', campaign_id,"
            " version, type, schema_version, '{}', recorded_at, visibility, prev_hash, hash"
            " FROM events WHERE version = 1",
            "INSERT INTO events SELECT * FROM events WHERE version = 1"
            " ON CONFLICT DO UPDATE SET payload = '{}'",
            "UPDATE OR REPLACE events SET version = version",
            "INSERT OR IGNORE INTO events SELECT * FROM events WHERE version = 1",
            "DELETE FROM campaigns",
            "UPDATE campaigns SET name = 'Renamed'",
            "INSERT OR REPLACE INTO campaigns SELECT * FROM campaigns",
        ],
    )
    def test_no_statement_changes_or_removes_an_event(self, engine, store, campaign, statement):
        before = list(store.read_all())
        campaigns = store.campaigns()
        with engine.connect() as conn:
            with pytest.raises(DBAPIError, match=r"immutable|kept"):
                conn.execute(text(statement))
            conn.rollback()
        assert list(store.read_all()) == before
        assert store.campaigns() == campaigns

    @staticmethod
    def plan(engine, statement: tuple[str, dict]) -> str:
        sql, params = statement
        with engine.connect() as conn:
            rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", params)
            return " ".join(row[-1] for row in rows)

    def test_events_are_found_by_id_through_the_id_index_not_the_campaigns_log(self, engine):
        from tracker.store.eventstore import versions_of

        plan = self.plan(engine, versions_of(["a", "b"]))
        assert "(event_id=?)" in plan, plan
        assert "campaign_id" not in plan, plan

    def test_a_sparse_read_touches_only_its_types_and_a_walk_keeps_version_order(self, engine):
        """Undos and reveals are read through the type index (a million-event log is not
        walked for them); rolls, much of the log, are walked in version order, never sorted."""
        from tracker.store.eventstore import read_query

        def plan(statement) -> str:
            return self.plan(engine, statement)

        undos = ["EventsRevoked", "EventsRestored"]
        for window in ({}, {"until_version": 900}, {"after_version": 10}):
            sparse = plan(read_query("c", types=undos, sparse=True, **window))
            assert "ix_events_campaign_type" in sparse, sparse
        walked = plan(read_query("c", types=["RollMade", "ContestRolled"]))
        assert "TEMP B-TREE" not in walked, walked

    def test_connections_use_wal_foreign_keys_a_busy_timeout_and_durable_commits(self, backend):
        with backend.reading() as link:
            [(mode,)] = link.rows("PRAGMA journal_mode")
            [(keys,)] = link.rows("PRAGMA foreign_keys")
            [(timeout,)] = link.rows("PRAGMA busy_timeout")
            [(synchronous,)] = link.rows("PRAGMA synchronous")
        assert (mode, keys, synchronous) == ("wal", 1, 2)  # synchronous 2 is FULL
        assert timeout >= 1000

    def test_the_stores_statements_name_the_schemas_columns_in_its_order(self, engine):
        from sqlalchemy import inspect

        from tracker.store import eventstore
        from tracker.store.schema import campaigns, events

        with engine.connect() as conn:
            stored = [c["name"] for c in inspect(conn).get_columns("events")]
        assert stored == [c.name for c in events.columns]
        assert eventstore.COLUMNS.split(", ") == stored
        assert campaigns.c.name.type.length == eventstore.NAME_MAX

    def test_an_event_for_an_unknown_campaign_violates_the_foreign_key(self, store):
        with pytest.raises(NotFound):
            store.append(str(uuid.uuid4()), [note(1)], expected_version=0)


def wait_until(condition, what: str) -> None:
    """Poll ``condition`` until it holds; a guard against hanging, not a timing assertion."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting until {what}")
        time.sleep(0.005)


def finish(*threads: threading.Thread) -> None:
    """Join the threads; fail (instead of hanging the run) if one is stuck, e.g. deadlocked."""
    for t in threads:
        t.join(WAIT_S)
    stuck = [t.name for t in threads if t.is_alive()]
    if stuck:
        pytest.fail(f"threads still running after {WAIT_S} s: {', '.join(stuck)}")


def waiting_for_the_writers_lock(engine) -> int:
    """How many connections to this database wait for tracker's writers' lock."""
    with engine.connect() as conn:
        return conn.execute(
            text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                "AND database = (SELECT oid FROM pg_database "
                "WHERE datname = current_database())"
            )
        ).scalar_one()


class TestPostgresEventStore(EventStoreContract):
    @pytest.fixture
    def engine(self, pg_database):
        engine = create_engine_for(pg_database)
        ensure_schema(engine)
        yield engine
        engine.dispose()

    @pytest.fixture(params=["psycopg", "sqlalchemy"])
    def backend(self, request, engine, pg_database):
        if request.param == "psycopg":
            return PostgresBackend(pg_database)
        return AlchemyBackend(engine)

    @pytest.mark.parametrize(
        "statement",
        [
            "UPDATE events SET payload = '{}' WHERE version = 1",
            "DELETE FROM events WHERE version = 1",
            "TRUNCATE events",
            "TRUNCATE campaigns CASCADE",
            "INSERT INTO events SELECT * FROM events WHERE version = 1"
            " ON CONFLICT (event_id) DO UPDATE SET payload = '{}'",
            "DELETE FROM campaigns",
            "UPDATE campaigns SET name = 'Renamed'",
        ],
    )
    def test_no_statement_changes_or_removes_an_event(self, engine, store, campaign, statement):
        before = list(store.read_all())
        with engine.connect() as conn:
            with pytest.raises(DBAPIError, match=r"immutable|kept"):
                conn.execute(text(statement))
            conn.rollback()
        assert list(store.read_all()) == before

    # Only the table's owner can switch the trigger off, and the chain still tells.
    SWITCH_OFF_IMMUTABILITY = "ALTER TABLE events DISABLE TRIGGER events_no_update"

    def test_an_event_for_an_unknown_campaign_violates_the_foreign_key(self, store):
        with pytest.raises(NotFound):
            store.append(str(uuid.uuid4()), [note(1)], expected_version=0)

    def test_a_snapshot_is_stored_while_a_writer_holds_the_lock(self, engine, store, campaign):
        """A snapshot is a cache: a look at the table that stores one never waits behind a long
        writer on the server (on SQLite, any write waits at most the busy timeout)."""
        head = store.head(campaign)
        with engine.connect() as holder:
            lock_writers(holder)
            saving = threading.Thread(
                target=store.save_snapshot,
                args=(campaign, "campaign", 1, head.version, head.hash, {"k": 1}),
                daemon=True,
            )
            saving.start()
            finish(saving)
            holder.rollback()
        assert store.load_snapshot(campaign, "campaign", 1) == (head.version, {"k": 1})

    def test_a_connection_the_server_dropped_while_idle_is_replaced(
        self, engine, store, campaign, monkeypatch
    ):
        """A writer logging one event after another is not asked to ping first; one that sat
        idle (the shell between commands) is, and a connection the server has dropped meanwhile
        (a restart) gives way to a fresh one instead of failing the command."""
        from tracker.store import engine as engine_module
        from tracker.store import postgres

        store.append(campaign, [note(1)], expected_version=1)
        with store.backend.reading() as link:
            [(mine,)] = link.rows("SELECT pg_backend_pid()")
        killer = create_engine(engine.url)
        with killer.connect() as conn:
            conn.exec_driver_sql(f"SELECT pg_terminate_backend({mine})")
            conn.commit()
        killer.dispose()
        monkeypatch.setattr(engine_module, "IDLE_PING_S", 0.0)
        monkeypatch.setattr(postgres, "IDLE_PING_S", 0.0)
        [stored] = store.append(campaign, [note(2)], expected_version=2)
        assert stored.version == 3
        assert [e.version for e in store.read(campaign)] == [1, 2, 3]

    @staticmethod
    def before_each_commit(monkeypatch, backend, hook) -> None:
        """Call ``hook`` as each write transaction is about to commit, its lock still held."""
        commit = backend.commit

        def hooked(conn) -> None:
            hook(conn)
            commit(conn)

        monkeypatch.setattr(backend, "commit", hooked)

    def test_a_reader_tailing_by_position_never_skips_a_later_commit(
        self, engine, store, campaign, monkeypatch
    ):
        # The first writer has inserted its event (its position is taken) but not committed; a
        # second writer to another campaign must not commit a later position before it, or a
        # reader that saw the second would resume after it and never see the first.
        other = str(uuid.uuid4())
        store.create_campaign(other, "Other", "gloom", [note(0)])
        start = max(e.position for e in store.read_all())
        inserted, release = threading.Event(), threading.Event()
        committed: list[str] = []
        first = threading.Thread(target=lambda: write(campaign, "first"), daemon=True)

        def hold_the_first_commit(conn) -> None:
            if threading.current_thread() is first and not inserted.is_set():
                inserted.set()
                release.wait(WAIT_S)
            # Noted as each commits, the writers' lock still held: the order they commit in.
            if threading.current_thread() in (first, second):
                committed.append("first" if threading.current_thread() is first else "second")

        def write(campaign_id: str, label: str) -> None:
            store.append(campaign_id, [note(1, writer=label)], expected_version=1)

        second = threading.Thread(target=lambda: write(other, "second"), daemon=True)
        self.before_each_commit(monkeypatch, store.backend, hold_the_first_commit)
        try:
            first.start()
            wait_until(inserted.is_set, "the first writer is about to commit")
            second.start()
            wait_until(
                lambda: not second.is_alive() or waiting_for_the_writers_lock(engine) > 0,
                "the second writer has committed or waits for the first",
            )
            tailed = list(store.read_all(after_position=start))
            release.set()
            finish(first, second)
        finally:
            release.set()
        last = tailed[-1].position if tailed else start
        tailed += store.read_all(after_position=last)
        assert tailed == list(store.read_all(after_position=start))
        assert [e.payload["writer"] for e in tailed] == ["first", "second"]
        assert committed == ["first", "second"]

    def test_positions_follow_commit_order_under_concurrent_writers(self, store, monkeypatch):
        writers = [str(uuid.uuid4()) for _ in range(4)]
        for number, campaign_id in enumerate(writers):
            store.create_campaign(campaign_id, f"Writer {number}", "gloom", [note(0)])
        start = max(e.position for e in store.read_all())
        labels = threading.local()
        commits: list[str] = []
        done = threading.Event()
        tailed: list[StoredEvent] = []

        def record_commit(conn) -> None:
            # Called just before the commit, while the writer still holds the writers' lock.
            if getattr(labels, "writer", None) is not None:
                commits.append(labels.writer)

        def write(campaign_id: str) -> None:
            labels.writer = campaign_id
            for i in range(1, 101):
                store.append(campaign_id, [note(i, writer=campaign_id)], expected_version=i)

        def tail() -> None:
            last = start
            while True:
                finished = done.is_set()
                for e in store.read_all(after_position=last):
                    tailed.append(e)
                    last = e.position
                if finished:
                    return

        threads = [threading.Thread(target=write, args=(c,), daemon=True) for c in writers]
        reader = threading.Thread(target=tail, daemon=True)
        self.before_each_commit(monkeypatch, store.backend, record_commit)
        try:
            reader.start()
            for t in threads:
                t.start()
            finish(*threads)
        finally:
            done.set()
            finish(reader)
        logged = list(store.read_all(after_position=start))
        assert len(logged) == 400
        assert [e.payload["writer"] for e in logged] == commits
        assert tailed == logged

    def test_a_new_database_has_no_revision_and_the_connection_stays_usable(self, pg_database):
        engine = create_engine(pg_database, pool_size=1, max_overflow=0)
        try:
            assert current_revision(engine) is None
            # The failed read aborted its transaction; the pool's one connection still works.
            assert ensure_schema(engine) is None
            assert current_revision(engine) == HEAD_REVISION
        finally:
            engine.dispose()

    def test_an_older_schema_is_migrated_in_place_without_a_backup(self, pg_database):
        engine = create_engine_for(pg_database)
        try:
            upgrade(engine, KNOWN_REVISIONS[0])
            assert current_revision(engine) == KNOWN_REVISIONS[0]
            assert ensure_schema(engine) is None
            assert current_revision(engine) == HEAD_REVISION
        finally:
            engine.dispose()

    def test_two_trackers_opening_a_new_database_at_once_both_succeed(self, pg_database):
        # Both processes find no schema and go to create it; the writers' lock (held here until
        # both wait for it) lets the first create it and the second find it at head.
        engine = create_engine_for(pg_database)
        opening = "import sys; from tracker.app import Tracker; Tracker(sys.argv[1]).close()"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        with engine.connect() as holder:
            lock_writers(holder)
            trackers = [
                subprocess.Popen(
                    [sys.executable, "-c", opening, pg_database],
                    env=env,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                for _ in range(2)
            ]
            wait_until(
                lambda: (
                    waiting_for_the_writers_lock(engine) == 2
                    or any(t.poll() is not None for t in trackers)
                ),
                "both trackers wait to migrate",
            )
            holder.rollback()
        results = [(t.communicate(timeout=WAIT_S)[1], t.returncode) for t in trackers]
        assert results == [("", 0), ("", 0)]
        assert current_revision(engine) == HEAD_REVISION
        engine.dispose()


# A command run as its own process, reporting at exit which database libraries it loaded.
LOADED = """
import atexit, sys

def report():
    heavy = [m for m in ("alembic", "importlib.metadata", "sqlalchemy") if m in sys.modules]
    print("loaded:", *heavy, file=sys.stderr)

atexit.register(report)
from tracker.cli import cli
cli.main(sys.argv[1:], prog_name="tracker")
"""


def loaded_by(db: Path, *command: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", LOADED, "--db", str(db), *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=WAIT_S,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stderr.strip().splitlines()[-1].split()[1:]


def test_a_command_on_a_sqlite_file_at_head_never_loads_sqlalchemy(tmp_path, glintlock):
    """Importing SQLAlchemy took longer than the rest of a one-shot roll: a SQLite file at head
    is read and written through the standard sqlite3 alone, and the rule systems are found
    without importing ``importlib.metadata``. A new file is made through Alembic."""
    made = loaded_by(tmp_path / "new.db", "campaign", "new", "Fresh", "--system", "gloom")
    assert {"alembic", "sqlalchemy"} <= set(made)
    for command in (
        ["session", "start"],
        ["roll", "Wren", "Grit", "--dice", "12,3"],
        ["status"],
        ["undo"],
        ["log"],
        ["export", "rolls", "--format", "csv"],
        ["verify"],
    ):
        assert loaded_by(glintlock.db, *command) == [], command
