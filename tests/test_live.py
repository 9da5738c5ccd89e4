"""The table's live view (`tracker serve`) and `tracker log --follow`, driven from outside.

The server runs as its own process on a real port; commands are logged by other processes, as
at the table. The pages are opened in Debian's headless Chromium through Selenium and Debian's
chromedriver. What the players' feed carries is also read byte for byte, and compared between
two campaigns that differ only in what their secret rolls held.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

FOLLOW = ("log", "--follow", "--player-view")
SHEETS = Path(__file__).resolve().parent.parent / "fixtures" / "sheets"
CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"


def tracker(db: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """One tracker command in a process of its own, as the GM types it in another terminal."""
    done = subprocess.run(
        [sys.executable, "-m", "tracker", "--db", str(db), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if check:
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, proc: subprocess.Popen, port: int, key: str) -> None:
        self.proc, self.port, self.key = proc, port, key
        self.base = f"http://127.0.0.1:{port}"


@contextmanager
def serving(db: Path, port: int | None = None, *args: str) -> Iterator[Server]:
    port = port or free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tracker", "--db", str(db), "serve", "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        # A start after the first prints no GM key: the one given before still opens.
        key = re.search(r"key=(\S+)", lines[2]) or re.search(
            r"(by the link given before)", lines[2]
        )
        assert key, (lines, proc.stderr.read() if proc.poll() is not None else "")
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.1)
        server = Server(proc, port, None if key[1].startswith("by ") else key[1])
        server.printed = lines  # what is served, and the players' and the GM's addresses
        yield server
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def sse(
    url: str, *, until_version: int, last_id: int | str | None = None, wait: float = 15
) -> bytes:
    """Every byte of a feed, read until the board that follows ``until_version``'s item;
    ``last_id`` a version (of the campaign the feed serves) or an id as the feed sent it."""
    request = urllib.request.Request(url)
    if isinstance(last_id, int):
        token = re.search(rb"id: (\w+)-", sse(url, until_version=until_version)).group(1)
        last_id = f"{token.decode()}-{last_id}"
    if last_id is not None:
        request.add_header("Last-Event-ID", last_id)
    got = b""
    deadline = time.monotonic() + wait
    with urllib.request.urlopen(request, timeout=wait) as response:
        while time.monotonic() < deadline:
            got += response.readline()
            mark = re.search(rf"id: \w+-{until_version}\r?\n".encode(), got)
            if mark:
                tail = got[mark.end() :]
                if b"event: board" in tail and tail.endswith((b"\r\n\r\n", b"\n\n")):
                    return got
    raise AssertionError(f"version {until_version} never came: {got[-500:]!r}")


def items(raw: bytes) -> list[dict]:
    docs = []
    for block in re.split(rb"\r?\n\r?\n", raw):
        lines = block.decode().splitlines()
        if "event: item" in lines:
            docs.append(json.loads(next(ln[6:] for ln in lines if ln.startswith("data: "))))
    return docs


def head(db: Path) -> int:
    return max(e["version"] for e in json.loads(tracker(db, "log", "--json").stdout)["events"])


@pytest.fixture
def table(tmp_path) -> Path:
    db = tmp_path / "live.db"
    tracker(db, "campaign", "new", "Iron", "--system", "gurps")
    for name in ("mira", "vora"):
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"gurps-{name}.toml"))
    tracker(db, "session", "start", "--title", "The salt mines")
    return db


def test_a_change_to_the_database_files_is_reported_until_they_settle(table, monkeypatch):
    """A commit writes the write-ahead log a moment before a reader sees it: the server is told
    of the change on every tick until the files are still, so a head read in that moment (not
    moved yet) is read again, and no roll waits for the next one to be seen."""
    from tracker.app import live
    from tracker.app.tracker import Tracker

    monkeypatch.setattr(live, "SETTLE_S", 0.5)
    opened = Tracker(str(table))
    watcher = live.Live(opened).watcher()
    assert not watcher.changed()
    tracker(table, "note", "The lamps gutter.")
    assert watcher.changed()
    assert watcher.changed()  # asked again at once, with the files as they were
    time.sleep(0.6)
    assert not watcher.changed()
    opened.close()


def test_the_boards_hold_no_floor_a_sessions_end_let_lapse(tmp_path):
    """The players' page and the GM's show what is owed as ``obligations`` does: a floor the
    session's end closed as lapsed is owed on neither."""
    from tracker.app.live import Live
    from tracker.app.tracker import Tracker

    db = tmp_path / "veyra.db"
    tracker(db, "campaign", "new", "Veyra", "--system", "glintlock")
    tracker(db, "character", "add", "Wren", "--stat", "Grit=3")
    tracker(db, "session", "start")
    tracker(db, "threat", "add", "4")
    opened = Tracker(str(db))
    live = Live(opened)
    for players in (True, False):
        owed = live.board(player_view=players)["obligations"]
        assert [o["kind"] for o in owed] == ["threat-floor"]
    tracker(db, "session", "end")
    for players in (True, False):
        assert live.board(player_view=players)["obligations"] == []
    opened.close()


