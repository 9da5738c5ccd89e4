"""The GM's console and the players' phones, attacked from outside over HTTP.

A real `tracker serve` runs in its own process; every request is made as a browser or an
attacker on the network would make it. Each attack is refused, and the log's head is where
it was: nothing appended.
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import secrets
import time
import urllib.error
import urllib.request
from contextlib import contextmanager

import pytest
from test_live import SHEETS, browser, head, serving, sse, tracker  # noqa: F401 (a fixture)


class Client:
    """A browser: its own cookies; the page token of the last console or phone page it
    opened."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.token = ""

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        request = urllib.request.Request(self.base + path, headers=headers or {})
        try:
            with self.opener.open(request, timeout=10) as response:
                body = response.read()
                found = re.search(rb'name="csrf-token" content="([0-9a-f]*)"', body)
                if found:
                    self.token = found.group(1).decode()
                return response.status, body
        except urllib.error.HTTPError as refused:
            return refused.code, refused.read()

    def post(
        self,
        path: str,
        body: dict,
        *,
        nonce: str | None = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict]:
        sent = {**body, "nonce": nonce or secrets.token_hex(16)}
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(sent).encode(),
            method="POST",
            headers={
                "Content-Type": "application/json",
                "X-CSRF-Token": self.token if token is None else token,
                **(headers or {}),
            },
        )
        try:
            with self.opener.open(request, timeout=20) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as refused:
            raw = refused.read()
            try:
                return refused.code, json.loads(raw)
            except ValueError:
                return refused.code, {"error": raw.decode(errors="replace")}


@contextmanager
def table_served(db, *args: str):
    with serving(db, None, *args) as server:
        lines = [server.proc.stdout.readline() for _ in range(3)]
        server.phones = dict(re.findall(r"^\s+(\w+): (\S+/phone\?key=\S+)$", "".join(lines), re.M))
        yield server


@pytest.fixture
def table(tmp_path):
    db = tmp_path / "console.db"
    tracker(db, "campaign", "new", "Iron", "--system", "gurps")
    for name in ("mira", "vora"):
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"gurps-{name}.toml"))
    tracker(db, "session", "start", "--title", "The salt mines")
    return db


def path_of(link: str) -> str:
    """A phone link's path: printed with the name a phone opens it by."""
    return link[link.index("/phone") :]


def gm(server) -> Client:
    client = Client(server.base)
    status, _ = client.get(f"/gm?key={server.key}")
    assert status == 200
    assert client.token
    return client


def phone(server, name: str) -> Client:
    client = Client(server.base)
    status, _ = client.get(path_of(server.phones[name]))
    assert status == 200, name
    assert client.token
    return client


ROLL = {"path": ["roll"], "values": {"character": "Mira", "trait": "Per", "dice": "3,4,2"}}


def test_on_every_address_the_players_and_gm_addresses_are_the_ones_the_phones_open(table):
    """--host 0.0.0.0 listens on every address, which no TV or phone can open: the players' and
    the GM's addresses are printed with the machine's address on the network, as the phone
    links are."""
    with serving(table, None, "--host", "0.0.0.0") as server:
        printed = "".join(server.printed)
        while "Vora: " not in printed:
            printed += server.proc.stdout.readline()
        players = re.search(r"^  Players: (http://\S+)/$", printed, re.M)[1]
        gm_page = re.search(r"^  GM: +(http://\S+)/gm\?key=", printed, re.M)[1]
        links = set(re.findall(r"^    \w+: (http://\S+)/phone\?key=", printed, re.M))
        assert links == {players} == {gm_page}, printed
        assert "0.0.0.0:" not in players
        # What the TV is told to open answers it.
        with urllib.request.urlopen(players + "/", timeout=10) as page:
            assert page.status == 200


def test_serve_prints_a_link_per_character_and_the_console_acts_through_the_app(table):
    with table_served(table) as server:
        assert set(server.phones) == {"Mira", "Vora"}
        console = gm(server)
        before = head(table)
        status, doc = console.post("/gm/act", ROLL)
        assert status == 200, doc
        assert "Mira" in doc["text"][0]
        assert head(table) == before + 1
        status, state = console.get("/gm/state")
        assert status == 200
        desk = json.loads(state)
        assert f"#{before + 1}" in desk["undo"][0]
        assert any(f["path"] == ["roll"] for f in desk["forms"])
        # A refusal is its one sentence, and nothing is appended.
        status, doc = console.post("/gm/act", {"path": ["roll"], "values": {"character": "Nobody"}})
        assert status == 400
        assert "\n" not in doc["error"]
        assert head(table) == before + 1


