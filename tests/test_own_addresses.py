"""Every campaign at its own address: one server serves every campaign of its database under
``/c/TOKEN/`` (its players' page, console, phones and feeds), each staying on its campaign and
acting on it alone, while the plain addresses follow the table; a key made for one campaign
opens that campaign's pages alone.

Attacked as a GM of one table would attack another's on a shared server: a key for another
campaign, a phone's link at another campaign's address, the console turning the table, a
revoke of another table's invitation, made-up addresses; each refused, nothing appended.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import urllib.request
from pathlib import Path

import pytest
from test_live import (  # noqa: F401 (a fixture)
    SHEETS,
    browser,
    feed_texts,
    serving,
    sse,
    tracker,
    wait_for,
)
from test_web_app import asgi_request

from tracker.app.live import Live
from tracker.app.tracker import Tracker
from tracker.store.invitations import GM, PHONE, PLAYERS
from tracker.web.server import make_app

UNLIMITED = {"POST": (1e9, 1e9), "GET": (1e9, 1e9)}
ROLL = {"path": ["roll"], "values": {"character": "Mira", "trait": "Per", "dice": "3,4,2"}}


@pytest.fixture
def db(tmp_path) -> Path:
    """Two tables on one database: Iron (GURPS, Mira) and Veyra (Glintlock, Wren), Veyra the
    current one, each with a session running."""
    made = tmp_path / "tables.db"
    tracker(made, "campaign", "new", "Iron", "--system", "gurps")
    tracker(made, "character", "add", "--sheet", str(SHEETS / "gurps-mira.toml"))
    tracker(made, "session", "start")
    tracker(made, "campaign", "new", "Veyra", "--system", "glintlock")
    tracker(made, "character", "add", "--sheet", str(SHEETS / "glintlock-wren.toml"))
    tracker(made, "session", "start")
    return made


class Served:
    """The app over both tables, as ``tracker serve`` makes it, and the keys of each."""

    def __init__(self, db: Path, *, public: bool = False) -> None:
        self.db = db
        self.tracker = Tracker(str(db))
        self.tracker.warm = False
        self.live = Live(self.tracker)
        rows = {row.name: row for row in self.tracker.store.campaigns()}
        self.iron, self.veyra = rows["Iron"], rows["Veyra"]
        self.at = {name: f"/c/{row.campaign_id[:8]}" for name, row in rows.items()}
        store = self.tracker.store.invitations
        self.every = store.make(GM)[1]
        self.gm = {
            name: store.make(GM, campaign_id=row.campaign_id)[1] for name, row in rows.items()
        }
        state = {name: self.tracker.state(row) for name, row in rows.items()}
        self.phone = {
            name: store.make(
                PHONE,
                campaign_id=row.campaign_id,
                character_id=next(iter(state[name].characters)),
            )[1]
            for name, row in rows.items()
        }
        self.players = {
            name: store.make(PLAYERS, campaign_id=row.campaign_id)[1] for name, row in rows.items()
        }
        self.app = make_app(self.live, rates=UNLIMITED, public=public)

    def get(self, path: str, cookie: str = "") -> tuple[int, dict, bytes]:
        headers = {"cookie": cookie} if cookie else {}
        return asyncio.run(asgi_request(self.app, "GET", path, headers))

    def opened(self, page: str, cookie: str) -> dict[str, str]:
        status, _, html = self.get(page, cookie)
        assert status == 200, html[:300]
        token = re.search(rb'name="csrf-token" content="([0-9a-f]*)"', html).group(1).decode()
        return {"cookie": cookie, "x-csrf-token": token}

    def post(self, route: str, page: dict[str, str], doc: dict) -> tuple[int, dict]:
        body = json.dumps({**doc, "nonce": secrets.token_hex(12)}).encode()
        headers = {**page, "content-type": "application/json"}
        status, _, answer = asyncio.run(asgi_request(self.app, "POST", route, headers, body))
        return status, json.loads(answer)

    def heads(self) -> dict[str, int]:
        return {
            name: self.tracker.store.head(row.campaign_id).version
            for name, row in (("Iron", self.iron), ("Veyra", self.veyra))
        }


@pytest.fixture
def served(db):
    opened = Served(db)
    yield opened
    opened.tracker.close()


def test_a_campaigns_console_acts_on_it_whatever_the_table_plays(served):
    """Iron's console at Iron's address, the table playing Veyra: a roll logs in Iron, none in
    Veyra, and the console's state is Iron's."""
    at = served.at["Iron"]
    page = served.opened(f"{at}/gm", f"tracker_gm={served.gm['Iron']}")
    before = served.heads()
    status, answer = served.post(f"{at}/gm/act", page, ROLL)
    assert status == 200, answer
    assert served.heads() == {**before, "Iron": before["Iron"] + 1}
    state = json.loads(served.get(f"{at}/gm/state", page["cookie"])[2])
    assert state["campaign"] == "Iron"
    assert state["address"] == f"{at}/"
    assert state["campaigns"] == []  # one campaign's console offers no switch
    assert state["elsewhere"] == []


@pytest.mark.parametrize("key", ["Veyra", "phone"])
def test_a_key_for_another_campaign_or_door_opens_nothing_here(served, key):
    at = served.at["Iron"]
    given = served.gm["Veyra"] if key == "Veyra" else served.phone["Iron"]
    before = served.heads()
    assert served.get(f"{at}/gm?key={given}")[0] == 403
    for route in ("/gm", "/gm/state", "/gm/events"):
        assert served.get(at + route, f"tracker_gm={given}")[0] == 403, route
    status, _, _ = asyncio.run(
        asgi_request(
            served.app,
            "POST",
            f"{at}/gm/act",
            {"cookie": f"tracker_gm={given}", "content-type": "application/json"},
            json.dumps({**ROLL, "nonce": "x" * 20}).encode(),
        )
    )
    assert status == 403
    assert served.heads() == before


def test_the_gms_first_key_opens_every_campaigns_console(served):
    for name in ("Iron", "Veyra"):
        page = served.opened(f"{served.at[name]}/gm", f"tracker_gm={served.every}")
        state = json.loads(served.get(f"{served.at[name]}/gm/state", page["cookie"])[2])
        assert state["campaign"] == name


def test_at_the_plain_address_a_campaigns_key_opens_while_its_campaign_is_played(served):
    """The plain console follows the table (Veyra): Veyra's key opens it, Iron's does not;
    the key of every campaign does, and may turn the table; Veyra's may not."""
    assert served.get("/gm", f"tracker_gm={served.gm['Iron']}")[0] == 403
    veyra = served.opened("/gm", f"tracker_gm={served.gm['Veyra']}")
    before = served.heads()
    status, answer = served.post(
        "/gm/act", veyra, {"path": ["campaign", "use"], "values": {"name": "Iron"}}
    )
    assert status == 403
    assert answer["error"].startswith("This console serves Veyra alone")
    assert served.tracker.current().name == "Veyra"
    assert served.heads() == before
    every = served.opened("/gm", f"tracker_gm={served.every}")
    state = json.loads(served.get("/gm/state", every["cookie"])[2])
    assert state["campaigns"] == ["Iron", "Veyra"]


