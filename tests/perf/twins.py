"""Raw-SQLite twins: the same jobs done with plain ``sqlite3``, ``hashlib`` and the JSON libraries
tracker itself uses.

Each twin works on the same schema (made by tracker's own migrations), with the same connection
settings (WAL, ``synchronous=FULL``, foreign keys, a write lock taken up front), the same commit
cadence, the same hash chain over the same canonical JSON, and the same parser (msgspec) for
every stored payload and export line. Where tracker works out the exact odds of a roll, the
twin asks the same cached function (Glintlock's; the other systems' rows leave odds out on both
sides' account, see ``export_rolls``). What tracker takes beyond a twin is the cost of its
layers, not of a slower tool.
"""

from __future__ import annotations

import csv
import hashlib
import json
import sqlite3
import time
import uuid
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from itertools import islice
from typing import Any

import msgspec

GENESIS_HASH = "0" * 64
# tracker appends in batches of this many events, each batch its own durable commit.
COMMIT_EVERY = 5_000
loads = msgspec.json.decode
COLUMNS = (
    "position",
    "event_id",
    "campaign_id",
    "version",
    "session_id",
    "character_id",
    "type",
    "schema_version",
    "payload",
    "recorded_at",
    "visibility",
    "prev_hash",
    "hash",
)
INSERT = f"INSERT INTO events ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
INSERT_APPENDED = INSERT.replace("position, ", "").replace("?, ", "", 1)
SCAN = f"SELECT {', '.join(COLUMNS)} FROM events WHERE campaign_id = ? ORDER BY version"
ROLL_TYPES = ("CharacterAdded", "RollMade", "FrightChecked", "ContestRolled")
CSV_COLUMNS = (
    "time",
    "session",
    "character",
    "system",
    "kind",
    "trait",
    "base",
    "modifiers",
    "effective",
    "dice",
    "kept",
    "outcome",
    "margin",
    "position",
    "effects",
    "revoked",
    "secret",
    "success",
    "p_success",
    "event_id",
    "version",
    "log_head",
)


def connect(path: str) -> sqlite3.Connection:
    """A connection set up as tracker sets up its own."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA journal_mode = WAL")
    return conn


def canonical(value: Any) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def stored(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def digest(fields: dict[str, Any]) -> str:
    return hashlib.sha256(canonical(fields).encode("utf-8")).hexdigest()


def _campaign_row(conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
    payload = doc["payload"]
    conn.execute(
        "INSERT INTO campaigns (campaign_id, name, system, created_at) VALUES (?, ?, ?, ?)",
        (doc["campaign_id"], payload["name"], payload["system"], doc["recorded_at"]),
    )


def import_export(path: str, db: str) -> int:
    """``tracker import``'s job: read an events export, check every link and hash, insert."""
    conn = connect(db)
    count = 0

    def rows(lines: Iterable[str]) -> Iterator[tuple]:
        nonlocal count
        prev, version = GENESIS_HASH, 0
        for line in lines:
            doc = loads(line)
            position = doc.pop("position")
            claimed = doc.pop("hash")
            if doc["version"] != version + 1 or doc["prev_hash"] != prev:
                raise ValueError(f"event {doc['version']} does not follow the one before it")
            if digest(doc) != claimed:
                raise ValueError(f"event {doc['version']} does not match its hash")
            if doc["type"] == "CampaignCreated":
                _campaign_row(conn, doc)
            prev, version = claimed, doc["version"]
            count += 1
            yield (
                position,
                doc["event_id"],
                doc["campaign_id"],
                doc["version"],
                doc["session_id"],
                doc["character_id"],
                doc["type"],
                doc["schema_version"],
                stored(doc["payload"]),
                doc["recorded_at"],
                doc["visibility"],
                doc["prev_hash"],
                claimed,
            )

    with open(path, encoding="utf-8") as handle:
        next(handle)
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(INSERT, rows(handle))
        conn.execute("COMMIT")
    conn.close()
    return count