def test_each_attack_is_refused_and_nothing_is_appended(table):
    with table_served(table) as server:
        console, mira = gm(server), phone(server, "Mira")
        before = head(table)
        attacks: list[tuple[str, tuple[int, dict], set[int]]] = []

        def attack(what: str, answer: tuple[int, dict], codes: set[int]) -> None:
            attacks.append((what, answer, codes))

        # A phone rolling for another character, or through the GM's door.
        attack(
            "phone names another character",
            mira.post("/phone/roll", {"trait": "Per", "values": {"character": "Vora"}}),
            {403},
        )
        attack(
            "phone body names another character",
            mira.post("/phone/roll", {"trait": "Per", "character": "Vora", "values": {}}),
            {403},
        )
        attack("phone posts to the GM's door", mira.post("/gm/act", ROLL), {403})
        attack(
            "phone gives the GM's --secret",
            mira.post("/phone/roll", {"trait": "Per", "values": {"secret": True}}),
            {403},
        )
        attack(
            "phone gives the GM's --seed",
            mira.post("/phone/roll", {"trait": "Per", "values": {"seed": "7"}}),
            {403},
        )
        # A forged reveal from a phone, and a phone answering a request never made.
        attack(
            "phone forges a reveal",
            mira.post("/gm/act", {"path": ["reveal"], "values": {"session": 1}}),
            {403},
        )
        attack(
            "phone answers no request",
            mira.post("/phone/roll", {"request": "made-up", "values": {}}),
            {409},
        )
        # Forgery from another site: no token, another origin, a form's content type.
        attack("GM cookie without the page's token", console.post("/gm/act", ROLL, token=""), {403})
        attack(
            "a phone's token on the GM's door",
            console.post("/gm/act", ROLL, token=mira.token),
            {403},
        )
        attack(
            "another origin",
            console.post("/gm/act", ROLL, headers={"Origin": "http://evil.example"}),
            {403},
        )
        attack(
            "a form's content type",
            console.post("/gm/act", ROLL, headers={"Content-Type": "text/plain"}),
            {415},
        )
        # The GM's door without the key.
        attack("the GM's door without the key", Client(server.base).post("/gm/act", ROLL), {403})
        # A foreign Host: DNS rebinding.
        attack(
            "a foreign Host",
            console.post("/gm/act", ROLL, headers={"Host": "evil.example"}),
            {421},
        )
        for what, (status, doc), codes in attacks:
            assert status in codes, (what, status, doc)
            assert doc.get("error") or status == 421, what
        assert head(table) == before

        # A replayed request logs once.
        nonce = secrets.token_hex(16)
        assert console.post("/gm/act", ROLL, nonce=nonce)[0] == 200
        status, doc = console.post("/gm/act", ROLL, nonce=nonce)
        assert status == 409, doc
        assert head(table) == before + 1
        # So does a phone's.
        roll = {"trait": "Per", "values": {"dice": "3,4,2"}}
        assert mira.post("/phone/roll", roll, nonce=nonce)[0] == 200
        assert mira.post("/phone/roll", roll, nonce=nonce)[0] == 409
        assert head(table) == before + 2


def test_the_gm_pages_need_the_key(table):
    with table_served(table) as server:
        stranger, mira = Client(server.base), phone(server, "Mira")
        for client in (stranger, mira):
            for path in ("/gm", "/gm/events", "/gm/state", "/gm/qr/anything", "/gm?key=wrong"):
                status, body = client.get(path)
                assert status == 403, path
                assert b"Mira" not in body, path
        for path in ("/phone", "/phone/state", "/phone/events", "/phone?key=wrong"):
            assert stranger.get(path)[0] == 403, path
        # GET never acts.
        assert stranger.get("/gm/act")[0] == 405
        assert mira.get("/phone/roll")[0] == 405


def test_a_revoked_phone_key_stops_at_once(table):
    with table_served(table) as server:
        console, mira = gm(server), phone(server, "Mira")
        old_link = path_of(server.phones["Mira"])
        desk = json.loads(console.get("/gm/state")[1])
        cid = next(c["id"] for c in desk["characters"] if c["name"] == "Mira")
        before = head(table)
        status, doc = console.post("/gm/revoke", {"character": cid})
        assert status == 200, doc
        assert mira.post("/phone/roll", {"trait": "Per", "values": {}})[0] == 403
        assert mira.get("/phone/state")[0] == 403
        assert Client(server.base).get(old_link)[0] == 403
        assert head(table) == before
        # The new link works, for Mira alone.
        desk = json.loads(console.get("/gm/state")[1])
        link = next(c["phone"] for c in desk["characters"] if c["name"] == "Mira")
        assert link != server.phones["Mira"]
        again = Client(server.base)
        assert again.get(path_of(link))[0] == 200
        assert json.loads(again.get("/phone/state")[1])["character"]["name"] == "Mira"