def test_a_phone_opens_at_its_campaigns_address_alone_and_rolls_there(served):
    iron, veyra = served.at["Iron"], served.at["Veyra"]
    key = served.phone["Iron"]
    status, got, _ = served.get(f"{iron}/phone?key={key}")
    assert status == 303
    assert got["location"] == f"{iron}/phone"
    assert f"Path={iron}/phone;" in got["set-cookie"]
    assert served.get(f"{veyra}/phone?key={key}")[0] == 403
    assert served.get(f"{veyra}/phone/state", f"tracker_phone={key}")[0] == 403
    page = served.opened(f"{iron}/phone", f"tracker_phone={key}")
    before = served.heads()
    status, answer = served.post(
        f"{iron}/phone/roll", page, {"trait": "Per", "values": {"dice": "3,4,2"}}
    )
    assert status == 200, answer
    assert served.heads() == {**before, "Iron": before["Iron"] + 1}


def test_a_campaigns_console_lists_and_revokes_its_own_invitations_alone(served):
    at = served.at["Iron"]
    page = served.opened(f"{at}/gm", f"tracker_gm={served.gm['Iron']}")
    state = json.loads(served.get(f"{at}/gm/state", page["cookie"])[2])
    whose = {doc["campaign_id"] for doc in state["invitations"]}
    assert whose == {served.iron.campaign_id}
    theirs = next(
        inv
        for inv in served.tracker.store.invitations.listed()
        if inv.campaign_id == served.veyra.campaign_id
    )
    status, answer = served.post(f"{at}/gm/uninvite", page, {"invitation": theirs.invitation_id})
    assert status == 404
    assert served.tracker.store.invitations.opened_by(served.gm["Veyra"]).revoked_at is None
    wren = next(iter(served.tracker.state(served.veyra).characters))
    status, answer = served.post(f"{at}/gm/invite", page, {"character": wren})
    assert status == 404
    assert answer["error"] == "No such character in this campaign to make a phone link for."


def test_an_address_no_campaign_has_is_not_found_in_one_sentence(served):
    for path in ("/c/00000000/", "/c/00000000/gm", "/c/zzzzzzzz/", "/c/", "/c/0000000/gm"):
        status, _, body = served.get(path)
        assert status == 404, path
        assert body.count(b".") <= 2, body
    status, got, _ = served.get(served.at["Iron"])
    assert status in (307, 308)
    assert got["location"].endswith(served.at["Iron"] + "/")