def append_stream(db: str, campaign_id: str, name: str, system: str, stream: Iterable) -> int:
    """``append``'s job for a whole stream of new events, a durable commit every
    ``COMMIT_EVERY`` events as tracker's batches: each batch reads the head under the write lock,
    versions and chains its events to it, and inserts them."""
    conn = connect(db)
    count = 0
    feed = iter(stream)

    def rows(batch: list, version: int, prev: str) -> Iterator[tuple]:
        for offset, new in enumerate(batch, start=1):
            fields = {
                "event_id": new.event_id,
                "campaign_id": campaign_id,
                "version": version + offset,
                "session_id": new.session_id,
                "character_id": new.character_id,
                "type": new.type,
                "schema_version": new.schema_version,
                "payload": new.payload,
                "recorded_at": new.recorded_at,
                "visibility": new.visibility,
                "prev_hash": prev,
            }
            digest_ = digest(fields)
            yield (
                new.event_id,
                campaign_id,
                version + offset,
                new.session_id,
                new.character_id,
                new.type,
                new.schema_version,
                stored(new.payload),
                new.recorded_at,
                new.visibility,
                prev,
                digest_,
            )
            prev = digest_

    conn.execute("BEGIN IMMEDIATE")
    conn.execute(
        "INSERT INTO campaigns (campaign_id, name, system, created_at) VALUES (?, ?, ?, ?)",
        (campaign_id, name, system, datetime.now(UTC).isoformat()),
    )
    conn.execute("COMMIT")
    while batch := list(islice(feed, COMMIT_EVERY)):
        conn.execute("BEGIN IMMEDIATE")
        head = conn.execute(
            "SELECT version, hash FROM events WHERE campaign_id = ? ORDER BY version DESC LIMIT 1",
            (campaign_id,),
        ).fetchone()
        version, prev = head if head else (0, GENESIS_HASH)
        conn.executemany(INSERT_APPENDED, rows(batch, version, prev))
        conn.execute("COMMIT")
        count += len(batch)
    conn.close()
    return count


def only_campaign(conn: sqlite3.Connection) -> str:
    return conn.execute("SELECT campaign_id FROM campaigns").fetchone()[0]


def scan(db: str) -> int:
    """A projection's floor: every event of the campaign in version order, payload parsed."""
    conn = sqlite3.connect(db)
    count = 0
    for row in conn.execute(SCAN, (only_campaign(conn),)):
        loads(row[8])
        count += 1
    conn.close()
    return count


def _effects(effects: Iterable[dict[str, Any]]) -> str:
    words = []
    for e in effects:
        if "track" in e:
            words.append(f"{e['delta']:+d} {e['track']}")
        else:
            words.append(str(next(iter(e.values()))))
    return "; ".join(words)


def _mods(mods: Iterable[dict[str, Any]]) -> str:
    return "; ".join(f"{m['value']:+d} {m.get('label') or m.get('kind') or ''}" for m in mods)


def conn_system(db: str) -> str:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT system FROM campaigns").fetchone()[0]
    finally:
        conn.close()


def odds(chance: Any, kind: str, inputs: dict[str, Any], result: dict[str, Any]) -> Any:
    """A Glintlock check's exact chance of a hit, as tracker's CSV writes it."""
    if chance is None or kind != "RollMade":
        return ""
    key = (inputs["stat"], inputs["trained"], result["position"], inputs["bonus"])
    return float(chance(key))


