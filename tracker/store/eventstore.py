"""The append-only event store: optimistic concurrency, idempotent re-sends, a hash chain.

Each campaign is one stream. ``append`` writes a batch in one transaction, checks the caller's
expected version against the stream's head, and chains every event to the one before it with
SHA-256. Reads stream rows in order without loading the whole log, and hand each event out typed
and upcast to its current version (``tracker.events.catalog.decode``): the one place that
happens, so no reader interprets a stored payload by itself.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any

import msgspec

from tracker.errors import BadInput, ConcurrencyError, NotFound, Refused
from tracker.events.catalog import CampaignCreated, current_decoder, decode
from tracker.events.envelope import (
    GENESIS_HASH,
    MAX_PAYLOAD,
    NewEvent,
    StoredEvent,
    chain_fields,
    event_hash,
    loads_payload,
    oversized,
    stored_json,
)
from tracker.store.backend import Backend, Link, now_utc, placeholders
from tracker.words import reads_as

if TYPE_CHECKING:
    from tracker.store.asked import AskedRolls
    from tracker.store.invitations import Invitations

READ_BATCH = 2_000
ID_SLICE = 500
IMPORT_BATCH = 5_000
NAME_MAX = 200  # the campaigns.name column's length (tracker.store.schema)
_UNMET: Any = object()  # a type ``_rows`` has not met yet in its read
# Snapshots are written with msgspec's encoder: a long state's document is several times faster
# to write than through ``json.dumps``, and reads back the same.
_SNAPSHOT_ENCODER = msgspec.json.Encoder()

# The events table's columns in StoredEvent's field order, which ``_rows`` unpacks.
COLUMNS = (
    "position, event_id, campaign_id, version, session_id, character_id, type, schema_version, "
    "payload, recorded_at, visibility, prev_hash, hash"
)
SELECT_EVENTS = f"SELECT {COLUMNS} FROM events"
INSERT_EVENT = (
    "INSERT INTO events (event_id, campaign_id, version, session_id, character_id, type, "
    "schema_version, payload, recorded_at, visibility, prev_hash, hash) VALUES (:event_id, "
    ":campaign_id, :version, :session_id, :character_id, :type, :schema_version, :payload, "
    ":recorded_at, :visibility, :prev_hash, :hash)"
)
IMPORT_EVENT = INSERT_EVENT.replace("(event_id,", "(position, event_id,").replace(
    "(:event_id,", "(:position, :event_id,"
)


class CampaignRow(msgspec.Struct, frozen=True):
    campaign_id: str
    name: str
    system: str
    created_at: str


class Head(msgspec.Struct, frozen=True):
    version: int
    hash: str
    # The time the head event was recorded at (None for an empty log).
    recorded_at: str | None = None


def stamp_after(before: str | None) -> str:
    """The time to record an event at, after an event recorded at ``before``: now, or ``before``
    when the clock says earlier (a clock set back, another machine's a little behind on a
    shared server). A campaign's times never go back: a look back to a time reads the log in
    order, and `tracker verify` names a time earlier than the one before it."""
    now = datetime.now(UTC)
    try:
        then = datetime.fromisoformat(before) if before else None
    except ValueError:
        then = None  # no time at all (an edited log, which verify names)
    if then is not None and then.tzinfo is not None and then > now:
        now = then.astimezone(UTC)
    return now.isoformat(timespec="microseconds")


class Claim(msgspec.Struct):
    """A request being answered: its holder (a hash of the key that sent it), its nonce, and
    until when (seconds since the epoch) the page token it came with could send it again.
    ``written`` once an append put it in the database with its events."""

    holder: str
    nonce: str
    until_at: int
    written: bool = False


CLAIM: ContextVar[Claim | None] = ContextVar("tracker_request_claim", default=None)
"""The request the code running now answers (``EventStore.claiming``): a context variable, so
that each request's own work, in whatever thread it runs, sees its own and no other's."""


def _collision(exc: BaseException, campaign_id: str) -> Exception:
    """What a constraint that stopped an append means to the person who asked for it."""
    if "foreign key" in str(getattr(exc, "orig", None) or exc).lower():
        return NotFound(f"No campaign {campaign_id} in this database; check the campaign name.")
    # Another writer took the version first (the UNIQUE(campaign_id, version) constraint), or
    # re-sent the same event between our check and our insert.
    return ConcurrencyError(
        "Another writer logged to this campaign at the same moment; run the command again."
    )


def _row(event: StoredEvent) -> dict[str, object]:
    """An event as the events table holds it, its payload the stored text."""
    return {
        "position": event.position,
        "event_id": event.event_id,
        "campaign_id": event.campaign_id,
        "version": event.version,
        "session_id": event.session_id,
        "character_id": event.character_id,
        "type": event.type,
        "schema_version": event.schema_version,
        "payload": event.raw,
        "recorded_at": event.recorded_at,
        "visibility": event.visibility,
        "prev_hash": event.prev_hash,
        "hash": event.hash,
    }


def versions_of(event_ids: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """The campaign and version of each of ``event_ids``, found through the event id's own
    index. (Asked as the lowest version within one campaign, SQLite answers from the campaign's
    version index instead and reads every event of the campaign.)"""
    among, params = placeholders("id", event_ids)
    return f"SELECT campaign_id, version FROM events WHERE event_id IN {among}", params


def read_query(
    campaign_id: str,
    *,
    after_version: int = 0,
    until_version: int | None = None,
    session_id: int | None = None,
    types: Iterable[str] | None = None,
    sparse: bool = False,
    newest_first: bool = False,
    secret: bool = False,
    limit: int | None = None,
) -> tuple[str, dict[str, Any]]:
    """The statement behind ``EventStore.read`` (one page of it, given a ``limit``), and its
    parameters."""
    sql = [SELECT_EVENTS, "WHERE campaign_id = :campaign_id AND version > :after"]
    params: dict[str, Any] = {"campaign_id": campaign_id, "after": after_version}
    if until_version is not None:
        sql.append("AND version <= :until")
        params["until"] = until_version
    if session_id is not None:
        sql.append("AND session_id = :session_id")
        params["session_id"] = session_id
    if secret:
        sql.append("AND visibility = 'gm'")
    order = "version"
    if types is not None:
        among, named = placeholders("type", list(types))
        sql.append(f"AND type IN {among}")
        params.update(named)
        if sparse:
            # An expression SQLite cannot read from the version index, so it plans on the type
            # index and sorts the few rows that match.
            order = "version + 0"
    sql.append(f"ORDER BY {order} DESC" if newest_first else f"ORDER BY {order}")
    if limit is not None:
        sql.append(f"LIMIT {int(limit)}")
    return " ".join(sql), params


class EventStore:
    """The log of every campaign in one database."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        # The connection of the write block this thread is in (``writing``), which every read
        # in the block goes through: one connection a command, and on PostgreSQL one ping.
        self._local = threading.local()
        self._found: dict[str, CampaignRow] = {}

    @property
    def errors(self) -> tuple[type[BaseException], ...]:
        """What the database's driver raises when the database fails (``storage_error`` turns
        one into a sentence)."""
        return self.backend.errors

    def close(self) -> None:
        self.backend.close()

    @contextmanager
    def _reading(self) -> Iterator[Link]:
        pinned = getattr(self._local, "link", None)
        if pinned is not None:
            yield pinned
            return
        with self.backend.reading() as link:
            yield link

    # -- writing -----------------------------------------------------------------------------

    def create_campaign(
        self, campaign_id: str, name: str, system: str, first: Sequence[NewEvent]
    ) -> list[StoredEvent]:
        """Register a campaign and append its first events, in one transaction."""
        if len(name) > NAME_MAX:
            raise BadInput(f"A campaign name has at most {NAME_MAX} characters; shorten it.")
        with self.backend.writing(appending_to=campaign_id) as link:
            names = (n for (n,) in link.rows("SELECT name FROM campaigns"))
            taken = next((n for n in names if reads_as(n) == reads_as(name)), None)
            if taken:
                raise Refused(f'A campaign named "{taken}" already exists; pick another name.')
            link.rows(
                "INSERT INTO campaigns (campaign_id, name, system, created_at) "
                "VALUES (:campaign_id, :name, :system, :created_at)",
                {
                    "campaign_id": campaign_id,
                    "name": name,
                    "system": system,
                    "created_at": now_utc(),
                },
            )
            return self._append(link, campaign_id, first, 0)

    def append(
        self, campaign_id: str, batch: Sequence[NewEvent], expected_version: int
    ) -> list[StoredEvent]:
        """Append ``batch`` to a campaign whose head must be at ``expected_version``.

        All or nothing, in one transaction. A stale ``expected_version`` raises
        ``ConcurrencyError`` and appends nothing. Re-sending a batch whose event ids are already
        stored appends nothing and returns the stored events.
        """
        try:
            with self.backend.writing(appending_to=campaign_id) as link:
                return self._append(link, campaign_id, batch, expected_version)
        except self.backend.integrity as exc:
            raise _collision(exc, campaign_id) from exc

    @contextmanager
    def writing(self, campaign_id: str) -> Iterator[Callable[..., list[StoredEvent]]]:
        """Hold the write lock for the whole block and give it an
        ``append(batch, expected, prev_hash=None, head_time=None)`` that writes in the locked
        transaction, committed when the block ends.

        While the lock is held no other writer can log, so a state read inside the block (with
        the store's other methods, which read through the block's own connection) is still the
        head when the block appends. A block that read the log up to its head that way gives
        the head's hash as ``prev_hash``, and the time it was recorded at as ``head_time``: its
        read was the check, so the head is not read again, and its freshly made events are not
        looked for as a re-send. The block must not write by any other means: on SQLite that
        would wait for its own lock.
        """
        try:
            with self.backend.writing(appending_to=campaign_id) as link:
                self._local.link = link
                try:
                    yield lambda batch, expected, prev_hash=None, head_time=None: self._append(
                        link, campaign_id, batch, expected, prev_hash, head_time
                    )
                finally:
                    self._local.link = None
        except self.backend.integrity as exc:
            raise _collision(exc, campaign_id) from exc

    def _checked_head(
        self, link: Link, campaign_id: str, batch: Sequence[NewEvent], expected: int
    ) -> Head | list[StoredEvent]:
        """The head the batch follows, once it is where the caller expects; or the batch as
        stored, when every event of it already is (a re-send)."""
        ids = [e.event_id for e in batch]
        among, params = placeholders("id", ids)
        known = {
            s.event_id: s
            for s in self._rows(link, f"{SELECT_EVENTS} WHERE event_id IN {among}", params)
        }
        if known:
            if len(known) == len(ids) and all(s.campaign_id == campaign_id for s in known.values()):
                return [known[i] for i in ids]
            raise Refused(
                "Part of this batch is already in the log; re-send the whole batch or a new one."
            )
        head = self._head(link, campaign_id)
        if head.version != expected:
            raise ConcurrencyError(
                f"The campaign log moved on (version {head.version}, expected {expected}); "
                "run the command again."
            )
        return head

    def _append(
        self,
        link: Link,
        campaign_id: str,
        batch: Sequence[NewEvent],
        expected: int,
        prev_hash: str | None = None,
        head_time: str | None = None,
    ) -> list[StoredEvent]:
        if not batch:
            return []
        if prev_hash is None:
            head = self._checked_head(link, campaign_id, batch, expected)
            if not isinstance(head, Head):
                return head  # a re-sent batch, as it was stored
            prev_hash, head_time = head.hash, head.recorded_at
        elif head_time is None and expected:
            head_time = self._head_time(link, campaign_id, expected)
        rows, out = _chained(campaign_id, batch, expected, prev_hash, stamp_after(head_time))
        _remember_claim(link)
        positions = _inserted(link, rows, campaign_id, expected)
        return [
            StoredEvent(
                position,
                f["event_id"],
                campaign_id,
                f["version"],
                f["session_id"],
                f["character_id"],
                f["type"],
                f["schema_version"],
                data,
                f["recorded_at"],
                f["visibility"],
                f["prev_hash"],
                digest,
                raw,
            )
            for position, (f, digest, data, raw) in zip(positions, out, strict=True)
        ]

    # -- reading -----------------------------------------------------------------------------

    @staticmethod
    def _head_time(link: Link, campaign_id: str, version: int) -> str | None:
        for (recorded_at,) in link.rows(
            "SELECT recorded_at FROM events WHERE campaign_id = :campaign_id "
            "AND version = :version",
            {"campaign_id": campaign_id, "version": version},
        ):
            return recorded_at
        return None

    def head(self, campaign_id: str) -> Head:
        """The stream's last version and hash (version 0 and the genesis hash when empty)."""
        with self._reading() as link:
            return self._head(link, campaign_id)

    def heads(self, campaign_ids: Iterable[str]) -> dict[str, int]:
        """Each named campaign's last version (0 when it has none), in one read: what a
        server serving many campaigns asks when the database moved."""
        ids = list(dict.fromkeys(campaign_ids))
        if not ids:
            return {}
        among, params = placeholders("c", ids)
        with self._reading() as link:
            found = dict(
                link.rows(
                    "SELECT campaign_id, MAX(version) FROM events "
                    f"WHERE campaign_id IN {among} GROUP BY campaign_id",
                    params,
                )
            )
        return {cid: found.get(cid) or 0 for cid in ids}

    @staticmethod
    def _head(link: Link, campaign_id: str) -> Head:
        for version, digest, recorded_at in link.rows(
            "SELECT version, hash, recorded_at FROM events WHERE campaign_id = :campaign_id "
            "ORDER BY version DESC LIMIT 1",
            {"campaign_id": campaign_id},
        ):
            return Head(version, digest, recorded_at)
        return Head(0, GENESIS_HASH)

    def read(
        self,
        campaign_id: str,
        *,
        after_version: int = 0,
        until_version: int | None = None,
        session_id: int | None = None,
        types: Iterable[str] | None = None,
        sparse: bool = False,
        newest_first: bool = False,
        secret: bool = False,
    ) -> Iterator[StoredEvent]:
        """The campaign's events in version order (``newest_first`` reverses it), streamed in
        batches; ``types`` keeps only events of those types, and ``secret`` only the GM's
        secret ones (filtered in SQL, so the rest are never parsed).

        ``sparse`` says those types are a small part of the log (undos, reveals, sessions): they
        are then found through the type index and sorted, touching only them. Without it, a
        read of several types walks the campaign in version order, which suits types that are
        much of the log (rolls) and keeps a sort of them out of memory."""
        pages: dict[str, Any] = {
            "session_id": session_id,
            "types": types if types is None else list(types),
            "sparse": sparse,
            "newest_first": newest_first,
            "secret": secret,
        }
        with self._reading() as link:
            if types is not None and sparse:  # a few events: one statement
                sql, params = read_query(
                    campaign_id, after_version=after_version, until_version=until_version, **pages
                )
                yield from self._rows(link, sql, params)
                return
            # In pages, each the next by version from where the last ended: no server-side
            # cursor (three round trips on PostgreSQL for a tail of one event), and a long log
            # is never held whole.
            low, high = after_version, until_version
            while True:
                sql, params = read_query(
                    campaign_id, after_version=low, until_version=high, limit=READ_BATCH, **pages
                )
                # Handed on by ``yield from``, which says how many the page held and where it
                # ended: no second generator of ours stands between each event and its reader.
                count, last = yield from self._rows(link, sql, params)
                if count < READ_BATCH:
                    return
                if newest_first:
                    high = last - 1
                else:
                    low = last

    def read_all(self, *, after_position: int = 0) -> Iterator[StoredEvent]:
        """Every event in the database in position order (the global replay order), in pages
        as ``read`` reads them."""
        with self._reading() as link:
            while True:
                count = 0
                for event in self._rows(
                    link,
                    f"{SELECT_EVENTS} WHERE position > :after ORDER BY position LIMIT {READ_BATCH}",
                    {"after": after_position},
                ):
                    count += 1
                    yield event
                if count < READ_BATCH:
                    return
                after_position = event.position

    @staticmethod
    def _rows(
        link: Link, sql: str, params: dict[str, Any] | None = None
    ) -> Generator[StoredEvent, None, tuple[int, int]]:
        """The events ``sql`` selects (``COLUMNS``), typed; it returns how many there were and
        the version of the last."""
        result = link.rows(sql, params)
        # Each type's current version and the decode of its decoder, at hand once met (a
        # decoder costs half a millisecond to make, and a short read meets few types): a
        # payload in any other version, or one that does not fit, goes the long way through
        # ``decode`` (which says why).
        fast: dict[str, tuple[int, Callable[[Any], Any]] | None] = {}
        count = version = 0
        # Unpacked by position (``COLUMNS`` is StoredEvent's field order): a full rebuild reads
        # every row, and attribute lookup by name costs a third of the time. The count and the
        # version are read after the loop, as what it returns.
        for count, (  # noqa: B007
            position,
            event_id,
            campaign_id,
            version,
            session_id,
            character_id,
            type_,
            schema_version,
            payload,
            recorded_at,
            visibility,
            prev_hash,
            digest,
        ) in enumerate(result, 1):
            known = fast.get(type_, _UNMET)
            if known is _UNMET:
                found = current_decoder(type_)
                known = fast[type_] = None if found is None else (found[0], found[1].decode)
            if known is not None and known[0] == schema_version:
                try:
                    data = known[1](payload)
                except (msgspec.ValidationError, msgspec.DecodeError, ValueError):
                    # One that does not fit goes the long way, which names what is wrong.
                    data = decode(type_, schema_version, payload)
            else:
                data = decode(type_, schema_version, payload)
            yield StoredEvent(
                position,
                event_id,
                campaign_id,
                version,
                session_id,
                character_id,
                type_,
                schema_version,
                data,
                recorded_at,
                visibility,
                prev_hash,
                digest,
                payload,
            )
        return count, version

    def find_hash(self, digest: str) -> StoredEvent | None:
        """The event whose hash is ``digest``, if the log holds one."""
        with self._reading() as link:
            return next(
                self._rows(link, f"{SELECT_EVENTS} WHERE hash = :hash", {"hash": digest}), None
            )

    def count(self, campaign_id: str | None = None, types: Iterable[str] | None = None) -> int:
        sql = ["SELECT count(*) FROM events WHERE 1 = 1"]
        params: dict[str, Any] = {}
        if campaign_id is not None:
            sql.append("AND campaign_id = :campaign_id")
            params["campaign_id"] = campaign_id
        if types is not None:
            among, named = placeholders("type", list(types))
            sql.append(f"AND type IN {among}")
            params.update(named)
        with self._reading() as link:
            [(n,)] = link.rows(" ".join(sql), params)
        return n

    def first_version(self, campaign_id: str, event_ids: Iterable[str]) -> int | None:
        """The lowest version among ``event_ids`` in the campaign's log (None if none is there)."""
        ids = list(event_ids)
        lowest: int | None = None
        with self._reading() as link:
            # In slices: a database caps the parameters one statement may carry.
            for start in range(0, len(ids), ID_SLICE):
                for owner, version in link.rows(*versions_of(ids[start : start + ID_SLICE])):
                    if owner == campaign_id and (lowest is None or version < lowest):
                        lowest = version
        return lowest

    def find_event(self, campaign_id: str, ident: str) -> StoredEvent:
        """An event by its number in the log, its id, or an unambiguous prefix of its id."""
        if ident.isascii() and ident.isdigit():
            if len(ident) > 18:  # past any version a log can reach, and past SQL's integers
                raise NotFound(f"No event {ident} in this campaign; `tracker log` lists them.")
            with self._reading() as link:
                found = next(
                    self._rows(
                        link,
                        f"{SELECT_EVENTS} WHERE campaign_id = :campaign_id AND version = :version",
                        {"campaign_id": campaign_id, "version": int(ident)},
                    ),
                    None,
                )
            if found is None:
                raise NotFound(f"No event {ident} in this campaign; `tracker log` lists them.")
            return found
        prefix = ident.lower()
        if len(prefix) < 4 or not all(ch in "0123456789abcdef-" for ch in prefix):
            raise NotFound(f"No event {ident!r}; give its number or id from `tracker log`.")
        # Only hex digits and dashes reach here: nothing in the prefix is a LIKE wildcard.
        with self._reading() as link:
            matches = list(
                self._rows(
                    link,
                    f"{SELECT_EVENTS} WHERE campaign_id = :campaign_id "
                    "AND event_id LIKE :prefix LIMIT 2",
                    {"campaign_id": campaign_id, "prefix": prefix + "%"},
                )
            )
        if not matches:
            raise NotFound(f"No event {ident!r}; give its number or id from `tracker log`.")
        if len(matches) > 1:
            raise BadInput(f"{ident!r} matches more than one event; give more of the id.")
        return matches[0]

    def last_event_by(self, campaign_id: str, recorded_at: str) -> StoredEvent | None:
        """The last event recorded at or before ``recorded_at`` (an ISO UTC time)."""
        with self._reading() as link:
            return next(
                self._rows(
                    link,
                    f"{SELECT_EVENTS} WHERE campaign_id = :campaign_id "
                    "AND recorded_at <= :at ORDER BY version DESC LIMIT 1",
                    {"campaign_id": campaign_id, "at": recorded_at},
                ),
                None,
            )

    def session_counts(self, campaign_id: str) -> dict[int, int]:
        """How many events each session of the campaign logged (its start and end included)."""
        with self._reading() as link:
            return dict(
                link.rows(
                    "SELECT session_id, count(*) FROM events WHERE campaign_id = :campaign_id "
                    "AND session_id IS NOT NULL GROUP BY session_id",
                    {"campaign_id": campaign_id},
                )
            )

    def session_span(self, campaign_id: str, session_id: int) -> tuple[int, int] | None:
        """The first and last version the session logged (None when it logged nothing), read
        through the session index: the session's own events, never the whole log."""
        with self._reading() as link:
            [(first, last)] = link.rows(
                "SELECT min(version), max(version) FROM events "
                "WHERE campaign_id = :campaign_id AND session_id = :session_id",
                {"campaign_id": campaign_id, "session_id": session_id},
            )
        return None if first is None else (first, last)

    def session_counts_among(self, campaign_id: str, event_ids: Iterable[str]) -> dict[int, int]:
        """How many of ``event_ids`` each session of the campaign logged."""
        wanted = list(event_ids)
        counts: dict[int, int] = {}
        with self._reading() as link:
            # In slices: SQLite caps the parameters of one statement.
            for start in range(0, len(wanted), ID_SLICE):
                among, params = placeholders("id", wanted[start : start + ID_SLICE])
                for session_id, n in link.rows(
                    "SELECT session_id, count(*) FROM events WHERE campaign_id = :campaign_id "
                    f"AND session_id IS NOT NULL AND event_id IN {among} GROUP BY session_id",
                    {"campaign_id": campaign_id, **params},
                ):
                    counts[session_id] = counts.get(session_id, 0) + n
        return counts

    # -- import -------------------------------------------------------------------------------

    def import_events(self, stream: Iterable[StoredEvent]) -> int:
        """Insert exported events exactly as they were (positions, versions, hashes), in one
        transaction; any event whose hash or chain does not check out aborts the whole import."""
        heads: dict[str, tuple[int, str]] = {}
        batch: list[dict] = []
        count = 0
        with self.backend.writing() as link:
            # Asked again under the write lock: another import or command may have logged
            # since the caller looked, and its ids would read as this file's own twice.
            if next(iter(link.rows("SELECT 1 FROM campaigns LIMIT 1")), None) is not None:
                raise Refused(
                    "This database already holds campaigns (another command logged to it while "
                    "the file was read); nothing was imported, so import into a new one "
                    "(--db NEW.db)."
                )
            for event in stream:
                version, prev = heads.get(event.campaign_id, (0, GENESIS_HASH))
                if event.version != version + 1 or event.prev_hash != prev:
                    raise BadInput(
                        f"Event {event.version} of campaign {event.campaign_id} does not follow "
                        "the one before it in the export and nothing was imported; the file was "
                        "changed since its export, so export it again from the source database."
                    )
                if event.computed_hash() != event.hash:
                    raise BadInput(
                        f"Event {event.version} ({event.event_id}) does not match its hash in the "
                        "export and nothing was imported; the file was changed since its export, "
                        "so export it again from the source database."
                    )
                if event.type == CampaignCreated.TYPE:
                    if batch:
                        link.run_many(IMPORT_EVENT, batch)
                        batch = []
                    created = event.payload
                    link.rows(
                        "INSERT INTO campaigns (campaign_id, name, system, created_at) "
                        "VALUES (:campaign_id, :name, :system, :created_at)",
                        {
                            "campaign_id": event.campaign_id,
                            "name": created["name"],
                            "system": created["system"],
                            "created_at": event.recorded_at,
                        },
                    )
                heads[event.campaign_id] = (event.version, event.hash)
                batch.append(_row(event))
                count += 1
                if len(batch) >= IMPORT_BATCH:
                    link.run_many(IMPORT_EVENT, batch)
                    batch = []
            if batch:
                link.run_many(IMPORT_EVENT, batch)
            if self.backend.dialect == "postgresql":
                # The next appended event follows the highest position imported: SQLite's
                # AUTOINCREMENT counts explicit values, a PostgreSQL sequence does not.
                link.rows(
                    "SELECT setval(pg_get_serial_sequence('events', 'position'), max(position)) "
                    "FROM events HAVING max(position) IS NOT NULL"
                )
        return count

    # -- snapshots -----------------------------------------------------------------------------

    def load_snapshot(
        self, campaign_id: str, projection: str | Sequence[str], projection_version: int
    ) -> tuple[int, dict] | None:
        """The cached state and the version it was folded to, if it still matches the log; of
        several projection names, the newest that does (only that one's state is parsed).

        A snapshot whose recorded head hash is not the hash of the event at its version (the log
        was replaced by an import or a restore) is ignored.
        """
        names = [projection] if isinstance(projection, str) else list(projection)
        for _, version, _, read in self.stored_snapshots(campaign_id, names, projection_version):
            text = read()
            if text is None:
                continue
            # A cache that does not parse is passed over, never a crash.
            try:
                doc = loads_payload(text)
            except ValueError:
                continue
            if isinstance(doc, dict):
                return version, doc
        return None

    def stored_snapshots(
        self, campaign_id: str, names: Sequence[str], projection_version: int
    ) -> list[tuple[str, int, str, Callable[[], str | None]]]:
        """The campaign's cached states under ``names`` that still match the log, newest first
        (of two at one version, the first named), each with the hash of the event it was folded
        to and a way to read its text: a caller
        choosing among them reads the text of those it looks at, and parses only the one it
        takes. A snapshot replaced after this listing reads as None."""
        among, params = placeholders("name", names)
        with self._reading() as link:
            found = [
                (
                    name,
                    version,
                    head,
                    functools.partial(self._snapshot_text, campaign_id, name, version, head),
                )
                for name, version, head in link.rows(
                    "SELECT s.projection, s.version, s.head_hash FROM snapshots s "
                    "JOIN events e ON e.campaign_id = s.campaign_id AND e.version = s.version "
                    f"WHERE s.campaign_id = :campaign_id AND s.projection IN {among} "
                    "AND s.projection_version = :pv AND e.hash = s.head_hash",
                    {"campaign_id": campaign_id, "pv": projection_version, **params},
                )
            ]
        found.sort(key=lambda f: (-f[1], names.index(f[0])))
        return found

    def _snapshot_text(
        self, campaign_id: str, name: str, version: int, head_hash: str
    ) -> str | None:
        with self._reading() as link:
            row = next(
                iter(
                    link.rows(
                        "SELECT state FROM snapshots WHERE campaign_id = :campaign_id "
                        "AND projection = :name AND version = :version AND head_hash = :head",
                        {
                            "campaign_id": campaign_id,
                            "name": name,
                            "version": version,
                            "head": head_hash,
                        },
                    )
                ),
                None,
            )
        return None if row is None else row[0]

    def forget_snapshot(self, campaign_id: str, projection: str, projection_version: int) -> None:
        """Drop a cached snapshot (one that does not hold what the log folds to)."""
        with self.backend.writing(locked=False) as link:
            link.rows(
                "DELETE FROM snapshots WHERE campaign_id = :campaign_id "
                "AND projection = :name AND projection_version = :pv",
                {"campaign_id": campaign_id, "name": projection, "pv": projection_version},
            )

    def snapshots_of(self, campaign_id: str) -> list[tuple[str, int, int, str, str]]:
        """Every stored snapshot of a campaign, as stored: its projection and that projection's
        version, the version and head hash it was folded to, and its state's text."""
        with self._reading() as link:
            return [
                tuple(row)
                for row in link.rows(
                    "SELECT projection, projection_version, version, head_hash, state "
                    "FROM snapshots WHERE campaign_id = :campaign_id ORDER BY version",
                    {"campaign_id": campaign_id},
                )
            ]

    def save_snapshot(
        self,
        campaign_id: str,
        projection: str,
        projection_version: int,
        version: int,
        head_hash: str,
        state: dict,
        *,
        keep_previous_as: str | None = None,
    ) -> None:
        """Replace the campaign's cached state for this projection version; the one replaced is
        kept under the name ``keep_previous_as`` when given (replacing what was there)."""
        key = {"campaign_id": campaign_id, "name": projection}
        delete = "DELETE FROM snapshots WHERE campaign_id = :campaign_id AND projection = :name"
        with self.backend.writing(locked=False) as link:
            if keep_previous_as is not None:
                link.rows(delete, {**key, "name": keep_previous_as})
                link.rows(
                    "UPDATE snapshots SET projection = :kept "
                    "WHERE campaign_id = :campaign_id AND projection = :name",
                    {**key, "kept": keep_previous_as},
                )
            link.rows(delete, key)
            link.rows(
                "INSERT INTO snapshots (campaign_id, projection, projection_version, version, "
                "head_hash, state, created_at) VALUES (:campaign_id, :name, :pv, :version, "
                ":head_hash, :state, :created_at)",
                {
                    **key,
                    "pv": projection_version,
                    "version": version,
                    "head_hash": head_hash,
                    "state": _SNAPSHOT_ENCODER.encode(state).decode(),
                    "created_at": now_utc(),
                },
            )

    # -- campaigns and settings ----------------------------------------------------------------

    def campaigns(self) -> list[CampaignRow]:
        with self._reading() as link:
            return [
                CampaignRow(*row)
                for row in link.rows(
                    "SELECT campaign_id, name, system, created_at FROM campaigns "
                    "ORDER BY created_at"
                )
            ]

    def unlisted(self) -> list[tuple[str, int]]:
        """Each campaign id the events table holds that the campaigns table does not, with its
        number of events: a log no command lists, left by an edit of the campaigns table."""
        with self._reading() as link:
            return [
                (campaign_id, count)
                for campaign_id, count in link.rows(
                    "SELECT campaign_id, count(*) FROM events WHERE campaign_id NOT IN "
                    "(SELECT campaign_id FROM campaigns) GROUP BY campaign_id ORDER BY campaign_id"
                )
            ]

    def find_campaign(self, name_or_id: str) -> CampaignRow | None:
        """A campaign by id or by name, the name matched without regard to case.

        A campaign's row never changes once made (the schema refuses it), so one found is kept
        and the next command of the same process finds it without asking the database."""
        wanted = name_or_id.casefold()
        found = self._found.get(name_or_id) or self._found.get(wanted)
        if found is not None:
            return found
        rows = self.campaigns()
        for row in rows:
            self._found[row.campaign_id] = self._found[row.name.casefold()] = row
            if row.campaign_id == name_or_id or row.name.casefold() == wanted:
                found = row
        if found is None:
            # A name that reads the same (typed in full-width letters, say), as a last resort.
            shown = reads_as(name_or_id)
            found = next((row for row in rows if reads_as(row.name) == shown), None)
        return found

    # -- the web app's requests -----------------------------------------------------------

    @contextmanager
    def claiming(self, claim: Claim) -> Iterator[Claim]:
        """Within the block, the first append also writes ``claim``, in its transaction."""
        token = CLAIM.set(claim)
        try:
            yield claim
        finally:
            CLAIM.reset(token)

    def answered(self, holder: str, nonce: str) -> tuple[bool, str | None]:
        """Whether the request was seen before, and its answer as stored (None while the
        request that logged has not stored it yet, or never could)."""
        with self._reading() as link:
            for (answer,) in link.rows(
                "SELECT answer FROM requests WHERE holder = :holder AND nonce = :nonce",
                {"holder": holder, "nonce": nonce},
            ):
                return True, answer
        return False, None

    def remember(self, claim: Claim, answer: str) -> None:
        """Store the answer to ``claim``'s request (written with its events, or now), and
        forget the requests whose page token has expired."""
        with self.backend.writing() as link:
            link.rows("DELETE FROM requests WHERE until_at < :now", {"now": int(time.time())})
            key = {"holder": claim.holder, "nonce": claim.nonce}
            found = link.rows(
                "SELECT 1 FROM requests WHERE holder = :holder AND nonce = :nonce", key
            )
            if any(True for _ in found):
                # The first answer stands: a copy of the request that ran alongside it (on
                # another server of the same database) does not replace it.
                link.rows(
                    "UPDATE requests SET answer = :answer "
                    "WHERE holder = :holder AND nonce = :nonce AND answer IS NULL",
                    {**key, "answer": answer},
                )
            else:
                link.rows(
                    "INSERT INTO requests (holder, nonce, until_at, answer) "
                    "VALUES (:holder, :nonce, :until_at, :answer)",
                    {**key, "until_at": claim.until_at, "answer": answer},
                )

    @cached_property
    def invitations(self) -> Invitations:
        """The keys the GM handed out, and the web app's page secret (not the log)."""
        from tracker.store.invitations import Invitations

        return Invitations(self.backend)

    @cached_property
    def asked(self) -> AskedRolls:
        """The rolls the GM asked of the phones, not rolled yet (not the log)."""
        from tracker.store.asked import AskedRolls

        return AskedRolls(self.backend)

    def get_setting(self, key: str) -> str | None:
        with self._reading() as link:
            for (value,) in link.rows("SELECT value FROM settings WHERE key = :key", {"key": key}):
                return value
        return None

    def set_setting(self, key: str, value: str) -> None:
        # Two writers setting a new key at once would both insert it on PostgreSQL and one
        # fail on the primary key; under the writers' lock the second replaces the first's row.
        with self.backend.writing() as link:
            link.rows("DELETE FROM settings WHERE key = :key", {"key": key})
            link.rows(
                "INSERT INTO settings (key, value) VALUES (:key, :value)",
                {"key": key, "value": value},
            )