@pytest.mark.parametrize(
    ("tags", "implied"),
    [
        # Rulebook: Glintlock, 'Tag-Driven Position'; Grit 3: weak DC 14, so 7 faces of 20 hit.
        ([], "desperate: two d20, keep the lower \u00b7 12% to succeed"),
        (["1:gear"], "+1 gear \u00b7 risky: one d20 \u00b7 35% to succeed"),
        (
            ["1:gear", "1:power", "1:scene"],
            "+1 gear \u00b7 +1 power \u00b7 +1 scene \u00b7 controlled: two d20, keep the higher "
            "\u00b7 58% to succeed",
        ),
    ],
)
def test_a_request_says_all_it_implies_its_position_dice_and_chance(tmp_path, tags, implied):
    db = tmp_path / "veyra.db"
    tracker(db, "campaign", "new", "Veyra", "--system", "glintlock")
    for name in ("wren", "tomas"):  # the served table's printout is read for two phones
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"glintlock-{name}.toml"))
    tracker(db, "session", "start")
    with table_served(db) as server:
        console, wren = gm(server), phone(server, "Wren")
        ask = {"character": "wren", "trait": "grit", "values": {"tags": tags}, "secret": False}
        status, doc = console.post("/gm/ask", ask)
        assert status == 200, doc
        said = json.loads(wren.get("/phone/state")[1])["asked"]["said"]
        assert said == f"Wren: Grit at 3 \u00b7 {implied}"
        assert doc["text"] == [f"Asked {said}."]


def test_a_blind_roll_reaches_neither_the_phone_nor_the_players_until_revealed(table):
    with table_served(table) as server:
        console, mira = gm(server), phone(server, "Mira")
        status, doc = console.post(
            "/gm/ask",
            {"character": "Mira", "trait": "Per", "values": {"mods": ["-2"]}, "secret": True},
        )
        assert status == 200, doc
        state = json.loads(mira.get("/phone/state")[1])
        asked = state["asked"]
        assert asked["secret"] is True
        # What the request implies, as the players know the table: Per 12, less 2, on 3d6.
        assert asked["said"] == "Mira: Per at 10 \u00b7 \u22122 \u00b7 50% to succeed"
        # Her own options are not hers to change on a request.
        bent = {"request": asked["id"], "values": {"mods": ["+4"]}}
        assert mira.post("/phone/roll", bent)[0] == 403
        status, doc = mira.post(
            "/phone/roll", {"request": asked["id"], "values": {"dice": "1,1,1"}}
        )
        assert status == 200, doc
        assert doc == {"ok": True, "text": ["Rolled. The GM has it."], "blind": True}
        version = head(table)
        players = sse(server.base + "/events", until_version=version).decode()
        assert "a secret event for Mira" in players
        assert "critical" not in players
        assert "1, 1, 1" not in players
        assert "critical" not in json.dumps(json.loads(mira.get("/phone/state")[1]))
        # The GM sees it, and reveals it.
        desk = json.loads(console.get("/gm/state")[1])
        assert len(desk["secrets"]) == 1
        assert (
            console.post(
                "/gm/act", {"path": ["reveal"], "values": {"event": desk["secrets"][0]["event"]}}
            )[0]
            == 200
        )
        players = sse(server.base + "/events", until_version=head(table)).decode()
        assert "critical success" in players


def test_the_rate_of_actions_is_bounded(table):
    with table_served(table) as server:
        console = gm(server)
        before = head(table)
        codes = [console.post("/gm/act", ROLL, token="forged")[0] for _ in range(40)]
        assert 429 in codes
        assert set(codes) <= {403, 429}
        assert head(table) == before


# -- in a real browser -----------------------------------------------------------------------------

SHOTS = (1920, 1080), (1280, 800), (390, 844)


def _texts(driver, selector: str) -> list[str]:
    # Read in one script: the console redraws its cards as the board changes, and an element
    # found first and read after could be gone by then.
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), e => e.innerText)", selector
    )