def test_the_boards_show_the_campaigns_own_tracks_by_name(tmp_path):
    """What a campaign's system keeps of the campaign (Glintlock's Threat) reaches both pages
    under the name the table knows it by; a system that keeps nothing of it sends none."""
    from tracker.app.live import Live
    from tracker.app.tracker import Tracker

    db = tmp_path / "both.db"
    tracker(db, "campaign", "new", "Veyra", "--system", "glintlock")
    tracker(db, "session", "start")
    tracker(db, "threat", "add", "3")
    tracker(db, "campaign", "new", "Drift", "--system", "gloom")
    opened = Tracker(str(db))
    boards = {}
    for name in ("Veyra", "Drift"):
        tracker(db, "campaign", "use", name)
        boards[name] = [Live(opened).board(player_view=p)["shared"] for p in (True, False)]
    opened.close()
    assert boards == {"Veyra": [{"Threat": 3}] * 2, "Drift": [{}, {}]}


def test_a_roll_points_bought_up_reads_as_it_ended_in_the_feed(tmp_path):
    """The feed shows a roll as it ended: what its dice gave and that points bought it up. The
    buy-up carries the roll again (``amends``) for a page that showed it before, and so does
    the undo that takes the buy-up back, the roll then reading as first rolled."""
    from tracker.app.live import Live
    from tracker.app.tracker import Tracker
    from tracker.web.feed import GM, PLAYERS, Feed

    db = tmp_path / "salt.db"
    tracker(db, "campaign", "new", "Salt", "--system", "gurps", "--cinematic")
    tracker(db, "character", "add", "--sheet", str(SHEETS / "gurps-mira.toml"))
    tracker(db, "session", "start")
    tracker(db, "points", "award", "Mira", "3")
    tracker(db, "roll", "Mira", "Lockpicking", "--dice", "5,5,4")  # 14 on 12: failure by 2
    first = head(db)
    opened = Tracker(str(db))
    feed = Feed(Live(opened))

    def sent(view: str, after: int) -> list[dict]:
        _, messages = feed.messages(view, after)
        return [json.loads(body) for _, kind, body in messages if kind == "item"]

    rolled = sent(PLAYERS, first - 1)[0]
    assert (rolled["text"].endswith("→ failure by 2"), rolled["tone"]) == (True, "bad")
    tracker(db, "spend", "Mira", "buy-up")
    for view in (PLAYERS, GM):
        roll, bought = sent(view, first - 1)
        assert roll["text"].endswith("→ failure by 2 · bought up to success")
        assert roll["tone"] == "good"
        assert bought["amends"] == [roll]
    tracker(db, "undo")
    undo = sent(PLAYERS, head(db) - 1)[0]
    assert [a["text"] for a in undo["amends"]] == [rolled["text"]]
    assert undo["amends"][0]["tone"] == "bad"
    opened.close()


def test_a_buy_up_kept_secret_reaches_the_players_feed_when_revealed(tmp_path):
    """A buy-up sealed by a secret Fright Check before it: the players' feed reads the roll as
    first rolled, and the reveal sends it again as it ended."""
    from tracker.app.live import Live
    from tracker.app.tracker import Tracker
    from tracker.web.feed import PLAYERS, Feed

    db = tmp_path / "salt.db"
    tracker(db, "campaign", "new", "Salt", "--system", "gurps", "--cinematic")
    tracker(db, "character", "add", "--sheet", str(SHEETS / "gurps-mira.toml"))
    tracker(db, "session", "start")
    tracker(db, "points", "award", "Mira", "3")
    tracker(db, "roll", "Mira", "Lockpicking", "--dice", "5,5,4")
    first = head(db)
    tracker(db, "fright", "Mira", "--secret", "--dice", "3,3,3")
    tracker(db, "spend", "Mira", "buy-up")
    opened = Tracker(str(db))
    feed = Feed(Live(opened))

    def sent(after: int) -> list[dict]:
        _, messages = feed.messages(PLAYERS, after)
        return [json.loads(body) for _, kind, body in messages if kind == "item"]

    roll, fright, bought = sent(first - 1)
    assert roll["text"].endswith("→ failure by 2")
    assert (fright["sealed"], bought["sealed"], "amends" in bought) == (True, True, False)
    tracker(db, "reveal", "--session", "1")
    reveal = sent(head(db) - 1)[0]
    assert [a["text"] for a in reveal["amends"]] == [roll["text"] + " · bought up to success"]
    opened.close()


# -- the feed, read as bytes ----------------------------------------------------------------------


