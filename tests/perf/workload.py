"""The benchmark's workload: one realistic campaign played once, replicated to any length.

A campaign of about 20,000 events is played through the command handlers (``generate``) and
exported. Its sessions are then replayed over and over, each copy with new event ids, versions,
session numbers and times, until the log holds N events. Everything streams: no list of N
events is ever built, so a million-event log costs no more memory than a thousand-event one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

TEMPLATE_EVENTS = 20_000
CAMPAIGN_NAME = "Bench"
EXPORT_FORMAT = "tracker-events/1"
# The gap between the end of one replayed copy of the campaign and the start of the next.
BETWEEN_COPIES = timedelta(days=7)
_OBLIGATION_ID = re.compile(r"^(\d+)(.*)$")


class Record(NamedTuple):
    """One event of the replicated stream, before the store chains it."""

    event_id: str
    version: int
    session_id: int | None
    character_id: str | None
    type: str
    schema_version: int
    payload: dict[str, Any]
    recorded_at: str
    visibility: str


@dataclass(frozen=True, slots=True)
class Template:
    """A played campaign cut into the events before its first session and the sessions."""

    campaign_id: str
    system: str
    prologue: tuple[dict[str, Any], ...]
    body: tuple[dict[str, Any], ...]
    sessions: int
    times: tuple[datetime, ...]
    span: timedelta


def play_template(db: Path, out: Path, system: str, seed: int) -> int:
    """Play a campaign of about ``TEMPLATE_EVENTS`` events into ``db``; export it to ``out``."""
    import sys

    # The generator of realistic play lives with the tests, one folder up.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from synthetic import generate

    from tracker.app.tracker import Tracker

    tracker = Tracker(str(db))
    try:
        generate(tracker, CAMPAIGN_NAME, system, events=TEMPLATE_EVENTS, seed=seed)
        _settle(tracker)
        with out.open("w", encoding="utf-8") as handle:
            return tracker.exports.export_events(handle)["events"]
    finally:
        tracker.close()


def _settle(tracker: Any) -> None:
    """A last session that leaves every character as the first session found them, without
    stress or conditions: the next copy of the sessions is then played onto the state they
    began from, and each of its rolls records the stress and conditions it is folded onto (an
    import holds every roll to them)."""
    state = tracker.state()
    if state.current_session is None:
        tracker.campaigns.session_start("Settling up")
    for ch in tracker.state().characters.values():
        if ch.stress:
            tracker.tracks.stress(ch.name, -ch.stress, cause="a long rest")
        for condition in list(ch.conditions):
            tracker.tracks.condition_clear(ch.name, condition)
    tracker.campaigns.session_end()


def load_template(path: Path) -> Template:
    """Read an exported campaign; its body runs from the first session start to the last end."""
    with path.open(encoding="utf-8") as handle:
        next(handle)
        events = [json.loads(line) for line in handle if line.strip()]
    first = next(i for i, e in enumerate(events) if e["type"] == "SessionStarted")
    last = max(i for i, e in enumerate(events) if e["type"] == "SessionEnded")
    body = events[first : last + 1]
    times = tuple(datetime.fromisoformat(e["recorded_at"]) for e in body)
    system = events[0]["payload"]["system"]
    return Template(
        campaign_id=events[0]["campaign_id"],
        system=system,
        prologue=tuple(events[:first]),
        body=tuple(body),
        sessions=sum(e["type"] == "SessionStarted" for e in body),
        times=times,
        span=times[-1] - times[0] + BETWEEN_COPIES,
    )


def respell(event_id: str, copy: int) -> str:
    """The id of an event in copy ``copy`` of the campaign: still a UUID, unique per copy."""
    if copy == 0:
        return event_id
    return f"{event_id[:24]}{int(event_id[24:], 16) ^ copy:012x}"


def _shift_obligation(ob_id: str, by: int) -> str:
    # Obligation ids start with the version of the event that opened them ("36", "9a", "56-0").
    match = _OBLIGATION_ID.match(ob_id)
    return f"{int(match[1]) + by}{match[2]}" if match else ob_id


def _rewrite(event: dict[str, Any], copy: int, versions: int, sessions: int) -> dict[str, Any]:
    """The payload of ``event`` in copy ``copy``: its references moved to that copy."""
    payload = event["payload"]
    kind = event["type"]
    if kind in ("SessionStarted", "SessionEnded"):
        number = payload["number"] + copy * sessions
        payload = {**payload, "number": number}
        if kind == "SessionStarted" and payload.get("title"):
            payload["title"] = f"Session {number}"
        return payload
    if isinstance(payload.get("obligation"), str):
        payload = {**payload, "obligation": _shift_obligation(payload["obligation"], versions)}
    if isinstance(payload.get("roll_event_id"), str):
        payload = {**payload, "roll_event_id": respell(payload["roll_event_id"], copy)}
    if isinstance(payload.get("revocation"), str):
        payload = {**payload, "revocation": respell(payload["revocation"], copy)}
    if isinstance(payload.get("event_ids"), list):
        payload = {**payload, "event_ids": [respell(i, copy) for i in payload["event_ids"]]}
    # A roll names the spends it used: the copy's own, or the copy would use another's.
    if payload.get("consumed"):
        payload = {**payload, "consumed": [respell(i, copy) for i in payload["consumed"]]}
    if isinstance(payload.get("inputs"), dict) and payload["inputs"].get("after"):
        inputs = {**payload["inputs"], "after": respell(payload["inputs"]["after"], copy)}
        payload = {**payload, "inputs": inputs}
    return payload


def _needs_rewrite(event: dict[str, Any]) -> bool:
    payload = event["payload"]
    return (
        event["type"] in ("SessionStarted", "SessionEnded")
        or any(key in payload for key in ("obligation", "roll_event_id", "revocation", "event_ids"))
        or bool(payload.get("consumed"))
        or (isinstance(payload.get("inputs"), dict) and bool(payload["inputs"].get("after")))
    )


def records(template: Template, count: int) -> Iterator[Record]:
    """The first ``count`` events of the campaign replayed copy after copy, in version order."""
    version = 0
    for event in template.prologue:
        if version == count:
            return
        version += 1
        payload = event["payload"]
        if event["type"] == "CampaignCreated":
            payload = {**payload, "name": CAMPAIGN_NAME}
        yield Record(
            event["event_id"],
            version,
            event["session_id"],
            event["character_id"],
            event["type"],
            event["schema_version"],
            payload,
            event["recorded_at"],
            event["visibility"],
        )
    rewrite = [_needs_rewrite(e) for e in template.body]
    copy = 0
    while True:
        versions = copy * len(template.body)
        sessions = copy * template.sessions
        moved = copy * template.span
        for event, when, changed in zip(template.body, template.times, rewrite, strict=True):
            if version == count:
                return
            version += 1
            session = event["session_id"]
            yield Record(
                respell(event["event_id"], copy),
                version,
                None if session is None else session + sessions,
                event["character_id"],
                event["type"],
                event["schema_version"],
                _rewrite(event, copy, versions, template.sessions) if changed else event["payload"],
                (when + moved).isoformat(timespec="microseconds") if copy else event["recorded_at"],
                event["visibility"],
            )
        copy += 1


def new_events(template: Template, count: int) -> Iterator[Any]:
    """The replicated stream as the ``NewEvent`` values a command hands to ``append``."""
    from tracker.events.envelope import NewEvent

    for r in records(template, count):
        yield NewEvent(
            type=r.type,
            payload=r.payload,
            schema_version=r.schema_version,
            session_id=r.session_id,
            character_id=r.character_id,
            visibility=r.visibility,
            event_id=r.event_id,
            recorded_at=r.recorded_at,
        )


def _export_line(doc: dict[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_export(template: Template, count: int, path: Path) -> str:
    """Write ``count`` replicated events, chained, as a ``tracker export events`` file.

    Returns the head hash. The header names the head, which is known only at the end: it is
    written with a placeholder of the same length and overwritten in place.
    """
    from tracker.events.envelope import GENESIS_HASH, chain_fields, event_hash

    campaign_id = template.campaign_id

    def header(head: str) -> str:
        doc = {"format": EXPORT_FORMAT, "campaigns": {campaign_id: head}, "events": count}
        return json.dumps(doc) + "\n"

    prev = GENESIS_HASH
    with path.open("w", encoding="utf-8") as out:
        out.write(header(GENESIS_HASH))
        for position, r in enumerate(records(template, count), start=1):
            fields = chain_fields(
                event_id=r.event_id,
                campaign_id=campaign_id,
                version=r.version,
                session_id=r.session_id,
                character_id=r.character_id,
                type=r.type,
                schema_version=r.schema_version,
                payload=r.payload,
                recorded_at=r.recorded_at,
                visibility=r.visibility,
                prev_hash=prev,
            )
            prev = event_hash(fields)
            out.write(_export_line({"position": position, **fields, "hash": prev}))
        out.seek(0)
        out.write(header(prev))
    return prev


def write_prefix(source: Path, count: int, path: Path) -> None:
    """Copy the first ``count`` events of an export into a smaller export of their own."""
    lines = []
    with source.open(encoding="utf-8") as handle:
        first = json.loads(next(handle))
        for line in handle:
            if len(lines) == count:
                break
            lines.append(line)
    head = json.loads(lines[-1])
    first["campaigns"] = {head["campaign_id"]: head["hash"]}
    first["events"] = len(lines)
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps(first) + "\n")
        out.writelines(lines)
