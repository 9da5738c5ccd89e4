"""Invitations: the links into the GM's console and the phones last across restarts and servers
of one database, kept hashed apart from the log, and stop at once when revoked or expired.

Attacked as a player would: an old link after a revoke, an expired one, a phone's key as the
GM's, a copy of the database read for keys; and as a careless GM typing ``tracker invite``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading

import pendulum
import pytest
from test_live import tracker
from test_web_app import ROLL, Table, _call, _made

from tracker.app.invitations import expiry
from tracker.app.tracker import Tracker
from tracker.errors import BadInput
from tracker.store.invitations import PHONE

NOW = "2026-12-06T20:00:00.000000+00:00"


@pytest.fixture
def served(tmp_path):
    opened = Table(_made(tmp_path / "table.db"))
    yield opened
    opened.tracker.close()


def _rows(db) -> tuple[list[tuple], list[tuple]]:
    with sqlite3.connect(db) as conn:
        return (
            conn.execute("SELECT * FROM invitations").fetchall(),
            conn.execute("SELECT * FROM settings").fetchall(),
        )


def test_the_database_keeps_a_hash_of_each_key_and_never_the_key(served):
    gm_key, phones = served.keys
    invitations, settings = _rows(served.db)
    stored = json.dumps([invitations, settings])
    assert len(invitations) == 1 + len(phones)
    for key in (gm_key, *phones.values()):
        assert key not in stored
        assert hashlib.sha256(key.encode()).hexdigest() in stored


def test_a_page_opened_before_a_restart_acts_after_it_without_a_reload(served):
    """The server stops and starts again on the same database: the phone's and the console's
    open pages (their cookies and page tokens from before) act at once, each press logging one
    event; the restart printed no new key for either."""
    before = served.head()
    restarted = Table(served.db, served.keys)
    try:
        restarted.who = served.who  # the pages as they were opened before the restart
        status, answer = restarted.act("phone", "/phone/roll", {"trait": "Per", "values": {}})
        assert status == 200, answer
        status, answer = restarted.act("gm", "/gm/act", ROLL)
        assert status == 200, answer
        assert restarted.head() == before + 2
        made, _ = restarted.tracker.invitations.at_start()
        assert made == []
    finally:
        restarted.tracker.close()


def _get(table: Table, path: str, cookie: str = "") -> int:
    headers = {"cookie": cookie} if cookie else {}
    return asyncio.run(_call(table.app, "GET", path, headers))[0]


def test_a_revoked_link_opens_nothing_and_its_open_page_cannot_act(served):
    _gm_key, phones = served.keys
    phone_key = next(iter(phones.values()))
    assert _get(served, f"/phone?key={phone_key}") == 303
    tracker(served.db, "invite", "revoke", "Mira")
    asyncio.run(served.app.state.doors.sweep())  # another process revoked it: the next look
    before = served.head()
    assert _get(served, f"/phone?key={phone_key}") == 403
    assert _get(served, "/phone/state", f"tracker_phone={phone_key}") == 403
    status, answer = served.act("phone", "/phone/roll", {"trait": "Per", "values": {}})
    assert (status, answer["error"]) == (
        403,
        "This phone's link is not live; ask the GM for a new one.",
    )
    assert served.head() == before
    # The GM's key, revoked from the console itself, locks that console out at once.
    invitations = served.tracker.invitations.listed()
    mine = next(doc["invitation_id"] for doc in invitations if doc["kind"] == "gm")
    status, answer = served.act("gm", "/gm/uninvite", {"invitation": mine})
    assert status == 200, answer
    assert served.act("gm", "/gm/act", ROLL)[0] == 403
    assert served.head() == before


def test_an_expired_link_opens_nothing(served):
    store = served.tracker.store.invitations
    mira = served.live.state().character("Mira").character_id
    past = pendulum.now("UTC").subtract(seconds=1).format("YYYY-MM-DDTHH:mm:ss.SSSSSSZ")
    _, expired = store.make(PHONE, character_id=mira, expires_at=past)
    soon = pendulum.now("UTC").add(hours=1).format("YYYY-MM-DDTHH:mm:ss.SSSSSSZ")
    _, lasting = store.make(PHONE, character_id=mira, expires_at=soon)
    assert _get(served, f"/phone?key={expired}") == 403
    assert _get(served, f"/phone?key={lasting}") == 303


def test_a_phones_key_does_not_open_the_console_nor_the_gms_key_a_phone(served):
    gm_key, phones = served.keys
    phone_key = next(iter(phones.values()))
    assert _get(served, f"/gm?key={phone_key}") == 403
    assert _get(served, "/gm/state", f"tracker_gm={phone_key}") == 403
    assert _get(served, f"/phone?key={gm_key}") == 403
    assert _get(served, "/phone/state", f"tracker_phone={gm_key}") == 403


def test_a_key_revoked_on_one_server_ends_the_feeds_it_holds_on_another(served):
    """Two servers of one database: the GM revokes a phone from the console of the first; the
    second, at its next look (``Doors.sweep``, every two seconds), ends that phone's open feed
    and refuses the key."""
    other = Table(served.db, served.keys)
    try:
        _, phones = served.keys
        mira = served.live.state().character("Mira").character_id
        doors = other.app.state.doors
        feed: asyncio.Queue = asyncio.Queue()
        doors.hold(phones[mira], feed)
        asyncio.run(doors.sweep())
        assert feed.empty()  # still live: the feed goes on
        status, answer = served.act("gm", "/gm/revoke", {"character": mira})
        assert status == 200, answer
        asyncio.run(doors.sweep())
        assert feed.get_nowait() is None  # the feed is told to end
        assert _get(other, "/phone/state", f"tracker_phone={phones[mira]}") == 403
    finally:
        other.tracker.close()


def test_two_servers_starting_at_once_make_pages_with_one_secret(tmp_path):
    db = _made(tmp_path / "table.db")
    opened = [Tracker(str(db)) for _ in range(4)]
    secrets: list[bytes] = []
    threads = [
        threading.Thread(target=lambda t=t: secrets.append(t.store.invitations.page_secret()))
        for t in opened
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for t in opened:
        t.close()
    assert len(secrets) == 4
    assert len(set(secrets)) == 1


def test_invite_new_list_and_revoke_from_the_command_line(served):
    made = json.loads(
        tracker(
            served.db,
            "invite",
            "new",
            "Vora",
            "--expires",
            "30d",
            "--url",
            "https://dice.example.org",
            "--json",
        ).stdout
    )
    assert made["link"].startswith("https://dice.example.org/phone?key=")
    assert made["who"] == "Vora's phone"
    key = made["link"].rpartition("=")[2]
    assert asyncio.run(served.app.state.doors.opened(key)).invitation_id == made["invitation_id"]
    listed = json.loads(tracker(served.db, "invite", "list", "--json").stdout)["invitations"]
    assert made["invitation_id"] in {doc["invitation_id"] for doc in listed}
    out = tracker(served.db, "invite", "revoke", made["invitation_id"]).stdout
    assert out.startswith(f"Revoked {made['invitation_id']} (Vora's phone")
    everything = json.loads(tracker(served.db, "invite", "list", "--all", "--json").stdout)
    revoked = next(
        d for d in everything["invitations"] if d["invitation_id"] == made["invitation_id"]
    )
    assert revoked["revoked_at"]
    assert not revoked["live"]
    gm = tracker(served.db, "invite", "new", "--gm", "--url", "http://localhost:8765").stdout
    assert gm.startswith("the GM (Iron): http://localhost:8765/gm?key=")


REFUSED = [
    (("invite", "new", "--url", "http://x.lan"), "Name the character"),
    (("invite", "new", "Mira", "--gm", "--url", "http://x.lan"), "Name the character"),
    (("invite", "new", "Nobody", "--url", "http://x.lan"), 'No character named "Nobody"'),
    (("invite", "new", "Mira", "--expires", "soon", "--url", "http://x.lan"), "--expires takes"),
    (("invite", "new", "Mira", "--expires", "2001-01-01", "--url", "http://x.lan"), "past already"),
    (("invite", "new", "Mira"), "No server address is known yet"),
    (("invite", "new", "Mira", "--url", "ftp://x.lan/phone"), "--url takes the address"),
    (("invite", "revoke", "nothing"), 'No live invitation is "nothing"'),
    (("invite", "new", "--every-campaign"), "--every-campaign goes with --gm"),
    (("invite", "new", "--players", "--gm"), "--players for the players' page"),
    (("invite", "revoke", "players"), "The players' page has no live invitation"),
]


@pytest.mark.parametrize(("args", "said"), REFUSED, ids=[" ".join(a[:3]) for a, _ in REFUSED])
def test_a_careless_invite_is_refused_in_one_sentence_and_changes_nothing(tmp_path, args, said):
    db = _made(tmp_path / "table.db")
    tracker(db, "invite", "new", "--gm", "--url", "http://x.lan")
    tracker(db, "invite", "revoke", "gm")
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM settings WHERE key = 'web.base'")
    before = (_rows(db), tracker(db, "log", "--json").stdout)
    done = tracker(db, *args, check=False)
    assert done.returncode != 0
    assert said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert (_rows(db), tracker(db, "log", "--json").stdout) == before


@pytest.mark.parametrize(
    ("given", "hours"),
    [("1h", 1), ("12h", 12), ("30d", 720), ("2w", 336), ("12 h", 12), ("9999h", 9999)],
)
def test_a_span_runs_from_now(given, hours):
    assert expiry(given, NOW) == pendulum.parse(NOW).add(hours=hours).format(
        "YYYY-MM-DDTHH:mm:ss.SSSSSSZ"
    )


def test_a_date_lasts_the_whole_of_that_day_in_the_gms_time(monkeypatch):
    monkeypatch.setattr(pendulum, "local_timezone", lambda: pendulum.timezone("Europe/Paris"))
    assert expiry("2027-01-31", NOW) == "2027-01-31T22:59:59.999999+00:00"


@pytest.mark.parametrize("given", ["", "0", "h", "-1d", "1y", "tomorrowish", "2026-12-05", "1e9d"])
def test_anything_else_or_a_time_gone_is_refused(given):
    with pytest.raises(BadInput):
        expiry(given, NOW)


def test_no_expiry_is_never(served):
    assert expiry(None, NOW) is None


def test_a_roll_asked_on_one_server_waits_on_the_phone_on_another_and_after_a_restart(served):
    """The GM asks Mira's phone on one server; her phone, on a second server of the database
    (or on the first after a restart), shows the request, and rolling it there logs once and
    takes it off every console."""
    _, phones = served.keys
    cid, key = next(iter(phones.items()))
    name = served.live.state().characters[cid].name
    status, answer = served.act("gm", "/gm/ask", {"character": name, "trait": "Per", "values": {}})
    assert status == 200, answer
    other = Table(served.db, served.keys)
    try:
        # A phone's feed open on the second server is handed what the first asks next.
        feed: asyncio.Queue = asyncio.Queue()
        other.app.state.phones.join(cid, feed)
        status, state = asyncio.run(
            _call(other.app, "GET", "/phone/state", {"cookie": f"tracker_phone={key}"})
        )
        asked = json.loads(state)["asked"]
        assert asked["said"].startswith(f"{name}: ")
        status, answer = served.act(
            "gm", "/gm/ask", {"character": name, "trait": "Per", "values": {}, "secret": True}
        )
        assert status == 200, answer
        asyncio.run(other.app.state.phones.look())
        handed = json.loads(feed.get_nowait()[0][2])
        assert handed["secret"] is True
        assert handed["id"] != asked["id"]
        before = served.head()
        status, answer = other.act("phone", "/phone/roll", {"request": handed["id"], "values": {}})
        assert status == 200, answer
        assert other.head() == before + 1
        # Rolled: gone from both servers' consoles, and a second roll of it is refused.
        for table in (served, other):
            status, doc = asyncio.run(
                _call(table.app, "GET", "/gm/state", {"cookie": served.who["gm"]["cookie"]})
            )
            card = next(c for c in json.loads(doc)["characters"] if c["id"] == cid)
            assert card["asked"] is None
        status, answer = served.act("phone", "/phone/roll", {"request": handed["id"], "values": {}})
        assert status == 409
        assert served.head() == before + 1
    finally:
        other.tracker.close()


def test_the_console_keeps_showing_a_link_until_that_very_link_is_revoked(served):
    """Two new links for Mira's phone from the console: revoking the first leaves the second
    on her card; revoking the second takes it off."""
    mira = served.live.state().character("Mira").character_id

    def card() -> str | None:
        cookie = {"cookie": served.who["gm"]["cookie"]}
        doc = json.loads(asyncio.run(_call(served.app, "GET", "/gm/state", cookie))[1])
        return next(c for c in doc["characters"] if c["id"] == mira)["phone"]

    def newest() -> str:
        listed = served.tracker.invitations.listed()
        return [d for d in listed if d["character_id"] == mira][-1]["invitation_id"]

    assert served.act("gm", "/gm/invite", {"character": mira})[0] == 200
    first = newest()
    assert served.act("gm", "/gm/invite", {"character": mira})[0] == 200
    second, shown = newest(), card()
    assert shown is not None
    assert served.act("gm", "/gm/uninvite", {"invitation": first})[0] == 200
    assert card() == shown
    assert served.act("gm", "/gm/uninvite", {"invitation": second})[0] == 200
    assert card() is None