def test_the_players_feed_follows_rolls_logged_by_other_processes(table):
    with serving(table) as server:
        tracker(table, "roll", "Mira", "Lockpicking", "--dice", "3,4,5")
        raw = sse(server.base + "/events", until_version=head(table))
        texts = [i["text"] for i in items(raw)]
        assert texts[0] == 'session 1 "The salt mines" started'  # a new page starts there
        assert "Mira rolls Lockpicking at 12: 3+4+5 = 12 → success" in texts
        # A page that comes back says where it was, and is sent only what came after.
        tracker(table, "roll", "Vora", "Broadsword", "--dice", "6,6,6")
        tracker(table, "undo")
        now = head(table)
        again = items(sse(server.base + "/events", until_version=now, last_id=now - 2))
        assert [i["version"] for i in again] == [now - 1, now]
        assert again[1]["undoes"] == [again[0]["id"]]
        assert not [i for i in again if i["version"] <= now - 2]
        # A redo puts it back; a reveal sends the players what the secret roll held.
        tracker(table, "redo")
        tracker(table, "roll", "Mira", "Vision", "--dice", "1,2,3")
        secret = head(table)
        later = items(sse(server.base + "/events", until_version=secret, last_id=now))
        assert later[0]["restores"] == [again[0]["id"]]
        assert (later[1]["sealed"], later[1]["text"]) == (True, "a secret event for Mira")
        tracker(table, "reveal", str(secret))
        [revealed] = items(sse(server.base + "/events", until_version=head(table), last_id=secret))
        [shown] = revealed["reveals"]
        assert (shown["version"], shown["sealed"]) == (secret, False)
        assert "Mira rolls Vision at 12: 1+2+3 = 6" in shown["text"]


def test_a_fright_check_is_coloured_by_its_outcome_as_a_roll_is(table):
    """A critical failure on a Fright Check reads bad on the page, a success good, as the same
    outcomes of a roll do; neither is left neutral."""
    with serving(table) as server:
        tracker(table, "roll", "Mira", "Lockpicking", "--dice", "6,6,6")
        tracker(table, "fright", "Mira", "--dice", "6,6,6", "--table-dice", "1,1,1")
        tracker(table, "fright", "Vora", "--dice", "1,2,3")
        tones = {
            i["type"] + " " + i["text"].split()[0]: i["tone"]
            for i in items(sse(server.base + "/events", until_version=head(table)))
            if i["type"] in ("RollMade", "FrightChecked")
        }
    assert tones == {
        "RollMade Mira": "bad",
        "FrightChecked Mira": "bad",
        "FrightChecked Vora": "good",
    }


def test_a_page_that_comes_back_from_another_log_starts_afresh(table):
    with serving(table) as server:
        version = head(table)
        for foreign in ("0badc0de-3", "not an id", "9" * 30, "-1"):
            raw = sse(server.base + "/events", until_version=version, last_id=foreign)
            assert raw.startswith(b"event: reset"), foreign
            assert items(raw)[0]["text"].startswith("session 1")
        # An id of this campaign past its head (a log cut back, another file) starts afresh.
        token = re.search(rb"id: (\w+)-", raw).group(1).decode()
        past = f"{token}-{version + 50}"
        assert sse(server.base + "/events", until_version=version, last_id=past).startswith(
            b"event: reset"
        )


def test_the_gm_feed_needs_the_key_and_no_address_reaches_it_without(table):
    with serving(table) as server:
        for path in ("/gm", "/gm/events", "/gm?key=wrong", "/gm/events?key=" + server.key):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(server.base + path, timeout=5)
            assert refused.value.code == 403, path
        # The key opens the GM's page once, as a cookie: the address keeps no key.
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        page = opener.open(f"{server.base}/gm?key={server.key}", timeout=5)
        assert page.url.endswith("/gm")
        assert b'data-view="gm"' in page.read()
        # What a player can ask of the players' feed never turns it into the GM's.
        tracker(table, "roll", "Mira", "Vision", "--dice", "1,2,3")
        version = head(table)
        for path in ("/events?view=gm", "/events?key=" + server.key, "/events?gm=1"):
            raw = sse(server.base + path, until_version=version)
            assert b"Vision" not in raw, path
        for path in ("/events/../gm/events", "/gm/events/", "/GM/events", "/static/../live.py"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(server.base + path, timeout=5)
            assert refused.value.code in (403, 404), path


def asked_as(url: str, host: str) -> tuple[int, dict[str, str], bytes]:
    """The status, headers and first bytes of the answer to ``url`` asked under ``host``, as a
    browser sends the name a page was opened by."""
    request = urllib.request.Request(url, headers={"Host": host})
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=5) as response:
            return response.status, dict(response.headers), response.read(200)
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), refused.read(200)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object) -> None:
        return None