def _chained(
    campaign_id: str,
    batch: Sequence[NewEvent],
    expected: int,
    prev_hash: str | None,
    recorded: str,
) -> tuple[list[dict[str, Any]], list[tuple[dict[str, Any], str, Any, str]]]:
    """A batch's rows as the events table takes them, each hashed onto the one before from
    ``prev_hash``; and each event's fields, hash, payload and stored JSON, to hand back."""
    prev = prev_hash
    rows = []
    out = []
    for offset, new in enumerate(batch, start=1):
        fields = chain_fields(
            event_id=new.event_id,
            campaign_id=campaign_id,
            version=expected + offset,
            session_id=new.session_id,
            character_id=new.character_id,
            type=new.type,
            schema_version=new.schema_version,
            payload=new.payload,
            recorded_at=new.recorded_at or recorded,
            visibility=new.visibility,
            prev_hash=prev,
        )
        digest = event_hash(fields)
        # Stored in the order the command wrote it (a sheet's stats stay in sheet order); the
        # hash covers the canonical spelling, so key order never matters to verify.
        raw = stored_json(new.payload)
        size = oversized(raw)
        if size is not None:
            raise BadInput(
                f"That would log an event of {size:,} bytes, more than the {MAX_PAYLOAD:,} "
                "one event may hold (so that an export reads back whole); give less at "
                "once, such as a sheet without what the table does not use."
            )
        rows.append({**fields, "payload": raw, "hash": digest})
        data = new.data
        if data is None:
            data = decode(new.type, new.schema_version, new.payload)
        out.append((fields, digest, data, raw))
        prev = digest
    return rows, out


