"""A public server: over HTTPS, behind a proxy or with ``--public``, the players' page needs
the table's link too, a request holding no live key is refused before anything is read, and
a table behind one home router is counted per key, not held to one address's bucket.

Attacked from outside as a stranger would: no link, a made-up one, a phone's or the GM's key
as the players', a revoked or expired one, another campaign's; each refused, nothing
appended.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pendulum
import pytest
from test_live import SHEETS, browser, free_port, tracker, wait_for  # noqa: F401 (a fixture)
from test_web_app import asgi_request

from tracker.app.live import Live
from tracker.app.tracker import Tracker
from tracker.store.invitations import PLAYERS
from tracker.web.server import make_app

UNLIMITED = {"POST": (1e9, 1e9), "GET": (1e9, 1e9)}
REFUSED_PAGE = b"This table's page needs its link"


@pytest.fixture
def db(tmp_path) -> Path:
    made = tmp_path / "table.db"
    tracker(made, "campaign", "new", "Veyra", "--system", "glintlock")
    tracker(made, "character", "add", "--sheet", str(SHEETS / "glintlock-wren.toml"))
    tracker(made, "session", "start")
    return made


class Public:
    """The app as a public ``tracker serve`` makes it, and the keys it handed out."""

    def __init__(self, db: Path, *, rates=UNLIMITED, public: bool = True) -> None:
        self.db = db
        self.tracker = Tracker(str(db))
        self.tracker.warm = False
        self.live = Live(self.tracker)
        made, _ = self.tracker.invitations.at_start(public=public)
        self.keys = {i.invitation.kind: i.key for i in made}
        self.gm, self.phone = self.keys["gm"], self.keys["phone"]
        self.players = self.keys.get(PLAYERS)
        self.app = make_app(self.live, rates=rates, public=public)

    def get(self, path: str, cookie: str = "", client: str = "127.0.0.1"):
        headers = {"cookie": cookie} if cookie else {}
        status, got, body = asyncio.run(asgi_request(self.app, "GET", path, headers, client=client))
        return status, got, body

    def head(self) -> int:
        return self.live.head()


@pytest.fixture
def public(db):
    opened = Public(db)
    yield opened
    opened.tracker.close()


def test_the_players_page_needs_the_tables_link_and_the_link_leaves_the_address(public):
    status, _, page = public.get("/")
    assert status == 403
    assert REFUSED_PAGE in page
    status, got, _ = public.get(f"/?key={public.players}")
    assert status == 303
    assert got["location"] == "/"
    cookie = got["set-cookie"]
    assert cookie.startswith(f"tracker_players={public.players};")
    assert "httponly" in cookie.lower()
    assert "samesite=strict" in cookie.lower()
    assert "path=/" in cookie.lower()
    status, _, page = public.get("/", f"tracker_players={public.players}")
    assert status == 200
    assert b'data-view="players"' in page


@pytest.mark.parametrize("holder", ["nothing", "made-up", "gm", "phone", "revoked", "expired"])
def test_without_a_live_players_key_the_page_and_its_feed_are_refused(public, holder):
    """A stranger's request to the players' page or its feed, by each key it could hold:
    refused (403) before any of the table is read, in one sentence; nothing appended."""
    store = public.tracker.store.invitations
    campaign = public.live.campaign_id
    key = {
        "nothing": "",
        "made-up": "a" * 24,
        "gm": public.gm,
        "phone": public.phone,
    }.get(holder)
    if holder == "revoked":
        made, key = store.make(PLAYERS, campaign_id=campaign)
        store.revoke([made.invitation_id])
    if holder == "expired":
        past = pendulum.now("UTC").subtract(seconds=1).format("YYYY-MM-DDTHH:mm:ss.SSSSSSZ")
        _, key = store.make(PLAYERS, campaign_id=campaign, expires_at=past)
    before = public.head()
    cookie = f"tracker_players={key}" if key else ""
    for path in ("/", "/events"):
        status, _, body = public.get(path, cookie)
        assert status == 403, path
        assert REFUSED_PAGE in body
    if key:
        status, got, _ = public.get(f"/?key={key}")
        assert status == 403
        assert "set-cookie" not in got
    assert public.head() == before


def test_a_players_key_of_another_campaign_opens_nothing_here(public, db):
    tracker(db, "campaign", "new", "Ashfall", "--system", "gloom")
    ashfall = next(r for r in public.tracker.store.campaigns() if r.name == "Ashfall")
    other, key = public.tracker.store.invitations.make(PLAYERS, campaign_id=ashfall.campaign_id)
    assert other.campaign_id != public.live.campaign_id
    assert public.get(f"/?key={key}")[0] == 403
    assert public.get("/", f"tracker_players={key}")[0] == 403


def test_revoking_the_players_link_ends_the_open_tvs_feed(public):
    doors = public.app.state.doors
    feed: asyncio.Queue = asyncio.Queue()
    assert public.get("/", f"tracker_players={public.players}")[0] == 200
    doors.hold(public.players, feed)
    revoked = public.tracker.invitations.revoke("players")
    assert [inv.kind for inv in revoked] == [PLAYERS]
    asyncio.run(doors.sweep())
    assert feed.get_nowait() is None
    assert public.get("/", f"tracker_players={public.players}")[0] == 403


def test_at_home_the_players_page_is_the_rooms_and_a_link_only_leaves_the_address(db):
    home = Public(db, public=False)
    try:
        assert home.players is None  # no players' link is made at home
        status, _, page = home.get("/")
        assert status == 200
        assert b'data-view="players"' in page
        status, got, _ = home.get("/?key=whatever")
        assert status == 303
        assert got["location"] == "/"
        assert "set-cookie" not in got
    finally:
        home.tracker.close()


def test_the_console_shows_the_players_link_and_makes_a_new_one(public):
    """The GM's console on a public server: the players' link with its QR code; "Revoke and
    make a new link" ends the old one and shows the new."""
    cookie = f"tracker_gm={public.gm}"
    status, _, page = public.get("/gm", cookie)
    token = re.search(rb'name="csrf-token" content="([0-9a-f]*)"', page).group(1).decode()
    state = json.loads(public.get("/gm/state", cookie)[2])
    assert state["public"] is True
    assert state["players_link"] is None  # made before this app: the database keeps no link
    body = json.dumps({"players": True, "nonce": "n" * 20}).encode()
    headers = {"cookie": cookie, "x-csrf-token": token, "content-type": "application/json"}
    status, _, answer = asyncio.run(asgi_request(public.app, "POST", "/gm/revoke", headers, body))
    assert status == 200, answer
    state = json.loads(public.get("/gm/state", cookie)[2])
    link = state["players_link"]
    assert link
    assert link.startswith("http://127.0.0.1:8765/?key=")
    new = link.partition("?key=")[2]
    assert public.get(f"/?key={public.players}")[0] == 403  # the old link is revoked
    assert public.get(f"/?key={new}")[0] == 303
    status, got, svg = public.get("/gm/qr/players", cookie)
    assert status == 200
    assert got["content-type"] == "image/svg+xml"
    assert b"<svg" in svg
    assert public.get("/gm/qr/players")[0] == 403  # only the GM's console shows it
    listed = [d["who"] for d in public.tracker.invitations.listed()]
    assert "the players' page (Veyra)" in listed