def test_a_page_opened_by_a_name_the_server_is_not_is_refused_on_every_route(table):
    """DNS rebinding: a page on another site points its own name at this machine and reads the
    feed as its own. Every route answers only localhost, an address, and the names given."""
    with serving(table, None, "--allow-host", "tv.lan") as server:
        routes = ["/", "/events", f"/gm?key={server.key}", "/gm/events", "/static/live.js"]
        foreign = [
            "evil.example",
            f"evil.example:{server.port}",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
            "10.20.30.40",
            "gm.lan",
            "",
        ]
        for route in routes:
            for host in foreign:
                status, headers, body = asked_as(server.base + route, host)
                assert status == 421, (route, host)
                assert body.startswith(b"This server answers only its own addresses"), host
                assert "set-cookie" not in {name.lower() for name in headers}, (route, host)
        served = [
            "localhost",
            f"localhost:{server.port}",
            "LocalHost.",
            f"127.0.0.1:{server.port}",
            f"[::1]:{server.port}",
            "[::1]",
            "TV.lan",
        ]
        for host in served:
            assert asked_as(server.base + "/", host)[0] == 200, host
            status, headers, _ = asked_as(f"{server.base}/gm?key={server.key}", host)
            assert (status, "tracker_gm=" in headers["set-cookie"]) == (303, True), host
            with urllib.request.urlopen(
                urllib.request.Request(server.base + "/events", headers={"Host": host}), timeout=5
            ) as feed:
                assert feed.status == 200, host
                assert feed.readline().startswith((b"event: ", b"id: ")), host


def test_on_every_address_any_address_is_answered_and_still_no_other_name():
    """--host 0.0.0.0: a phone opens the machine's LAN address, which no name stands for."""
    from tracker.web.server import Hosts

    everywhere = Hosts("0.0.0.0", ("0.0.0.0", "tv.lan"))
    for host in ("192.168.1.20:8765", "[fe80::1]:8765", "localhost", "tv.lan", "127.0.0.1"):
        assert everywhere.answers(host), host
    for host in ("evil.example", "printer.lan:8765", "192.168.1.20.nip.io", "[::1", "x:y"):
        assert not everywhere.answers(host), host
    one = Hosts("192.168.1.20", ("192.168.1.20",))
    assert one.answers("192.168.1.20:8765")
    assert not one.answers("192.168.1.21:8765")


def test_serve_refuses_an_allowed_host_that_is_no_name(table):
    for given in ("*", "evil.example/x", "a b"):
        done = tracker(table, "serve", "--port", "0", "--allow-host", given, check=False)
        assert done.returncode == 2, given
        assert done.stderr.strip().splitlines() == [
            f"Error: {given} is not a host name; give --allow-host a name such as gm-laptop.lan."
        ]