def _remember_claim(link: Link) -> None:
    """The web request being answered, remembered in the transaction that logs what it did: a
    request that logged is refused when sent again exactly when its events are in the log."""
    claim = CLAIM.get()
    if claim is not None and not claim.written:
        link.rows(
            "INSERT INTO requests (holder, nonce, until_at, answer) "
            "VALUES (:holder, :nonce, :until_at, NULL)",
            {"holder": claim.holder, "nonce": claim.nonce, "until_at": claim.until_at},
        )
        claim.written = True


def _inserted(
    link: Link, rows: list[dict[str, Any]], campaign_id: str, expected: int
) -> Iterable[int]:
    """The rows inserted, and the positions the log gave them: only those are new to us, the
    rest of each stored event being in hand already."""
    if len(rows) == 1:
        return [
            position for (position,) in link.rows(f"{INSERT_EVENT} RETURNING position", rows[0])
        ]
    # One executemany and one read of the positions it gave: both drivers return a batch's
    # positions only by inserting row by row.
    link.run_many(INSERT_EVENT, rows)
    return [
        position
        for (position,) in link.rows(
            "SELECT position FROM events WHERE campaign_id = :campaign_id "
            "AND version > :after ORDER BY version",
            {"campaign_id": campaign_id, "after": expected},
        )
    ]