def test_at_home_the_console_makes_no_players_link(db):
    home = Public(db, public=False)
    try:
        cookie = f"tracker_gm={home.gm}"
        page = home.get("/gm", cookie)[2]
        token = re.search(rb'name="csrf-token" content="([0-9a-f]*)"', page).group(1).decode()
        state = json.loads(home.get("/gm/state", cookie)[2])
        assert state["public"] is False
        assert state["players_link"] is None
        body = json.dumps({"players": True, "nonce": "m" * 20}).encode()
        headers = {"cookie": cookie, "x-csrf-token": token, "content-type": "application/json"}
        status, _, answer = asyncio.run(asgi_request(home.app, "POST", "/gm/invite", headers, body))
        assert status == 400
        assert json.loads(answer)["error"].startswith("The players' page needs no link")
        assert not [d for d in home.tracker.invitations.listed() if d["kind"] == PLAYERS]
    finally:
        home.tracker.close()


# -- rates: per key as well as per address -------------------------------------------------------


def test_a_table_behind_one_router_is_counted_per_key_and_a_stranger_per_address(db):
    """Pages at three requests a burst: from one address, the GM's console and the phone each
    have three of their own, where a stranger from that address has three in all, made-up
    keys or none."""
    table = Public(db, rates={"POST": (3, 0.001), "GET": (3, 0.001)})
    router = "198.51.100.20"
    try:
        for cookie, path in (
            (f"tracker_gm={table.gm}", "/gm/state"),
            (f"tracker_phone={table.phone}", "/phone/state"),
        ):
            # The first request of a key is the address's (it is looked up then); the three
            # after it are the key's own.
            got = [table.get(path, cookie, router)[0] for _ in range(5)]
            assert got == [200, 200, 200, 200, 429], (path, got)
        strangers = [table.get("/", f"tracker_players=made-up-{n}", router)[0] for n in range(3)]
        assert strangers == [403, 429, 429]  # the address had one left after the two firsts
        assert table.get("/phone/state", f"tracker_phone={table.phone}", router)[0] == 429
        # The key's bucket is the key's wherever it comes from.
        assert table.get("/phone/state", f"tracker_phone={table.phone}", "203.0.113.9")[0] == 429
    finally:
        table.tracker.close()