@pytest.mark.slow
def test_a_roll_typed_in_the_console_with_the_keyboard_alone_reaches_the_players(
    table,
    browser,  # noqa: F811 (test_live's fixture)
    tmp_path,
):
    from selenium.webdriver.common.keys import Keys
    from test_live import feed_texts, wait_for

    hostile = "<img src=x onerror=document.title='owned'>"
    tracker(table, "character", "add", hostile, "--stat", "IQ=10")
    tracker(table, "note", "<script>document.title='owned'</script>")
    with table_served(table) as server:
        browser.set_window_size(1280, 800)
        browser.get(f"{server.base}/gm?key={server.key}")
        wait_for(
            browser,
            lambda d: d.switch_to.active_element.get_attribute("name") == "character",
            "focus",
        )
        before = head(table)
        typing = browser.switch_to.active_element
        typing.send_keys("Mira", Keys.TAB)
        browser.switch_to.active_element.send_keys("Stealth", Keys.ENTER)
        wait_for(browser, lambda d: head(table) == before + 1, "the roll in the log")
        wait_for(browser, lambda d: "Stealth" in d.find_element("id", "result").text, "the result")
        wait_for(browser, lambda d: any("Stealth" in t for t in feed_texts(d)), "the GM's feed")
        # Names and notes are text, never markup, on the console.
        assert any(hostile in t for t in _texts(browser, "#characters .name"))
        assert browser.title != "owned"
        assert not browser.find_elements("css selector", "#feed img, #characters img:not(.qr)")
        for w, h in SHOTS:
            browser.set_window_size(w, h)
            time.sleep(0.4)
            browser.save_screenshot(str(tmp_path / f"console-{w}.png"))
        browser.get(server.base + "/")
        wait_for(browser, lambda d: any("Stealth" in t for t in feed_texts(d)), "the players' page")
        assert any("<script>" in t for t in feed_texts(browser))
        assert browser.title != "owned"


@pytest.mark.slow
def test_a_phone_rolls_for_its_character_and_a_blind_request_stays_with_the_gm(
    table,
    browser,  # noqa: F811 (test_live's fixture)
    tmp_path,
):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    from test_live import feed_texts, wait_for

    with table_served(table) as server:
        console = gm(server)
        browser.set_window_size(390, 844)
        browser.delete_all_cookies()
        browser.get(server.phones["Mira"].replace("localhost", "127.0.0.1"))
        wait_for(browser, lambda d: d.find_element("id", "me-name").text == "Mira", "her character")
        Select(browser.find_element("css selector", "#roll select[name=trait]")).select_by_value(
            "Lockpicking"
        )
        browser.find_element("css selector", "#roll input[name=dice]").send_keys(
            "3,4,2", Keys.ENTER
        )
        wait_for(browser, lambda d: any("Lockpicking" in t for t in feed_texts(d)), "her roll")
        assert any(t.startswith("Mira") for t in feed_texts(browser) if "Lockpicking" in t)
        for w, h in SHOTS:
            browser.set_window_size(w, h)
            time.sleep(0.4)
            browser.save_screenshot(str(tmp_path / f"phone-{w}.png"))
        browser.set_window_size(390, 844)
        # The GM asks for a blind roll: it appears filled in on her phone.
        ask = {"character": "Mira", "trait": "Per", "values": {"mods": ["-2"]}, "secret": True}
        assert console.post("/gm/ask", ask)[0] == 200
        wait_for(browser, lambda d: d.find_element("id", "asked").is_displayed(), "the request")
        said = browser.find_element("id", "asked-text").text
        assert "Per at 10 \u00b7 \u22122" in said
        assert "blind roll" in said
        browser.save_screenshot(str(tmp_path / "phone-asked-390.png"))
        browser.find_element("css selector", "#answer input[name=dice]").send_keys(
            "1,1,1", Keys.ENTER
        )
        wait_for(browser, lambda d: "The GM has it" in d.find_element("id", "result").text, "blind")
        wait_for(
            browser, lambda d: any("secret event for Mira" in t for t in feed_texts(d)), "sealed"
        )
        time.sleep(0.5)
        page = browser.find_element("tag name", "main").text
        assert "critical" not in page
        browser.get(server.base + "/")
        wait_for(
            browser, lambda d: any("secret event for Mira" in t for t in feed_texts(d)), "sealed"
        )
        assert "critical" not in browser.find_element("tag name", "main").text
        # Revealed from the console, it reaches the players.
        desk = json.loads(console.get("/gm/state")[1])
        event = desk["secrets"][0]["event"]
        assert console.post("/gm/act", {"path": ["reveal"], "values": {"event": event}})[0] == 200
        wait_for(browser, lambda d: any("critical" in t for t in feed_texts(d)), "the reveal")