def test_on_a_public_server_a_players_key_opens_its_own_campaigns_page(db):
    public = Served(db, public=True)
    try:
        iron, veyra = public.at["Iron"], public.at["Veyra"]
        key = public.players["Iron"]
        status, got, _ = public.get(f"{iron}/?key={key}")
        assert status == 303
        assert got["location"] == f"{iron}/"
        assert public.get(f"{iron}/", f"tracker_players={key}")[0] == 200
        assert public.get(f"{veyra}/", f"tracker_players={key}")[0] == 403
        assert public.get(f"{veyra}/events", f"tracker_players={key}")[0] == 403
        # Both cookies held (the plain address's and Iron's): each is tried.
        both = f"tracker_players={key}; tracker_players={public.players['Veyra']}"
        assert public.get(f"{veyra}/", both)[0] == 200
        assert public.get("/", both)[0] == 200
    finally:
        public.tracker.close()


# -- through tracker serve ------------------------------------------------------------------------


def test_each_campaigns_feed_carries_its_own_table_alone(db):
    """A real server: a roll logged in Iron reaches Iron's own feed and the note logged in
    Veyra does not, while the plain feed follows Veyra, the table played."""
    with serving(db) as server:
        opened = Tracker(str(db))
        row = next(r for r in opened.store.campaigns() if r.name == "Iron")
        opened.close()
        at = f"{server.base}/c/{row.campaign_id[:8]}"
        assert "/c/" in server.printed[0]
        tracker(db, "--campaign", "Iron", "roll", "Mira", "Per", "--dice", "3,4,2")
        tracker(db, "note", "Only in Veyra")
        head = json.loads(tracker(db, "--campaign", "Iron", "log", "--json").stdout)["events"][-1]
        raw = sse(f"{at}/events", until_version=head["version"])
        assert b"Per" in raw
        assert b"Only in Veyra" not in raw
        page = urllib.request.urlopen(f"{at}/", timeout=5).read()
        assert b'data-view="players"' in page


@pytest.mark.slow
def test_a_campaigns_console_and_phone_work_at_its_own_address_in_a_browser(
    db,
    browser,  # noqa: F811 (test_live's fixture)
):
    """In a real browser, the table playing Veyra: Iron's console at Iron's address rolls for
    Mira and its feed shows the roll; Mira's phone at Iron's address shows her sheet."""
    with serving(db) as server:
        tracker_db = Tracker(str(db))
        row = next(r for r in tracker_db.store.campaigns() if r.name == "Iron")
        store = tracker_db.store.invitations
        gm_key = store.make(GM, campaign_id=row.campaign_id)[1]
        mira = next(iter(tracker_db.state(row).characters))
        phone_key = store.make(PHONE, campaign_id=row.campaign_id, character_id=mira)[1]
        tracker_db.close()
        at = f"{server.base}/c/{row.campaign_id[:8]}"
        browser.get(f"{at}/gm?key={gm_key}")
        wait_for(browser, lambda d: d.find_element("id", "campaign").text == "Iron", "Iron")
        assert browser.current_url == f"{at}/gm"
        assert not browser.find_element("id", "campaign-box").is_displayed()
        form = browser.find_element("id", "roll")
        form.find_element("name", "character").send_keys("Mira")
        form.find_element("name", "trait").send_keys("Per")
        form.find_element("name", "dice").send_keys("3,4,2")
        form.find_element("css selector", "button.primary").click()
        wait_for(browser, lambda d: any("Per" in t for t in feed_texts(d)), "the roll")
        browser.get(f"{at}/phone?key={phone_key}")
        wait_for(browser, lambda d: "Mira" in d.find_element("tag name", "body").text, "Mira")
        assert browser.current_url == f"{at}/phone"


def test_two_tables_rolling_at_once_each_log_every_roll(served):
    """Iron's and Veyra's phones press Roll together, forty times: every press answered and
    logged once in its own campaign (two campaigns' appends run on two threads at once)."""
    pages = {
        name: served.opened(f"{served.at[name]}/phone", f"tracker_phone={served.phone[name]}")
        for name in ("Iron", "Veyra")
    }
    rolls = {
        "Iron": {"trait": "Per", "values": {"dice": "3,4,2"}},
        "Veyra": {"trait": "Grit", "values": {"dice": "18,19"}},
    }
    before = served.heads()

    async def press(name: str) -> int:
        body = json.dumps({**rolls[name], "nonce": secrets.token_hex(12)}).encode()
        headers = {**pages[name], "content-type": "application/json"}
        route = f"{served.at[name]}/phone/roll"
        return (await asgi_request(served.app, "POST", route, headers, body))[0]

    async def together() -> list[int]:
        return await asyncio.gather(*(press(("Iron", "Veyra")[n % 2]) for n in range(40)))

    assert asyncio.run(together()) == [200] * 40
    assert served.heads() == {name: before[name] + 20 for name in before}