def export_rolls(db: str, out_path: str) -> int:
    """``export rolls --format csv``'s job: one CSV row per roll, names resolved, 22 columns.

    A Glintlock check's odds come from the same cached function tracker asks (both sides pay a
    dictionary lookup per row once the few distinct checks are worked out); other systems' odds
    are left empty here, which flatters the twin.
    """
    chance = None
    if conn_system(db) == "glintlock":
        from tracker.systems.glintlock.play import chance
    conn = sqlite3.connect(db)
    campaign_id = only_campaign(conn)
    head = conn.execute(
        "SELECT hash FROM events WHERE campaign_id = ? ORDER BY version DESC LIMIT 1",
        (campaign_id,),
    ).fetchone()[0]
    marks = ", ".join("?" * len(ROLL_TYPES))
    query = (
        "SELECT version, event_id, type, session_id, recorded_at, visibility, payload FROM events "
        f"WHERE campaign_id = ? AND type IN ({marks}) ORDER BY version"
    )
    names: dict[str, str] = {}
    count = 0
    with open(out_path, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(CSV_COLUMNS)
        for version, event_id, kind, session, at, visibility, text in conn.execute(
            query, (campaign_id, *ROLL_TYPES)
        ):
            p = loads(text)
            if kind == "CharacterAdded":
                names[p["character_id"]] = p["name"]
                continue
            secret = visibility == "gm"
            if kind == "ContestRolled":
                sides = [
                    (s["name"], s["trait"], s["inputs"], s["result"]) for s in (p["a"], p["b"]) if s
                ]
                effects = p["winner"] or "stalemate"
            else:
                result = p["result"]["roll"] if kind == "FrightChecked" else p["result"]
                name = names.get(p["character_id"], "?")
                sides = [(name, p.get("trait", "Fright Check"), p["inputs"], result)]
                effects = _effects(p["effects"])
            for name, trait, inputs, result in sides:
                writer.writerow(
                    [
                        at,
                        session,
                        name,
                        p.get("system", "gurps"),
                        p.get("kind", "fright"),
                        trait,
                        inputs.get("base", inputs.get("rank", inputs.get("stat"))),
                        _mods(result.get("modifiers") or result.get("tags") or ()),
                        result.get("effective", result.get("rank")),
                        " ".join(map(str, result["dice"])),
                        result.get("kept", result.get("total")),
                        result["outcome"],
                        result.get("margin"),
                        result.get("position"),
                        effects,
                        False,
                        secret,
                        bool(result["success"]),
                        odds(chance, kind, inputs, result),
                        event_id,
                        version,
                        head,
                    ]
                )
                count += 1
    conn.close()
    return count


def chained_row(
    campaign_id: str,
    version: int,
    prev: str,
    event_type: str,
    payload: dict[str, Any],
    session_id: int | None = None,
    character_id: str | None = None,
) -> tuple:
    """A new public event chained to ``prev``, as ``INSERT_APPENDED`` takes it: recorded now,
    hashed over the same canonical fields as tracker's."""
    fields = {
        "event_id": str(uuid.uuid4()),
        "campaign_id": campaign_id,
        "version": version,
        "session_id": session_id,
        "character_id": character_id,
        "type": event_type,
        "schema_version": 1,
        "payload": payload,
        "recorded_at": datetime.now(UTC).isoformat(timespec="microseconds"),
        "visibility": "public",
        "prev_hash": prev,
    }
    return (
        *(fields[c] for c in COLUMNS[1:8]),
        stored(payload),
        fields["recorded_at"],
        "public",
        prev,
        digest(fields),
    )


def log_rolls(db: str, count: int) -> list[float]:
    """A logged roll's floor: ``count`` single-event appends, each in its own durable commit.

    Each reads the head, chains a copy of the latest roll to it and commits: the fsync that
    ``synchronous=FULL`` asks for is in every one. Returns the seconds each took.
    """
    conn = connect(db)
    campaign_id = only_campaign(conn)
    session, character, text = conn.execute(
        "SELECT session_id, character_id, payload FROM events WHERE campaign_id = ? "
        "AND type = 'RollMade' ORDER BY version DESC LIMIT 1",
        (campaign_id,),
    ).fetchone()
    payload = json.loads(text)
    times = []
    for _ in range(count):
        start = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        version, prev = conn.execute(
            "SELECT version, hash FROM events WHERE campaign_id = ? ORDER BY version DESC LIMIT 1",
            (campaign_id,),
        ).fetchone()
        row = chained_row(campaign_id, version + 1, prev, "RollMade", payload, session, character)
        conn.execute(INSERT_APPENDED, row)
        conn.execute("COMMIT")
        times.append(time.perf_counter() - start)
    conn.close()
    return times
