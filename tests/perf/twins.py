"""Twins: the bench's jobs done the plain way, with plain ``sqlite3``, ``hashlib``, ``csv`` and
the JSON libraries tracker itself uses, so that what tracker takes beyond a twin is the cost of
its layers, not of a slower tool.

Each twin produces what tracker produces: it works on the same schema (made by tracker's own
migrations), with the same connection settings (WAL, ``synchronous=FULL``, foreign keys, a write
lock taken up front), the same commit cadence, the same hash chain over the same canonical JSON,
and the same parser (msgspec) for every stored payload and export line. The rebuild's twin
decodes every payload and folds it trivially into a dictionary; the export's writes tracker's
CSV byte for byte (the bench compares the files), asking the same cached function for a
check's exact odds. A twin the bench times as a whole process (``python twins.py JOB ...``)
leaves as tracker does, without tearing the interpreter down.
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
    "dice_source",
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
    "bought_up_from",
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


class _Line(msgspec.Struct):
    position: int
    event_id: str
    campaign_id: str
    version: int
    session_id: int | None
    character_id: str | None
    type: str
    schema_version: int
    payload: msgspec.Raw
    recorded_at: str
    visibility: str
    prev_hash: str
    hash: str


def load(path: str, db: str) -> int:
    """An events export put in a database as it stands, unchecked, each payload's text kept as
    the file holds it: the quickest way to a long log for the figures that read one (the
    import itself is figure 1's)."""
    conn = connect(db)
    read = msgspec.json.Decoder(_Line).decode
    count = 0

    def rows(lines: Iterable[str]) -> Iterator[tuple]:
        nonlocal count
        for line in lines:
            e = read(line)
            if e.type == "CampaignCreated":
                _campaign_row(conn, {**msgspec.structs.asdict(e), "payload": loads(e.payload)})
            count += 1
            yield (
                e.position,
                e.event_id,
                e.campaign_id,
                e.version,
                e.session_id,
                e.character_id,
                e.type,
                e.schema_version,
                bytes(e.payload).decode("utf-8"),
                e.recorded_at,
                e.visibility,
                e.prev_hash,
                e.hash,
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


def rebuild(db: str) -> int:
    """A rebuild's plain floor: every event of the campaign in version order, its payload
    decoded with msgspec, and a trivial update of a dictionary per event (a count by type, the
    version and head reached): the reading and decoding every fold pays, and a fold that costs
    next to nothing."""
    conn = sqlite3.connect(db)
    state: dict[str, Any] = {"version": 0, "head": GENESIS_HASH}
    for row in conn.execute(SCAN, (only_campaign(conn),)):
        payload = loads(row[8])
        state[row[6]] = state.get(row[6], 0) + 1
        state["version"], state["head"] = row[3], row[12]
        state["fields"] = len(payload)
    conn.close()
    return state["version"]


# What a spreadsheet runs as a formula when a cell begins with it (tracker guards the same).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# Glintlock's check: stress from this level on adds a condition tag by itself.
STRESS_CONDITION_AT = 2
UNDO_TYPES = ("EventsRevoked", "EventsRestored")


def _guarded(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _effect_words(effect: dict[str, Any], untracked: bool) -> str:
    if "track" in effect:
        words = f"{effect['delta']:+d} {effect['track']}"
        if untracked:
            words += f" not applied (no {effect['track'].upper()} on the sheet)"
        return words
    if "condition" in effect:
        return effect["condition"]
    if "obligation" in effect:
        return f"owes {effect['obligation']}"
    if "stat_change" in effect:
        return f"{effect.get('delta', 0):+d} {effect['stat_change']}"
    return f"spent {effect['story_tag_spent']}"


def _check_words(inputs: dict[str, Any]) -> str:
    words = [f"{t['value']:+d} {t['kind'] or 'tag'}" for t in inputs["tags"]]
    if inputs["stress"] >= STRESS_CONDITION_AT:
        words.append(f"-1 stress {inputs['stress']}")
    if inputs["position_steps"]:
        words.append(f"advantage die x{inputs['position_steps']}")
    if inputs["bonus"]:
        words.append(f"{inputs['bonus']:+d} on the die (steel yourself)")
    return "; ".join(words)


def _revoked(conn: sqlite3.Connection, campaign_id: str) -> set[str]:
    """The events the campaign's undos and redos leave revoked, read from those alone."""
    revoked: set[str] = set()
    for kind, text in conn.execute(
        "SELECT type, payload FROM events WHERE campaign_id = ? AND type IN (?, ?) "
        "ORDER BY version",
        (campaign_id, *UNDO_TYPES),
    ):
        ids = loads(text)["event_ids"]
        if kind == "EventsRevoked":
            revoked.update(ids)
        else:
            revoked.difference_update(ids)
    return revoked


def export_rolls(db: str, out_path: str) -> int:
    """``export rolls --format csv``'s job on a Glintlock campaign, written the plain way: the
    same file, byte for byte (the bench compares them).

    One SELECT of the characters and the checks in version order, each payload decoded with
    msgspec, its words made with f-strings, text cells guarded against spreadsheet formulas,
    a check's exact odds from the same cached function tracker asks (a dictionary lookup per
    row once the few distinct checks are worked out), and the rows written by ``csv.writer``.
    """
    from tracker.systems.glintlock.play import chance

    conn = sqlite3.connect(db)
    campaign_id = only_campaign(conn)
    head = conn.execute(
        "SELECT hash FROM events WHERE campaign_id = ? ORDER BY version DESC LIMIT 1",
        (campaign_id,),
    ).fetchone()[0]
    revoked = _revoked(conn, campaign_id)
    query = (
        "SELECT version, event_id, type, session_id, recorded_at, visibility, payload FROM events "
        "WHERE campaign_id = ? AND type IN (?, ?, ?) ORDER BY version"
    )
    names: dict[str, str] = {}
    sheets: dict[str, set[str]] = {}
    odds: dict[tuple, float] = {}
    count = 0
    with open(out_path, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(CSV_COLUMNS)
        for version, event_id, kind, session, at, visibility, text in conn.execute(
            query, (campaign_id, "CharacterAdded", "CharacterUpdated", "RollMade")
        ):
            p = loads(text)
            if kind == "CharacterAdded":
                names[p["character_id"]] = p["name"]
                if event_id not in revoked:
                    sheets[p["character_id"]] = {k.casefold() for k in p["stats"]}
                continue
            if kind == "CharacterUpdated":
                if event_id not in revoked and p["character_id"] in sheets:
                    sheets[p["character_id"]].update(k.casefold() for k in p.get("stats") or ())
                continue
            inputs, result, who = p["inputs"], p["result"], p["character_id"]
            key = (inputs["stat"], inputs["trained"], result["position"], inputs["bonus"])
            chance_of = odds.get(key)
            if chance_of is None:
                chance_of = odds[key] = float(chance(key))
            effects = "; ".join(
                _effect_words(
                    e,
                    e.get("track") in ("hp", "fp")
                    and e["track"] not in sheets.get(e.get("character_id") or who, (e["track"],)),
                )
                for e in p.get("effects", ())
            )
            writer.writerow(
                (
                    at,
                    session,
                    _guarded(names.get(who, "?")),
                    p["system"],
                    p["kind"],
                    _guarded(p["trait"]),
                    inputs["stat"],
                    _guarded(_check_words(inputs)),
                    result["effective"],
                    " ".join(map(str, p["dice"])),
                    p["dice_source"],
                    result["kept"],
                    result["outcome"],
                    "",
                    result["position"],
                    _guarded(effects),
                    event_id in revoked,
                    visibility == "gm",
                    bool(result["success"]),
                    chance_of,
                    event_id,
                    version,
                    "",
                    head,
                )
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


def main(argv: list[str]) -> None:
    """A twin as a whole process of its own, timed as tracker's command is, and leaving as
    tracker leaves: without tearing the interpreter down (``os._exit``)."""
    import os

    job, *args = argv
    count = {"export-rolls": export_rolls}[job](*args)
    print(json.dumps({"rows": count}), flush=True)
    os._exit(0)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