def test_a_second_start_keeps_the_gms_link_until_revoked_and_ctrl_c_stops_cleanly(table):
    with serving(table) as first:
        key = first.key
        # A page still connected while the server stops is not cut off mid-message.
        page = socket.create_connection(("127.0.0.1", first.port))
        page.sendall(b"GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        page.settimeout(10)
        got = b""
        while b"event: board" not in got:
            got += page.recv(65536)
    page.close()
    assert first.proc.returncode == 0
    out, err = first.proc.communicate()
    assert out.strip().endswith("Stopped.")
    assert "ASGI" not in err
    with serving(table) as second:
        assert second.key is None  # no new key: the link given before still opens
        opened = _no_redirects().open(f"{second.base}/gm?key={key}", timeout=5)
        assert opened.status == 303
    tracker(table, "invite", "revoke", "gm")
    with serving(table) as third:
        assert third.key is not None  # none live: a new one is made
        assert third.key != key
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{third.base}/gm?key={key}", timeout=5)


def _no_redirects() -> urllib.request.OpenerDirector:
    """An opener that hands back a redirect as it came, to read its status."""

    class Kept(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    class Answered(urllib.request.HTTPErrorProcessor):
        def http_response(self, request, response):
            return response

    return urllib.request.build_opener(Kept, Answered)


def _secret_evening(db: Path, dice: str, label: str, swim: str) -> None:
    tracker(db, "roll", "Mira", "Lockpicking", "--dice", "3,4,5")
    # Secret rolls whose dice, labels and effects differ between the two campaigns.
    tracker(db, "roll", "Mira", "Vision", "--dice", dice, "--mod", f"+1:{label}")
    tracker(db, "roll", "Vora", "Swimming", "--secret", "--dice", swim)
    tracker(db, "contest", "Vora", "Vision", "Mira", "Stealth", "--dice-a", dice, "--dice-b", swim)
    tracker(db, "note", "the door gives")


# What differs between any two campaigns: ids, times, hashes and salts.
UNIQUE = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|\d{4}-\d\d-\d\dT[0-9:.+]+(Z|[+-]\d\d:\d\d)?"
    r"|[0-9a-f]{32,64}"
    r"|(?<=id: )[0-9a-f]{8}(?=-\d)"
    r"|\b\d\d:\d\d\b"  # the clock on the page
)


def _players_bytes(db: Path, browser=None) -> str:
    with serving(db) as server:
        raw = sse(server.base + "/events", until_version=head(db)).decode()
        if browser is not None:
            # The page as a player's browser draws it, every section of it.
            browser.get(server.base + "/")
            wait_for(browser, lambda d: len(feed_texts(d)) >= 6, "the evening")
            time.sleep(0.5)
            raw += browser.find_element("css selector", "main").text
    follow = subprocess.Popen(
        [sys.executable, "-m", "tracker", "--db", str(db), *FOLLOW, "--json"],
        stdout=subprocess.PIPE,
        text=True,
    )
    lines = [follow.stdout.readline() for _ in range(6)]
    follow.send_signal(signal.SIGINT)
    follow.wait(timeout=10)
    return UNIQUE.sub("<unique>", raw + "".join(lines))


@pytest.mark.slow
@pytest.mark.slow
def test_two_campaigns_that_differ_only_in_secrets_look_the_same_to_the_players(tmp_path, browser):
    seen = []
    for n, (dice, label, swim) in enumerate(
        [("1,1,2", "the hidden glyph", "6,6,6"), ("6,6,5", "nothing there", "1,1,1")]
    ):
        db = tmp_path / f"twin{n}.db"
        tracker(db, "campaign", "new", "Iron", "--system", "gurps")
        for name in ("mira", "vora"):
            tracker(db, "character", "add", "--sheet", str(SHEETS / f"gurps-{name}.toml"))
        tracker(db, "session", "start")
        _secret_evening(db, dice, label, swim)
        seen.append(_players_bytes(db, browser))
    assert "hidden glyph" not in seen[0]
    assert "a secret event for Mira" in seen[0]
    assert seen[0] == seen[1]


# -- in a real browser -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    if not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium and chromium-driver are missing from the CI image.")
        pytest.skip("chromium and chromium-driver are not installed; the browser check is off.")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def feed_texts(driver) -> list[str]:
    """The feed's lines as shown, read in one script: a line a reveal redraws meanwhile is
    read whole, before or after, never lost under the read."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#feed li .text')].map((n) => n.innerText);"
    )


def wait_for(driver, predicate, what: str, wait: float = 15):
    """What ``predicate`` finds once it finds something, read again when the page redrew
    an element under the read (the feed redraws whenever an event arrives)."""
    from selenium.common.exceptions import StaleElementReferenceException

    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            found = predicate(driver)
        except StaleElementReferenceException:
            found = None
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"{what} never showed; the feed: {feed_texts(driver)}")


@pytest.mark.slow
def test_the_players_page_shows_rolls_as_they_are_logged_and_no_secret(table, browser):
    with serving(table) as server:
        browser.get(server.base + "/")
        wait_for(browser, lambda d: d.find_element("id", "connection").text == "live", "live")
        tracker(table, "roll", "Mira", "Lockpicking", "--dice", "3,4,5")
        wait_for(
            browser,
            lambda d: any("Lockpicking at 12" in t for t in feed_texts(d)),
            "the roll",
        )
        tracker(table, "roll", "Mira", "Vision", "--dice", "1,2,3", "--mod", "+1:the crypt glyph")
        tracker(table, "hp", "Vora", "-3", "--cause", "a falling stone")
        wait_for(browser, lambda d: "HP 9/12" in d.find_element("id", "characters").text, "HP")
        dom = browser.page_source
        assert "a secret event for Mira" in dom
        assert "crypt glyph" not in dom
        assert "Vision" not in dom
        # Undone on the page too, and the newest first.
        tracker(table, "undo")
        wait_for(browser, lambda d: d.find_elements("css selector", "#feed li.undone"), "undo")
        versions = [
            int(li.get_attribute("data-version"))
            for li in browser.find_elements("css selector", "#feed li")
        ]
        assert versions == sorted(versions, reverse=True)


@pytest.mark.slow
def test_the_players_page_shows_a_roll_bought_up_as_it_ended(tmp_path, browser):
    def texts(driver) -> list[str]:
        # Read in one go: the page replaces the roll's entry as the buy-up arrives. The line's
        # own words, without why its number is what it is and what it moved, set beneath it.
        return driver.execute_script(
            "return [...document.querySelectorAll('#feed li .text')]"
            ".map(n => n.firstChild.textContent)"
        )

    db = tmp_path / "salt.db"
    tracker(db, "campaign", "new", "Salt", "--system", "gurps", "--cinematic")
    tracker(db, "character", "add", "--sheet", str(SHEETS / "gurps-mira.toml"))
    tracker(db, "session", "start")
    tracker(db, "points", "award", "Mira", "3")
    with serving(db) as server:
        browser.get(server.base + "/")
        wait_for(browser, lambda d: d.find_element("id", "connection").text == "live", "live")
        tracker(db, "roll", "Mira", "Lockpicking", "--dice", "5,5,4")
        wait_for(browser, lambda d: any("failure by 2" in t for t in texts(d)), "the roll")
        tracker(db, "spend", "Mira", "buy-up")
        wait_for(
            browser,
            lambda d: any(t.endswith("failure by 2 · bought up to success") for t in texts(d)),
            "the roll bought up",
        )
        tracker(db, "undo")
        wait_for(
            browser,
            lambda d: next(t for t in texts(d) if "Lockpicking" in t).endswith("by 2"),
            "the roll as first rolled",
        )


@pytest.mark.slow
def test_a_page_that_loses_the_server_misses_nothing_when_it_comes_back(table, browser):
    port = free_port()
    with serving(table, port) as server:
        browser.get(server.base + "/")
        tracker(table, "roll", "Mira", "Lockpicking", "--dice", "3,4,5")
        wait_for(browser, lambda d: len(feed_texts(d)) == 2, "the roll")
    # Logged while the server is down: the page, reconnecting by itself, is sent these.
    tracker(table, "roll", "Vora", "Broadsword", "--dice", "2,2,2")
    tracker(table, "note", "the lamps gutter")
    with serving(table, port):
        wait_for(browser, lambda d: len(feed_texts(d)) == 4, "what was missed", wait=30)
        versions = [
            int(li.get_attribute("data-version"))
            for li in browser.find_elements("css selector", "#feed li")
        ]
        assert versions == list(range(head(table), head(table) - 4, -1))


@pytest.mark.slow
def test_the_gm_page_shows_secrets_only_with_the_key(table, browser):
    with serving(table) as server:
        tracker(table, "roll", "Mira", "Vision", "--dice", "1,2,3")
        browser.delete_all_cookies()
        browser.get(server.base + "/gm")
        assert "needs the GM's key" in browser.find_element("id", "refused").text
        assert not browser.find_elements("css selector", "#feed li")
        browser.get(f"{server.base}/gm?key={server.key}")
        wait_for(
            browser,
            lambda d: any("Vision" in t for t in feed_texts(d)),
            "the secret roll on the GM's page",
        )
        assert browser.current_url.endswith("/gm")


# -- log --follow ------------------------------------------------------------------------------


def test_log_follow_prints_each_event_as_it_is_logged(table):
    follow = subprocess.Popen(
        [sys.executable, "-m", "tracker", "--db", str(table), *FOLLOW],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert "session 1" in follow.stdout.readline()
        tracker(table, "roll", "Mira", "Vision", "--dice", "1,2,3")
        tracker(table, "roll", "Mira", "Lockpicking", "--dice", "3,4,5")
        assert "a secret event for Mira" in follow.stdout.readline()
        assert "Lockpicking at 12" in follow.stdout.readline()
    finally:
        follow.send_signal(signal.SIGINT)
        assert follow.wait(timeout=10) == 0


def test_log_follow_with_a_session_follows_that_session_only(table):
    tracker(table, "note", "the first evening")
    tracker(table, "session", "end")
    tracker(table, "session", "start")
    follow = subprocess.Popen(
        [sys.executable, "-m", "tracker", "--db", str(table), *FOLLOW, "--session", "1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [follow.stdout.readline() for _ in range(3)]
        assert [line.split()[3] for line in lines] == ["s1", "s1", "s1"]
        tracker(table, "note", "the second evening")
        time.sleep(1)
    finally:
        follow.send_signal(signal.SIGINT)
        out, _ = follow.communicate(timeout=10)
    assert "second evening" not in out


def test_serve_refuses_a_port_in_use(table):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        done = tracker(table, "serve", "--port", str(busy.getsockname()[1]), check=False)
    assert done.returncode != 0
    assert "pick another --port" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("about", ["task", "opponent", "threat", "influencer", "kind"])
def test_what_a_secret_event_was_about_does_not_change_the_players_feed(tmp_path, about):
    """The evenings of `tests/test_secrets.py` whose secret event differs in what it was about
    (its task, opponent, threat, influencer, or kind), played to their last roll with the
    session still running: the players' feed sends the same bytes."""
    from test_secrets import LABELLED, play

    evening, variants = LABELLED[about]
    running = [step for step in evening if step != "session end"]
    seen = set()
    for n, secret in enumerate(variants):
        db = play(tmp_path / str(n), running, {"secret": secret}).db
        with serving(db) as server:
            seen.add(
                UNIQUE.sub(
                    "<unique>", sse(server.base + "/events", until_version=head(db)).decode()
                )
            )
    assert len(seen) == 1


# -- a page that follows the table ----------------------------------------------------------------


def test_the_feed_follows_the_campaign_the_table_turns_to(table):
    """`campaign use` or `campaign new` in another process: every page is told to start afresh
    and is sent the new campaign's session, without a restart or a reload."""
    tracker(table, "campaign", "new", "Veyra", "--system", "glintlock")
    tracker(table, "character", "add", "Wren", "--stat", "Grit=3")
    tracker(table, "session", "start", "--title", "The drowned archive")
    tracker(table, "campaign", "use", "Iron")
    iron = head(table)
    with serving(table) as server:
        request = urllib.request.Request(server.base + "/events")
        with urllib.request.urlopen(request, timeout=15) as response:
            got = b""
            while f"-{iron}".encode() not in got or b"event: board" not in got:
                got += response.readline()
            tracker(table, "campaign", "use", "Veyra")
            deadline = time.monotonic() + 15
            while b'"campaign": "Veyra"' not in got.split(b"event: reset")[-1]:
                assert time.monotonic() < deadline, got[-400:]
                got += response.readline()
    before, _, after = got.partition(b"event: reset")
    assert b"The salt mines" in before
    assert b"The drowned archive" not in before
    texts = [i["text"] for i in items(after)]
    assert texts == ['session 1 "The drowned archive" started']
    # A page that comes back with an id of the campaign it showed starts afresh too.
    with serving(table) as server:
        request = urllib.request.Request(server.base + "/events")
        request.add_header("Last-Event-ID", re.search(rb"id: (\S+)", before).group(1).decode())
        with urllib.request.urlopen(request, timeout=15) as response:
            sse_reset = response.readline() + response.readline()  # the first message
    assert b"event: reset" in sse_reset


def test_a_view_opened_on_a_campaign_by_name_stays_on_it(table):
    from tracker.app.live import Live
    from tracker.app.tracker import Tracker

    tracker(table, "campaign", "new", "Veyra", "--system", "glintlock")
    tracker(table, "campaign", "use", "Iron")
    following, pinned = Tracker(str(table)), Tracker(str(table), campaign="Iron")
    live, stays = Live(following), Live(pinned)
    assert (live.follow(), stays.follow()) == (False, False)
    tracker(table, "campaign", "use", "Veyra")
    assert (live.follow(), live.board(player_view=True)["campaign"]) == (True, "Veyra")
    assert (live.follow(), stays.follow(), stays.row.name) == (False, False, "Iron")
    following.close()
    pinned.close()


def test_after_the_session_ends_the_page_keeps_it_as_the_nights_recap(table):
    """At `session end` the feed and the luck stay on the session that ended, and a reveal
    after it arrives there; the next session's start clears them."""
    from tracker.app.live import Live
    from tracker.app.tracker import Tracker
    from tracker.web.feed import PLAYERS, Feed

    tracker(table, "roll", "Mira", "Lockpicking", "--dice", "3,4,5")
    tracker(table, "roll", "Vora", "Broadsword", "--secret", "--dice", "6,6,6")
    tracker(table, "hp", "Vora", "-3", "--cause", "a falling stone")
    tracker(table, "session", "end")
    opened = Tracker(str(table))
    live, feed = Live(opened), Feed(Live(opened))

    def sent(after: int) -> list[dict]:
        return [json.loads(b) for _, kind, b in feed.messages(PLAYERS, after)[1] if kind == "item"]

    shown = sent(live.session_start())
    assert shown[0]["text"] == 'session 1 "The salt mines" started'
    assert [i["sealed"] for i in shown[1:3]] == [False, True]
    board = live.board(player_view=True)
    assert (board["session"]["number"], board["running"]) == (1, False)
    assert board["luck"]["Mira"]["rolls"] == 1
    assert "Vora" not in board["luck"]
    # What the night changed, as `tracker recap` says it, stays up beside it.
    vora = next(c for c in board["recap"] if c["character"] == "Vora")
    assert [(c["track"], c["after"] - c["before"]) for c in vora["tracks"]] == [("HP", -3)]
    tracker(table, "reveal", "--session", "1")
    reveal = sent(head(table) - 1)[0]
    assert "Vora rolls Broadsword" in reveal["reveals"][0]["text"]
    assert live.board(player_view=True)["luck"]["Vora"]["rolls"] == 1
    tracker(table, "session", "start")
    assert live.board(player_view=True)["running"] is True
    assert live.board(player_view=True)["recap"] is None
    assert sent(live.session_start())[0]["text"].startswith("session 2")
    opened.close()


def test_an_undo_and_a_redo_say_what_they_took_back_and_put_back(table):
    """In the players' view a secret roll taken back stays a secret roll."""
    from tracker.app.live import Live
    from tracker.app.tracker import Tracker
    from tracker.web.feed import GM, PLAYERS, Feed

    tracker(table, "roll", "Vora", "Broadsword", "--secret", "--dice", "6,6,6")
    secret = head(table)
    tracker(table, "undo")
    tracker(table, "redo")
    tracker(table, "roll", "Mira", "Lockpicking", "--dice", "3,4,5")
    tracker(table, "undo")
    opened = Tracker(str(table))
    feed = Feed(Live(opened))
    for view, shown in ((PLAYERS, "a secret event for Vora"), (GM, "Vora rolls Broadsword")):
        texts = [json.loads(b)["text"] for _, k, b in feed.messages(view, secret)[1] if k == "item"]
        undo, redo, _, undo_mira = texts
        assert undo.startswith("undo: 1 event taken back — ")
        assert f"#{secret} {shown}" in undo
        assert redo.startswith("redo")
        assert f"#{secret} {shown}" in redo
        assert "Mira rolls Lockpicking at 12: 3+4+5 = 12 → success" in undo_mira
        if view == PLAYERS:
            assert all("Broadsword" not in t and "6+6+6" not in t for t in texts)
    opened.close()


def test_each_feed_line_says_what_it_moved_and_a_sealed_one_moves_nothing(tmp_path):
    from tracker.app.live import Live
    from tracker.app.tracker import Tracker
    from tracker.web.feed import GM, PLAYERS, Feed

    db = tmp_path / "veyra.db"
    tracker(db, "campaign", "new", "Veyra", "--system", "glintlock")
    tracker(db, "character", "add", "Wren", "--stat", "Grit=3")
    tracker(db, "session", "start")
    start = head(db)
    tracker(db, "roll", "Wren", "Grit", "--dice", "15,16")  # weak hit: +1 Mettle, +1 Threat
    tracker(db, "roll", "Wren", "Grit", "--secret", "--dice", "2,3")  # a miss, kept secret
    tracker(db, "stress", "Wren", "+2", "--cause", "the scribe")
    opened = Tracker(str(db))
    feed = Feed(Live(opened))

    def moved(view: str) -> list[list[str]]:
        sent = [json.loads(b) for _, k, b in feed.messages(view, start)[1] if k == "item"]
        return [item.get("changes", []) for item in sent]

    weak, secret, stress = moved(PLAYERS)
    assert sorted(weak) == ["Threat +1", "Wren Mettle +1"]
    assert (secret, stress) == ([], ["Wren stress +2"])
    weak, secret, stress = moved(GM)
    assert secret == ["Threat +2"]  # a miss: the GM gains 2 Threat
    opened.close()


def _glintlock_evening(db: Path, secret_dice: str) -> None:
    tracker(db, "campaign", "new", "Veyra", "--system", "glintlock")
    tracker(db, "character", "add", "Wren", "--stat", "Grit=3")
    tracker(db, "session", "start")
    tracker(db, "roll", "Wren", "Grit", "--dice", "15,16")  # weak hit: +1 Threat, in the open
    tracker(db, "roll", "Wren", "Grit", "--secret", "--dice", secret_dice)


@pytest.mark.parametrize("secret_dice", ["2,3", "19,20"])
def test_a_shared_track_a_secret_roll_may_have_moved_reads_sealed_to_the_players(
    tmp_path, secret_dice
):
    """After a secret miss (+2 Threat) the players never read a Threat the next public spend
    contradicts: they read what they saw "+ ? sealed", whatever the roll was, and the number
    once it is revealed."""
    from tracker.app.live import Live
    from tracker.app.tracker import Tracker

    db = tmp_path / "veyra.db"
    _glintlock_evening(db, secret_dice)
    opened = Tracker(str(db))
    live = Live(opened)
    players = live.board(player_view=True)
    assert (players["shared"], players["sealed"]) == (
        {"Threat": 1},
        {"campaign": 1, "characters": {"Wren": 1}},
    )
    assert live.board(player_view=False)["sealed"] is None
    gm = live.board(player_view=False)["shared"]["Threat"]
    tracker(db, "threat", "spend", "1", "--on", "the lamps go out", check=False)
    tracker(db, "reveal", "--session", "1")
    players = live.board(player_view=True)
    assert players["sealed"] == {"campaign": 0, "characters": {}}
    assert players["shared"] == live.board(player_view=False)["shared"]
    assert gm == (3 if secret_dice == "2,3" else 1)
    opened.close()


def test_the_players_board_is_the_same_whatever_a_secret_roll_did_to_the_threat(tmp_path):
    from tracker.app.live import Live
    from tracker.app.tracker import Tracker

    boards = []
    for dice in ("2,3", "19,20"):
        db = tmp_path / f"veyra-{dice}.db"
        _glintlock_evening(db, dice)
        opened = Tracker(str(db))
        board = Live(opened).board(player_view=True)
        # What differs between any two campaigns: ids and times, not what the roll did.
        text = json.dumps({k: v for k, v in board.items() if k != "version"}, sort_keys=True)
        text = re.sub(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", text)
        boards.append(re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+\+00:00", "TIME", text))
        opened.close()
    assert boards[0] == boards[1]


def test_a_new_session_that_resets_the_threat_clears_its_seal_but_not_the_characters(tmp_path):
    from tracker.app.live import Live
    from tracker.app.tracker import Tracker

    db = tmp_path / "veyra.db"
    _glintlock_evening(db, "2,3")
    tracker(db, "session", "end")
    tracker(db, "campaign", "set", "--threat-resets")
    tracker(db, "session", "start")
    opened = Tracker(str(db))
    sealed = Live(opened).board(player_view=True)["sealed"]
    # Threat started again at 0; what Wren's secret roll did to her stands until revealed.
    assert sealed == {"campaign": 0, "characters": {"Wren": 1}}
    opened.close()
