"""The event store's contract: immutability, optimistic concurrency, idempotence, the hash chain.

``EventStoreContract`` holds the tests; each backend subclasses it once with its own ``engine``
fixture, so the same suite proves every database tracker runs on.
"""

from __future__ import annotations

import itertools
import json
import threading
import tracemalloc
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from tracker.errors import ConcurrencyError, NotFound, Refused
from tracker.events.envelope import GENESIS_HASH, NewEvent, check_chain
from tracker.store.engine import create_engine_for, prepare_sqlite_file
from tracker.store.eventstore import EventStore
from tracker.store.migrate import ensure_schema


def note(i: int, **extra) -> NewEvent:
    return NewEvent(type="Note", payload={"text": f"note {i}", **extra})


class EventStoreContract:
    """Subclasses provide an ``engine`` fixture with the schema at head."""

    @pytest.fixture
    def store(self, engine) -> EventStore:
        return EventStore(engine)

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

    def test_two_threads_appending_a_thousand_each_leave_no_gap(self, store, campaign):
        def writer(tag: str) -> None:
            for i in range(1000):
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
        assert [e.version for e in events] == list(range(1, 2002))
        assert len({e.event_id for e in events}) == 2001
        by_writer = [e.payload.get("writer") for e in events[1:]]
        assert by_writer.count("a") == by_writer.count("b") == 1000
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

    def test_streams_of_two_campaigns_chain_independently(self, store, campaign):
        other = str(uuid.uuid4())
        store.create_campaign(other, "Other", "gurps", [note(0)])
        store.append(campaign, [note(1)], expected_version=1)
        store.append(other, [note(1)], expected_version=1)
        assert check_chain(store.read(campaign)) is None
        assert check_chain(store.read(other)) is None
        assert next(store.read(other)).prev_hash == GENESIS_HASH

    def test_a_campaign_name_is_taken_only_once(self, store, campaign):
        name = next(c.name for c in store.campaigns() if c.campaign_id == campaign)
        with pytest.raises(Refused, match="already exists"):
            store.create_campaign(str(uuid.uuid4()), name.upper(), "gloom", [note(0)])


class TestSQLiteEventStore(EventStoreContract):
    @pytest.fixture
    def engine(self, tmp_path):
        path = tmp_path / "store.db"
        prepare_sqlite_file(path)
        engine = create_engine_for(f"sqlite:///{path}")
        ensure_schema(engine)
        yield engine
        engine.dispose()

    def test_tampering_shows_in_the_chain(self, engine, store, campaign):
        store.append(campaign, [note(1), note(2)], expected_version=1)
        with engine.connect() as conn:
            conn.execute(text("DROP TRIGGER events_no_update"))
            conn.execute(
                text("UPDATE events SET payload = :p WHERE campaign_id = :c AND version = 2"),
                {"p": json.dumps({"text": "edited"}), "c": campaign},
            )
            conn.commit()
        problem = check_chain(store.read(campaign))
        assert problem is not None
        assert problem.version == 2
        assert "no longer match" in problem.reason

    def test_connections_use_wal_foreign_keys_and_a_busy_timeout(self, engine):
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000

    def test_an_event_for_an_unknown_campaign_violates_the_foreign_key(self, store):
        with pytest.raises(NotFound):
            store.append(str(uuid.uuid4()), [note(1)], expected_version=0)