# -- tracker serve ---------------------------------------------------------------------------------


def _serving(db: Path, *args: str) -> tuple[subprocess.Popen, int, str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tracker", "--db", str(db), "serve", "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    printed = "".join(proc.stdout.readline() for _ in range(4))
    return proc, port, printed


def _connected(port: int) -> http.client.HTTPConnection:
    """A connection to the server once it listens (it prints its links just before)."""
    for _ in range(100):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.connect()
            return conn
        except ConnectionRefusedError:
            time.sleep(0.1)
    raise AssertionError("the server never listened")


def _stopped(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(timeout=10)


def test_serve_public_prints_the_players_link_once_and_the_tv_follows_the_table(db):
    """``tracker serve --public``: the first start prints the players' link; the TV opens
    it, its feed runs, and what the GM logs reaches it; a second start prints no new link
    and the TV's cookie still opens the page."""
    proc, port, printed = _serving(db, "--public")
    try:
        found = re.search(r"Players: (http://localhost:\d+/\?key=(\S+))", printed)
        assert found, printed
        assert "Public: every page needs its link" in printed
        key = found.group(2)
        conn = _connected(port)
        conn.request("GET", "/events")
        answer = conn.getresponse()
        assert answer.status == 403
        answer.read()
        conn.request("GET", "/events", headers={"Cookie": f"tracker_players={key}"})
        answer = conn.getresponse()
        assert answer.status == 200
        tracker(db, "note", "The bridge is out")
        seen = b""
        while b"The bridge is out" not in seen:  # the TV's feed is handed the note
            line = answer.readline()
            assert line, seen[-300:]
            seen += line
        conn.close()
    finally:
        _stopped(proc)
    proc, port, printed = _serving(db, "--public")
    try:
        assert "Players: http://localhost" in printed
        assert "by the link given before (1 live)" in printed, printed
        assert "?key=" not in printed.split("GM:")[0]
        conn = _connected(port)
        conn.request("GET", "/", headers={"Cookie": f"tracker_players={key}"})
        assert conn.getresponse().status == 200
    finally:
        _stopped(proc)


def test_invite_new_players_and_revoke_players_from_the_command_line(db):
    made = json.loads(
        tracker(
            db, "invite", "new", "--players", "--url", "https://dice.example.org", "--json"
        ).stdout
    )
    assert made["kind"] == PLAYERS
    assert made["who"] == "the players' page (Veyra)"
    assert made["link"].startswith("https://dice.example.org/?key=")
    done = tracker(db, "invite", "revoke", "players")
    assert f"Revoked {made['invitation_id']} (the players' page (Veyra))." in done.stdout
    refused = tracker(db, "invite", "revoke", "players", check=False)
    assert refused.returncode != 0
    assert "The players' page has no live invitation to revoke." in refused.stderr
    both = tracker(db, "invite", "new", "--players", "--gm", check=False)
    assert both.returncode != 0
    assert "--players for the players' page" in both.stderr


@pytest.mark.slow
def test_the_tv_opened_by_its_link_says_so_when_the_gm_revokes_it(
    db,
    browser,  # noqa: F811 (test_live's fixture)
):
    """In a real browser: the TV opens the players' link, the page is live without the key in
    its address; the GM revokes the link from the shell, and the open page says it needs its
    link instead of reconnecting for ever."""
    proc, port, printed = _serving(db, "--public")
    try:
        link = re.search(r"Players: (\S+)", printed).group(1)
        _connected(port).close()
        browser.get(link)
        wait_for(browser, lambda d: d.find_element("id", "connection").text == "live", "live")
        assert "key=" not in browser.current_url
        tracker(db, "invite", "revoke", "players")
        wait_for(browser, lambda d: d.find_element("id", "refused").is_displayed(), "refused")
        assert "needs its link" in browser.find_element("id", "refused").text
    finally:
        _stopped(proc)
